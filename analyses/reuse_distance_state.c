/* reuse_distance_state: a reuse stack, saved and loaded.
 *
 *   u64: min_capacity capacity now live accesses cold span n_front
 *   u64 x 2 n_front: the front's entries, each its line and rank
 *   u64 x span: the histogram
 *   the lines' records (shadow map): the times they fell out of the
 *   front, or their front entries
 *
 * The window's marks are exactly the lines' times and the tree counts the
 * marks, so both are rebuilt on load rather than saved. */
#include <stdlib.h>
#include <string.h>

#include "analyses/reuse_distance.h"
#include "analyses/reuse_distance_internal.h"
#include "analyses/state_parts.h"
#include "common/huge_pages.h"
#include "common/oom.h"

void reuse_distance_save(const struct reuse_distance *rd, struct state_writer *w)
{
    const uint64_t header[] = {rd->min_capacity, rd->capacity, rd->now, rd->live,
                               rd->accesses, rd->cold, reuse_distance_span(rd), rd->n_front};
    for (size_t i = 0; i < sizeof header / sizeof *header; i++)
        state_put_u64(w, header[i]);
    for (unsigned e = 0; e < rd->n_front; e++) {
        state_put_u64(w, rd->front_line[e]);
        state_put_u64(w, rd->front_rank[e]);
    }
    for (uint64_t d = 0; d < header[6]; d++)
        state_put_u64(w, rd->histogram[d]);
    shadow_map_save((struct shadow_map *)&rd->last, w);
}

struct mark_rebuild {
    struct reuse_distance *rd;
    struct state_reader *r;
    uint64_t marks;
    uint64_t fronts;   /* records of front entries */
};

static void mark_chunk(void *ctx, uint64_t number, uint64_t *chunk, unsigned shift)
{
    (void)number;
    (void)shift; /* (loaded without widened chunks) */
    struct mark_rebuild *m = ctx;
    struct reuse_distance *rd = m->rd;
    for (unsigned i = 0; i < SHADOW_CHUNK_CELLS; i++) {
        uint64_t t = chunk[i];
        if (!t)
            continue;
        if (t >= FRONT_RECORD && t - FRONT_RECORD < rd->n_front) {
            m->fronts++; /* (its entry's own, checked below) */
            continue;
        }
        if (t >= rd->now || (rd->marks[t >> 6] >> (t & 63) & 1)) {
            state_reader_fail(m->r, "a reuse stack whose times are not distinct and past");
            return;
        }
        rd->marks[t >> 6] |= 1ull << (t & 63);
        m->marks++;
    }
}

struct reuse_distance *reuse_distance_load(struct state_reader *r, uint64_t min_window,
                                           uint64_t other_window)
{
    struct reuse_distance *rd = xcalloc(1, sizeof *rd);
    shadow_map_init(&rd->last, 1);
    rd->min_capacity = state_get_u64(r);
    uint64_t capacity = state_get_u64(r);
    rd->now = state_get_u64(r);
    rd->live = state_get_u64(r);
    rd->accesses = state_get_u64(r);
    rd->accesses_checked = rd->accesses;
    rd->cold = state_get_u64(r);
    rd->span = state_get_count(r, 1);
    uint64_t n_front = state_get_u64(r);
    if (!r->failed && n_front > REUSE_FRONT)
        state_reader_fail(r, "a reuse front longer than this trms keeps");
    if (!r->failed)
        rd->n_front = (unsigned)n_front;
    /* The ranks of the entries in use are 0 .. n_front-1, once each. */
    memset(rd->front_rank, FRONT_NO_RANK, sizeof rd->front_rank);
    unsigned ranks_seen = 0;
    for (unsigned e = 0; e < rd->n_front; e++) {
        rd->front_line[e] = state_get_u64(r);
        uint64_t rank = state_get_u64(r);
        if (!r->failed && (rank >= rd->n_front || (ranks_seen >> rank & 1)))
            state_reader_fail(r, "a reuse front whose ranks are not its entries'");
        if (r->failed)
            break;
        ranks_seen |= 1u << rank;
        rd->front_rank[e] = (uint8_t)rank;
    }
    /* The window is sized by the live lines: each has its time in the
     * shadow map below, a raw word, so their count is bounded by the bytes
     * left before any window is allocated for them. */
    if (!r->failed && rd->live > r->remaining / 8)
        state_reader_fail(r, "a reuse stack with more lines than the state holds");
    /* The first window is the engine's option: any other would be a window
     * the state's own size does not bound. */
    if (!r->failed && rd->min_capacity != reuse_min_capacity(min_window) &&
        rd->min_capacity != reuse_min_capacity(other_window))
        state_reader_fail(r, "a reuse stack of another first window");
    uint64_t most = WINDOW_FACTOR * 2 * (rd->live + 1);
    if (capacity % 64 || capacity < rd->min_capacity ||
        (capacity > rd->min_capacity && capacity > most) || rd->now == 0 ||
        rd->now > capacity || rd->n_front > rd->live || rd->live - rd->n_front >= rd->now ||
        (rd->n_front < REUSE_FRONT && rd->now != 1) || rd->live != rd->cold ||
        rd->cold > rd->accesses || rd->span > rd->live)
        state_reader_fail(r, "reuse counters that cannot be");
    if (r->failed) {
        rd->span = 0;
        reuse_distance_free(rd);
        return NULL;
    }
    uint64_t hist = FRONT_HISTOGRAM;
    while (hist < rd->span)
        hist *= 2;
    rd->histogram = huge_pages_calloc(hist * sizeof *rd->histogram);
    rd->histogram_capacity = hist;
    for (uint64_t d = 0; d < rd->span; d++)
        rd->histogram[d] = state_get_u64(r);
    shadow_map_load(&rd->last, r, 0);
    /* Each front line's record names its entry (so the lines are
     * distinct); no other record names one (counted below). */
    for (unsigned e = 0; e < rd->n_front && !r->failed; e++) {
        uint64_t *slot = shadow_map_find(&rd->last, rd->front_line[e]);
        if (!slot || *slot != (FRONT_RECORD | e))
            state_reader_fail(r, "a reuse front whose lines' records are not its entries");
        rd->front_slot[e] = slot;
    }
    reuse_window_allocate(rd, capacity);
    struct mark_rebuild m = {rd, r, 0, 0};
    if (!r->failed)
        shadow_map_each_chunk(&rd->last, mark_chunk, &m);
    if (!r->failed && (m.marks != rd->live - rd->n_front || m.fronts != rd->n_front))
        state_reader_fail(r, "a reuse stack whose lines do not add up");
    if (r->failed) {
        reuse_distance_free(rd);
        return NULL;
    }
    reuse_window_count_marks(rd);
    return rd;
}
