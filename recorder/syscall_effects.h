/* syscall_effects: which user memory the kernel reads and writes for a
 * system call, from its number, its arguments and its result (x86-64 Linux).
 *
 * One table serves every engine: the Valgrind tool (which links it without
 * libc) and the step/rr decoder. It is therefore freestanding: no libc, no
 * allocation; memory the kernel looked at indirectly (iovec arrays, msghdr,
 * mmsghdr, epoll events...) is read back through a callback.
 *
 * Rules: kernel writes use the real returned length (read(2) returning 5
 * writes 5 bytes); a failed call (result in [-4095, -1]) reads and writes
 * nothing; a call with no user-memory effect (futex, getpid, close...) is
 * known and has none. */
#ifndef TRMS_SYSCALL_EFFECTS_H
#define TRMS_SYSCALL_EFFECTS_H

#include <stdint.h>

enum syscall_access { SYSCALL_KREAD, SYSCALL_KWRITE };

/* Receives one effect; effects come reads first, then writes. */
typedef void (*syscall_effect_fn)(void *ctx, enum syscall_access kind, uint64_t addr,
                                  uint64_t size);

/* Copies SIZE bytes of the program's memory at ADDR into BUF; returns 0, or
 * -1 when the memory cannot be read (that effect is then skipped). */
typedef int (*syscall_read_fn)(void *ctx, uint64_t addr, void *buf, uint64_t size);

enum syscall_known {
    SYSCALL_UNKNOWN = 0,    /* not in the table: the caller counts and reports it */
    SYSCALL_MODELED = 1,    /* effects (possibly none) were emitted */
    SYSCALL_CLIPPED = 2,    /* a count passed the kernel's bound (a corrupt record or a
                             * raised limit): effects up to the bound were emitted, and
                             * the caller counts and reports the rest as lost */
};

/* Emits the memory effects of syscall NR(ARGS) that returned RESULT;
 * READ_MEM may be NULL (no memory: effects that depend on it, such as a
 * path's length or an iovec's buffers, are skipped). */
enum syscall_known syscall_effects(uint64_t nr, const uint64_t args[6], int64_t result,
                                   syscall_read_fn read_mem, syscall_effect_fn emit,
                                   void *ctx);

/* The syscall's name ("read"), or NULL when not in the table. */
const char *syscall_name(uint64_t nr);

#endif
