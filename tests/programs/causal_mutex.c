/* Threads contending for one mutex, for the causal predictions: each
 * thread, round after round, runs outside() unlocked, then inside() with
 * the mutex held. inside() is the routine cut by CUT percent. Uncut, the
 * mutex is the bottleneck (two inside() per round are longer than one
 * round of a thread); cut by half or more, the threads are. */
#include <pthread.h>
#include <stdio.h>

#include "causal_work.h"

#define THREADS 2
#define ROUNDS 8
#define INSIDE 300000L
#define OUTSIDE 200000L

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static volatile long sink;

__attribute__((noinline)) long inside(void) { return work(CUT_ITERATIONS(INSIDE)); }
__attribute__((noinline)) long outside(void) { return work(OUTSIDE); }

static void *worker(void *arg)
{
    for (int round = 0; round < ROUNDS; round++) {
        long x = outside();
        pthread_mutex_lock(&lock);
        sink += x + inside();
        pthread_mutex_unlock(&lock);
    }
    return arg;
}

int main(void)
{
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        if (pthread_create(&t[i], NULL, worker, NULL) != 0)
            return 1;
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    printf("%ld\n", sink);
    return 0;
}
