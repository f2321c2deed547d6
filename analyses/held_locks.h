/* held_locks: the causal model's rule for which of a thread's memory
 * accesses it follows (causal_model.h), kept in one place because the
 * stored causal input (causal_input.c) must keep exactly those.
 *
 * A thread holds an address from a locked read-modify-write that took it
 * from 0 until the same thread gives it back to 0, or until it waits on a
 * futex (then it holds nothing: what it held was no lock). After each
 * take of an address it did not hold, its next
 * CAUSAL_MODEL_FOLLOWED_ACCESSES reads and writes are followed, until it
 * holds nothing. Its callers count and follow accesses only once the
 * program is threaded (causal_model.h): before that nothing is asked.
 *
 * Addresses are any one-to-one name of them (the model's address ids).
 * Held addresses keep the order they were taken in, innermost last, so a
 * caller may keep what it knows of each in an array of its own with the
 * same indexes. */
#ifndef TRMS_HELD_LOCKS_H
#define TRMS_HELD_LOCKS_H

#include <stddef.h>
#include <stdint.h>

#include "trace/sync_event.h"

struct held_locks {
    uint64_t *addrs;        /* held, in the order taken */
    size_t n, capacity;
    uint32_t follow;        /* accesses still followed */
};

/* What a sync record does to its thread's held addresses. */
enum held_change {
    HELD_UNCHANGED,
    HELD_TAKE,              /* took ADDR from 0 */
    HELD_GIVE_BACK,         /* gave ADDR back to 0 */
    HELD_BLOCK,             /* waits on a futex: holds nothing */
};
enum held_change held_change_of(const struct sync_event *ev);

/* ADDR's index, or H->n when it is not held. */
size_t held_locks_find(const struct held_locks *h, uint64_t addr);

/* Takes ADDR: 1 when it was not held (now at index H->n - 1, its
 * accesses followed anew), 0 when it was (nothing changes). */
int held_locks_take(struct held_locks *h, uint64_t addr);

/* Drops the Ith held address (I < H->n); with the last, following ends. */
void held_locks_drop(struct held_locks *h, size_t i);

/* Applies EV (held_change_of) to H, for a caller with nothing of its own
 * to do on a change. */
void held_locks_sync(struct held_locks *h, const struct sync_event *ev);

/* Whether the thread's next access is followed; counts it if so. */
static inline int held_locks_follow_access(struct held_locks *h)
{
    if (!h->follow)
        return 0;
    h->follow--;
    return 1;
}

void held_locks_free(struct held_locks *h);

#endif
