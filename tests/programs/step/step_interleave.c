/* Threads that compute between synchronizations, for the step engine's
 * determinism test: a producer computes, then writes a byte into a pipe;
 * a consumer reads it (blocking while the pipe is empty), then computes;
 * the main thread sleeps 30 ms (longer than the 20 ms the engine once gave
 * a call before it counted it blocked), joins them, forks a child that
 * computes and exits, and waits for it. What a seed gives, it must give on
 * every run, on a quiet or a busy machine, pinned to one core or not; and
 * since the threads spend most of their steps computing, seeds whose turn
 * lengths differ must give different interleavings. Without libc
 * (tiny_threads.h), so that a run is a few thousand steps. */
#include "tiny_threads.h"

enum { SYS_READ = 0, SYS_WRITE = 1, SYS_NANOSLEEP = 35, SYS_FORK = 57, SYS_WAIT4 = 61,
       SYS_PIPE2 = 293 };
#define ROUNDS 6
#define WORK 40

static int fds[2];
static volatile long sums[2];
static struct tiny_thread workers[2];

__attribute__((noinline)) static long compute(long x)
{
    for (int i = 0; i < WORK; i++)
        x = x * 31 + i;
    return x;
}

__attribute__((noinline)) static void producer(void)
{
    for (long r = 0; r < ROUNDS; r++) {
        sums[0] += compute(r);
        char c = (char)r;
        tiny_syscall(SYS_WRITE, fds[1], (long)&c, 1, 0);
    }
}

__attribute__((noinline)) static void consumer(void)
{
    for (long r = 0; r < ROUNDS; r++) {
        char c;
        if (tiny_syscall(SYS_READ, fds[0], (long)&c, 1, 0) != 1)
            return;
        sums[1] += compute(c);
    }
}

static void worker(long i)
{
    if (i == 0)
        producer();
    else
        consumer();
}

int main(void)
{
    if (tiny_syscall(SYS_PIPE2, (long)fds, 0, 0, 0) != 0)
        return 2;
    for (long i = 0; i < 2; i++)
        tiny_spawn(&workers[i], worker, i);
    struct { long seconds, nanoseconds; } pause = {0, 30000000};
    tiny_syscall(SYS_NANOSLEEP, (long)&pause, 0, 0, 0);
    for (int i = 0; i < 2; i++)
        tiny_join(&workers[i]);
    long child = tiny_syscall(SYS_FORK, 0, 0, 0, 0);
    if (child == 0)
        tiny_syscall(SYS_EXIT_GROUP, compute(7) & 0x7f, 0, 0, 0);
    int status = 0;
    tiny_syscall(SYS_WAIT4, child, (long)&status, 0, 0);
    return sums[0] == sums[1] && (status >> 8 & 0xff) == (compute(7) & 0x7f) ? 0 : 1;
}
