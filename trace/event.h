/* event: the one stream every engine produces and every analysis consumes.
 *
 * Engines (text import, Valgrind, the step engine, rr) all reduce a program's
 * execution to this sequence, in one total order across threads; the
 * analyses see nothing else. */
#ifndef TRMS_EVENT_H
#define TRMS_EVENT_H

#include <stddef.h>
#include <stdint.h>

enum event_type {
    EVENT_THREAD,  /* following events belong to tid */
    EVENT_CALL,    /* routine activation of `routine` (routine table index) */
    EVENT_RETURN,  /* completes the innermost pending activation */
    EVENT_READ,    /* load of size bytes at addr */
    EVENT_WRITE,   /* store of size bytes at addr */
    EVENT_KREAD,   /* the kernel reads user memory for this thread */
    EVENT_KWRITE,  /* the kernel writes user memory */
    EVENT_COST,    /* the current thread executed `size` more instructions */
    EVENT_TYPE_COUNT
};

struct event {
    enum event_type type;
    uint32_t tid;      /* EVENT_THREAD */
    uint32_t routine;  /* EVENT_CALL */
    uint64_t addr;     /* memory events */
    uint64_t size;     /* memory events: bytes; EVENT_COST: instructions */
};

static inline int event_is_access(enum event_type type)
{
    return type >= EVENT_READ && type <= EVENT_KWRITE;
}

struct trms_error;

/* Where producers of events (readers, engines) deliver them; returns
 * non-zero, with ERR filled, to stop the producer. */
typedef int (*event_sink)(void *ctx, const struct event *ev, struct trms_error *err);

/* The same, for events in runs, in order (a faster sink than one call
 * each). */
typedef int (*event_batch_sink)(void *ctx, const struct event *events, size_t n,
                                struct trms_error *err);

/* A consumer's room in its batches (analyses/batch_event.h), for a
 * producer that writes the common events straight there: 0 with room for
 * at least one in [*NEXT, *END) (*FLOWS: calls, returns and costs too),
 * non-zero when they must come as struct events for now (trace_writer.h's
 * tap, trace_reader.h's options). */
struct batch_event;
typedef int (*batch_room_sink)(void *ctx, struct batch_event **next, struct batch_event **end,
                               int *flows);

/* The text format's keyword of each event type ("read", "kwrite", ...). */
const char *event_type_name(enum event_type type);

/* Largest access the trace formats accept: a `rep movs` of 4 GiB - 1. */
#define EVENT_MAX_ACCESS_SIZE UINT64_C(0xffffffff)

#endif
