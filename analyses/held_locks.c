/* held_locks: a thread's held addresses and followed accesses (see the
 * header). */
#include "analyses/held_locks.h"

#include <stdlib.h>
#include <string.h>

#include "analyses/causal_model.h"
#include "common/oom.h"

enum held_change held_change_of(const struct sync_event *ev)
{
    if (ev->kind == SYNC_FUTEX_WAIT)
        return HELD_BLOCK;
    if (ev->kind != SYNC_ATOMIC)
        return HELD_UNCHANGED;
    if (ev->value == SYNC_ATOMIC_FOUND_ZERO)
        return HELD_TAKE;
    if (ev->value == SYNC_ATOMIC_LEFT_ZERO)
        return HELD_GIVE_BACK;
    return HELD_UNCHANGED;
}

size_t held_locks_find(const struct held_locks *h, uint64_t addr)
{
    size_t i = 0;
    while (i < h->n && h->addrs[i] != addr)
        i++;
    return i;
}

int held_locks_take(struct held_locks *h, uint64_t addr)
{
    if (held_locks_find(h, addr) < h->n)
        return 0;
    if (h->n == h->capacity) {
        h->capacity = h->capacity ? 2 * h->capacity : 4;
        h->addrs = xrealloc(h->addrs, h->capacity * sizeof *h->addrs);
    }
    h->addrs[h->n++] = addr;
    /* A queue operation's few accesses, not all: a word taken from 0 and
     * never given back (a counter) would otherwise have every later access
     * of its thread looked up (pigz: 3.7 times the time of the whole
     * profile). */
    h->follow = CAUSAL_MODEL_FOLLOWED_ACCESSES;
    return 1;
}

void held_locks_drop(struct held_locks *h, size_t i)
{
    memmove(&h->addrs[i], &h->addrs[i + 1], (h->n - i - 1) * sizeof *h->addrs);
    if (--h->n == 0)
        h->follow = 0;
}

void held_locks_sync(struct held_locks *h, const struct sync_event *ev)
{
    switch (held_change_of(ev)) {
    case HELD_TAKE:
        held_locks_take(h, ev->addr);
        break;
    case HELD_GIVE_BACK: {
        size_t i = held_locks_find(h, ev->addr);
        if (i < h->n)
            held_locks_drop(h, i);
        break;
    }
    case HELD_BLOCK:
        while (h->n)
            held_locks_drop(h, h->n - 1);
        break;
    case HELD_UNCHANGED:
        break;
    }
}

void held_locks_free(struct held_locks *h)
{
    free(h->addrs);
    *h = (struct held_locks){0};
}
