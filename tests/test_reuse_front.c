/* test_reuse_front: the reuse stack's front (its REUSE_FRONT latest lines,
 * kept apart from the marks) at its boundaries, access by access against
 * a move-to-front list:
 *
 *  - sweeps over W lines for every W up to 2 REUSE_FRONT + 3, so that
 *    every access after the first round is at distance W - 1: just inside
 *    the front, at its last rank, and just behind it;
 *  - streams that pick their next line by its naive rank, most often
 *    REUSE_FRONT - 1, REUSE_FRONT or REUSE_FRONT + 1, mixed with first
 *    accesses (line 0 and lines near 2^64 among them), in a window of 64
 *    times (renumbered every few dozen lines that fall out of the front,
 *    while the front is full) and in the default one;
 *  - copies (a per-thread stack forked from the shared one) taken while
 *    the front fills and once it is full, each going on its own way;
 *  - a stack saved and loaded at those points goes on as the original
 *    and saves the same bytes; saved states whose front contradicts
 *    itself are refused.
 *
 * Built twice: with the default front, and with a front of 2 lines. */
#include <stdlib.h>
#include <string.h>

#include "analyses/reuse_distance.h"
#include "analyses/reuse_distance_internal.h"
#include "analyses/state_parts.h"
#include "common/oom.h"
#include "tests/check.h"
#include "tests/move_to_front.h"
#include "tests/reuse_matches.h"
#include "tests/random_trace.h"

#define K REUSE_FRONT

/* The naive distance of an access to LINE (REUSE_COLD for a first one),
 * which the list then takes. */
static uint64_t naive(struct mtf *m, uint64_t line)
{
    uint64_t d = 0;
    while (d < m->n && m->lines[d] != line)
        d++;
    int cold = d == m->n;
    mtf_access(m, line);
    return cold ? REUSE_COLD : d;
}

static struct mtf mtf_copy(const struct mtf *m)
{
    struct mtf c = *m;
    c.lines = xmalloc((m->capacity ? m->capacity : 1) * sizeof *c.lines);
    if (m->n) /* (an empty list may have no array: memcpy from NULL is undefined) */
        memcpy(c.lines, m->lines, m->n * sizeof *c.lines);
    c.hist = xmalloc((m->hist_len ? m->hist_len : 1) * sizeof *c.hist);
    if (m->hist_len)
        memcpy(c.hist, m->hist, m->hist_len * sizeof *c.hist);
    return c;
}

/* One access to both; counts a disagreement (reported once per case). */
static int agree(struct reuse_distance *rd, struct mtf *m, uint64_t line, const char *what)
{
    uint64_t got = reuse_distance_access_distance(rd, line), want = naive(m, line);
    if (got == want)
        return 1;
    fprintf(stderr, "%s: line %" PRIu64 " at distance %" PRIu64 ", expected %" PRIu64 "\n",
            what, line, got, want);
    check_failures++;
    return 0;
}

static void sweeps(uint64_t window)
{
    for (uint64_t w = 1; w <= 2 * K + 3; w++) {
        struct reuse_distance *rd = reuse_distance_new(window);
        struct mtf m = {0};
        for (uint64_t round = 0; round < 40; round++)
            for (uint64_t l = 0; l < w; l++) {
                uint64_t line = l == 1 ? UINT64_MAX : l; /* 0 and 2^64 - 1 among them */
                CHECK_EQ(reuse_distance_access_distance(rd, line), round ? w - 1 : REUSE_COLD);
                mtf_access(&m, line);
            }
        CHECK(reuse_matches_mtf(rd, &m));
        reuse_distance_free(rd);
        mtf_free(&m);
    }
}

/* The next line of a boundary stream: one of the naive list's, by rank
 * (most often around the front's end), or a new one. */
static uint64_t pick(uint64_t *state, const struct mtf *m, uint64_t *fresh)
{
    uint64_t r = random_below(state, 100);
    if (m->n == 0 || r < 8) {
        uint64_t f = (*fresh)++;
        return f % 3 == 1 ? UINT64_MAX - f : f; /* from both ends, 0 first */
    }
    uint64_t rank;
    if (r < 70)
        rank = K - 1 + random_below(state, 3); /* K - 1, K, K + 1 */
    else if (r < 85)
        rank = random_below(state, K);
    else
        rank = random_below(state, 4 * K + 8);
    return m->lines[rank < m->n ? rank : m->n - 1];
}

/* A flush into a growing buffer. */
struct bytes {
    uint8_t *p;
    size_t len, cap;
};

static int keep(void *ctx, const uint8_t *data, size_t len)
{
    struct bytes *b = ctx;
    if (b->len + len > b->cap) {
        b->cap = (b->len + len) * 2;
        b->p = xrealloc(b->p, b->cap);
    }
    memcpy(b->p + b->len, data, len);
    b->len += len;
    return 0;
}

static struct bytes save(const struct reuse_distance *rd)
{
    struct bytes b = {0};
    struct state_writer w;
    state_writer_init(&w, keep, &b);
    reuse_distance_save(rd, &w);
    CHECK(state_writer_finish(&w) == 0);
    return b;
}

static int give(void *ctx, const uint8_t **data, size_t *len)
{
    struct bytes *b = ctx;
    *data = b->p;
    *len = b->len;
    b->len = 0; /* once */
    return 0;
}

static struct reuse_distance *load(struct bytes b, uint64_t window)
{
    struct state_reader r;
    state_reader_init(&r, give, &b, b.len);
    struct reuse_distance *rd = reuse_distance_load(&r, window, window);
    if (rd && state_reader_finish(&r)) {
        reuse_distance_free(rd);
        rd = NULL;
    }
    return rd;
}

/* Saved and loaded, RD's state is the same bytes again. */
static struct reuse_distance *reloaded(const struct reuse_distance *rd, uint64_t window)
{
    struct bytes b = save(rd);
    struct reuse_distance *back = load(b, window);
    CHECK(back != NULL);
    if (back) {
        struct bytes again = save(back);
        CHECK(again.len == b.len && memcmp(again.p, b.p, b.len) == 0);
        free(again.p);
    }
    free(b.p);
    return back;
}

/* A state saved from RD after CHANGE (undone by UNDO) is refused. */
static void refused(struct reuse_distance *rd, uint64_t window, const char *what,
                    void (*change)(struct reuse_distance *, int undo))
{
    change(rd, 0);
    struct bytes b = save(rd);
    change(rd, 1);
    struct reuse_distance *back = load(b, window);
    if (back) {
        fprintf(stderr, "a state with %s was loaded\n", what);
        check_failures++;
        reuse_distance_free(back);
    }
    free(b.p);
}

static uint8_t saved_rank;
static uint64_t saved_record;

static void same_rank_twice(struct reuse_distance *rd, int undo)
{
    if (undo) {
        rd->front_rank[1] = saved_rank;
        return;
    }
    saved_rank = rd->front_rank[1];
    rd->front_rank[1] = rd->front_rank[0];
}

static void front_record_a_time(struct reuse_distance *rd, int undo)
{
    if (undo) {
        *rd->front_slot[0] = saved_record;
        return;
    }
    saved_record = *rd->front_slot[0];
    *rd->front_slot[0] = 1;
}

/* A line behind the front whose record names a front entry (one line
 * fewer, so that the marks add up). */
static uint64_t *marked_slot;

static void behind_named_in_front(struct reuse_distance *rd, int undo)
{
    if (undo) {
        *marked_slot = saved_record;
        rd->live++;
        rd->cold++;
        return;
    }
    saved_record = *marked_slot;
    *marked_slot = FRONT_RECORD | 0;
    rd->live--;
    rd->cold--;
}

/* Boundary streams, with copies and reloads along the way that go on as
 * the original (the same stream) or their own way (another). */
static void boundaries(uint64_t window, uint64_t seed, size_t n)
{
    struct reuse_distance *rd = reuse_distance_new(window);
    struct mtf m = {0};
    uint64_t state = seed, fresh = 0;
    int ok = 1;
    /* Copies while the front fills (K - 1 lines) and once it is full. */
    size_t forks[] = {K - 1, K + 1, 3 * K, 200, 1000};
    size_t next_fork = 0;
    for (size_t i = 0; i < n && ok; i++) {
        if (next_fork < sizeof forks / sizeof *forks && m.n == forks[next_fork]) {
            next_fork++;
            struct reuse_distance *copy = reuse_distance_clone(rd);
            struct reuse_distance *back = reloaded(rd, window);
            struct mtf mc = mtf_copy(&m), mb = mtf_copy(&m);
            uint64_t s2 = state ^ 0x9e3779b97f4a7c15u, s3 = state, f2 = fresh + 1000000,
                     f3 = fresh;
            for (size_t j = 0; j < 3000 && ok; j++) {
                ok = agree(copy, &mc, pick(&s2, &mc, &f2), "copy");
                if (back)
                    ok = ok && agree(back, &mb, pick(&s3, &mb, &f3), "reloaded");
            }
            CHECK(reuse_matches_mtf(copy, &mc));
            if (back)
                CHECK(reuse_matches_mtf(back, &mb));
            reuse_distance_free(copy);
            reuse_distance_free(back);
            mtf_free(&mc);
            mtf_free(&mb);
        }
        ok = agree(rd, &m, pick(&state, &m, &fresh), "stream");
    }
    CHECK(reuse_matches_mtf(rd, &m));
    CHECK_EQ(reuse_distance_accesses(rd), n);
    CHECK_EQ(next_fork, sizeof forks / sizeof *forks);
    /* Front states that contradict themselves. */
    if (rd->n_front == K && K >= 2) {
        refused(rd, window, "two front entries of one rank", same_rank_twice);
        refused(rd, window, "a front line whose record is a time", front_record_a_time);
        marked_slot = NULL;
        for (uint64_t l = 0; l < fresh && !marked_slot; l++) {
            uint64_t line = l % 3 == 1 ? UINT64_MAX - l : l;
            uint64_t *slot = shadow_map_find(&rd->last, line);
            if (slot && *slot && !(*slot & FRONT_RECORD))
                marked_slot = slot;
        }
        CHECK(marked_slot != NULL);
        if (marked_slot)
            refused(rd, window, "a line behind the front named in it", behind_named_in_front);
        struct reuse_distance *back = reloaded(rd, window); /* (all undone) */
        reuse_distance_free(back);
    }
    reuse_distance_free(rd);
    mtf_free(&m);
}

/* The span of a stack that has seen only the front's distances, saved
 * and loaded there (its span then a number in the state), then reaches
 * further in the front, then behind it. */
static void span_after_reload(uint64_t window)
{
    struct reuse_distance *rd = reuse_distance_new(window);
    struct mtf m = {0};
    static const uint64_t widths[] = {1, K > 2 ? K - 1 : 2, K + 3};
    for (size_t k = 0; k < sizeof widths / sizeof *widths; k++) {
        for (uint64_t round = 0; round < 3; round++)
            for (uint64_t l = 0; l < widths[k]; l++) {
                agree(rd, &m, l, "span after a reload");
                CHECK(reuse_matches_mtf(rd, &m));
            }
        struct reuse_distance *back = reloaded(rd, window);
        if (!back)
            break;
        reuse_distance_free(rd);
        rd = back;
        CHECK(reuse_matches_mtf(rd, &m));
    }
    reuse_distance_free(rd);
    mtf_free(&m);
}

int main(void)
{
    static const uint64_t windows[] = {64, 0};
    for (size_t w = 0; w < sizeof windows / sizeof *windows; w++) {
        sweeps(windows[w]);
        span_after_reload(windows[w]);
        for (uint64_t seed = 1; seed <= 6; seed++)
            boundaries(windows[w], seed + 10 * w, 30000);
    }
    return check_report("test_reuse_front");
}
