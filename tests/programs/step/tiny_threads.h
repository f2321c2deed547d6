/* tiny_threads: threads without libc, for the step engine's smallest
 * test programs. Every instruction is a ptrace step; static glibc's
 * start-up and pthread_create alone take some 30,000, these a few dozen,
 * so that a test can afford hundreds of runs. Threads are clone(2)s
 * sharing everything, joined through the tid word the kernel clears and
 * wakes at their exit; a barrier on a futex lets them start together. */
#ifndef TINY_THREADS_H
#define TINY_THREADS_H

#include "tiny_syscall.h"

enum { SYS_CLONE = 56, SYS_EXIT = 60, SYS_FUTEX = 202, SYS_EXIT_GROUP = 231 };
enum { FUTEX_WAIT = 0, FUTEX_WAKE = 1 };
/* CLONE_VM FS FILES SIGHAND THREAD SYSVSEM PARENT_SETTID CHILD_CLEARTID */
#define TINY_CLONE_FLAGS 0x00350f00L

struct tiny_thread {
    volatile int tid;  /* non-zero while it runs */
    char stack[16384] __attribute__((aligned(16)));
};

/* Runs FN(ARG) on a new thread T. */
static void tiny_spawn(struct tiny_thread *t, void (*fn)(long), long arg)
{
    register long r10 __asm__("r10") = (long)&t->tid;  /* cleared at exit */
    register long r8 __asm__("r8") = 0;
    register long r12 __asm__("r12") = arg;
    register void (*r13)(long) __asm__("r13") = fn;
    long ret;
    __asm__ volatile("syscall\n\t"
                     "test %%rax, %%rax\n\t"
                     "jnz 1f\n\t"
                     "xor %%ebp, %%ebp\n\t"       /* the child, on its own stack */
                     "mov %%r12, %%rdi\n\t"
                     "call *%%r13\n\t"
                     "mov $60, %%eax\n\t"         /* exit: this thread only */
                     "xor %%edi, %%edi\n\t"
                     "syscall\n\t"
                     "1:"
                     : "=a"(ret)
                     : "a"((long)SYS_CLONE), "D"(TINY_CLONE_FLAGS),
                       "S"(t->stack + sizeof t->stack), "d"(&t->tid), "r"(r10), "r"(r8),
                       "r"(r12), "r"(r13)
                     : "rcx", "r11", "memory");
    (void)ret;
}

static void tiny_join(struct tiny_thread *t)
{
    int tid;
    while ((tid = t->tid) != 0)
        tiny_syscall(SYS_FUTEX, (long)&t->tid, FUTEX_WAIT, tid, 0);
}

/* Returns once N threads have called it. */
static void tiny_barrier(volatile int *arrived, int n)
{
    int now = __atomic_add_fetch(arrived, 1, __ATOMIC_SEQ_CST);
    if (now == n) {
        tiny_syscall(SYS_FUTEX, (long)arrived, FUTEX_WAKE, n, 0);
        return;
    }
    while ((now = *arrived) < n)
        tiny_syscall(SYS_FUTEX, (long)arrived, FUTEX_WAIT, now, 0);
}

int main(void);

/* The process starts here: main's value is the exit status. */
__asm__(".globl _start\n"
        "_start:\n\t"
        "xor %ebp, %ebp\n\t"
        "and $-16, %rsp\n\t"
        "call main\n\t"
        "mov %eax, %edi\n\t"
        "mov $231, %eax\n\t"
        "syscall\n\t"
        "hlt\n");

#endif
