/* batch_event: an event as the analysis driver hands it to the passes, in
 * batches. Validated already, threads numbered densely, 16 bytes because
 * batches travel between cores. */
#ifndef TRMS_BATCH_EVENT_H
#define TRMS_BATCH_EVENT_H

#include <stdint.h>

#include "trace/event.h"

struct batch_event {
    uint64_t value;  /* memory events: address; EVENT_CALL: routine;
                        EVENT_COST: instructions; EVENT_THREAD: tid */
    uint32_t size;   /* memory events: bytes (at most EVENT_MAX_ACCESS_SIZE);
                        EVENT_THREAD: dense thread index */
    uint8_t type;    /* enum event_type */
    uint8_t shards;  /* the input-size shards that must see it, a bit each:
                        for reads and writes (user or kernel reads), those
                        owning a cell the access touches; all for the rest */
};

/* Not an event: the analysis driver puts one before a kernel write whose
 * bytes a read brought through a pipe, FIFO or socket (value: its inode;
 * struct event's `routine` of the kernel write). The passes other than the
 * input-size one pass over it. */
#define BATCH_KSOURCE EVENT_TYPE_COUNT

/* A call, return or cost that a producer wrote straight into a batch
 * (`trms record`'s trace writer, trace_writer.h): what the analysis driver
 * (its thread's depth and instructions) and the causal input (which writes
 * calls and returns) still need of it, kept apart in the cache while the
 * batch itself may be written around it. VALUE as the batch event's; AT:
 * its slot, counted from the first of the run it came in. */
struct flow_note {
    uint64_t value;
    uint32_t at;
    uint8_t type;    /* EVENT_CALL, EVENT_RETURN or EVENT_COST */
};

_Static_assert(sizeof(struct batch_event) == 16, "a batch event is one 16-byte store");
/* engine_put() builds the second half of a batch event in a register. */
_Static_assert(__builtin_offsetof(struct batch_event, size) == 8 &&
                   __builtin_offsetof(struct batch_event, type) == 12 &&
                   __builtin_offsetof(struct batch_event, shards) == 13,
               "a batch event is value, size, type, shards, padding");

/* The second 8 bytes of a batch event of SIZE, TYPE and SHARDS as one
 * little-endian word (padding zero). */
static inline uint64_t batch_event_high(uint32_t size, uint8_t type, uint8_t shards)
{
    return (uint64_t)size | (uint64_t)type << 32 | (uint64_t)shards << 40;
}

/* Stores the batch event of VALUE and HIGH (batch_event_high) at SLOT:
 * two 8-byte stores, not one per field. Ordinary stores: the worker on the
 * other core reads the batch from the cache the two cores share
 * (streaming stores, which 08802d2 chose, sent every batch to memory
 * first: the feeding thread took 3.9-5.7 s of CPU for xz's 493 M events
 * against 3.4-4.0). The one store of every producer of batches (engine_put,
 * the analysis's fast paths, the trace reader, `trms record`'s hot loop
 * and its trace writer); `trms record`'s hot loop calls it directly, with
 * HIGH looked up by the access's trace opcodes. */
static inline void batch_event_store_halves(struct batch_event *slot, uint64_t value,
                                            uint64_t high)
{
    __builtin_memcpy(slot, &value, 8);
    __builtin_memcpy((char *)slot + 8, &high, 8);
}

/* Stores EV at SLOT (batch_event_store_halves). */
static inline void batch_event_store(struct batch_event *slot, struct batch_event ev)
{
    batch_event_store_halves(slot, ev.value, batch_event_high(ev.size, ev.type, ev.shards));
}

/* The batch event of a call, return or cost EV: the value its type keeps
 * (routine, instructions, or the address field), for every shard. */
static inline struct batch_event batch_flow_event(const struct event *ev)
{
    uint64_t value = ev->type == EVENT_CALL   ? ev->routine
                     : ev->type == EVENT_COST ? ev->size
                                              : ev->addr;
    return (struct batch_event){.value = value, .size = (uint32_t)ev->size,
                                .type = (uint8_t)ev->type, .shards = 0xff};
}

#endif
