/* naive_reference: a deliberately slow, obviously-correct implementation of
 * the RMS/TRMS, cost and reuse-distance analyses.
 *
 * It exists only so differential tests can compare the fast analyses against
 * it.  Everything here uses growable arrays and linear search; it is written
 * independently of the fast analyses and follows the spec in the comments of
 * naive_reference.c literally (the TRMS part follows Figure 10 of the TRMS
 * paper: one set L_r per pending activation). */
#ifndef TRMS_NAIVE_REFERENCE_H
#define TRMS_NAIVE_REFERENCE_H

#include <stddef.h>
#include <stdint.h>

#include "trace/event.h"
#include "analyses/activation.h"
#include "analyses/result.h"

struct naive_histogram {
    uint64_t accesses;          /* line accesses, cold ones included */
    uint64_t cold;              /* first accesses to a line */
    uint64_t *count_by_distance;/* count_by_distance[d] = accesses with distance d */
    size_t length;              /* entries in count_by_distance (max distance + 1, or 0) */
};

struct naive_result {
    struct activation *activations;  /* completion order, each with its context */
    size_t n_activations;
    struct calling_context *contexts; /* numbered in order of first call; 0 the root */
    size_t n_contexts;
    struct naive_histogram global;
    uint32_t *thread_tids;           /* threads in order of first appearance */
    struct naive_histogram *threads; /* per-thread histogram, same order */
    size_t n_threads;
};

/* Returns 0, or -1 on a malformed stream (event before any EVENT_THREAD,
 * return with no pending call), on cell_size or line_size 0, on an unknown
 * event type, or on allocation failure.  On -1, *out is left empty (all
 * zero) and nothing needs freeing. */
int naive_analyze(const struct event *events, size_t n_events,
                  uint64_t cell_size, uint64_t line_size,
                  struct naive_result *out);

/* Frees everything naive_analyze put in *r and zeroes it.  Safe on a zeroed
 * result. */
void naive_result_free(struct naive_result *r);

/* Reuse distance over the accesses to some objects only (the restricted
 * stream of the memory-distance paper): each load or store, byte by byte
 * in address order, touches the unit (UNIT bytes from its object's start)
 * of the object holding the byte, once per unit; the distance of a unit
 * access is the number of distinct other units in the stream since its
 * previous access. PER_OBJECT (N_OBJECTS zeroed histograms) receives each
 * object's. The objects must not overlap; any order. 0, or -1 on
 * allocation failure. */
struct naive_object {
    uint64_t start, size;
};
int naive_object_reuse(const struct event *events, size_t n_events,
                       const struct naive_object *objects, size_t n_objects,
                       uint64_t unit, struct naive_histogram *per_object);

void naive_histogram_free(struct naive_histogram *h);

#endif
