/* dispatch() ends in a tail call (a jump, not a call, at -O2): the callee
 * runs as dispatch's child, so dispatch's input is its callee's (it reads
 * no memory of its own) and its cost is the callee's and a few more.
 *
 *   tailcall [N]     dispatch(i) for i = 0..N-1 (default 10) */
#include <stdio.h>
#include <stdlib.h>

static long values[64];

__attribute__((noinline)) long target_a(long n)
{
    long sum = 0;
    for (long i = 0; i <= n % 64; i++)
        sum += values[i] * 3;
    return sum;
}

__attribute__((noinline)) long target_b(long n)
{
    long sum = 0;
    for (long i = 0; i <= n % 64; i += 2)
        sum -= values[i] >> 1;
    return sum;
}

__attribute__((noinline)) long dispatch(long x)
{
    if (x & 1)
        return target_a(x + 1);
    return target_b(x - 1);
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 10, sum = 0;
    for (int i = 0; i < 64; i++)
        values[i] = i * 7 + 1;
    for (long i = 0; i < n; i++)
        sum += dispatch(i);
    printf("%ld\n", sum);
    return 0;
}
