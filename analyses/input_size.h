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

/* Returns -1 when the thread's instruction count would pass 2^64. */
int input_size_cost(struct input_size *is, uint64_t instructions);

/* The events of a batch, in order (the same as the calls above, with the
 * access path inlined). */
void input_size_run(struct input_size *is, const struct batch_event *events, size_t n);

/* Completes every pending activation: threads in order of first
 * appearance, innermost first, each thread's root last. */
void input_size_finish(struct input_size *is);

size_t input_size_bytes(const struct input_size *is);

/* Timestamps are renumbered (the paper's Figure 13) when they reach LIMIT;
 * the default is the whole range the shadow records hold. Tests lower it so
 * that renumbering happens often. */
void input_size_set_time_limit(struct input_size *is, uint64_t limit);
uint64_t input_size_renumberings(const struct input_size *is);

#endif
