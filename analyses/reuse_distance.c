#include "analyses/reuse_distance.h"

#include <stdlib.h>

#include "analyses/reuse_distance_internal.h"
#include "analyses/shadow_map.h"
#include "common/compiler.h"
#include "common/oom.h"

/* Marks in words [0, w). */
static uint64_t tree_prefix(const struct reuse_distance *rd, uint64_t w)
{
    uint64_t sum = 0;
    for (uint64_t i = w; i > 0; i &= i - 1)
        sum += rd->tree[i];
    return sum;
}

static void tree_add(struct reuse_distance *rd, uint64_t w, int32_t delta)
{
    for (uint64_t i = w + 1; i <= rd->words; i += i & (~i + 1))
        rd->tree[i] += (uint32_t)delta;
}

/* Marks at times <= t. */
static uint64_t marks_through(const struct reuse_distance *rd, uint64_t t)
{
    uint64_t w = t >> 6;
    uint64_t mask = (2ull << (t & 63)) - 1; /* bits 0..t%64; wraps to ~0 */
    return tree_prefix(rd, w) + (uint64_t)__builtin_popcountll(rd->marks[w] & mask);
}

/* Marks at times strictly between t and now: lines touched since t. */
static uint64_t marks_after(const struct reuse_distance *rd, uint64_t t)
{
    if (rd->now - t > SCAN_LIMIT)
        return rd->live - marks_through(rd, t);
    uint64_t w = t >> 6, end = (rd->now - 1) >> 6;
    uint64_t bits = rd->marks[w] & ~((2ull << (t & 63)) - 1);
    uint64_t n = 0;
    for (; w < end; bits = rd->marks[++w])
        n += (uint64_t)__builtin_popcountll(bits);
    return n + (uint64_t)__builtin_popcountll(bits);
}

void reuse_window_allocate(struct reuse_distance *rd, uint64_t capacity)
{
    free(rd->marks);
    free(rd->tree);
    rd->capacity = capacity;
    rd->words = capacity / 64;
    rd->marks = xcalloc(rd->words, sizeof *rd->marks);
    rd->tree = xcalloc(rd->words + 1, sizeof *rd->tree);
}

struct reuse_distance *reuse_distance_new(uint64_t min_window)
{
    struct reuse_distance *rd = xcalloc(1, sizeof *rd);
    shadow_map_init(&rd->last, 1);
    rd->min_capacity = min_window ? (min_window + 63) / 64 * 64 : DEFAULT_MIN_WINDOW;
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
    free(rd->tree);
    free(rd->histogram);
    free(rd);
}

static void renumber_chunk(void *ctx, uint64_t number, uint64_t *chunk)
{
    (void)number;
    const struct reuse_distance *rd = ctx;
    for (unsigned i = 0; i < SHADOW_CHUNK_CELLS; i++)
        if (chunk[i])
            chunk[i] = marks_through(rd, chunk[i]); /* rank among live marks */
}

void reuse_window_count_marks(struct reuse_distance *rd)
{
    for (uint64_t i = 1; i <= rd->words; i++) {
        rd->tree[i] += (uint32_t)__builtin_popcountll(rd->marks[i - 1]);
        uint64_t parent = i + (i & (~i + 1));
        if (parent <= rd->words)
            rd->tree[parent] += rd->tree[i];
    }
}

/* Time has reached the end of the window: give the live marks the times
 * 1..live, in order, in a window WINDOW_FACTOR times that size. */
static void compact(struct reuse_distance *rd)
{
    shadow_map_each_chunk(&rd->last, renumber_chunk, rd);
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

static ALWAYS_INLINE uint64_t access_line(struct reuse_distance *rd, uint64_t line)
{
    rd->accesses++;
    if (rd->now == rd->capacity)
        compact(rd);
    uint64_t *slot = shadow_map_slot(&rd->last, line);
    uint64_t t = *slot;
    uint64_t now = rd->now;
    if (t == now - 1 && t != 0) {
        /* Already the most recent line: distance 0 and nothing moves. */
        count_distance(rd, 0);
        return 0;
    }
    uint64_t distance = REUSE_COLD;
    if (t == 0) {
        rd->cold++;
        rd->live++;
        tree_add(rd, now >> 6, 1);
    } else {
        distance = marks_after(rd, t);
        count_distance(rd, distance);
        rd->marks[t >> 6] &= ~(1ull << (t & 63));
        if ((t >> 6) != (now >> 6)) {
            tree_add(rd, t >> 6, -1);
            tree_add(rd, now >> 6, 1);
        }
    }
    rd->marks[now >> 6] |= 1ull << (now & 63);
    *slot = now;
    rd->now = now + 1;
    return distance;
}

void reuse_distance_access(struct reuse_distance *rd, uint64_t line)
{
    access_line(rd, line);
}

uint64_t reuse_distance_access_distance(struct reuse_distance *rd, uint64_t line)
{
    return access_line(rd, line);
}

void reuse_distance_lines(struct reuse_distance *rd, uint64_t first, uint64_t last)
{
    for (uint64_t line = first;; line++) {
        access_line(rd, line);
        if (line == last)
            break;
    }
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
    return sizeof *rd + shadow_map_bytes(&rd->last) + rd->words * sizeof *rd->marks +
           (rd->words + 1) * sizeof *rd->tree + rd->histogram_capacity * sizeof *rd->histogram;
}
