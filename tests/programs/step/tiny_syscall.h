/* tiny_syscall: the one system call of the step engine's libc-free test
 * programs (tiny_threads.h, step_tree.c, step_outside.c): number NR with
 * up to four arguments, the kernel's return value (-errno on failure).
 * Pass 0 for the arguments a call does not take. */
#ifndef TINY_SYSCALL_H
#define TINY_SYSCALL_H

static long tiny_syscall(long nr, long a, long b, long c, long d)
{
    long ret;
    register long r10 __asm__("r10") = d;  /* the kernel's fourth, not rcx */
    __asm__ volatile("syscall"
                     : "=a"(ret)
                     : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10)
                     : "rcx", "r11", "memory");
    return ret;
}

#endif
