/* Whether a reuse stack's histogram is the move-to-front reference's,
 * exactly: cold accesses, every distance's count, and the span (the
 * farthest distance seen, plus one). Shared by the reuse tests. */
#ifndef TRMS_TESTS_REUSE_MATCHES_H
#define TRMS_TESTS_REUSE_MATCHES_H

#include "analyses/reuse_distance.h"
#include "tests/move_to_front.h"

static inline int reuse_matches_mtf(const struct reuse_distance *rd, const struct mtf *m)
{
    if (reuse_distance_cold(rd) != m->cold)
        return 0;
    for (size_t d = 0; d < m->hist_len; d++)
        if (reuse_distance_count(rd, d) != m->hist[d])
            return 0;
    size_t span = m->hist_len;
    while (span > 0 && m->hist[span - 1] == 0)
        span--;
    return reuse_distance_span(rd) == span;
}

#endif
