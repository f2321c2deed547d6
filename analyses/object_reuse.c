/* object_reuse: one LRU stack over the units of every object, numbered
 * one after another, histograms per object (object_reuse.h). */
#include "analyses/object_reuse.h"

#include <stdlib.h>
#include <string.h>

#include "analyses/reuse_distance.h"
#include "common/oom.h"
#include "common/u64map.h"

struct tracked {
    struct object_range range;
    uint64_t first_key;         /* its first unit's number in the stack */
    uint64_t accesses, cold;
    struct u64map distances;    /* distance -> count */
    struct object_reuse_stats stats;
    int stats_current;
};

struct object_reuse {
    struct tracked *objects;
    size_t n;
    unsigned unit_shift;
    struct reuse_distance *stack;
};

struct object_reuse *object_reuse_new(const struct object_range *objects, size_t n,
                                      uint64_t unit)
{
    if (unit == 0 || (unit & (unit - 1)))
        return NULL;
    for (size_t i = 0; i < n; i++) {
        if (objects[i].size == 0 || objects[i].start + objects[i].size - 1 < objects[i].start)
            return NULL;
        if (i && objects[i].start < objects[i - 1].start + objects[i - 1].size)
            return NULL;
    }
    struct object_reuse *o = xcalloc(1, sizeof *o);
    o->objects = xcalloc(n ? n : 1, sizeof *o->objects);
    o->unit_shift = (unsigned)__builtin_ctzll(unit);
    uint64_t key = 0;  /* disjoint objects: fewer units than 2^64 but for one of all memory */
    for (size_t i = 0; i < n; i++) {
        o->objects[i].range = objects[i];
        o->objects[i].first_key = key;
        key += ((objects[i].size - 1) >> o->unit_shift) + 1;
        u64map_init(&o->objects[i].distances);
    }
    o->n = n;
    o->stack = reuse_distance_new(0);
    return o;
}

void object_reuse_free(struct object_reuse *o)
{
    if (!o)
        return;
    for (size_t i = 0; i < o->n; i++) {
        u64map_free(&o->objects[i].distances);
        free(o->objects[i].stats.bins);
    }
    free(o->objects);
    reuse_distance_free(o->stack);
    free(o);
}

/* The first object that ends after ADDR. */
static size_t first_after(const struct object_reuse *o, uint64_t addr)
{
    size_t lo = 0, hi = o->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const struct object_range *r = &o->objects[mid].range;
        if (r->start + r->size - 1 < addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void access_unit(struct object_reuse *o, size_t i, uint64_t unit)
{
    struct tracked *t = &o->objects[i];
    uint64_t d = reuse_distance_access_distance(o->stack, t->first_key + unit);
    t->accesses++;
    t->stats_current = 0;
    if (d == REUSE_COLD)
        t->cold++;
    else
        ++*u64map_upsert(&t->distances, d, NULL);
}

void object_reuse_event(struct object_reuse *o, const struct event *ev)
{
    if ((ev->type != EVENT_READ && ev->type != EVENT_WRITE) || ev->size == 0)
        return;
    uint64_t last = ev->addr + (ev->size - 1);  /* the trace formats keep it in range */
    for (size_t i = first_after(o, ev->addr); i < o->n; i++) {
        const struct object_range *r = &o->objects[i].range;
        if (r->start > last)
            break;
        uint64_t from = ev->addr > r->start ? ev->addr : r->start;
        uint64_t to = last < r->start + r->size - 1 ? last : r->start + r->size - 1;
        uint64_t first_unit = (from - r->start) >> o->unit_shift;
        uint64_t last_unit = (to - r->start) >> o->unit_shift;
        for (uint64_t u = first_unit;; u++) {
            access_unit(o, i, u);
            if (u == last_unit)
                break;
        }
    }
}

static int collect_bin(void *ctx, uint64_t distance, uint64_t count)
{
    struct object_reuse_stats *s = ctx;
    s->bins[s->n_bins++] = (struct reuse_bin){distance, count};
    return 0;
}

static int by_distance(const void *a, const void *b)
{
    const struct reuse_bin *x = a, *y = b;
    return x->distance < y->distance ? -1 : x->distance > y->distance;
}

const struct object_reuse_stats *object_reuse_stats(struct object_reuse *o, size_t i)
{
    struct tracked *t = &o->objects[i];
    if (!t->stats_current) {
        free(t->stats.bins);
        t->stats = (struct object_reuse_stats){.accesses = t->accesses, .cold = t->cold};
        t->stats.bins = xcalloc(t->distances.count ? t->distances.count : 1,
                                sizeof *t->stats.bins);
        u64map_each(&t->distances, collect_bin, &t->stats);
        qsort(t->stats.bins, t->stats.n_bins, sizeof *t->stats.bins, by_distance);
        t->stats_current = 1;
    }
    return &t->stats;
}

uint64_t object_reuse_accesses(const struct object_reuse *o)
{
    return reuse_distance_accesses(o->stack);
}
