/* The four threads of Table 4 of the memory-distance paper (Li, Chang,
 * Yang, Carr): thread i makes e_i on its own variable (A, B, C, D), then
 * e_(i+4) on A. Of the 2520 interleavings, A's reuse distance is 3 only
 * in those where an access to A is followed by B, C and D before the next
 * one. Here the first access of each thread is a write and the second a
 * read of A, and the threads start together from a barrier. */
#include "tiny_threads.h"

volatile int A, B, C, D;
static volatile int arrived;
static struct tiny_thread workers[4];

__attribute__((noinline)) static void thread1(void) { A = 1; (void)A; }
__attribute__((noinline)) static void thread2(void) { B = 2; (void)A; }
__attribute__((noinline)) static void thread3(void) { C = 3; (void)A; }
__attribute__((noinline)) static void thread4(void) { D = 4; (void)A; }

static void worker(long i)
{
    tiny_barrier(&arrived, 4);
    switch (i) {
    case 0: thread1(); break;
    case 1: thread2(); break;
    case 2: thread3(); break;
    default: thread4(); break;
    }
}

int main(void)
{
    for (long i = 0; i < 4; i++)
        tiny_spawn(&workers[i], worker, i);
    for (int i = 0; i < 4; i++)
        tiny_join(&workers[i]);
    return 0;
}
