/* Two threads hand N values through one slot guarded by a mutex, a
 * condition variable saying whether the slot is full: every hand-over is
 * a futex wait and wake for the step engine's schedule to follow, and the
 * consumer's reads of the slot are induced by the producer. */
#include <pthread.h>
#include <stdlib.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static int slot, full;

__attribute__((noinline)) static void put(int v)
{
    pthread_mutex_lock(&lock);
    while (full)
        pthread_cond_wait(&changed, &lock);
    slot = v;
    full = 1;
    pthread_cond_signal(&changed);
    pthread_mutex_unlock(&lock);
}

__attribute__((noinline)) static int take(void)
{
    pthread_mutex_lock(&lock);
    while (!full)
        pthread_cond_wait(&changed, &lock);
    int v = slot;
    full = 0;
    pthread_cond_signal(&changed);
    pthread_mutex_unlock(&lock);
    return v;
}

static void *producer(void *arg)
{
    int n = *(int *)arg;
    for (int i = 1; i <= n; i++)
        put(i);
    return NULL;
}

__attribute__((noinline)) static long consume(int n)
{
    long sum = 0;
    for (int i = 0; i < n; i++)
        sum += take();
    return sum;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 20;
    pthread_t t;
    pthread_create(&t, NULL, producer, &n);
    long sum = consume(n);
    pthread_join(t, NULL);
    return sum == (long)n * (n + 1) / 2 ? 0 : 1;
}
