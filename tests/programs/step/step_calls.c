/* Recorded by both the step engine and the Valgrind engine (statically
 * linked and tiny: single-stepping costs ~40-70 us an instruction here):
 * the routines below must come out of both with the same calls and the
 * same RMS for every activation. Each exercises one way code reaches a
 * routine or touches memory: plain and nested calls over arrays of many
 * lengths, recursion, a call through a pointer, string instructions
 * (rep movs, rep stos), a signal handler, a longjmp out of two frames, and
 * a clock_gettime whose answer the kernel writes (the step engine hides the
 * vDSO, so that it is a system call). With "pause" it waits for a signal
 * at the end.
 * With the argument "crash" it ends in a segmentation fault. */
#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX 256
static int data[MAX];
static char from[2048], to[2048];
static jmp_buf back;
static volatile int handled;

__attribute__((noinline)) static int walk(const int *a, int n)
{
    int sum = 0;
    for (int i = 0; i < n; i++)
        sum += a[i];
    return sum;
}

__attribute__((noinline)) static int walk_twice(const int *a, int n)
{
    return walk(a, n) + walk(a, n / 2);
}

__attribute__((noinline)) static int fib(int n)
{
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

__attribute__((noinline)) static int square(int x)
{
    return x * x;
}

__attribute__((noinline)) static void copy(char *dst, const char *src, unsigned long n)
{
    __asm__ volatile("rep movsb" : "+D"(dst), "+S"(src), "+c"(n) : : "memory");
}

__attribute__((noinline)) static void fill(char *dst, unsigned long n)
{
    __asm__ volatile("rep stosb" : "+D"(dst), "+c"(n) : "a"(7) : "memory");
}

__attribute__((noinline)) static long now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec;
}

static void on_signal(int sig)
{
    handled += sig + data[1];
}

__attribute__((noinline)) static void deep(int level)
{
    if (level == 0)
        longjmp(back, 1);
    deep(level - 1);
}

int main(int argc, char **argv)
{
    int total = 0;
    for (int i = 0; i < MAX; i++)
        data[i] = i;
    static const int sizes[] = {1, 3, 8, 17, 64, 100, 256};
    for (unsigned i = 0; i < sizeof sizes / sizeof *sizes; i++)
        total += walk(data, sizes[i]);
    total += walk_twice(data, 40);
    total += fib(6);
    int (*indirect)(int) = argc > 5 ? fib : square;
    total += indirect(9);
    total += now() != 0;
    copy(to, from, 1000);
    fill(to, 600);
    signal(SIGUSR1, on_signal);
    raise(SIGUSR1);
    if (setjmp(back) == 0)
        deep(2);
    if (argc > 1 && strcmp(argv[1], "crash") == 0)
        *(volatile int *)16 = total;
    if (argc > 1 && strcmp(argv[1], "pause") == 0)
        pause();
    return total == handled ? 1 : 0;
}
