/* Coz's Figure 1: two threads run a() and b() of nearly equal length (a
 * about 5% longer), the main thread joins both, over and over. Optimizing
 * a can only buy the difference: once a is shorter than b, b is the wait.
 * Built -O2 (the loops stay loops: volatile), noinline keeps a and b
 * routines. */
#include <pthread.h>
#include <stdio.h>

#define B_ITERATIONS 100000L
#define A_ITERATIONS (B_ITERATIONS * 105 / 100)
#define ROUNDS 8

static volatile long sink_a, sink_b;

__attribute__((noinline)) void a(void)
{
    for (long i = 0; i < A_ITERATIONS; i++)
        sink_a = sink_a + i;
}

__attribute__((noinline)) void b(void)
{
    for (long i = 0; i < B_ITERATIONS; i++)
        sink_b = sink_b + i;
}

static void *run_a(void *arg)
{
    a();
    return arg;
}

static void *run_b(void *arg)
{
    b();
    return arg;
}

int main(void)
{
    for (int round = 0; round < ROUNDS; round++) {
        pthread_t ta, tb;
        if (pthread_create(&ta, NULL, run_a, NULL) != 0 ||
            pthread_create(&tb, NULL, run_b, NULL) != 0)
            return 1;
        pthread_join(ta, NULL);
        pthread_join(tb, NULL);
    }
    printf("%ld %ld\n", sink_a, sink_b);
    return 0;
}
