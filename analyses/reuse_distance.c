#include "analyses/reuse_distance.h"

#include <stdlib.h>
#include <string.h>

#include "analyses/reuse_distance_internal.h"
#include "analyses/shadow_map.h"
#include "common/compiler.h"
#include "common/huge_pages.h"
#include "common/oom.h"
#include "trace/event.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define WORD_GROUP_BITS REUSE_WORD_GROUP_BITS
#define WORD_GROUP (1u << WORD_GROUP_BITS)
#define GROUP_BITS REUSE_GROUP_BITS
#define GROUP (1u << GROUP_BITS)

/* log2 of the entries of level K in one group, and of the times one entry
 * of level K covers. */
static ALWAYS_INLINE unsigned group_bits(unsigned k)
{
    return k ? GROUP_BITS : WORD_GROUP_BITS;
}

static ALWAYS_INLINE unsigned entry_shift(unsigned k)
{
    return k ? 6 + WORD_GROUP_BITS + GROUP_BITS * (k - 1) : 6;
}

/* Entries at level K (0: the words of marks), before padding. */
static uint64_t level_size(const struct reuse_distance *rd, unsigned k)
{
    uint64_t n = rd->words;
    for (unsigned i = 0; i < k; i++)
        n = (n + (UINT64_C(1) << group_bits(i)) - 1) >> group_bits(i);
    return n;
}

/* Entries allocated at level K: whole groups, so that a group is read
 * whole, aligned to a cache line. */
static uint64_t level_padded(const struct reuse_distance *rd, unsigned k)
{
    uint64_t group = UINT64_C(1) << group_bits(k);
    return (level_size(rd, k) + group - 1) / group * group;
}

/* Marks in the words of a group (G) after its word J: the sums from the
 * last word back, and J's picked (fewer instructions than masking each
 * word by its index, on the hottest path of a far reuse). */
static ALWAYS_INLINE uint64_t words_after(const uint64_t *g, unsigned j)
{
#if REUSE_WORD_GROUP_BITS == 2
    /* (written out: the compiler keeps the loop below) */
    uint64_t p3 = (uint64_t)__builtin_popcountll(g[3]);
    uint64_t p2 = p3 + (uint64_t)__builtin_popcountll(g[2]);
    uint64_t p1 = p2 + (uint64_t)__builtin_popcountll(g[1]);
    const uint64_t after[WORD_GROUP] = {p1, p2, p3, 0};
#else
    uint64_t after[WORD_GROUP], sum = 0;
    for (unsigned m = WORD_GROUP; m-- > 0;) {
        after[m] = sum;
        sum += (uint64_t)__builtin_popcountll(g[m]);
    }
#endif
    return after[j];
}

#if defined(__SSE2__) && REUSE_GROUP_BITS == 4
/* AFTER_MASK[j]: all ones in the entries of a group after entry j. */
#define AFTER_ENTRY(j, m) ((m) > (j) ? 0xffffffffu : 0u)
#define AFTER_ROW(j)                                                                              \
    {AFTER_ENTRY(j, 0),  AFTER_ENTRY(j, 1),  AFTER_ENTRY(j, 2),  AFTER_ENTRY(j, 3),               \
     AFTER_ENTRY(j, 4),  AFTER_ENTRY(j, 5),  AFTER_ENTRY(j, 6),  AFTER_ENTRY(j, 7),               \
     AFTER_ENTRY(j, 8),  AFTER_ENTRY(j, 9),  AFTER_ENTRY(j, 10), AFTER_ENTRY(j, 11),              \
     AFTER_ENTRY(j, 12), AFTER_ENTRY(j, 13), AFTER_ENTRY(j, 14), AFTER_ENTRY(j, 15)}
static const uint32_t AFTER_MASK[GROUP][GROUP] __attribute__((aligned(64))) = {
    AFTER_ROW(0),  AFTER_ROW(1),  AFTER_ROW(2),  AFTER_ROW(3),  AFTER_ROW(4),  AFTER_ROW(5),
    AFTER_ROW(6),  AFTER_ROW(7),  AFTER_ROW(8),  AFTER_ROW(9),  AFTER_ROW(10), AFTER_ROW(11),
    AFTER_ROW(12), AFTER_ROW(13), AFTER_ROW(14), AFTER_ROW(15)};

/* The four counts of V at Q, those not after the group's entry J zeroed. */
static ALWAYS_INLINE __m128i quad_after(const __m128i *v, const __m128i *mask, unsigned q)
{
    return _mm_and_si128(_mm_load_si128(v + q), _mm_load_si128(mask + q));
}
#endif

/* Marks in the entries of a group of counts (G) after its entry J. */
static ALWAYS_INLINE uint64_t counts_after(const uint32_t *g, unsigned j)
{
#if defined(__SSE2__) && REUSE_GROUP_BITS == 4
    /* Sums stay below 2^32: a stack holds fewer lines. A row of masks in
     * a table costs fewer instructions than comparing each entry's index
     * with J. */
    const __m128i *v = (const __m128i *)g, *mask = (const __m128i *)AFTER_MASK[j];
    __m128i low = _mm_add_epi32(quad_after(v, mask, 0), quad_after(v, mask, 1));
    __m128i high = _mm_add_epi32(quad_after(v, mask, 2), quad_after(v, mask, 3));
    __m128i sum = _mm_add_epi32(low, high);
    sum = _mm_add_epi32(sum, _mm_shuffle_epi32(sum, 0x4e));
    sum = _mm_add_epi32(sum, _mm_shuffle_epi32(sum, 0xb1));
    return (uint32_t)_mm_cvtsi128_si32(sum);
#else
    uint64_t sum = 0;
    for (unsigned m = 0; m < GROUP; m++)
        sum += g[m] & -(uint32_t)(m > j);
    return sum;
#endif
}

/* Marks at times strictly between T (a mark) and NOW, the lines touched
 * since T; T's mark moves to NOW on the way. Climbs from T's word: at each
 * level, the entries after T's in its group are counted, until T's group
 * is that of the latest time (NOW - 1), past which nothing is marked; and
 * the mark leaves T's entry for NOW's until they are one. Each group is
 * counted before its entries change, so NOW's mark is never counted. */
/* The climb's step to level K (BITS: log2 of the entries of a group
 * below): I, N and M become the entries of T, the latest time and NOW
 * there; counts the entries after I's in its group while COUNTING, and
 * moves the mark's count from I's to M's. Returns 0 where I's entry is
 * M's: from there up nothing moves, nothing is left to count. */
static ALWAYS_INLINE int climb(struct reuse_distance *rd, unsigned k, unsigned bits,
                               uint64_t *i, uint64_t *n, uint64_t *m, int *counting,
                               uint64_t *after)
{
    *counting = *counting && (*i >> bits) != (*n >> bits);
    *i >>= bits;
    *n >>= bits;
    *m >>= bits;
    if (*i == *m)
        return 0;
    uint32_t *counts = rd->counts[k];
    if (*counting)
        *after += counts_after(counts + (*i & ~(uint64_t)(GROUP - 1)), (unsigned)*i & (GROUP - 1));
    counts[*i]--;
    counts[*m]++;
    return 1;
}

static ALWAYS_INLINE uint64_t move_mark_counting(struct reuse_distance *rd, uint64_t t,
                                                 uint64_t now)
{
    uint64_t i = t >> 6, n = (now - 1) >> 6, m = now >> 6; /* words: T's, latest's, NOW's */
    uint64_t after = (uint64_t)__builtin_popcountll(rd->marks[i] & ~((2ull << (t & 63)) - 1));
    int counting = i != n;
    if (counting)
        after += words_after(rd->marks + (i & ~(uint64_t)(WORD_GROUP - 1)),
                             (unsigned)i & (WORD_GROUP - 1));
    rd->marks[i] &= ~(1ull << (t & 63));
    rd->marks[m] |= 1ull << (now & 63);
    /* Level 1 (groups of words below it) apart, so that the levels above
     * climb by a constant. */
    if (rd->levels >= 1 && climb(rd, 1, WORD_GROUP_BITS, &i, &n, &m, &counting, &after))
        for (unsigned k = 2; k <= rd->levels; k++)
            if (!climb(rd, k, GROUP_BITS, &i, &n, &m, &counting, &after))
                break;
    return after;
}

/* The window's tables (marks and counts), given back. */
static void free_window(struct reuse_distance *rd)
{
    huge_pages_free(rd->marks, level_padded(rd, 0) * sizeof *rd->marks);
    rd->marks = NULL;
    for (unsigned k = 1; k <= COUNT_LEVELS_MAX; k++) {
        huge_pages_free(rd->counts[k], level_padded(rd, k) * sizeof(uint32_t));
        rd->counts[k] = NULL;
    }
}

static void free_histogram(struct reuse_distance *rd)
{
    huge_pages_free(rd->histogram, rd->histogram_capacity * sizeof *rd->histogram);
    rd->histogram = NULL;
}

void reuse_window_allocate(struct reuse_distance *rd, uint64_t capacity)
{
    free_window(rd);
    rd->capacity = capacity;
    rd->words = capacity / 64;
    rd->marks = huge_pages_calloc(level_padded(rd, 0) * sizeof *rd->marks);
    rd->levels = 0;
    while (level_size(rd, rd->levels) > (UINT64_C(1) << group_bits(rd->levels))) {
        rd->levels++;
        if (rd->levels > COUNT_LEVELS_MAX)
            oom_exit("reuse distance window");
        rd->counts[rd->levels] = huge_pages_calloc(level_padded(rd, rd->levels) * sizeof(uint32_t));
    }
}

uint64_t reuse_min_capacity(uint64_t min_window)
{
    return min_window ? (min_window + 63) / 64 * 64 : DEFAULT_MIN_WINDOW;
}

static void grow_histogram(struct reuse_distance *rd, uint64_t distance)
{
    uint64_t capacity = rd->histogram_capacity ? rd->histogram_capacity : FRONT_HISTOGRAM;
    while (capacity <= distance)
        capacity *= 2;
    /* Far distances land all over it. */
    uint64_t *grown = huge_pages_calloc(capacity * sizeof *rd->histogram);
    if (rd->histogram_capacity)
        memcpy(grown, rd->histogram, rd->histogram_capacity * sizeof *rd->histogram);
    free_histogram(rd);
    rd->histogram = grown;
    rd->histogram_capacity = capacity;
}

struct reuse_distance *reuse_distance_new(uint64_t min_window)
{
    struct reuse_distance *rd = xcalloc(1, sizeof *rd);
    shadow_map_init(&rd->last, 1);
    rd->min_capacity = reuse_min_capacity(min_window);
    reuse_window_allocate(rd, rd->min_capacity);
    rd->now = 1;
    memset(rd->front_rank, FRONT_NO_RANK, sizeof rd->front_rank);
    grow_histogram(rd, FRONT_HISTOGRAM - 1);
    return rd;
}

void reuse_distance_free(struct reuse_distance *rd)
{
    if (!rd)
        return;
    shadow_map_free(&rd->last);
    free_window(rd);
    free_histogram(rd);
    free(rd);
}

struct renumbering {
    const struct reuse_distance *rd;
    uint64_t *before;   /* marks in the words before each word */
};

/* Lines a renumbering looks at together: a chunk holds a program's
 * scattered lines among many never touched, and a run of eight empty
 * slots (one cache line) is passed over in a few instructions instead of
 * eight tests (the walk over every chunk was a twentieth of the pass on
 * xz's trace). */
#define RENUMBER_RUN 8u

static ALWAYS_INLINE int run_is_empty(const uint64_t *run)
{
#if defined(__SSE2__)
    const __m128i *v = (const __m128i *)run;
    __m128i any = _mm_or_si128(_mm_or_si128(_mm_loadu_si128(v), _mm_loadu_si128(v + 1)),
                               _mm_or_si128(_mm_loadu_si128(v + 2), _mm_loadu_si128(v + 3)));
    return _mm_movemask_epi8(_mm_cmpeq_epi32(any, _mm_setzero_si128())) == 0xffff;
#else
    uint64_t any = 0;
    for (unsigned i = 0; i < RENUMBER_RUN; i++)
        any |= run[i];
    return any == 0;
#endif
}

static void renumber_chunk(void *ctx, uint64_t number, uint64_t *chunk, unsigned shift)
{
    (void)number;
    (void)shift; /* (one word a line) */
    const struct renumbering *r = ctx;
    for (unsigned run = 0; run < SHADOW_CHUNK_CELLS; run += RENUMBER_RUN) {
        if (run_is_empty(chunk + run))
            continue;
        for (unsigned i = run; i < run + RENUMBER_RUN; i++) {
            uint64_t t = chunk[i];
            if (t) /* its rank among the live marks */
                chunk[i] = r->before[t >> 6] +
                           (uint64_t)__builtin_popcountll(r->rd->marks[t >> 6] &
                                                          ((2ull << (t & 63)) - 1));
        }
    }
}

void reuse_window_count_marks(struct reuse_distance *rd)
{
    for (unsigned k = 1; k <= rd->levels; k++) {
        uint64_t below = level_size(rd, k - 1);
        for (uint64_t j = 0; j < below; j++)
            rd->counts[k][j >> group_bits(k - 1)] +=
                k == 1 ? (uint32_t)__builtin_popcountll(rd->marks[j]) : rd->counts[k - 1][j];
    }
}

/* Time has reached the end of the window: give the marks the times
 * 1..M, in order, in a window WINDOW_FACTOR times that size (the front's
 * records, which are no times, are 0 meanwhile: passed over). */
static void compact(struct reuse_distance *rd)
{
    uint64_t live = rd->live - rd->n_front; /* the marks */
    for (unsigned e = 0; e < rd->n_front; e++) /* (put back below) */
        *rd->front_slot[e] = 0;
    struct renumbering r = {rd, xmalloc(rd->words * sizeof *r.before)};
    uint64_t marks = 0;
    for (uint64_t w = 0; w < rd->words; w++) {
        r.before[w] = marks;
        marks += (uint64_t)__builtin_popcountll(rd->marks[w]);
    }
    shadow_map_each_chunk(&rd->last, renumber_chunk, &r);
    free(r.before);
    uint64_t capacity = rd->min_capacity;
    while (capacity < WINDOW_FACTOR * (live + 1))
        capacity *= 2;
    reuse_window_allocate(rd, capacity);
    /* Times 1..live marked, a word at a time (time 0 is never used). */
    uint64_t end = live + 1;
    for (uint64_t w = 0; w < end / 64; w++)
        rd->marks[w] = ~0ull;
    if (end % 64)
        rd->marks[end / 64] = (1ull << (end % 64)) - 1;
    rd->marks[0] &= ~1ull;
    reuse_window_count_marks(rd);
    rd->now = live + 1;
    for (unsigned e = 0; e < rd->n_front; e++)
        *rd->front_slot[e] = FRONT_RECORD | e;
}

static ALWAYS_INLINE void count_distance(struct reuse_distance *rd, uint64_t distance)
{
    if (distance >= rd->histogram_capacity)
        grow_histogram(rd, distance);
    rd->histogram[distance]++;
    if (distance >= rd->span)
        rd->span = distance + 1;
}

/* The far distances waiting, into the histogram (their entries were asked
 * for when they came). */
static void count_pending(struct reuse_distance *rd)
{
    unsigned waiting = rd->n_pending < PENDING_FAR ? rd->n_pending : PENDING_FAR;
    for (unsigned i = 0; i < waiting; i++)
        rd->histogram[rd->pending[i]]++;
    rd->n_pending = 0;
}

/* A far distance's histogram entry is asked for now and counted
 * PENDING_FAR far distances later, when it has come: the histogram is 8
 * bytes per distance, and the far end of a large one misses the caches. */
static ALWAYS_INLINE void count_far(struct reuse_distance *rd, uint64_t distance, int defer)
{
    if (!defer || distance < FAR_DISTANCE) {
        count_distance(rd, distance);
        return;
    }
    if (distance >= rd->histogram_capacity)
        grow_histogram(rd, distance);
    if (distance >= rd->span)
        rd->span = distance + 1;
    __builtin_prefetch(&rd->histogram[distance], 1);
    rd->far++;
    unsigned slot = rd->n_pending % PENDING_FAR;
    if (rd->n_pending >= PENDING_FAR)
        rd->histogram[rd->pending[slot]]++;
    rd->pending[slot] = distance;
    rd->n_pending++;
}

/* Marks time NOW, a line's first. */
static ALWAYS_INLINE void add_mark(struct reuse_distance *rd, uint64_t now)
{
    rd->marks[now >> 6] |= 1ull << (now & 63);
    for (unsigned k = 1; k <= rd->levels; k++)
        rd->counts[k][now >> entry_shift(k)]++;
}

#if defined(__SSE2__)
/* ENTRY_MASK[r]: all ones in byte R. */
#define ENTRY_BYTE(r, m) ((m) == (r) ? 0xff : 0)
#define ENTRY_ROW(r)                                                                              \
    {ENTRY_BYTE(r, 0),  ENTRY_BYTE(r, 1),  ENTRY_BYTE(r, 2),  ENTRY_BYTE(r, 3),                   \
     ENTRY_BYTE(r, 4),  ENTRY_BYTE(r, 5),  ENTRY_BYTE(r, 6),  ENTRY_BYTE(r, 7),                   \
     ENTRY_BYTE(r, 8),  ENTRY_BYTE(r, 9),  ENTRY_BYTE(r, 10), ENTRY_BYTE(r, 11),                  \
     ENTRY_BYTE(r, 12), ENTRY_BYTE(r, 13), ENTRY_BYTE(r, 14), ENTRY_BYTE(r, 15)}
static const uint8_t ENTRY_MASK[FRONT_RANKS][FRONT_RANKS] __attribute__((aligned(64))) = {
    ENTRY_ROW(0),  ENTRY_ROW(1),  ENTRY_ROW(2),  ENTRY_ROW(3),  ENTRY_ROW(4),  ENTRY_ROW(5),
    ENTRY_ROW(6),  ENTRY_ROW(7),  ENTRY_ROW(8),  ENTRY_ROW(9),  ENTRY_ROW(10), ENTRY_ROW(11),
    ENTRY_ROW(12), ENTRY_ROW(13), ENTRY_ROW(14), ENTRY_ROW(15)};

/* RANK_SPLAT[k]: K in every byte (one load, not four instructions). */
#define SPLAT(k) {k, k, k, k, k, k, k, k, k, k, k, k, k, k, k, k}
static const uint8_t RANK_SPLAT[FRONT_RANKS + 1][FRONT_RANKS] __attribute__((aligned(64))) = {
    SPLAT(0),  SPLAT(1),  SPLAT(2),  SPLAT(3),  SPLAT(4),  SPLAT(5),  SPLAT(6),
    SPLAT(7),  SPLAT(8),  SPLAT(9),  SPLAT(10), SPLAT(11), SPLAT(12), SPLAT(13),
    SPLAT(14), SPLAT(15), SPLAT(16)};
#endif

_Static_assert(REUSE_FRONT <= FRONT_RANKS && (REUSE_FRONT & (REUSE_FRONT - 1)) == 0,
               "the front's ranks are bytes of one vector");

/* Entry R's line comes to the front: the ranks below RANK (its own; or
 * REUSE_FRONT, a line that was not in the front) go one down, and R's
 * becomes 0. One vector step rather than a shift of the lines. */
static ALWAYS_INLINE void to_front(struct reuse_distance *rd, unsigned r, unsigned rank)
{
#if defined(__SSE2__)
    __m128i v = _mm_load_si128((const __m128i *)rd->front_rank);
    v = _mm_sub_epi8(v, _mm_cmpgt_epi8(_mm_load_si128((const __m128i *)RANK_SPLAT[rank]), v));
    v = _mm_andnot_si128(_mm_load_si128((const __m128i *)ENTRY_MASK[r]), v);
    _mm_store_si128((__m128i *)rd->front_rank, v);
#else
    for (unsigned i = 0; i < FRONT_RANKS; i++)
        rd->front_rank[i] += rd->front_rank[i] < rank;
    rd->front_rank[r] = 0;
#endif
}

/* The front's line of rank RANK (in use, below REUSE_FRONT) comes to it:
 * those of ranks below go one down, and its own becomes 0. Ranks are
 * distinct, so the entry is the one holding RANK: the same splat finds it
 * and bounds the others, with no load of ENTRY_MASK's row (no address to
 * compute from the entry) on the path of every short reuse. A line from
 * behind the front takes the place of the least recent line: rank
 * REUSE_FRONT - 1. */
static ALWAYS_INLINE void rank_to_front(struct reuse_distance *rd, unsigned rank)
{
#if defined(__SSE2__)
    __m128i v = _mm_load_si128((const __m128i *)rd->front_rank);
    __m128i splat = _mm_load_si128((const __m128i *)RANK_SPLAT[rank]);
    __m128i below = _mm_cmpgt_epi8(splat, v), own = _mm_cmpeq_epi8(splat, v);
    _mm_store_si128((__m128i *)rd->front_rank, _mm_andnot_si128(own, _mm_sub_epi8(v, below)));
#else
    for (unsigned i = 0; i < FRONT_RANKS; i++)
        rd->front_rank[i] = rd->front_rank[i] == rank ? 0 : rd->front_rank[i] + (rd->front_rank[i] < rank);
#endif
}

/* The entry of the front's least recent line (the front is full). */
static ALWAYS_INLINE unsigned front_last(const struct reuse_distance *rd)
{
#if defined(__SSE2__)
    __m128i v = _mm_load_si128((const __m128i *)rd->front_rank);
    __m128i lru = _mm_load_si128((const __m128i *)RANK_SPLAT[REUSE_FRONT - 1]);
    int last = _mm_movemask_epi8(_mm_cmpeq_epi8(v, lru));
    return (unsigned)__builtin_ctz((unsigned)last);
#else
    unsigned r = 0;
    while (rd->front_rank[r] != REUSE_FRONT - 1)
        r++;
    return r;
#endif
}

/* An access to LINE, of record SLOT holding T, that is not in the front;
 * returns its distance, or REUSE_COLD. The front's least recent line
 * falls out of it, its mark at the time now; LINE's mark, if any, leaves
 * the marks: the marks after it are the lines that fell out of the front
 * since, each touched after LINE. */
static ALWAYS_INLINE uint64_t access_behind_front(struct reuse_distance *rd, uint64_t line,
                                                  int defer, uint64_t *slot, uint64_t t)
{
    if (rd->now == rd->capacity) {
        compact(rd);
        t = *slot; /* renumbered */
    }
    uint64_t distance = REUSE_COLD;
    if (t == 0) {
        if (rd->live == UINT32_MAX - 1)
            oom_exit("reuse distance: 2^32 distinct lines"); /* the counts are 32 bits */
        rd->cold++;
        rd->live++;
    }
    unsigned r;
    if (__builtin_expect(rd->n_front < REUSE_FRONT, 0)) {
        /* The first lines seen: nothing has fallen out, all are cold. */
        r = rd->n_front++;
        to_front(rd, r, r);
    } else {
        r = front_last(rd);
        uint64_t now = rd->now;
        *rd->front_slot[r] = now;
        if (t == 0) {
            add_mark(rd, now);
        } else {
            distance = REUSE_FRONT + move_mark_counting(rd, t, now);
            count_far(rd, distance, defer);
        }
        rd->now = now + 1;
        rank_to_front(rd, REUSE_FRONT - 1);
    }
    rd->front_line[r] = line;
    rd->front_slot[r] = slot;
    *slot = FRONT_RECORD | r;
    return distance;
}

/* Whether the stack asks for the marks ahead from here (see marks_ahead),
 * when MARKS_AHEAD_WINDOW accesses or more came since it last decided:
 * for far distances in one access in eight, or more, in a stack larger
 * than the caches hold. Between batches. */
static void decide_marks_ahead(struct reuse_distance *rd)
{
    uint64_t accesses = rd->accesses - rd->accesses_checked;
    if (accesses < MARKS_AHEAD_WINDOW)
        return;
    int ahead = (rd->far - rd->far_checked) * 8 >= accesses && rd->live >= MARKS_AHEAD_LINES;
    if (rd->ahead_stacks && ahead != rd->marks_ahead)
        *rd->ahead_stacks += ahead ? 1u : (unsigned)-1;
    rd->marks_ahead = ahead;
    rd->far_checked = rd->far;
    rd->accesses_checked = rd->accesses;
}

/* One access to LINE; returns its distance, or REUSE_COLD for a first
 * access. DEFER: a far distance may wait to be counted in a burst. SLOT:
 * LINE's record when known, else NULL. A repeat of the latest line takes
 * the front's way (rank 0, where nothing moves) with no test of its own:
 * a third of a program's accesses, and as unpredictable as the others. */
static ALWAYS_INLINE uint64_t access_line(struct reuse_distance *rd, uint64_t line, int defer,
                                          uint64_t *known_slot)
{
    uint64_t *slot = known_slot ? known_slot : shadow_map_slot(&rd->last, line);
    uint64_t t = *slot;
    if (!(t & FRONT_RECORD))
        return access_behind_front(rd, line, defer, slot, t);
    /* A short reuse: nothing in the marks moves; its entry in the
     * histogram exists from the start, and the span is the histogram's
     * to say (reuse_distance_span). */
    unsigned r = (unsigned)t & (REUSE_FRONT - 1), rank = rd->front_rank[r];
    rd->histogram[rank]++;
    rank_to_front(rd, rank);
    return rank;
}

void reuse_distance_access(struct reuse_distance *rd, uint64_t line)
{
    rd->accesses++;
    access_line(rd, line, 0, NULL);
    decide_marks_ahead(rd);
}

uint64_t reuse_distance_access_distance(struct reuse_distance *rd, uint64_t line)
{
    rd->accesses++;
    uint64_t distance = access_line(rd, line, 0, NULL);
    decide_marks_ahead(rd);
    return distance;
}

/* How many events ahead a line's latest time is asked for; at half that
 * distance the time has arrived, and the marks around it, where the count
 * of the lines touched since starts, are asked for in turn. */
#define PREFETCH_AHEAD 32

static ALWAYS_INLINE int is_load_or_store(const struct batch_event *ev)
{
    return ev->type == EVENT_READ || ev->type == EVENT_WRITE;
}

/* A load or store: an access to every line it overlaps; SLOT, when not
 * NULL, is the first line's (found when it was asked for ahead). Counts
 * the accesses to the lines after the first (rare); the caller counts the
 * first (the global loop, a block's first lines at once). */
static ALWAYS_INLINE void access_lines(struct reuse_distance *rd, const struct batch_event *ev,
                                       unsigned line_shift, uint64_t *slot)
{
    uint64_t first = ev->value >> line_shift;
    uint64_t last = (ev->value + ev->size - 1) >> line_shift;
    access_line(rd, first, 1, slot);
    for (uint64_t line = first + 1; line <= last; line++) {
        rd->accesses++;
        access_line(rd, line, 1, NULL);
    }
}

/* The slots of the lines asked for ahead, by event position: each is
 * looked up once, when it is asked for, and used by the marks' asking and
 * the access (a stack's slots never move). NULL where the line had none
 * yet, or the event is no access. */
#define SLOT_RING (2 * PREFETCH_AHEAD)

/* A ring whose first PREFETCH_AHEAD positions were not asked for (their
 * slots are looked up at the access). */
static ALWAYS_INLINE void clear_slot_ring(uint64_t **ring, size_t n)
{
    for (size_t j = 0; j < n && j < PREFETCH_AHEAD; j++)
        ring[j] = NULL;
}

/* Asks for the slot of the access EV (when one, in stack RD), and keeps it
 * at P in RING. */
static ALWAYS_INLINE void prefetch_slot(const struct reuse_distance *rd,
                                        const struct batch_event *ev,
                                        unsigned line_shift, uint64_t **ring, size_t p)
{
    uint64_t *slot = NULL;
    if (rd && is_load_or_store(ev)) {
        /* (a stack's records are one word, never widened) */
        slot = (uint64_t *)shadow_map_hint_recent_narrow(&rd->last, ev->value >> line_shift);
        /* Untested: a prefetch never faults, and a NULL (a line of a chunk
         * not yet found) is rare. */
        __builtin_prefetch(slot, 1);
    }
    ring[p % SLOT_RING] = slot;
}

static ALWAYS_INLINE void prefetch_marks(const struct reuse_distance *rd, const uint64_t *slot)
{
    if (!rd->marks_ahead)
        return;
    if (!slot || !*slot || *slot >= rd->capacity)
        return; /* never touched, or its time is from before a renumbering */
    uint64_t t = *slot;
    __builtin_prefetch(&rd->marks[t >> 6], 1);
    if (rd->levels < 2)
        return; /* (never, in a stack large enough to ask) */
    /* Levels 1 and 2: those above are few lines. */
    __builtin_prefetch(&rd->counts[1][t >> entry_shift(1)], 1);
    __builtin_prefetch(&rd->counts[2][t >> entry_shift(2)], 1);
}

/* The global loop gathers the loads and stores of ACCESS_BLOCK events at a
 * time (their places, with no branch on an event's type), then runs them
 * with the lookahead counted in gathered accesses: a call, return or cost
 * among the loads and stores made the test of an event's type a
 * mispredicted branch, twice (once for the lookahead, once for the
 * access). The last PREFETCH_AHEAD gathered wait for the next block, so
 * that the lookahead runs on across blocks. */
#define ACCESS_BLOCK 256

struct gathered {
    const struct batch_event *ev[PREFETCH_AHEAD + ACCESS_BLOCK];
    /* the ring's slots, by place: [0, PREFETCH_AHEAD) NULL at first, the
     * others asked for when the access PREFETCH_AHEAD before runs */
    uint64_t *slot[PREFETCH_AHEAD + ACCESS_BLOCK];
    size_t n;
};

/* The record of the access EV, asked for ahead (NULL: its chunk is not
 * found yet, looked up at the access). */
static ALWAYS_INLINE uint64_t *slot_ahead(const struct reuse_distance *rd,
                                          const struct batch_event *ev, unsigned line_shift)
{
    /* (a stack's records are one word, never widened) */
    uint64_t *slot =
        (uint64_t *)shadow_map_hint_recent_narrow(&rd->last, ev->value >> line_shift);
    __builtin_prefetch(slot, 1); /* untested: a prefetch never faults */
    return slot;
}

/* Runs the gathered accesses [0, END), the lookahead within G->n. */
static ALWAYS_INLINE void run_gathered(struct reuse_distance *rd, struct gathered *g, size_t end,
                                       unsigned line_shift, int marks)
{
    size_t full = g->n > PREFETCH_AHEAD ? g->n - PREFETCH_AHEAD : 0;
    if (full > end)
        full = end;
    rd->accesses += end; /* their first lines; access_lines counts the others */
    /* (by pointer, with the slots at a constant offset: no index to keep) */
    const struct batch_event **ev = g->ev, **ev_full = g->ev + full, **ev_end = g->ev + end;
    uint64_t **slot = g->slot;
    for (; ev < ev_full; ev++, slot++) {
        slot[PREFETCH_AHEAD] = slot_ahead(rd, ev[PREFETCH_AHEAD], line_shift);
        if (marks)
            prefetch_marks(rd, slot[PREFETCH_AHEAD / 2]);
        access_lines(rd, *ev, line_shift, *slot);
    }
    for (; ev < ev_end; ev++, slot++) { /* the last ones: no lookahead past G->n */
        if (marks && (size_t)(ev - g->ev) + PREFETCH_AHEAD / 2 < g->n)
            prefetch_marks(rd, slot[PREFETCH_AHEAD / 2]);
        access_lines(rd, *ev, line_shift, *slot);
    }
}

static ALWAYS_INLINE int stops_at(const struct batch_event *ev, uint32_t stop)
{
    return ev->type == EVENT_THREAD && (stop == REUSE_STOP_ANY || ev->size == stop);
}

/* The global loop, once asking for marks ahead and once not: whether it
 * does is the stack's choice when the batch starts (it changes every few
 * thousand accesses at most, and a batch is a few thousand events). */
static ALWAYS_INLINE size_t global_events(struct reuse_distance *rd,
                                          const struct batch_event *events, size_t n,
                                          unsigned line_shift, uint32_t stop, int marks)
{
    struct gathered g;
    g.n = 0;
    for (size_t k = 0; k < PREFETCH_AHEAD; k++)
        g.slot[k] = NULL;
    size_t i = 0;
    int last = 0;
    while (!last) {
        size_t e = n - i > ACCESS_BLOCK ? i + ACCESS_BLOCK : n;
        for (; i < e; i++) {
            const struct batch_event *ev = &events[i];
            if (__builtin_expect(stops_at(ev, stop), 0))
                break;
            g.ev[g.n] = ev;
            g.n += is_load_or_store(ev); /* the kernel's accesses are no reuse */
        }
        last = i < e || i == n;
        size_t end = last ? g.n : g.n > PREFETCH_AHEAD ? g.n - PREFETCH_AHEAD : 0;
        run_gathered(rd, &g, end, line_shift, marks);
        /* (the rest, their slots asked for already, wait at the start) */
        memmove(g.ev, g.ev + end, (g.n - end) * sizeof *g.ev);
        memmove(g.slot, g.slot + end, (g.n - end) * sizeof *g.slot);
        g.n -= end;
    }
    count_pending(rd);
    decide_marks_ahead(rd);
    return i;
}

size_t reuse_distance_events(struct reuse_distance *rd, const struct batch_event *events,
                             size_t n, unsigned line_shift, uint32_t stop)
{
    return rd->marks_ahead ? global_events(rd, events, n, line_shift, stop, 1)
                           : global_events(rd, events, n, line_shift, stop, 0);
}

static ALWAYS_INLINE struct reuse_distance *stack_of(struct reuse_distance *const *stacks,
                                                     size_t n_stacks, size_t k)
{
    return k < n_stacks ? stacks[k] : NULL;
}

/* The stack of the thread in effect at EV (a thread event there sets it:
 * the thread's stack, NULL while it has none of its own). */
static ALWAYS_INLINE void follow_thread(const struct batch_event *ev,
                                        struct reuse_distance *const *stacks, size_t n_stacks,
                                        struct reuse_distance **its)
{
    if (ev->type == EVENT_THREAD)
        *its = stack_of(stacks, n_stacks, ev->size);
}

/* The per-thread loop, once with the second lookahead (MARKS: some stack
 * asks for marks ahead) and once without. */
static ALWAYS_INLINE size_t thread_events(struct reuse_distance *const *stacks, size_t n_stacks,
                                          size_t *current, const struct batch_event *events,
                                          size_t n, unsigned line_shift, int marks)
{
    /* Each lookahead cursor knows the thread in effect where it stands, so
     * that a line is asked for in the stack of the thread that will touch
     * it, across the switches. */
    size_t cur = *current;
    struct reuse_distance *rd = stack_of(stacks, n_stacks, cur), *far = rd, *near = rd;
    for (size_t j = 0; j < n && j < PREFETCH_AHEAD; j++) {
        follow_thread(&events[j], stacks, n_stacks, &far);
        if (marks && j < PREFETCH_AHEAD / 2)
            follow_thread(&events[j], stacks, n_stacks, &near);
    }
    uint64_t *ring[SLOT_RING];
    clear_slot_ring(ring, n);
    size_t i = 0;
    for (; i < n; i++) {
        if (i + PREFETCH_AHEAD < n) {
            const struct batch_event *ahead = &events[i + PREFETCH_AHEAD];
            follow_thread(ahead, stacks, n_stacks, &far);
            prefetch_slot(far, ahead, line_shift, ring, i + PREFETCH_AHEAD);
        }
        if (marks && i + PREFETCH_AHEAD / 2 < n) {
            follow_thread(&events[i + PREFETCH_AHEAD / 2], stacks, n_stacks, &near);
            if (near)
                prefetch_marks(near, ring[(i + PREFETCH_AHEAD / 2) % SLOT_RING]);
        }
        const struct batch_event *ev = &events[i];
        if (ev->type == EVENT_THREAD) {
            struct reuse_distance *next = stack_of(stacks, n_stacks, ev->size);
            if (!next)
                break; /* a thread without a stack of its own (yet): the caller's */
            /* Only the stack at hand defers far distances: counted as it
             * is left, so that nothing here visits every thread's stack. */
            if (rd) {
                count_pending(rd);
                decide_marks_ahead(rd);
            }
            cur = ev->size;
            rd = next;
            continue;
        }
        if (!rd || !is_load_or_store(ev))
            continue; /* no thread yet; the kernel's accesses */
        rd->accesses++;
        access_lines(rd, ev, line_shift, ring[i % SLOT_RING]);
    }
    *current = cur;
    if (rd) {
        count_pending(rd);
        decide_marks_ahead(rd);
    }
    return i;
}

size_t reuse_distance_thread_events(struct reuse_distance *const *stacks, size_t n_stacks,
                                    size_t *current, const struct batch_event *events, size_t n,
                                    unsigned line_shift, int marks_ahead)
{
    return marks_ahead ? thread_events(stacks, n_stacks, current, events, n, line_shift, 1)
                       : thread_events(stacks, n_stacks, current, events, n, line_shift, 0);
}

void reuse_distance_count_ahead(struct reuse_distance *rd, unsigned *ahead_stacks)
{
    rd->ahead_stacks = ahead_stacks;
    if (ahead_stacks && rd->marks_ahead)
        ++*ahead_stacks;
}

struct reuse_distance *reuse_distance_clone(const struct reuse_distance *rd)
{
    struct reuse_distance *copy = xmalloc(sizeof *copy);
    *copy = *rd;
    copy->ahead_stacks = NULL;
    shadow_map_init(&copy->last, 1);
    shadow_map_copy(&copy->last, (struct shadow_map *)&rd->last);
    for (unsigned r = 0; r < rd->n_front; r++) /* the copy's own records */
        copy->front_slot[r] = shadow_map_slot(&copy->last, rd->front_line[r]);
    size_t mark_bytes = level_padded(rd, 0) * sizeof *rd->marks;
    copy->marks = huge_pages_calloc(mark_bytes);
    memcpy(copy->marks, rd->marks, mark_bytes);
    for (unsigned k = 1; k <= rd->levels; k++) {
        size_t bytes = level_padded(rd, k) * sizeof(uint32_t);
        copy->counts[k] = huge_pages_calloc(bytes);
        memcpy(copy->counts[k], rd->counts[k], bytes);
    }
    copy->histogram = NULL;
    if (rd->histogram_capacity) {
        size_t bytes = rd->histogram_capacity * sizeof *rd->histogram;
        copy->histogram = huge_pages_calloc(bytes);
        memcpy(copy->histogram, rd->histogram, bytes);
    }
    return copy;
}

uint64_t reuse_distance_accesses(const struct reuse_distance *rd)
{
    return rd->accesses;
}

uint64_t reuse_distance_cold(const struct reuse_distance *rd)
{
    return rd->cold;
}

uint64_t reuse_distance_count(const struct reuse_distance *rd, uint64_t distance)
{
    return distance < rd->histogram_capacity ? rd->histogram[distance] : 0;
}

uint64_t reuse_distance_span(const struct reuse_distance *rd)
{
    if (rd->span > REUSE_FRONT)
        return rd->span; /* past the front's distances */
    uint64_t span = REUSE_FRONT; /* (the histogram has their entries) */
    while (span > rd->span && rd->histogram[span - 1] == 0)
        span--;
    return span;
}

size_t reuse_distance_bytes(const struct reuse_distance *rd)
{
    size_t counts = 0;
    for (unsigned k = 1; k <= rd->levels; k++)
        counts += level_padded(rd, k) * sizeof(uint32_t);
    return sizeof *rd + shadow_map_bytes(&rd->last) + level_padded(rd, 0) * sizeof *rd->marks +
           counts +
           rd->histogram_capacity * sizeof *rd->histogram;
}
