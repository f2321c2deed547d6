/* sync_event: what orders the threads of a recording, beside its events.
 *
 * Engines that see synchronization record it as sync records in the trace
 * (event_codec.h: opcode 0x06, allowed only in a trace whose header has
 * TRACE_FLAG_SYNC). They are not events: the analyses never see them and
 * no event count includes them, so every result is what it was without
 * them. Readers deliver them only to a caller that asks (the causal model,
 * `trms export`). A recording without the flag (an older trms, or an
 * engine that does not record them) has no causal profile. */
#ifndef TRMS_SYNC_EVENT_H
#define TRMS_SYNC_EVENT_H

#include <stdint.h>

struct trms_error;

/* The kinds, and what ADDR and VALUE hold for each. Numbers are the trace
 * format's: never renumber. */
enum sync_kind {
    SYNC_CREATE = 1,        /* the thread created thread VALUE, which clears and
                               wakes ADDR when it exits (0: none) */
    SYNC_START = 2,         /* the thread's first instruction */
    SYNC_EXIT = 3,          /* the thread's last instruction */
    SYNC_FUTEX_WAIT = 4,    /* the thread waits on futex ADDR */
    SYNC_FUTEX_RESUME = 5,  /* the wait on ADDR returned, VALUE = errno or 0 */
    SYNC_FUTEX_WAKE = 6,    /* the thread woke VALUE waiters of futex ADDR */
    SYNC_BLOCKING = 7,      /* system call ADDR blocked VALUE ns of wall time
                               (in which, under Valgrind, no other thread ran) */
    SYNC_ATOMIC = 8,        /* a locked read-modify-write of ADDR that took it
                               from 0 (VALUE SYNC_ATOMIC_FOUND_ZERO: a lock)
                               or to 0 (SYNC_ATOMIC_LEFT_ZERO: an unlock) */
    SYNC_KIND_END
};

#define SYNC_ATOMIC_FOUND_ZERO 1u
#define SYNC_ATOMIC_LEFT_ZERO 2u

struct sync_event {
    uint32_t tid;           /* the thread it happened in */
    uint32_t kind;          /* enum sync_kind */
    uint64_t addr;
    uint64_t value;
};

typedef int (*sync_sink)(void *ctx, const struct sync_event *ev, struct trms_error *err);

/* The text format's name of KIND ("futex_wake"), NULL for none. */
const char *sync_kind_name(uint32_t kind);

/* The operands of KIND's text form, in order, as letters: 'a' ADDR, 'v'
 * VALUE ("va" for create: the child, then its clear-tid address). */
const char *sync_kind_operands(uint32_t kind);

#endif
