/* A producer thread passes values to consume() through one shared slot.
 * consume(k) takes k values: its TRMS grows with k (every value is new
 * input written by the other thread) while its RMS stays the same. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static long slot;
static int full;

static void *produce(void *arg)
{
    long count = *(long *)arg;
    for (long v = 1; v <= count; v++) {
        pthread_mutex_lock(&lock);
        while (full)
            pthread_cond_wait(&changed, &lock);
        slot = v;
        full = 1;
        pthread_cond_signal(&changed);
        pthread_mutex_unlock(&lock);
    }
    return NULL;
}

__attribute__((noinline)) long consume(long k)
{
    long sum = 0;
    for (long i = 0; i < k; i++) {
        pthread_mutex_lock(&lock);
        while (!full)
            pthread_cond_wait(&changed, &lock);
        sum += slot;
        full = 0;
        pthread_cond_signal(&changed);
        pthread_mutex_unlock(&lock);
    }
    return sum;
}

int main(int argc, char **argv)
{
    long total = 0;
    for (int i = 1; i < argc; i++)
        total += strtol(argv[i], NULL, 10);
    pthread_t producer;
    pthread_create(&producer, NULL, produce, &total);
    long sum = 0;
    for (int i = 1; i < argc; i++)
        sum += consume(strtol(argv[i], NULL, 10));
    pthread_join(producer, NULL);
    printf("%ld\n", sum);
    return 0;
}
