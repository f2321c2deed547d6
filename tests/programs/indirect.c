/* Calls through a function pointer and into a shared library (PLT, lazy
 * binding on the first call). */
#include <stdio.h>

long lib_scale(long x);

__attribute__((noinline)) long twice(long x)
{
    return 2 * x;
}

long (*volatile op)(long) = twice;

int main(void)
{
    long sum = 0;
    for (long i = 0; i < 5; i++)
        sum += op(i);
    for (long i = 0; i < 7; i++)
        sum += lib_scale(i);
    printf("%ld\n", sum);
    return 0;
}
