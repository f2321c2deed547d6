/* syscall_timeout: how long a blocking x86-64 system call waits at most,
 * read from its arguments, and which of its results says that the time ran
 * out: the step engine ends such waits in virtual time (instructions run),
 * not when the host's clock says, so that a sleep or a timed wait comes
 * back at the same point of the schedule on every run. */
#ifndef TRMS_SYSCALL_TIMEOUT_H
#define TRMS_SYSCALL_TIMEOUT_H

#include <stdint.h>

struct syscall_timeout {
    int bounded;        /* 0: waits without a limit (or the limit is unreadable) */
    int absolute;       /* the limit is a time of a clock: how long is left depends on when */
    int sleep;          /* waiting out the time is the call's purpose (nanosleep) */
    uint64_t ns;        /* the limit, from the call's entry */
    int64_t expired;    /* the result that says the time ran out */
};

/* Reads SIZE bytes of the caller's memory at ADDR into BUF: 0, or -1. */
typedef int (*syscall_memory_reader)(void *ctx, uint64_t addr, void *buf, uint64_t size);

/* The limit of call NR with ARGS; absolute limits are turned into the
 * time left by the host's clocks now. */
struct syscall_timeout syscall_timeout(uint64_t nr, const uint64_t args[6],
                                       syscall_memory_reader read, void *ctx);

#endif
