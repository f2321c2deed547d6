/* rerun_sync: what orders threads, read off rerun records (registers
 * before and after each step, a system call's registers at its entry and
 * exit), by the rules the Valgrind tool applies (recorder/valgrind/
 * trms_tool.c), so that a step or rr recording gets the same sync records
 * (trace/sync_event.h) and `trms causal` the same model.
 *
 * Locked read-modify-writes: records carry registers, not memory, so only
 * the instructions whose registers tell the word's old and new values are
 * read: `lock cmpxchg`, `xchg` with memory (locked without the prefix) and
 * `lock xadd`. They are what mutexes and most locks are made of (glibc
 * locks with cmpxchg, unlocks with xchg). Other locked arithmetic
 * (`lock add`, `lock dec`, `lock or`...) is counted, not read: it may take
 * a word to or from 0 unseen. */
#ifndef TRMS_RERUN_SYNC_H
#define TRMS_RERUN_SYNC_H

#include <stddef.h>
#include <stdint.h>

#include "replayer/rerun_record.h"

enum rerun_atomic {
    RERUN_ATOMIC_NONE,      /* not a locked read-modify-write of memory */
    RERUN_ATOMIC_READ,      /* one whose values the registers tell: *TRANSITION */
    RERUN_ATOMIC_UNREAD,    /* locked arithmetic the registers do not tell */
};

/* The instruction at BYTES[0..N), run from PRE to POST: with READ,
 * *TRANSITION is SYNC_ATOMIC_FOUND_ZERO (0 to non-zero), SYNC_ATOMIC_LEFT_ZERO
 * (non-zero to 0) or 0 (neither: a counter, a failed cmpxchg). */
enum rerun_atomic rerun_sync_atomic(const uint8_t *bytes, size_t n, const struct rerun_record *pre,
                                    const struct rerun_record *post, uint64_t *transition);

/* futex(2) operations (its second argument) that wait on the first
 * address, and those that wake there (requeues and WAKE_OP too). */
int rerun_sync_futex_waits(uint64_t op);
int rerun_sync_futex_wakes(uint64_t op);

/* The system calls that may block on something outside the process's
 * threads (x86-64 numbers), the Valgrind tool's list: fixed delays to the
 * causal model. */
int rerun_sync_may_block(uint64_t nr);

#endif
