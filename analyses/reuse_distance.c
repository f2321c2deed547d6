#include "analyses/reuse_distance.h"

#include <stdlib.h>
#include <string.h>

#include "analyses/reuse_distance_internal.h"
#include "analyses/shadow_map.h"
#include "common/compiler.h"
#include "common/oom.h"
#include "trace/event.h"

#define GROUP_BITS REUSE_GROUP_BITS
#define GROUP (1u << GROUP_BITS)

/* Entries at level K (0: the words of marks). */
static uint64_t level_size(const struct reuse_distance *rd, unsigned k)
{
    uint64_t n = rd->words;
    for (unsigned i = 0; i < k; i++)
        n = (n + GROUP - 1) >> GROUP_BITS;
    return n;
}

/* Entry J of level K: a word's marks, or a group's count. */
static ALWAYS_INLINE uint64_t entry(const struct reuse_distance *rd, unsigned k, uint64_t j)
{
    return k ? rd->counts[k][j] : (uint64_t)__builtin_popcountll(rd->marks[j]);
}

static ALWAYS_INLINE uint64_t entries(const struct reuse_distance *rd, unsigned k, uint64_t from,
                                      uint64_t to)
{
    uint64_t sum = 0;
    if (k == 0)
        for (uint64_t j = from; j <= to; j++)
            sum += (uint64_t)__builtin_popcountll(rd->marks[j]);
    else
        for (uint64_t j = from; j <= to; j++)
            sum += rd->counts[k][j];
    return sum;
}

/* Marks at times after T (and so before now: lines touched since T), for
 * T a mark. Climbs from T's word: at each level, the marks after T's entry
 * in its group come from the nearer end of the group (the group's count
 * minus the entries up to T's, or the entries after it), until T's group
 * is the present's, after which nothing is marked. */
static uint64_t marks_after_climb(const struct reuse_distance *rd, uint64_t t)
{
    uint64_t i = t >> 6, n = (rd->now - 1) >> 6;
    uint64_t after = (uint64_t)__builtin_popcountll(rd->marks[i] & ~((2ull << (t & 63)) - 1));
    for (unsigned k = 0; i != n; k++) {
        uint64_t pi = i >> GROUP_BITS, pn = n >> GROUP_BITS;
        uint64_t start = pi << GROUP_BITS;
        uint64_t stop = pi == pn ? n : start + GROUP - 1; /* nothing is marked past n */
        uint64_t size = level_size(rd, k);
        if (stop >= size)
            stop = size - 1;
        if (stop - i <= i - start + 1) {
            if (stop > i)
                after += entries(rd, k, i + 1, stop);
        } else {
            uint64_t group = k < rd->levels ? rd->counts[k + 1][pi] : rd->live;
            after += group - entries(rd, k, start, i);
        }
        if (k == rd->levels) /* the top has one group: done */
            break;
        i = pi;
        n = pn;
    }
    return after;
}

/* Marks at times strictly between t and now: lines touched since t. */
static ALWAYS_INLINE uint64_t marks_after(const struct reuse_distance *rd, uint64_t t)
{
    if (rd->now - t > SCAN_LIMIT)
        return marks_after_climb(rd, t);
    uint64_t w = t >> 6, end = (rd->now - 1) >> 6;
    uint64_t bits = rd->marks[w] & ~((2ull << (t & 63)) - 1);
    uint64_t n = 0;
    for (; w < end; bits = rd->marks[++w])
        n += (uint64_t)__builtin_popcountll(bits);
    return n + (uint64_t)__builtin_popcountll(bits);
}

static void free_counts(struct reuse_distance *rd)
{
    for (unsigned k = 1; k <= COUNT_LEVELS_MAX; k++) {
        free(rd->counts[k]);
        rd->counts[k] = NULL;
    }
}

void reuse_window_allocate(struct reuse_distance *rd, uint64_t capacity)
{
    free(rd->marks);
    free_counts(rd);
    rd->capacity = capacity;
    rd->words = capacity / 64;
    rd->marks = xcalloc(rd->words, sizeof *rd->marks);
    rd->levels = 0;
    while (level_size(rd, rd->levels) > GROUP) {
        rd->levels++;
        if (rd->levels > COUNT_LEVELS_MAX)
            oom_exit("reuse distance window");
        rd->counts[rd->levels] = xcalloc(level_size(rd, rd->levels), sizeof(uint32_t));
    }
}

uint64_t reuse_min_capacity(uint64_t min_window)
{
    return min_window ? (min_window + 63) / 64 * 64 : DEFAULT_MIN_WINDOW;
}

struct reuse_distance *reuse_distance_new(uint64_t min_window)
{
    struct reuse_distance *rd = xcalloc(1, sizeof *rd);
    shadow_map_init(&rd->last, 1);
    rd->min_capacity = reuse_min_capacity(min_window);
    reuse_window_allocate(rd, rd->min_capacity);
    rd->now = 1;
    return rd;
}

void reuse_distance_free(struct reuse_distance *rd)
{
    if (!rd)
        return;
    shadow_map_free(&rd->last);
    free(rd->marks);
    free_counts(rd);
    free(rd->histogram);
    free(rd);
}

struct renumbering {
    const struct reuse_distance *rd;
    uint64_t *before;   /* marks in the words before each word */
};

static void renumber_chunk(void *ctx, uint64_t number, uint64_t *chunk)
{
    (void)number;
    const struct renumbering *r = ctx;
    for (unsigned i = 0; i < SHADOW_CHUNK_CELLS; i++) {
        uint64_t t = chunk[i];
        if (t) /* its rank among the live marks */
            chunk[i] = r->before[t >> 6] +
                       (uint64_t)__builtin_popcountll(r->rd->marks[t >> 6] &
                                                      ((2ull << (t & 63)) - 1));
    }
}

void reuse_window_count_marks(struct reuse_distance *rd)
{
    for (unsigned k = 1; k <= rd->levels; k++) {
        uint64_t below = level_size(rd, k - 1);
        for (uint64_t j = 0; j < below; j++)
            rd->counts[k][j >> GROUP_BITS] += (uint32_t)entry(rd, k - 1, j);
    }
}

/* Time has reached the end of the window: give the live marks the times
 * 1..live, in order, in a window WINDOW_FACTOR times that size. */
static void compact(struct reuse_distance *rd)
{
    struct renumbering r = {rd, xmalloc(rd->words * sizeof *r.before)};
    uint64_t marks = 0;
    for (uint64_t w = 0; w < rd->words; w++) {
        r.before[w] = marks;
        marks += (uint64_t)__builtin_popcountll(rd->marks[w]);
    }
    shadow_map_each_chunk(&rd->last, renumber_chunk, &r);
    free(r.before);
    uint64_t capacity = rd->min_capacity;
    while (capacity < WINDOW_FACTOR * (rd->live + 1))
        capacity *= 2;
    reuse_window_allocate(rd, capacity);
    for (uint64_t t = 1; t <= rd->live; t++)
        rd->marks[t >> 6] |= 1ull << (t & 63);
    reuse_window_count_marks(rd);
    rd->now = rd->live + 1;
}

static void grow_histogram(struct reuse_distance *rd, uint64_t distance)
{
    uint64_t capacity = rd->histogram_capacity ? rd->histogram_capacity : 64;
    while (capacity <= distance)
        capacity *= 2;
    rd->histogram = xrealloc(rd->histogram, capacity * sizeof *rd->histogram);
    for (uint64_t i = rd->histogram_capacity; i < capacity; i++)
        rd->histogram[i] = 0;
    rd->histogram_capacity = capacity;
}

static ALWAYS_INLINE void count_distance(struct reuse_distance *rd, uint64_t distance)
{
    if (distance >= rd->histogram_capacity)
        grow_histogram(rd, distance);
    rd->histogram[distance]++;
    if (distance >= rd->span)
        rd->span = distance + 1;
}

/* The far distances waiting, into the histogram: a few entries ahead are
 * asked for while one is counted. */
static void count_pending(struct reuse_distance *rd)
{
    enum { AHEAD = 8 };
    uint64_t largest = 0;
    for (unsigned i = 0; i < rd->n_pending; i++)
        largest = rd->pending[i] > largest ? rd->pending[i] : largest;
    if (largest >= rd->histogram_capacity)
        grow_histogram(rd, largest);
    if (largest >= rd->span && rd->n_pending)
        rd->span = largest + 1;
    for (unsigned i = 0; i < rd->n_pending; i++) {
        if (i + AHEAD < rd->n_pending)
            __builtin_prefetch(&rd->histogram[rd->pending[i + AHEAD]], 1);
        rd->histogram[rd->pending[i]]++;
    }
    rd->n_pending = 0;
}

static ALWAYS_INLINE void count_far(struct reuse_distance *rd, uint64_t distance, int defer)
{
    if (!defer || distance < FAR_DISTANCE) {
        count_distance(rd, distance);
        return;
    }
    rd->pending[rd->n_pending++] = distance;
    if (rd->n_pending == PENDING_FAR)
        count_pending(rd);
}

/* Moves the mark of time T (0: none, a first access) to time NOW. */
static ALWAYS_INLINE void move_mark(struct reuse_distance *rd, uint64_t t, uint64_t now)
{
    rd->marks[now >> 6] |= 1ull << (now & 63);
    uint64_t jn = now >> 6;
    if (t == 0) {
        for (unsigned k = 1; k <= rd->levels; k++)
            rd->counts[k][jn >> (GROUP_BITS * k)]++;
        return;
    }
    rd->marks[t >> 6] &= ~(1ull << (t & 63));
    uint64_t jt = t >> 6;
    for (unsigned k = 1; k <= rd->levels; k++) {
        uint64_t a = jt >> (GROUP_BITS * k), b = jn >> (GROUP_BITS * k);
        if (a == b)
            break; /* and so at every level above */
        rd->counts[k][a]--;
        rd->counts[k][b]++;
    }
}

/* One access to LINE; returns its distance, or REUSE_COLD for a first
 * access. DEFER: a far distance may wait to be counted in a burst. */
static ALWAYS_INLINE uint64_t access_line(struct reuse_distance *rd, uint64_t line, int defer)
{
    rd->accesses++;
    if (line == rd->latest && rd->have_latest) {
        /* Already the most recent line: distance 0 and nothing moves. */
        count_distance(rd, 0);
        return 0;
    }
    if (rd->now == rd->capacity)
        compact(rd);
    uint64_t *slot = shadow_map_slot(&rd->last, line);
    uint64_t t = *slot;
    uint64_t now = rd->now;
    uint64_t distance = REUSE_COLD;
    if (t == 0) {
        rd->cold++;
        rd->live++;
    } else {
        distance = marks_after(rd, t);
        count_far(rd, distance, defer);
    }
    move_mark(rd, t, now);
    *slot = now;
    rd->now = now + 1;
    rd->latest = line;
    rd->have_latest = 1;
    return distance;
}

void reuse_distance_access(struct reuse_distance *rd, uint64_t line)
{
    access_line(rd, line, 0);
}

uint64_t reuse_distance_access_distance(struct reuse_distance *rd, uint64_t line)
{
    return access_line(rd, line, 0);
}

/* How many events ahead a line's latest time is asked for. */
#define PREFETCH_AHEAD 8

size_t reuse_distance_events(struct reuse_distance *rd, const struct batch_event *events,
                             size_t n, unsigned line_shift, uint32_t stop)
{
    size_t i = 0;
    for (; i < n; i++) {
        const struct batch_event *ev = &events[i];
        if (i + PREFETCH_AHEAD < n) {
            const struct batch_event *next = &events[i + PREFETCH_AHEAD];
            if (next->type == EVENT_READ || next->type == EVENT_WRITE)
                shadow_map_prefetch(&rd->last, next->value >> line_shift);
        }
        if (ev->type != EVENT_READ && ev->type != EVENT_WRITE) {
            if (ev->type == EVENT_THREAD && (stop == REUSE_STOP_ANY || ev->size == stop))
                break;
            continue; /* the kernel's accesses are no reuse */
        }
        uint64_t first = ev->value >> line_shift;
        uint64_t last = (ev->value + ev->size - 1) >> line_shift;
        for (uint64_t line = first;; line++) {
            access_line(rd, line, 1);
            if (line == last)
                break;
        }
    }
    count_pending(rd);
    return i;
}

struct reuse_distance *reuse_distance_clone(const struct reuse_distance *rd)
{
    struct reuse_distance *copy = xmalloc(sizeof *copy);
    *copy = *rd;
    shadow_map_init(&copy->last, 1);
    shadow_map_copy(&copy->last, (struct shadow_map *)&rd->last);
    copy->marks = xmalloc(rd->words * sizeof *rd->marks);
    memcpy(copy->marks, rd->marks, rd->words * sizeof *rd->marks);
    for (unsigned k = 1; k <= rd->levels; k++) {
        size_t bytes = level_size(rd, k) * sizeof(uint32_t);
        copy->counts[k] = xmalloc(bytes);
        memcpy(copy->counts[k], rd->counts[k], bytes);
    }
    copy->histogram = NULL;
    if (rd->histogram_capacity) {
        copy->histogram = xmalloc(rd->histogram_capacity * sizeof *rd->histogram);
        memcpy(copy->histogram, rd->histogram, rd->histogram_capacity * sizeof *rd->histogram);
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
    return distance < rd->span ? rd->histogram[distance] : 0;
}

uint64_t reuse_distance_span(const struct reuse_distance *rd)
{
    return rd->span;
}

size_t reuse_distance_bytes(const struct reuse_distance *rd)
{
    size_t counts = 0;
    for (unsigned k = 1; k <= rd->levels; k++)
        counts += level_size(rd, k) * sizeof(uint32_t);
    return sizeof *rd + shadow_map_bytes(&rd->last) + rd->words * sizeof *rd->marks + counts +
           rd->histogram_capacity * sizeof *rd->histogram;
}
