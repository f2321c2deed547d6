/* random_trace: reproducible random multi-threaded event streams for the
 * differential and format tests: nested calls, thread switches, loads and
 * stores of odd sizes at unaligned addresses (some at the top of the
 * address space), kernel reads and writes, and costs. */
#ifndef TRMS_RANDOM_TRACE_H
#define TRMS_RANDOM_TRACE_H

#include <stdint.h>

#include "tests/fixture.h"

struct random_trace_shape {
    unsigned threads;     /* at least 1 */
    unsigned events;
    unsigned routines;    /* distinct routine names, at least 1 */
    unsigned regions;     /* address regions, at least 1 */
    uint64_t region_span; /* bytes per region */
    unsigned max_depth;
};

/* A small PRNG (splitmix64) so traces depend on the seed alone. */
uint64_t random_next(uint64_t *state);
uint64_t random_below(uint64_t *state, uint64_t bound);

/* Appends a well-formed stream (starting with a thread event) to EVENTS,
 * naming routines in ROUTINES. */
void random_trace(uint64_t seed, const struct random_trace_shape *shape,
                  struct event_list *events, struct routine_table *routines);

#endif
