/* trms: the command itself, a small static program that blocks SIGTERM,
 * SIGHUP and SIGINT with its first instruction and executes the real trms
 * beside it (tools/launcher.h says why). Static: no dynamic linker runs
 * before it; and its entry point blocks them before the C library's own
 * start-up (cpuid, relocations: long under a hypervisor). */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tools/launcher.h"

static const int stop[] = {SIGTERM, SIGHUP, SIGINT};
#define N_STOP (sizeof stop / sizeof *stop)

/* The kernel's sigset: one bit per signal, signal N at bit N - 1. */
#define KERNEL_BIT(sig) (1ul << ((sig) - 1))
const unsigned long launcher_block = KERNEL_BIT(SIGTERM) | KERNEL_BIT(SIGHUP) | KERNEL_BIT(SIGINT);
unsigned long launcher_before;   /* the mask the process started with */
int launcher_blocked_early;

#if defined(__x86_64__)
/* The entry point (-e launcher_entry): rt_sigprocmask(SIG_BLOCK,
 * &launcher_block, &launcher_before, 8), then the C library's _start with
 * the registers the kernel gave (%rdx is its exit function). */
__asm__(".text\n"
        ".globl launcher_entry\n"
        ".type launcher_entry, @function\n"
        "launcher_entry:\n"
        "    mov %rdx, %r12\n"
        "    mov $14, %eax\n"
        "    xor %edi, %edi\n"
        "    lea launcher_block(%rip), %rsi\n"
        "    lea launcher_before(%rip), %rdx\n"
        "    mov $8, %r10d\n"
        "    syscall\n"
        "    movl $1, launcher_blocked_early(%rip)\n"
        "    mov %r12, %rdx\n"
        "    xor %r12d, %r12d\n"
        "    jmp _start\n");
#endif

int main(int argc, char **argv)
{
    (void)argc;
    sigset_t set, before;
    sigemptyset(&set);
    for (size_t i = 0; i < N_STOP; i++)
        sigaddset(&set, stop[i]);
    sigprocmask(SIG_BLOCK, &set, &before);  /* (where the entry point could not) */
    /* Only those blocked here are the real trms's to unblock. */
    char unblock[32] = "";
    size_t used = 0;
    for (size_t i = 0; i < N_STOP; i++) {
        int was = launcher_blocked_early ? (launcher_before & KERNEL_BIT(stop[i])) != 0
                                         : sigismember(&before, stop[i]);
        if (!was)
            used += (size_t)snprintf(unblock + used, sizeof unblock - used, "%s%d",
                                     used ? "," : "", stop[i]);
    }
    setenv(LAUNCHER_UNBLOCK_ENV, unblock, 1);
    char self[PATH_MAX], real[PATH_MAX + sizeof LAUNCHER_REAL_PATH];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
        self[n] = '\0';
        char *slash = strrchr(self, '/');
        if (slash)
            *slash = '\0';
        snprintf(real, sizeof real, "%s/" LAUNCHER_REAL_PATH, self);
        execv(real, argv);
    }
    int e = n > 0 ? errno : ENOENT;
    fprintf(stderr, "trms: cannot run the trms binary (%s): %s\n", n > 0 ? real : "/proc/self/exe",
            strerror(e));
    return 1;
}
