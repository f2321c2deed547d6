#include "analyses/profiles.h"

#include <stdlib.h>
#include <string.h>

#include "common/oom.h"
#include "common/u64map.h"

/* The points of one metric (RMS or TRMS) of one profile. */
struct point_set {
    struct u64map by_n;          /* n -> index in points */
    struct profile_point *points;
    size_t count;
    size_t capacity;
};

struct building_profile {
    struct routine_profile totals; /* points filled in at export */
    struct point_set rms;
    struct point_set trms;
};

struct profiles {
    struct u64map by_key;          /* routine (or context) << 32 | tid -> index */
    struct building_profile *items;
    size_t count;
    size_t capacity;
    size_t points;                 /* over every profile, both metrics */
};

/* Points asked for ahead only past this many (about 8 MiB of points and
 * their maps' entries: past the caches); a program's few sizes are found
 * in the caches (xz -6 of 48 KiB: 2,766 points), and the asking would cost
 * each activation its lookups for nothing. */
#define PREFETCH_POINTS (UINT64_C(1) << 16)

struct profiles *profiles_new(void)
{
    struct profiles *p = xcalloc(1, sizeof *p);
    u64map_init(&p->by_key);
    return p;
}

static void point_set_free(struct point_set *s)
{
    u64map_free(&s->by_n);
    free(s->points);
}

void profiles_free(struct profiles *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->count; i++) {
        point_set_free(&p->items[i].rms);
        point_set_free(&p->items[i].trms);
    }
    free(p->items);
    u64map_free(&p->by_key);
    free(p);
}

/* Returns whether the point of N is new. */
static int add_point(struct point_set *s, uint64_t n, uint64_t cost, uint64_t self,
                     int recursive)
{
    int inserted;
    uint64_t *index = u64map_upsert(&s->by_n, n, &inserted);
    if (inserted) {
        if (s->count == s->capacity) {
            s->capacity = s->capacity ? s->capacity * 2 : 4;
            s->points = xrealloc(s->points, s->capacity * sizeof *s->points);
        }
        *index = s->count;
        s->points[s->count++] = (struct profile_point){
            .n = n, .min = UINT64_MAX, .self_min = UINT64_MAX};
    }
    struct profile_point *pt = &s->points[*index];
    pt->calls++;
    if (cost < pt->min)
        pt->min = cost;
    if (cost > pt->max)
        pt->max = cost;
    pt->sum += cost;
    pt->sumsq += (unsigned __int128)cost * cost;
    if (!recursive)
        pt->real_sum += cost;
    if (self < pt->self_min)
        pt->self_min = self;
    if (self > pt->self_max)
        pt->self_max = self;
    pt->self_sum += self;
    pt->self_sumsq += (unsigned __int128)self * self;
    return inserted;
}

/* The profile of (ROUTINE, CONTEXT, TID), created empty when new
 * (*INSERTED says): one per calling context when the activation has one
 * (its routine follows), else one per routine. */
static struct building_profile *profile_of(struct profiles *p, uint32_t routine,
                                           uint32_t context, uint32_t tid, int *inserted)
{
    uint32_t unit = context != CONTEXT_NONE ? context : routine;
    uint64_t *index = u64map_upsert(&p->by_key, (uint64_t)unit << 32 | tid, inserted);
    if (*inserted) {
        if (p->count == p->capacity) {
            p->capacity = p->capacity ? p->capacity * 2 : 64;
            p->items = xrealloc(p->items, p->capacity * sizeof *p->items);
        }
        *index = p->count;
        struct building_profile *b = &p->items[p->count++];
        memset(b, 0, sizeof *b);
        b->totals.routine = routine;
        b->totals.context = context;
        b->totals.tid = tid;
        u64map_init(&b->rms.by_n);
        u64map_init(&b->trms.by_n);
    }
    return &p->items[*index];
}

void profiles_add(struct profiles *p, const struct activation *a)
{
    int inserted;
    struct building_profile *b = profile_of(p, a->routine, a->context, a->tid, &inserted);
    b->totals.calls++;
    if (!a->recursive)
        b->totals.cost += a->cost;
    b->totals.self_cost += a->self_cost;
    b->totals.induced_thread += a->induced_thread;
    b->totals.induced_external += a->induced_external;
    b->totals.induced_channel += a->induced_channel;
    b->totals.channel = channel_join(b->totals.channel, a->channel);
    p->points += (size_t)add_point(&b->rms, a->rms, a->cost, a->self_cost, a->recursive);
    p->points += (size_t)add_point(&b->trms, a->trms, a->cost, a->self_cost, a->recursive);
}

/* The point of N, when there is one, asked for: both ends (a point
 * spans two cache lines, and add_point touches most of it). */
static void prefetch_point(const struct point_set *s, uint64_t n)
{
    const uint64_t *index = u64map_find(&s->by_n, n);
    if (index) {
        __builtin_prefetch(&s->points[*index], 1);
        __builtin_prefetch((const char *)(&s->points[*index] + 1) - 1, 1);
    }
}

int profiles_scattered(const struct profiles *p)
{
    return p->points >= PREFETCH_POINTS;
}

void profiles_prefetch(const struct profiles *p, const struct activation *a, int near)
{
    uint32_t unit = a->context != CONTEXT_NONE ? a->context : a->routine;
    const uint64_t *index = u64map_find(&p->by_key, (uint64_t)unit << 32 | a->tid);
    if (!index)
        return; /* a new profile: nothing there yet */
    const struct building_profile *b = &p->items[*index];
    if (!near) {
        u64map_prefetch(&b->rms.by_n, a->rms);
        u64map_prefetch(&b->trms.by_n, a->trms);
        return;
    }
    prefetch_point(&b->rms, a->rms);
    prefetch_point(&b->trms, a->trms);
}

static int by_n(const void *x, const void *y)
{
    const struct profile_point *a = x, *b = y;
    return (a->n > b->n) - (a->n < b->n);
}

static int by_routine_context_thread(const void *x, const void *y)
{
    const struct routine_profile *a = x, *b = y;
    if (a->routine != b->routine)
        return (a->routine > b->routine) - (a->routine < b->routine);
    if (a->context != b->context)
        return (a->context > b->context) - (a->context < b->context);
    return (a->tid > b->tid) - (a->tid < b->tid);
}

static struct profile_point *take_points(struct point_set *s, size_t *count)
{
    qsort(s->points, s->count, sizeof *s->points, by_n);
    struct profile_point *points = s->points;
    *count = s->count;
    s->points = NULL;
    s->count = s->capacity = 0;
    u64map_free(&s->by_n);
    return points;
}

void profiles_export(struct profiles *p, struct analysis_result *result)
{
    result->profiles = xcalloc(p->count, sizeof *result->profiles);
    result->n_profiles = p->count;
    for (size_t i = 0; i < p->count; i++) {
        struct building_profile *b = &p->items[i];
        struct routine_profile *out = &result->profiles[i];
        *out = b->totals;
        out->rms_points = take_points(&b->rms, &out->n_rms_points);
        out->trms_points = take_points(&b->trms, &out->n_trms_points);
    }
    qsort(result->profiles, result->n_profiles, sizeof *result->profiles,
          by_routine_context_thread);
    p->count = 0;
    p->points = 0;
    u64map_free(&p->by_key);
}

size_t profiles_bytes(const struct profiles *p)
{
    size_t bytes = sizeof *p + u64map_bytes(&p->by_key) + p->capacity * sizeof *p->items;
    for (size_t i = 0; i < p->count; i++) {
        const struct building_profile *b = &p->items[i];
        bytes += u64map_bytes(&b->rms.by_n) + b->rms.capacity * sizeof(struct profile_point);
        bytes += u64map_bytes(&b->trms.by_n) + b->trms.capacity * sizeof(struct profile_point);
    }
    return bytes;
}

void profiles_each(const struct profiles *p,
                   void (*visit)(void *ctx, const struct routine_profile *rp), void *ctx)
{
    for (size_t i = 0; i < p->count; i++) {
        const struct building_profile *b = &p->items[i];
        struct routine_profile rp = b->totals;
        rp.rms_points = b->rms.points;
        rp.n_rms_points = b->rms.count;
        rp.trms_points = b->trms.points;
        rp.n_trms_points = b->trms.count;
        visit(ctx, &rp);
    }
}

static int restore_points(struct point_set *s, const struct profile_point *points, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int inserted;
        uint64_t *index = u64map_upsert(&s->by_n, points[i].n, &inserted);
        if (!inserted)
            return -1;
        if (s->count == s->capacity) {
            s->capacity = s->capacity ? s->capacity * 2 : 4;
            s->points = xrealloc(s->points, s->capacity * sizeof *s->points);
        }
        *index = s->count;
        s->points[s->count++] = points[i];
    }
    return 0;
}

int profiles_restore(struct profiles *p, const struct routine_profile *rp)
{
    int inserted;
    struct building_profile *b = profile_of(p, rp->routine, rp->context, rp->tid, &inserted);
    if (!inserted)
        return -1;
    b->totals = *rp;
    b->totals.rms_points = b->totals.trms_points = NULL;
    b->totals.n_rms_points = b->totals.n_trms_points = 0;
    if (restore_points(&b->rms, rp->rms_points, rp->n_rms_points) != 0 ||
        restore_points(&b->trms, rp->trms_points, rp->n_trms_points) != 0)
        return -1;
    p->points += rp->n_rms_points + rp->n_trms_points;
    return 0;
}
