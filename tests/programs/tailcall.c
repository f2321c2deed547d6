/* dispatch() ends in a tail call (a jump, not a call, at -O2): the callee
 * runs as dispatch's child, so dispatch's input is its callee's (it reads
 * no memory of its own) and its cost is the callee's and a few more.
 *
 * cond_dispatch() tail-calls target_a through a conditional jump (`jz
 * target_a`, written out in assembly: compilers rarely emit one), for
 * every argument but 0, for which it returns 0 itself. (Valgrind makes
 * the taken side of jz a side exit of the block, where that of jnz would
 * be its end: the exit is the case tested here.)
 *
 *   tailcall [N]           dispatch(i) for i = 0..N-1 (default 10)
 *   tailcall N conditional cond_dispatch(i) for i = 0..N-1 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

#ifdef __cplusplus
/* (the C build's only: target_a's name is mangled here) */
static long cond_dispatch(long x)
{
    return dispatch(x);
}
#else
long cond_dispatch(long x);
__asm__(".text\n"
        ".globl cond_dispatch\n"
        ".type cond_dispatch, @function\n"
        "cond_dispatch:\n"
        "    test %rdi, %rdi\n"
        "    sete %al\n"
        "    test %al, %al\n"
        "    jz target_a\n"
        "    xor %eax, %eax\n"
        "    ret\n"
        ".size cond_dispatch, . - cond_dispatch\n");
#endif

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 10, sum = 0;
    int conditional = argc > 2 && strcmp(argv[2], "conditional") == 0;
    for (int i = 0; i < 64; i++)
        values[i] = i * 7 + 1;
    for (long i = 0; i < n; i++)
        sum += conditional ? cond_dispatch(i) : dispatch(i);
    printf("%ld\n", sum);
    return 0;
}
