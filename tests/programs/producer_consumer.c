/* A producer thread passes values to consume() through one shared slot.
 * consume(k) takes k values: its TRMS grows with k (every value is new
 * input written by the other thread) while its RMS stays the same: it
 * touches the same few cells whatever k is. The threads hand over with a
 * flag and sched_yield, not a condition variable, so that the cells each
 * call touches do not depend on how the threads happened to interleave. */
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>

static long slot;
static atomic_int full;

static void *produce(void *arg)
{
    long count = *(long *)arg;
    for (long v = 1; v <= count; v++) {
        while (atomic_load(&full))
            sched_yield();
        slot = v;
        atomic_store(&full, 1);
    }
    return NULL;
}

__attribute__((noinline)) long consume(long k)
{
    long sum = 0;
    for (long i = 0; i < k; i++) {
        while (!atomic_load(&full))
            sched_yield();
        sum += slot;
        atomic_store(&full, 0);
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
