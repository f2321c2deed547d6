/* explore_model: runs' analyses added up into ranges (explore.h). */
#include "explore/explore.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/oom.h"

void explore_init(struct explore *x)
{
    memset(x, 0, sizeof *x);
    u64map_init(&x->object_index);
}

void explore_free(struct explore *x)
{
    free(x->command);
    free(x->directory);
    free(x->objects);
    for (size_t i = 0; i < x->n_runs; i++)
        free(x->runs[i].recording);
    free(x->runs);
    for (size_t i = 0; i < x->n_routines; i++) {
        free(x->routines[i].name);
        free(x->routines[i].points);
    }
    free(x->routines);
    for (size_t i = 0; i < x->n_objects; i++) {
        struct explore_object *o = &x->objects_seen[i];
        free(o->name);
        free(o->module);
        free(o->ranges);
        free(o->distances);
    }
    free(x->objects_seen);
    u64map_free(&x->object_index);
    memset(x, 0, sizeof *x);
}

/* ---- extremes ---- */

static void first_extreme(struct explore_extreme *e, uint64_t v, uint32_t run)
{
    *e = (struct explore_extreme){v, run, 1};
}

static void lower(struct explore_extreme *e, uint64_t v, uint32_t run)
{
    if (v < e->value)
        first_extreme(e, v, run);
    else if (v == e->value)
        e->runs++;
}

static void higher(struct explore_extreme *e, uint64_t v, uint32_t run)
{
    if (v > e->value)
        first_extreme(e, v, run);
    else if (v == e->value)
        e->runs++;
}

/* ---- routines ---- */

static struct explore_routine *routine_named(struct explore *x, const char *name)
{
    size_t lo = 0, hi = x->n_routines;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(x->routines[mid].name, name);
        if (c == 0)
            return &x->routines[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    x->routines = xrealloc(x->routines, (x->n_routines + 1) * sizeof *x->routines);
    memmove(&x->routines[lo + 1], &x->routines[lo], (x->n_routines - lo) * sizeof *x->routines);
    x->n_routines++;
    x->routines[lo] = (struct explore_routine){.name = xstrdup(name)};
    return &x->routines[lo];
}

/* Merges the run's points (by rms) into the routine's (by rms). */
static void add_points(struct explore_routine *r, const struct run_routine *in, uint32_t run)
{
    struct explore_point *merged =
        xcalloc(r->n_points + in->n_points + 1, sizeof *merged);
    size_t a = 0, b = 0, n = 0;
    while (a < r->n_points || b < in->n_points) {
        if (b == in->n_points || (a < r->n_points && r->points[a].rms < in->points[b].rms)) {
            merged[n++] = r->points[a++];
            continue;
        }
        const struct run_point *p = &in->points[b++];
        struct explore_point *m = &merged[n++];
        if (a < r->n_points && r->points[a].rms == p->rms) {
            *m = r->points[a++];
            lower(&m->trms_min, p->trms_min, run);
            higher(&m->trms_max, p->trms_max, run);
            lower(&m->induced_min, p->induced_min, run);
            higher(&m->induced_max, p->induced_max, run);
        } else {
            *m = (struct explore_point){.rms = p->rms};
            first_extreme(&m->trms_min, p->trms_min, run);
            first_extreme(&m->trms_max, p->trms_max, run);
            first_extreme(&m->induced_min, p->induced_min, run);
            first_extreme(&m->induced_max, p->induced_max, run);
        }
        m->activations += p->activations;
        m->runs++;
    }
    free(r->points);
    r->points = merged;
    r->n_points = n;
}

/* ---- objects ---- */

static uint64_t object_hash(const char *module, const char *name)
{
    uint64_t h = UINT64_C(14695981039346656037); /* FNV-1a */
    for (const unsigned char *p = (const unsigned char *)module; *p; p++)
        h = (h ^ *p) * UINT64_C(1099511628211);
    h = (h ^ 0xff) * UINT64_C(1099511628211);
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        h = (h ^ *p) * UINT64_C(1099511628211);
    return h;
}

static struct explore_object *object_of(struct explore *x, const struct run_object *o)
{
    uint64_t key = object_hash(o->module, o->name);
    uint64_t *slot;
    while ((slot = u64map_find(&x->object_index, key)) != NULL) {
        struct explore_object *seen = &x->objects_seen[*slot - 1];
        if (strcmp(seen->name, o->name) == 0 && strcmp(seen->module, o->module) == 0)
            return seen;
        key++;  /* a collision: probe on */
    }
    x->objects_seen = xrealloc(x->objects_seen, (x->n_objects + 1) * sizeof *x->objects_seen);
    struct explore_object *e = &x->objects_seen[x->n_objects++];
    *e = (struct explore_object){.name = xstrdup(o->name), .module = xstrdup(o->module),
                                 .start = o->start, .size = o->size};
    *u64map_upsert(&x->object_index, key, NULL) = x->n_objects;
    return e;
}

/* Adds (MIN, MAX) of RUN to LIST, kept sorted. */
static void add_range(struct explore_range **list, size_t *n, uint64_t min, uint64_t max,
                      uint32_t run)
{
    size_t i = 0;
    while (i < *n && ((*list)[i].min < min || ((*list)[i].min == min && (*list)[i].max < max)))
        i++;
    if (i < *n && (*list)[i].min == min && (*list)[i].max == max) {
        (*list)[i].runs++;
        return;
    }
    *list = xrealloc(*list, (*n + 1) * sizeof **list);
    memmove(&(*list)[i + 1], &(*list)[i], (*n - i) * sizeof **list);
    (*list)[i] = (struct explore_range){min, max, run, 1};
    (*n)++;
}

static void add_object(struct explore *x, const struct run_object *o, uint32_t run)
{
    struct explore_object *e = object_of(x, o);
    e->accesses += o->accesses;
    e->runs++;
    if (o->n_bins == 0)
        return;  /* only first accesses */
    uint64_t min = o->bins[0].distance, max = o->bins[o->n_bins - 1].distance;
    if (e->reused++ == 0) {
        first_extreme(&e->min, min, run);
        first_extreme(&e->max, max, run);
    } else {
        lower(&e->min, min, run);
        higher(&e->max, max, run);
    }
    add_range(&e->ranges, &e->n_ranges, min, max, run);
    for (size_t b = 0; b < o->n_bins; b++)
        add_range(&e->distances, &e->n_distances, o->bins[b].distance, o->bins[b].distance, run);
}

static int object_order(const void *pa, const void *pb)
{
    const struct explore_object *a = pa, *b = pb;
    if (a->start != b->start)
        return a->start < b->start ? -1 : 1;
    return strcmp(a->name, b->name);
}

static void sort_objects(struct explore *x)
{
    qsort(x->objects_seen, x->n_objects, sizeof *x->objects_seen, object_order);
    u64map_free(&x->object_index);
    u64map_init(&x->object_index);
    for (size_t i = 0; i < x->n_objects; i++) {
        const struct explore_object *o = &x->objects_seen[i];
        uint64_t key = object_hash(o->module, o->name);
        while (u64map_find(&x->object_index, key))
            key++;
        *u64map_upsert(&x->object_index, key, NULL) = i + 1;
    }
}

void explore_add(struct explore *x, uint32_t run, const struct run_analysis *a)
{
    for (size_t i = 0; i < a->n_routines; i++)
        add_points(routine_named(x, a->routines[i].name), &a->routines[i], run);
    for (size_t i = 0; i < a->n_objects; i++)
        add_object(x, &a->objects[i], run);
    sort_objects(x);
    if (a->tracked > x->tracked)
        x->tracked = a->tracked;
    x->runs[run].stream = a->stream;
    x->runs[run].threads = a->threads;
}

/* ---- questions ---- */

int explore_names_run(const struct explore *x, uint32_t run)
{
    for (size_t i = 0; i < x->n_routines; i++)
        for (size_t j = 0; j < x->routines[i].n_points; j++) {
            const struct explore_point *p = &x->routines[i].points[j];
            if (p->trms_min.run == run || p->trms_max.run == run || p->induced_min.run == run ||
                p->induced_max.run == run)
                return 1;
        }
    for (size_t i = 0; i < x->n_objects; i++) {
        const struct explore_object *o = &x->objects_seen[i];
        if (o->reused && (o->min.run == run || o->max.run == run))
            return 1;
        for (size_t j = 0; j < o->n_ranges; j++)
            if (o->ranges[j].run == run)
                return 1;
        for (size_t j = 0; j < o->n_distances; j++)
            if (o->distances[j].run == run)
                return 1;
    }
    return 0;
}

int explore_point_varies(const struct explore_point *p)
{
    return p->trms_min.value != p->trms_max.value ||
           p->induced_min.value != p->induced_max.value;
}

int explore_point_depends(const struct explore_point *p)
{
    return p->trms_min.runs < p->runs || p->trms_max.runs < p->runs ||
           p->induced_min.runs < p->runs || p->induced_max.runs < p->runs;
}

int explore_object_varies(const struct explore_object *o)
{
    return o->n_ranges > 1 || (o->reused && o->reused != o->runs);
}

uint64_t explore_max_threads(const struct explore *x)
{
    uint64_t n = 0;
    for (size_t i = 0; i < x->n_runs; i++)
        if (x->runs[i].threads > n)
            n = x->runs[i].threads;
    return n;
}

double explore_pct_runs(uint64_t threads, uint64_t k, uint32_t depth)
{
    double runs = (double)(threads ? threads : 1);
    for (uint32_t i = 1; i < depth; i++)
        runs *= (double)(k ? k : 1);
    return isfinite(runs) ? runs : 0;
}

const char *explore_run_name(const struct explore *x, uint32_t run)
{
    const char *path = x->runs[run].recording;
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}
