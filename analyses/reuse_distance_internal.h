/* reuse_distance_internal: the state of one reuse stack, shared by
 * reuse_distance.c, which runs it, and reuse_distance_state.c, which
 * saves and restores it (checkpoints). Nothing else includes this. */
#ifndef TRMS_REUSE_DISTANCE_INTERNAL_H
#define TRMS_REUSE_DISTANCE_INTERNAL_H

#include <stdint.h>

#include "analyses/shadow_map.h"

/* Smallest time window by default; also the first one. */
#define DEFAULT_MIN_WINDOW 65536u
/* After a renumbering the window holds this many times the live marks, so
 * renumberings (each O(M log M)) come at most every 7 M accesses. */
#define WINDOW_FACTOR 8
/* Distances up to this many time steps are counted by scanning the bitmap
 * directly, which beats the tree for the many short reuses of real code. */
#define SCAN_LIMIT 512u

struct reuse_distance {
    struct shadow_map last;  /* line -> time of its latest access, 0 = never */
    uint64_t *marks;         /* bit t set: time t is some line's latest access */
    uint32_t *tree;          /* Fenwick tree of popcount(marks[w]), 1-based */
    uint64_t words;          /* capacity / 64 */
    uint64_t capacity;       /* times 0 .. capacity-1; time 0 is never used */
    uint64_t min_capacity;   /* a multiple of 64 */
    uint64_t now;            /* the next time to hand out */
    uint64_t live;           /* distinct lines seen = marks set */
    uint64_t accesses;
    uint64_t cold;
    uint64_t *histogram;     /* histogram[d]: accesses at distance d */
    uint64_t span;           /* 1 + largest distance seen */
    uint64_t histogram_capacity;
};

/* A new, empty window of CAPACITY times (a multiple of 64). */
void reuse_window_allocate(struct reuse_distance *rd, uint64_t capacity);

/* Builds the Fenwick tree of a fresh window (all zero) from its marks. */
void reuse_window_count_marks(struct reuse_distance *rd);

#endif
