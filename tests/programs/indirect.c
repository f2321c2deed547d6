/* Calls through a function pointer and into a shared library (PLT, lazy
 * binding on the first call). */
#include <stdio.h>

long lib_scale(long x);

__attribute__((noinline)) long twice(long x)
{
    return 2 * x;
}

long (*volatile op)(long) = twice;

/* Calls lib_scale through the PLT: with lazy binding its first call would
 * run the dynamic linker's resolver too. */
__attribute__((noinline)) long through_plt(long x)
{
    return lib_scale(x) + 1;
}

int main(void)
{
    long sum = 0;
    for (long i = 0; i < 5; i++)
        sum += op(i);
    for (long i = 0; i < 7; i++)
        sum += through_plt(i);
    printf("%ld\n", sum);
    return 0;
}
