/* synthetic_trace: a large, program-like event stream for the benchmarks.
 *
 * Several threads, switched every few thousand events, each running nested
 * routine activations that touch their stack frame, scan arrays of varying
 * length in their part of the heap, look values up (mostly in a hot part of
 * their data, sometimes in data all threads share), pass values to each
 * other through shared slots, and read(2)/write(2) through I/O buffers. Generated in chunks, so traces of any length take no memory.
 *
 * The hostile shape (issue 28) is the analyses' slow path instead: skewed
 * random 8-byte loads and stores over the whole working set, about 2% calls
 * and 2% returns, and a thread switch every few hundred events. */
#ifndef TRMS_SYNTHETIC_TRACE_H
#define TRMS_SYNTHETIC_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "trace/event.h"

struct synthetic_shape {
    unsigned threads;
    uint64_t working_set;   /* heap bytes, split between the threads */
    unsigned routines;
    uint64_t seed;
    int hostile;            /* the hostile shape (above) */
};

struct synthetic_trace;

struct synthetic_trace *synthetic_new(const struct synthetic_shape *shape);
void synthetic_free(struct synthetic_trace *s);

/* Fills EVENTS with the next N events; returns how many are memory
 * accesses. */
size_t synthetic_fill(struct synthetic_trace *s, struct event *events, size_t n);

/* Calls VISIT for each address region the trace can touch (for sizing a
 * bitmap of distinct cells). */
void synthetic_regions(const struct synthetic_trace *s,
                       void (*visit)(void *ctx, uint64_t base, uint64_t size), void *ctx);

#endif
