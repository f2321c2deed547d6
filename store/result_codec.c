#include "store/result_codec.h"

#include <stdlib.h>
#include <string.h>

#include "analyses/activation.h"
#include "common/oom.h"
#include "trace/crc32.h"

/* Version 2 added each point's real sum, the profiles' calling contexts and
 * the context tree; version 1 results still load (real sum = sum, which
 * differs only for recursive routines). Version 3 added the CRC-32 at the
 * end (4 bytes, little-endian). Version 4 added, before it, the parts
 * computed (enum analysis_part; older results hold every part). Version 5
 * added, after that, the profiles with input through a channel (a pipe,
 * FIFO or socket): varint:count, per one varint:profile index
 * varint:induced_channel varint:channel. Only a result with such input is
 * written as version 5, so that older trms read every other. */
#define OLDEST_READABLE 1

static void put_points(struct byte_buffer *b, const struct profile_point *pts, size_t n)
{
    byte_buffer_put_varint(b, n);
    for (size_t i = 0; i < n; i++) {
        const struct profile_point *p = &pts[i];
        byte_buffer_put_varint(b, p->n);
        byte_buffer_put_varint(b, p->calls);
        byte_buffer_put_varint(b, p->min);
        byte_buffer_put_varint(b, p->max);
        byte_buffer_put_varint(b, p->sum);
        byte_buffer_put_u128(b, p->sumsq);
        byte_buffer_put_varint(b, p->self_min);
        byte_buffer_put_varint(b, p->self_max);
        byte_buffer_put_varint(b, p->self_sum);
        byte_buffer_put_u128(b, p->self_sumsq);
        byte_buffer_put_varint(b, p->real_sum);
    }
}

static void put_histogram(struct byte_buffer *b, const struct reuse_histogram *h)
{
    byte_buffer_put_varint(b, h->accesses);
    byte_buffer_put_varint(b, h->cold);
    byte_buffer_put_varint(b, h->n_bins);
    for (size_t i = 0; i < h->n_bins; i++) {
        byte_buffer_put_varint(b, h->bins[i].distance);
        byte_buffer_put_varint(b, h->bins[i].count);
    }
}

void result_encode(const struct analysis_result *r, struct byte_buffer *b)
{
    size_t start = b->len;
    /* A result of every analysis is written as format 3, which older trms
     * read; only a subset needs format 4's field. */
    size_t with_channel = 0;
    for (size_t i = 0; i < r->n_profiles; i++)
        with_channel += r->profiles[i].induced_channel > 0;
    uint64_t version = with_channel ? 5 : r->analyses == ANALYSIS_ALL ? 3 : 4;
    byte_buffer_put_varint(b, version);
    byte_buffer_put_varint(b, r->cell_size);
    byte_buffer_put_varint(b, r->line_size);
    byte_buffer_put_varint(b, EVENT_TYPE_COUNT);
    for (int t = 0; t < EVENT_TYPE_COUNT; t++)
        byte_buffer_put_varint(b, r->events[t]);
    byte_buffer_put_varint(b, r->activations);
    byte_buffer_put_varint(b, r->routines.count);
    for (size_t i = 0; i < r->routines.count; i++) {
        const struct routine *rt = &r->routines.items[i];
        size_t len = rt->name ? strlen(rt->name) : 0;
        byte_buffer_put_varint(b, rt->addr);
        byte_buffer_put_varint(b, rt->name ? len + 1 : 0);
        byte_buffer_put(b, rt->name, len);
    }
    byte_buffer_put_varint(b, r->n_profiles);
    for (size_t i = 0; i < r->n_profiles; i++) {
        const struct routine_profile *p = &r->profiles[i];
        byte_buffer_put_varint(b, p->routine);
        byte_buffer_put_varint(b, (uint64_t)p->context + 1); /* CONTEXT_NONE is 0 */
        byte_buffer_put_varint(b, p->tid);
        byte_buffer_put_varint(b, p->calls);
        byte_buffer_put_varint(b, p->cost);
        byte_buffer_put_varint(b, p->self_cost);
        byte_buffer_put_varint(b, p->induced_thread);
        byte_buffer_put_varint(b, p->induced_external);
        put_points(b, p->rms_points, p->n_rms_points);
        put_points(b, p->trms_points, p->n_trms_points);
    }
    byte_buffer_put_varint(b, r->n_contexts);
    for (size_t i = 0; i < r->n_contexts; i++) {
        byte_buffer_put_varint(b, (uint64_t)r->contexts[i].parent + 1);
        byte_buffer_put_varint(b, (uint64_t)r->contexts[i].routine + 1);
    }
    put_histogram(b, &r->reuse_global);
    byte_buffer_put_varint(b, r->n_threads);
    for (size_t i = 0; i < r->n_threads; i++) {
        byte_buffer_put_varint(b, r->reuse_threads[i].tid);
        put_histogram(b, &r->reuse_threads[i].histogram);
    }
    if (version >= 4)
        byte_buffer_put_varint(b, r->analyses);
    if (version >= 5) {
        byte_buffer_put_varint(b, with_channel);
        for (size_t i = 0; i < r->n_profiles; i++) {
            const struct routine_profile *p = &r->profiles[i];
            if (!p->induced_channel)
                continue;
            byte_buffer_put_varint(b, i);
            byte_buffer_put_varint(b, p->induced_channel);
            byte_buffer_put_varint(b, p->channel);
        }
    }
    uint32_t crc = crc32_update(0, b->data + start, b->len - start);
    uint8_t tail[4] = {(uint8_t)crc, (uint8_t)(crc >> 8), (uint8_t)(crc >> 16), (uint8_t)(crc >> 24)};
    byte_buffer_put(b, tail, sizeof tail);
}

/* A count read from the data, bounded by the bytes left (every element
 * takes at least one), so corrupt data cannot ask for a huge allocation. */
static size_t get_count(struct byte_cursor *c)
{
    uint64_t n = byte_cursor_varint(c);
    if (n > (uint64_t)(c->end - c->p)) {
        c->failed = 1;
        return 0;
    }
    return (size_t)n;
}

static uint32_t get_u32(struct byte_cursor *c)
{
    uint64_t v = byte_cursor_varint(c);
    if (v > UINT32_MAX)
        c->failed = 1;
    return (uint32_t)v;
}

/* A uint32 stored plus one, so that UINT32_MAX (none, the root) is 0. */
static uint32_t get_u32_plus_one(struct byte_cursor *c)
{
    uint64_t v = byte_cursor_varint(c);
    if (v > (uint64_t)UINT32_MAX + 1)
        c->failed = 1;
    return (uint32_t)(v - 1);
}

static struct profile_point *get_points(struct byte_cursor *c, size_t *n, uint64_t version)
{
    *n = get_count(c);
    struct profile_point *pts = xcalloc(*n, sizeof *pts);
    for (size_t i = 0; i < *n && !c->failed; i++) {
        struct profile_point *p = &pts[i];
        p->n = byte_cursor_varint(c);
        p->calls = byte_cursor_varint(c);
        p->min = byte_cursor_varint(c);
        p->max = byte_cursor_varint(c);
        p->sum = byte_cursor_varint(c);
        p->sumsq = byte_cursor_u128(c);
        p->self_min = byte_cursor_varint(c);
        p->self_max = byte_cursor_varint(c);
        p->self_sum = byte_cursor_varint(c);
        p->self_sumsq = byte_cursor_u128(c);
        p->real_sum = version >= 2 ? byte_cursor_varint(c) : p->sum;
    }
    return pts;
}

static void get_histogram(struct byte_cursor *c, struct reuse_histogram *h)
{
    h->accesses = byte_cursor_varint(c);
    h->cold = byte_cursor_varint(c);
    h->n_bins = get_count(c);
    h->bins = xcalloc(h->n_bins, sizeof *h->bins);
    for (size_t i = 0; i < h->n_bins && !c->failed; i++) {
        h->bins[i].distance = byte_cursor_varint(c);
        h->bins[i].count = byte_cursor_varint(c);
    }
}

/* The indices of R hold together: what the reports follow from one
 * part to another exists, and the context tree is a tree. */
static int consistent(const struct analysis_result *r)
{
    size_t routines = r->routines.count;
    for (size_t i = 0; i < r->n_contexts; i++) {
        const struct calling_context *c = &r->contexts[i];
        int ok = i == 0 ? c->parent == CONTEXT_NONE && c->routine == ROUTINE_ROOT
                        : c->parent < i && c->routine < routines;
        if (!ok)
            return 0;
    }
    for (size_t i = 0; i < r->n_profiles; i++) {
        const struct routine_profile *p = &r->profiles[i];
        if ((p->routine != ROUTINE_ROOT && p->routine >= routines) ||
            (p->context != CONTEXT_NONE && p->context >= r->n_contexts))
            return 0;
    }
    return 1;
}

static uint32_t crc_at(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

struct analysis_result *result_decode(const void *data, size_t len, struct trms_error *err)
{
    struct byte_cursor c;
    byte_cursor_init(&c, data, len);
    uint64_t version = byte_cursor_varint(&c);
    if (c.failed || version < OLDEST_READABLE || version > RESULT_CODEC_VERSION) {
        error_set(err, "stored result has format version %llu; this trms reads versions %d to %d",
                  (unsigned long long)version, OLDEST_READABLE, RESULT_CODEC_VERSION);
        return NULL;
    }
    if (version >= 3) {
        if (len < 5 || crc32_update(0, data, len - 4) != crc_at((const uint8_t *)data + len - 4)) {
            error_set(err, "stored result is corrupt (its checksum does not match)");
            return NULL;
        }
        c.end -= 4;
    }
    struct analysis_result *r = xcalloc(1, sizeof *r);
    routine_table_init(&r->routines);
    r->cell_size = byte_cursor_varint(&c);
    r->line_size = byte_cursor_varint(&c);
    if (byte_cursor_varint(&c) != EVENT_TYPE_COUNT)
        c.failed = 1;
    for (int t = 0; t < EVENT_TYPE_COUNT; t++)
        r->events[t] = byte_cursor_varint(&c);
    r->activations = byte_cursor_varint(&c);
    size_t n_routines = get_count(&c);
    for (size_t i = 0; i < n_routines && !c.failed; i++) {
        uint64_t addr = byte_cursor_varint(&c);
        uint64_t name_len = byte_cursor_varint(&c);
        const uint8_t *name = name_len ? byte_cursor_bytes(&c, (size_t)(name_len - 1)) : NULL;
        uint32_t id;
        if (!c.failed)
            routine_table_append(&r->routines, (const char *)name,
                                 name_len ? (size_t)(name_len - 1) : 0, addr, &id);
    }
    r->n_profiles = get_count(&c);
    r->profiles = xcalloc(r->n_profiles, sizeof *r->profiles);
    for (size_t i = 0; i < r->n_profiles && !c.failed; i++) {
        struct routine_profile *p = &r->profiles[i];
        p->routine = get_u32(&c);
        p->context = version >= 2 ? get_u32_plus_one(&c) : CONTEXT_NONE;
        p->tid = get_u32(&c);
        p->calls = byte_cursor_varint(&c);
        p->cost = byte_cursor_varint(&c);
        p->self_cost = byte_cursor_varint(&c);
        p->induced_thread = byte_cursor_varint(&c);
        p->induced_external = byte_cursor_varint(&c);
        p->rms_points = get_points(&c, &p->n_rms_points, version);
        p->trms_points = get_points(&c, &p->n_trms_points, version);
    }
    if (version >= 2) {
        r->n_contexts = get_count(&c);
        r->contexts = xcalloc(r->n_contexts, sizeof *r->contexts);
        for (size_t i = 0; i < r->n_contexts && !c.failed; i++) {
            r->contexts[i].parent = get_u32_plus_one(&c);
            r->contexts[i].routine = get_u32_plus_one(&c);
        }
    }
    get_histogram(&c, &r->reuse_global);
    r->n_threads = get_count(&c);
    r->reuse_threads = xcalloc(r->n_threads, sizeof *r->reuse_threads);
    for (size_t i = 0; i < r->n_threads && !c.failed; i++) {
        r->reuse_threads[i].tid = get_u32(&c);
        get_histogram(&c, &r->reuse_threads[i].histogram);
    }
    uint64_t analyses = version >= 4 ? byte_cursor_varint(&c) : ANALYSIS_ALL;
    if (analyses == 0 || analyses & ~(uint64_t)ANALYSIS_ALL)
        c.failed = 1;
    r->analyses = (unsigned)analyses;
    size_t with_channel = version >= 5 ? get_count(&c) : 0;
    for (size_t i = 0; i < with_channel && !c.failed; i++) {
        uint64_t index = byte_cursor_varint(&c), induced = byte_cursor_varint(&c);
        uint32_t channel = get_u32(&c);
        if (index >= r->n_profiles || induced == 0 || channel == 0 ||
            induced > r->profiles[index].induced_external ||
            r->profiles[index].induced_channel) {
            c.failed = 1;
            break;
        }
        r->profiles[index].induced_channel = induced;
        r->profiles[index].channel = channel;
    }
    if (c.failed || c.p != c.end || !consistent(r)) {
        error_set(err, "stored result is corrupt");
        analysis_result_free(r);
        return NULL;
    }
    return r;
}
