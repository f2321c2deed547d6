/* A fork-join program for the causal predictions: each round, main runs
 * serial(), then two threads run heavy() and light() and main joins them.
 * heavy() is the routine cut by CUT percent: a little faster buys its
 * whole saving, past light()'s length nothing more. */
#include <pthread.h>
#include <stdio.h>

#include "causal_work.h"

#define ROUNDS 4
#define SERIAL 400000L
#define HEAVY 1600000L
#define LIGHT 1000000L

static volatile long sink;

__attribute__((noinline)) long serial(void) { return work(SERIAL); }
__attribute__((noinline)) long heavy(void) { return work(CUT_ITERATIONS(HEAVY)); }
__attribute__((noinline)) long light(void) { return work(LIGHT); }

static void *run_heavy(void *arg)
{
    sink += heavy();
    return arg;
}

static void *run_light(void *arg)
{
    sink += light();
    return arg;
}

int main(void)
{
    for (int round = 0; round < ROUNDS; round++) {
        sink += serial();
        pthread_t th, tl;
        if (pthread_create(&th, NULL, run_heavy, NULL) != 0 ||
            pthread_create(&tl, NULL, run_light, NULL) != 0)
            return 1;
        pthread_join(th, NULL);
        pthread_join(tl, NULL);
    }
    printf("%ld\n", sink);
    return 0;
}
