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
 * renumberings (each O(M)) come at most every 7 M accesses. */
#define WINDOW_FACTOR 8
/* The marks are counted in groups of at most one cache line each, so that
 * counting the marks after a time reads one line per level, with the same
 * few instructions whatever the time's place in it (no loop whose length
 * the branch predictor must guess):
 *
 *   level 0      the words of marks, in groups of 4 (256 times; half a
 *                line: as many levels for windows up to 2^24 times, half
 *                the popcounts of 8);
 *   level k > 0  counts[k][j]: the marks of group j of level k-1, in
 *                groups of 16 (so 2^(8 + 4(k-1)) times per entry).
 *
 * The top level is one group. Moving a mark costs one add per level whose
 * group changes; the count after a time sums the entries after its own in
 * its group, level by level, up to the level where its group is the
 * present's (nothing is marked past the present). Counts are 32 bits: a
 * stack holds fewer than 2^32 lines. */
#ifndef REUSE_WORD_GROUP_BITS
#define REUSE_WORD_GROUP_BITS 2 /* a test builds smaller groups, to climb every level */
#endif
#ifndef REUSE_GROUP_BITS
#define REUSE_GROUP_BITS 4
#endif
#define COUNT_LEVELS_MAX ((36 - REUSE_WORD_GROUP_BITS) / REUSE_GROUP_BITS + 2) /* 2^36 words */

/* Distances at least this large are counted in the histogram a few far
 * distances later, their entry asked for when they come: the histogram is
 * 8 bytes per distance, and the far end of a large one misses the caches. */
#define FAR_DISTANCE 4096u
#define PENDING_FAR 16u
#define MARKS_AHEAD_WINDOW 4096u
#define MARKS_AHEAD_LINES (UINT64_C(1) << 17) /* 1 MiB of latest times */

/* The front: the most recent distinct lines, apart from the marks. Most
 * reuses are short (xz: 73% of accesses at distance below 8, a third of
 * them the latest line): found in the front, a reuse's distance is its
 * rank there, and nothing in the marks moves. The marks hold the lines
 * that fell out of the front, at the times they fell out, so a line found
 * there is behind the whole front: its distance is the front's lines plus
 * the marks after its own.
 *
 * A front line's record says where it is (FRONT_RECORD | its entry), so
 * that the record the access reads anyway finds it: no search. Its entry
 * stays put while it is in the front; its rank (0: the latest line) is a
 * byte of a vector, all of which change in one step when a line comes to
 * the front. */
#ifndef REUSE_FRONT
#define REUSE_FRONT 16u /* a power of two, 16 at most (the ranks: one vector) */
#endif
#define FRONT_RANKS 16u
#define FRONT_RECORD (UINT64_C(1) << 63)
#define FRONT_NO_RANK 127u /* an entry not in use (the first lines) */
/* The histogram's first size: its entries for the front's distances
 * exist from the start, so that counting one tests nothing. */
#define FRONT_HISTOGRAM 64u
_Static_assert(FRONT_HISTOGRAM >= REUSE_FRONT, "the front's distances have entries");

struct reuse_distance {
    /* line -> the time it fell out of the front (its mark), FRONT_RECORD |
     * its entry while it is in the front; 0: never seen */
    struct shadow_map last;
    uint64_t *marks;         /* bit t set: time t is some line's mark */
    uint32_t *counts[COUNT_LEVELS_MAX + 1]; /* [1..levels], see above; whole groups */
    unsigned levels;
    uint64_t words;          /* capacity / 64 */
    uint64_t capacity;       /* times 0 .. capacity-1; time 0 is never used */
    uint64_t min_capacity;   /* a multiple of 64 */
    uint64_t now;            /* the next time to hand out (a line falls out of the front) */
    uint64_t live;           /* distinct lines seen: the front's and the marks */
    uint64_t accesses;
    uint64_t cold;
    uint64_t *histogram;     /* histogram[d]: accesses at distance d */
    /* 1 + largest distance seen behind the front (REUSE_FRONT or more);
     * those in the front are seen in the histogram (reuse_distance_span),
     * so that a short reuse tests nothing for it */
    uint64_t span;
    uint64_t histogram_capacity; /* FRONT_HISTOGRAM at least, from the start */
    uint8_t front_rank[FRONT_RANKS] __attribute__((aligned(16))); /* by entry */
    uint64_t front_line[REUSE_FRONT];   /* by entry: [0, n_front) in use */
    uint64_t *front_slot[REUSE_FRONT];  /* their records in last (a stack's never move) */
    unsigned n_front;                   /* REUSE_FRONT but for the first lines seen */
    uint64_t pending[PENDING_FAR]; /* far distances not yet in the histogram, a ring */
    uint64_t n_pending;            /* far distances since the ring was last emptied */
    /* Whether the marks of a line's time are asked for ahead: only while
     * far distances are common (a line's marks are then far from the
     * present's, and miss the caches) in a stack of MARKS_AHEAD_LINES or
     * more; otherwise the marks are found in the caches, and the asking
     * costs more than it saves. Decided between batches once
     * MARKS_AHEAD_WINDOW accesses or more have come since the last time,
     * from the far distances among them (not access by access: a test
     * and a branch each). */
    int marks_ahead;
    unsigned *ahead_stacks;        /* counts the stacks of a set with marks_ahead, or NULL */
    uint64_t far;                  /* far distances seen */
    uint64_t far_checked;          /* far, at the last decision */
    uint64_t accesses_checked;     /* accesses, at the last decision */
};

/* The first (and smallest) window of a stack made with MIN_WINDOW. */
uint64_t reuse_min_capacity(uint64_t min_window);

/* A new, empty window of CAPACITY times (a multiple of 64). */
void reuse_window_allocate(struct reuse_distance *rd, uint64_t capacity);

/* Builds the counts of a fresh window (all zero) from its marks. */
void reuse_window_count_marks(struct reuse_distance *rd);

#endif
