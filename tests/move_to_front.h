/* Exact LRU reuse distance of one stream of line accesses, the naive way:
 * a move-to-front list (the distance is the line's position; a reuse moves
 * the lines above it down by one). O(distance) per access: the reference
 * the reuse stack is checked and benchmarked against. */
#ifndef TRMS_TESTS_MOVE_TO_FRONT_H
#define TRMS_TESTS_MOVE_TO_FRONT_H

#include <stddef.h>
#include <stdint.h>

struct mtf {
    uint64_t *lines;
    size_t n, capacity;
    uint64_t *hist;     /* hist[d]: reuses at distance d */
    size_t hist_len;
    uint64_t cold;      /* first accesses */
};

void mtf_access(struct mtf *m, uint64_t line);
void mtf_free(struct mtf *m);

#endif
