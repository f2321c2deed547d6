/* input_size: RMS and TRMS of every routine activation, in one pass.
 *
 * The read/write timestamping algorithm of the TRMS paper (Figures 11 and
 * 12), with the RMS of the original latest-access algorithm computed from the
 * same per-thread timestamps. Each completed activation goes to a sink, in
 * completion order. */
#ifndef TRMS_INPUT_SIZE_H
#define TRMS_INPUT_SIZE_H

#include <stddef.h>
#include <stdint.h>

#include "analyses/activation.h"
#include "analyses/batch_event.h"
#include "trace/event.h"

struct input_size;

/* CELL_SHIFT: log2 of the cell size in bytes. The instance computes shard
 * SHARD of 2^SHARD_SHIFT: its activations carry the RMS, TRMS and induced
 * input of its share of the cells, and the shards' sum is the whole (cost
 * and the rest are complete in every shard). */
struct input_size *input_size_new(unsigned cell_shift, unsigned shard, unsigned shard_shift,
                                  activation_sink sink, void *ctx);
void input_size_free(struct input_size *is);

/* Makes the thread with dense index INDEX current; INDEX equal to the number
 * of threads seen so far introduces a new thread with id TID. */
void input_size_switch(struct input_size *is, uint32_t index, uint32_t tid);

void input_size_call(struct input_size *is, uint32_t routine);

/* Returns -1 when only the root activation is pending. */
int input_size_return(struct input_size *is);

/* TYPE is EVENT_READ, EVENT_WRITE, EVENT_KREAD or EVENT_KWRITE. */
void input_size_access(struct input_size *is, enum event_type type, uint64_t addr,
                       uint64_t size);

/* Sharding: shard s of 2^shard_shift owns the cells of every
 * 2^shard_shift-th group of 2^INPUT_SIZE_GRAIN_BITS consecutive cells. */
#define INPUT_SIZE_GRAIN_BITS 4

/* The shards owning a cell of the SIZE bytes at ADDR, a bit each: the tag
 * of a read or write in a batch (struct batch_event), so that a shard
 * passes over the others' accesses without looking at them. */
static inline uint8_t input_size_shards_of(unsigned cell_shift, unsigned shard_shift,
                                           uint64_t addr, uint64_t size)
{
    uint64_t first = (addr >> cell_shift) >> INPUT_SIZE_GRAIN_BITS;
    uint64_t last = ((addr + size - 1) >> cell_shift) >> INPUT_SIZE_GRAIN_BITS;
    uint64_t mask = (UINT64_C(1) << shard_shift) - 1;
    if (first == last)
        return (uint8_t)(1u << (first & mask));
    if (last - first >= mask)
        return (uint8_t)((1u << (1u << shard_shift)) - 1); /* every shard */
    uint8_t shards = 0;
    for (uint64_t g = first; g <= last; g++)
        shards |= (uint8_t)(1u << (g & mask));
    return shards;
}

/* Returns -1 when the thread's instruction count would pass 2^64. */
int input_size_cost(struct input_size *is, uint64_t instructions);

/* The events of a batch, in order (the same as the calls above, with the
 * access path inlined); accesses whose shards tag leaves this shard out
 * are passed over. */
void input_size_run(struct input_size *is, const struct batch_event *events, size_t n);

/* Completes every pending activation: threads in order of first
 * appearance, innermost first, each thread's root last. */
void input_size_finish(struct input_size *is);

size_t input_size_bytes(const struct input_size *is);

/* Leaves kernel writes out: the RMS stays exact (it never looks at write
 * times, and a kernel write's tick keeps every order it compares), TRMS
 * and induced input do not. For analyses without TRMS. */
void input_size_skip_kernel_writes(struct input_size *is);

/* Timestamps are renumbered (the paper's Figure 13) when they reach LIMIT;
 * the default is the whole range the shadow records hold. Tests lower it so
 * that renumbering happens often. */
void input_size_set_time_limit(struct input_size *is, uint64_t limit);
uint64_t input_size_renumberings(const struct input_size *is);

#endif
