/* object_reuse: reuse distances over the accesses to chosen memory
 * objects only, per object: the memory-distance paper's measure (Li,
 * Chang, Yang, Carr), where the distance of an access to a variable is
 * the number of distinct other tracked locations accessed since the
 * previous access to it, over the interleaved stream of every thread.
 *
 * The objects are address ranges, sorted and disjoint (global variables,
 * or any regions). Each is divided into units of UNIT bytes from its own
 * start (so that two small variables in one cache line stay two
 * locations, and a scalar up to UNIT bytes is one); an access touches
 * every unit of every object it overlaps, in address order, each one
 * access of the restricted stream; accesses outside every object are not
 * in it. Loads and stores of the program count; the kernel's do not (as
 * for the other reuse distances). Exact: the stream goes through the
 * same LRU stack as reuse_distance.h. */
#ifndef TRMS_OBJECT_REUSE_H
#define TRMS_OBJECT_REUSE_H

#include <stddef.h>
#include <stdint.h>

#include "analyses/result.h"
#include "trace/event.h"

struct object_range {
    uint64_t start, size;   /* size > 0 */
};

/* What the stream said of one object. */
struct object_reuse_stats {
    uint64_t accesses;          /* unit accesses, cold ones included */
    uint64_t cold;              /* first accesses to a unit */
    struct reuse_bin *bins;     /* the distances of the others: non-zero counts by
                                   distance (min: bins[0], max: the last) */
    size_t n_bins;
};

struct object_reuse;

/* N objects (sorted by start, disjoint; copied), UNIT a power of two.
 * NULL when the objects are not sorted and disjoint or UNIT is not a
 * power of two. */
struct object_reuse *object_reuse_new(const struct object_range *objects, size_t n,
                                      uint64_t unit);
void object_reuse_free(struct object_reuse *o);

/* Takes the loads and stores (other events are ignored). */
void object_reuse_event(struct object_reuse *o, const struct event *ev);

/* Object I's statistics so far (valid until the next event). */
const struct object_reuse_stats *object_reuse_stats(struct object_reuse *o, size_t i);

/* Accesses of the restricted stream so far. */
uint64_t object_reuse_accesses(const struct object_reuse *o);

#endif
