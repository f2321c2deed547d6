/* The two threads of Table 2 of the memory-distance paper (Li, Chang,
 * Yang, Carr): thread 1 accesses A B C A C C B A, thread 2 C B A C B B A
 * C; Table 3 lists seven of their interleavings and the reuse distances
 * each gives. Here thread 1 reads and thread 2 writes, so that thread 1's
 * input induced by thread 2 changes with the interleaving too; the
 * threads start together from a barrier. */
#include "tiny_threads.h"

volatile int A, B, C;
static volatile int arrived;
static struct tiny_thread workers[2];

__attribute__((noinline)) static void thread1(void)
{
    (void)A; (void)B; (void)C; (void)A; (void)C; (void)C; (void)B; (void)A;
}

__attribute__((noinline)) static void thread2(void)
{
    C = 1; B = 2; A = 3; C = 4; B = 5; B = 6; A = 7; C = 8;
}

static void worker(long i)
{
    tiny_barrier(&arrived, 2);
    if (i == 0)
        thread1();
    else
        thread2();
}

int main(void)
{
    for (long i = 0; i < 2; i++)
        tiny_spawn(&workers[i], worker, i);
    for (int i = 0; i < 2; i++)
        tiny_join(&workers[i]);
    return 0;
}
