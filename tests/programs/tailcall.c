/* dispatch() ends in a tail call (a jump, not a call, at -O2): the
 * callee's activation replaces dispatch's, and both are counted. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) long target_a(long x)
{
    return x * 3 + (x >> 2);
}

__attribute__((noinline)) long target_b(long x)
{
    return x * 5 - (x >> 3);
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
    for (long i = 0; i < n; i++)
        sum += dispatch(i);
    printf("%ld\n", sum);
    return 0;
}
