/* test_reuse_distance: one reuse stack against a move-to-front list (the
 * naive definition: a line's distance is its position in the list of lines
 * by latest access), on streams long and wide enough to reach every level
 * of the stack's counts:
 *
 *  - windows of the default size, a tiny one (renumbered every few dozen
 *    accesses) and a huge one (2^25 times: four levels of counts);
 *  - built again as test_reuse_levels, with groups of 4 marks instead of 64,
 *    so that these streams climb every level of the counts, from either
 *    end of each group, and move marks across groups at every level;
 *  - streams of short reuses, sweeps over many lines, random far reuses and
 *    first accesses, mixed;
 *  - the batch path (reuse_distance_events: lines asked for ahead, far
 *    distances counted later in bursts, stops at thread events) against
 *    one access at a time;
 *  - a copy (the per-thread stack forked from the global one) that goes on
 *    exactly as the original. */
#include <stdlib.h>

#include "analyses/reuse_distance.h"
#include "common/oom.h"
#include "tests/check.h"
#include "tests/move_to_front.h"
#include "tests/reuse_matches.h"
#include "tests/random_trace.h"

/* A stream of N line numbers over WIDTH lines: short reuses of the last
 * few lines, sweeps, random far reuses and first touches, in phases. */
static uint64_t *make_stream(uint64_t seed, size_t n, uint64_t width)
{
    uint64_t *s = xmalloc(n * sizeof *s), state = seed, sweep = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t r = random_below(&state, 1000);
        if (i > 0 && r < 500)
            s[i] = s[i - 1 - random_below(&state, i < 8 ? i : 8)]; /* short reuse */
        else if (r < 900)
            s[i] = sweep++ % width;                               /* a sweep */
        else
            s[i] = random_below(&state, width);                   /* anywhere */
    }
    return s;
}

static int same_stacks(const struct reuse_distance *a, const struct reuse_distance *b)
{
    if (reuse_distance_accesses(a) != reuse_distance_accesses(b) ||
        reuse_distance_cold(a) != reuse_distance_cold(b) ||
        reuse_distance_span(a) != reuse_distance_span(b))
        return 0;
    for (uint64_t d = 0; d < reuse_distance_span(a); d++)
        if (reuse_distance_count(a, d) != reuse_distance_count(b, d))
            return 0;
    return 1;
}

/* The stream one access at a time, against the list. */
static void against_naive(uint64_t window, uint64_t seed, size_t n, uint64_t width)
{
    uint64_t *s = make_stream(seed, n, width);
    struct reuse_distance *rd = reuse_distance_new(window);
    struct mtf m = {0};
    for (size_t i = 0; i < n; i++) {
        reuse_distance_access(rd, s[i]);
        mtf_access(&m, s[i]);
    }
    if (!reuse_matches_mtf(rd, &m)) {
        fprintf(stderr, "window %" PRIu64 ", seed %" PRIu64 ", %zu accesses over %" PRIu64
                        " lines: the histograms differ\n", window, seed, n, width);
        check_failures++;
    }
    CHECK_EQ(reuse_distance_accesses(rd), n);
    reuse_distance_free(rd);
    mtf_free(&m);
    free(s);
}

/* Line X of a stream spread out: each run of 512 lines (a chunk of the
 * stack's records) alone in its own 2^25 lines (a page of chunks), all of
 * them on one way of the chunk cache, every other one far from the
 * others: records found through pages of a few chunks, through the chunk
 * cache while it holds them, and as cache and pages miss. */
static uint64_t spread_line(uint64_t x)
{
    uint64_t run = x >> 9;
    return (x & 511) | run << (run & 1 ? 25 : 15);
}

/* The batch path: the same stream as loads and stores of 1 to 3 lines,
 * thread events between them (where the path must stop when asked, and
 * pass over when not), against one line at a time; then a copy taken in
 * the middle goes on as the original does. SPREAD: lines spread out
 * (spread_line). */
static void batch_path(uint64_t window, uint64_t seed, int spread)
{
    enum { N = 60000, SHIFT = 6 };
    uint64_t *s = make_stream(seed, N, 30000);
    if (spread)
        for (size_t i = 0; i < N; i++)
            s[i] = spread_line(s[i]);
    struct batch_event *ev = xmalloc(N * sizeof *ev);
    uint64_t state = seed;
    for (size_t i = 0; i < N; i++) {
        uint64_t kind = random_below(&state, 20);
        if (kind == 0)
            ev[i] = (struct batch_event){.type = EVENT_THREAD, .size = (uint32_t)(i % 3)};
        else if (kind == 1)
            ev[i] = (struct batch_event){.type = EVENT_KWRITE, .value = s[i] << SHIFT, .size = 64};
        else /* up to three lines, from anywhere in the first */
            ev[i] = (struct batch_event){.type = kind & 1 ? EVENT_READ : EVENT_WRITE,
                                         .value = (s[i] << SHIFT) + random_below(&state, 64),
                                         .size = (uint32_t)(1 + random_below(&state, 140))};
    }
    struct reuse_distance *batch = reuse_distance_new(window), *single = reuse_distance_new(window);
    size_t stops = 0;
    for (size_t i = 0; i < N;) {
        uint32_t stop = i % 2 ? REUSE_STOP_ANY : 2;
        size_t at = reuse_distance_events(batch, ev + i, N - i, SHIFT, stop);
        for (size_t k = i; k < i + at; k++) {
            CHECK(ev[k].type != EVENT_THREAD || (stop != REUSE_STOP_ANY && ev[k].size != stop));
            if (ev[k].type == EVENT_READ || ev[k].type == EVENT_WRITE)
                for (uint64_t l = ev[k].value >> SHIFT;
                     l <= (ev[k].value + ev[k].size - 1) >> SHIFT; l++)
                    reuse_distance_access(single, l);
        }
        i += at;
        if (i < N) { /* stopped where asked */
            CHECK(ev[i].type == EVENT_THREAD && (stop == REUSE_STOP_ANY || ev[i].size == stop));
            stops++;
            i++;
        }
    }
    CHECK(stops > 100);
    CHECK(same_stacks(batch, single));
    /* A copy and the original see the same rest and stay equal. */
    struct reuse_distance *copy = reuse_distance_clone(batch);
    CHECK(same_stacks(copy, batch));
    for (size_t i = 0; i < N; i++) {
        reuse_distance_access(copy, s[i] + 7);
        reuse_distance_access(batch, s[i] + 7);
    }
    CHECK(same_stacks(copy, batch));
    reuse_distance_free(copy);
    reuse_distance_free(batch);
    reuse_distance_free(single);
    free(ev);
    free(s);
}

int main(void)
{
#ifdef REUSE_GROUP_BITS /* built with small groups: every level within reach */
    static const uint64_t windows[] = {0, 64, UINT64_C(1) << 20};
#else
    static const uint64_t windows[] = {0, 64, UINT64_C(1) << 25};
#endif
    for (size_t w = 0; w < sizeof windows / sizeof *windows; w++) {
        against_naive(windows[w], 1 + w, 20000, 300);       /* short distances */
        against_naive(windows[w], 11 + w, 150000, 40000);   /* far ones, many lines */
        batch_path(windows[w], 21 + w, 0);
        batch_path(windows[w], 31 + w, 1);
    }
    return check_report("test_reuse_distance");
}
