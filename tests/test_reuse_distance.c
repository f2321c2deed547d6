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
 *  - the batch path over long runs (its loads and stores gathered in
 *    blocks, the lookahead carried from block to block), calls, returns,
 *    costs and kernel writes among them from none to nearly all, in a
 *    stack narrow and one wide enough to ask for its marks ahead;
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

/* The batch path over long runs (no stop, or a rare one), where the
 * loads and stores are gathered in blocks and the lookahead carries over
 * from block to block: phases of loads and stores only, of calls, costs
 * and kernel writes among them one in a few, of long runs of those alone
 * (blocks that gather nothing) and of loads and stores one in many
 * (blocks that gather fewer than the lookahead), against one line at a
 * time. WIDTH: wide enough, with far reuses, for the stack to ask for its
 * marks ahead (AHEAD counts that it did, after some batch). */
static void batch_runs(uint64_t window, uint64_t seed, size_t n, uint64_t width, int spread,
                       int *ahead)
{
    enum { SHIFT = 6 };
    uint64_t *s = make_stream(seed, n, width);
    if (spread)
        for (size_t i = 0; i < n; i++)
            s[i] = spread_line(s[i]);
    struct batch_event *ev = xmalloc(n * sizeof *ev);
    uint64_t state = seed;
    static const unsigned others_in_64[] = {0, 8, 64, 60}; /* by phase */
    for (size_t i = 0; i < n; i++) {
        unsigned phase = (unsigned)(i / 1000 % 4);
        uint64_t kind = random_below(&state, 64);
        if (kind < others_in_64[phase]) {
            static const uint8_t other[] = {EVENT_CALL, EVENT_RETURN, EVENT_COST, EVENT_KWRITE};
            ev[i] = (struct batch_event){.type = other[kind % 4], .value = s[i] << SHIFT,
                                         .size = 8};
        } else if (random_below(&state, 5000) == 0) {
            ev[i] = (struct batch_event){.type = EVENT_THREAD, .size = 5}; /* the rare stop */
        } else {
            ev[i] = (struct batch_event){.type = kind & 1 ? EVENT_READ : EVENT_WRITE,
                                         .value = (s[i] << SHIFT) + random_below(&state, 64),
                                         .size = (uint32_t)(1 + random_below(&state, 100))};
        }
    }
    struct reuse_distance *batch = reuse_distance_new(window), *single = reuse_distance_new(window);
    unsigned asking = 0;
    reuse_distance_count_ahead(batch, &asking);
    for (size_t i = 0; i < n;) {
        /* batches of a few thousand events, or the whole rest */
        size_t len = seed & 1 ? n - i : 1 + random_below(&state, 6000);
        if (len > n - i)
            len = n - i;
        uint32_t stop = random_below(&state, 2) ? 5 : REUSE_STOP_NEVER;
        size_t at = reuse_distance_events(batch, ev + i, len, SHIFT, stop);
        CHECK(at == len || (ev[i + at].type == EVENT_THREAD && stop == 5));
        for (size_t k = i; k < i + at; k++)
            if (ev[k].type == EVENT_READ || ev[k].type == EVENT_WRITE)
                for (uint64_t l = ev[k].value >> SHIFT;
                     l <= (ev[k].value + ev[k].size - 1) >> SHIFT; l++)
                    reuse_distance_access(single, l);
        i += at + (at < len); /* past the stop */
        *ahead |= asking > 0;
    }
    CHECK(same_stacks(batch, single));
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
        int ahead = 0;
        batch_runs(windows[w], 40 + w, 200000, 2000, w & 1, &ahead);
        batch_runs(windows[w], 51 + w, 200000, 2000, 0, &ahead);
    }
    /* a stack wide enough to ask for its marks ahead */
    int ahead = 0;
    batch_runs(0, 61, 2000000, 400000, 0, &ahead);
    batch_runs(0, 62, 2000000, 400000, 1, &ahead);
    CHECK(ahead);
    return check_report("test_reuse_distance");
}
