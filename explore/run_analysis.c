/* run_analysis: one recording's activations by routine and RMS, and its
 * tracked objects' reuse distances (run_analysis.h). */
#include "explore/run_analysis.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/analysis.h"
#include "analyses/object_reuse.h"
#include "common/oom.h"
#include "common/regular_file.h"
#include "common/u64map.h"
#include "replayer/rr_replay.h"
#include "report/report.h"
#include "store/symbol_store.h"
#include "symbols/data_objects.h"
#include "symbols/memory_maps.h"
#include "trace/recording.h"
#include "trace/trace_reader.h"

/* Where an rr recording keeps rr's own trace (as `trms analyze` reads it). */
#define RR_TRACE_DIR "rr"

/* The activations of one routine (by routine table index), by RMS. */
struct points {
    struct u64map by_rms;       /* rms -> index */
    struct run_point *items;
    size_t n, cap;
};

struct run {
    const struct run_analysis_options *o;
    const char *program;
    struct analysis *analysis;
    struct routine_table routines;
    struct points *by_routine;  /* index: routine + 1 (the root at 0) */
    size_t n_by_routine;
    struct data_objects objects;
    struct object_reuse *reuse;
    int objects_ready;
    struct rr_replay_result replay;
    int replayed;
    uint64_t events;
};

static void on_activation(void *ctx, const struct activation *a)
{
    struct run *r = ctx;
    size_t slot = (size_t)(uint32_t)(a->routine + 1);
    if (slot >= r->n_by_routine) {
        size_t n = slot + 16;
        r->by_routine = xrealloc(r->by_routine, n * sizeof *r->by_routine);
        memset(r->by_routine + r->n_by_routine, 0, (n - r->n_by_routine) * sizeof *r->by_routine);
        r->n_by_routine = n;
    }
    struct points *p = &r->by_routine[slot];
    int inserted;
    uint64_t *at = u64map_upsert(&p->by_rms, a->rms, &inserted);
    if (inserted) {
        if (p->n == p->cap) {
            p->cap = p->cap ? 2 * p->cap : 8;
            p->items = xrealloc(p->items, p->cap * sizeof *p->items);
        }
        *at = p->n;
        p->items[p->n++] = (struct run_point){.rms = a->rms, .trms_min = a->trms,
                                               .trms_max = a->trms,
                                               .induced_min = a->induced_thread,
                                               .induced_max = a->induced_thread};
    }
    struct run_point *pt = &p->items[*at];
    pt->activations++;
    if (a->trms < pt->trms_min)
        pt->trms_min = a->trms;
    if (a->trms > pt->trms_max)
        pt->trms_max = a->trms;
    if (a->induced_thread < pt->induced_min)
        pt->induced_min = a->induced_thread;
    if (a->induced_thread > pt->induced_max)
        pt->induced_max = a->induced_thread;
}

/* ---- the tracked objects ---- */

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static void add_region(struct data_objects *o, uint64_t start, uint64_t end, const char *name)
{
    if (end <= start)
        return;
    if (o->count == o->capacity) {
        o->capacity = o->capacity ? 2 * o->capacity : 64;
        o->items = xrealloc(o->items, o->capacity * sizeof *o->items);
    }
    o->items[o->count++] = (struct data_object){.start = start, .size = end - start,
                                                .name = xstrdup(name), .module = xstrdup("")};
}

/* All memory: the gaps between the named objects become regions named
 * after the file mapping they lie in, or "<anonymous>". */
static void fill_gaps(struct data_objects *o, const struct memory_maps *maps)
{
    struct data_objects named = *o;
    data_objects_init(o);
    uint64_t at = 0;
    size_t m = 0;
    for (size_t i = 0; i <= named.count; i++) {
        uint64_t gap_end = i < named.count ? named.items[i].start : UINT64_MAX;
        while (at < gap_end) {
            while (m < maps->count && maps->items[m].end <= at)
                m++;
            const struct map_entry *e = m < maps->count ? &maps->items[m] : NULL;
            if (e && e->start <= at) {
                char name[300];
                snprintf(name, sizeof name, "<%s>", base_name(e->path));
                uint64_t end = e->end < gap_end ? e->end : gap_end;
                add_region(o, at, end, name);
                at = end;
            } else {
                uint64_t end = e && e->start < gap_end ? e->start : gap_end;
                add_region(o, at, end, "<anonymous>");
                at = end;
            }
        }
        if (i < named.count) {
            if (o->count == o->capacity) {
                o->capacity = o->capacity ? 2 * o->capacity : 64;
                o->items = xrealloc(o->items, o->capacity * sizeof *o->items);
            }
            o->items[o->count++] = named.items[i];
            at = named.items[i].start + named.items[i].size;
            if (at == 0)
                break;  /* the object ends the address space */
        }
    }
    free(named.items);  /* the strings moved */
}

static int set_up_objects(struct run *r, const struct memory_maps *maps, struct trms_error *err)
{
    r->objects_ready = 1;
    const struct run_analysis_options *o = r->o;
    data_objects_from_maps(&r->objects, maps, o->all_memory ? NULL : r->program);
    if (!o->all_memory && r->objects.count == 0)
        return error_set(err, "%s has no global or static variables trms can name (stripped? "
                              "its -dbgsym package gives them names; --objects all tracks "
                              "all memory)", r->program);
    const char *unmatched = data_objects_select(&r->objects, o->patterns, o->n_patterns);
    if (unmatched)
        return error_set(err, "no variable of %s matches '%s'",
                         o->all_memory ? "the program or its libraries" : r->program, unmatched);
    if (o->all_memory && o->n_patterns == 0)
        fill_gaps(&r->objects, maps);
    struct object_range *ranges = xcalloc(r->objects.count + 1, sizeof *ranges);
    for (size_t i = 0; i < r->objects.count; i++)
        ranges[i] = (struct object_range){r->objects.items[i].start, r->objects.items[i].size};
    r->reuse = object_reuse_new(ranges, r->objects.count, o->unit);
    free(ranges);
    if (!r->reuse)
        return error_set(err, "--unit %llu is not a power of two",
                         (unsigned long long)o->unit);
    return 0;
}

/* ---- the events ---- */

static int feed(void *ctx, const struct event *ev, struct trms_error *err)
{
    struct run *r = ctx;
    r->events++;
    if (analysis_event(r->analysis, ev, err) != 0)
        return -1;
    if (ev->type != EVENT_READ && ev->type != EVENT_WRITE)
        return 0;
    if (!r->objects_ready) {
        /* An rr replay: the mappings so far (the program's are there before
         * its first access). */
        if (set_up_objects(r, symbolizer_maps(r->replay.symbols), err) != 0)
            return -1;
    }
    object_reuse_event(r->reuse, ev);
    return 0;
}

static int read_trace(const char *rec_path, struct run *r, struct trms_error *err)
{
    char *path = recording_file(rec_path, RECORDING_EVENTS);
    const char *why = "";
    FILE *fp = regular_file_fopen_in(rec_path, RECORDING_EVENTS, &why);
    int rc = fp ? trace_read_stream(fp, path, &r->routines, feed, r, NULL, NULL, err)
                : error_set(err, "%s: cannot open: %s", path, why);
    if (fp)
        fclose(fp);
    free(path);
    return rc;
}

static int replay(const char *rec_path, struct run *r, struct trms_error *err)
{
    char *trace_dir = recording_file(rec_path, RR_TRACE_DIR);
    struct rr_replay_options o = {.trace_dir = trace_dir, .sink = feed, .sink_ctx = r,
                                  .routines = &r->routines};
    r->replayed = 1;
    int rc = rr_replay(&o, &r->replay, err);
    free(trace_dir);
    return rc;
}

/* ---- the result ---- */

static int by_name(const void *a, const void *b)
{
    return strcmp(((const struct run_routine *)a)->name, ((const struct run_routine *)b)->name);
}

static int by_rms(const void *a, const void *b)
{
    const struct run_point *x = a, *y = b;
    return x->rms < y->rms ? -1 : x->rms > y->rms;
}

static void merge_point(struct run_point *into, const struct run_point *p)
{
    into->activations += p->activations;
    if (p->trms_min < into->trms_min)
        into->trms_min = p->trms_min;
    if (p->trms_max > into->trms_max)
        into->trms_max = p->trms_max;
    if (p->induced_min < into->induced_min)
        into->induced_min = p->induced_min;
    if (p->induced_max > into->induced_max)
        into->induced_max = p->induced_max;
}

/* Routines by name: two routine ids of one name (two programs' `main`,
 * say) are one routine here, their points merged by RMS. */
static void collect_routines(struct run *r, const struct symbol_names *names,
                             struct run_analysis *out)
{
    out->routines = xcalloc(r->n_by_routine + 1, sizeof *out->routines);
    for (size_t slot = 0; slot < r->n_by_routine; slot++) {
        struct points *p = &r->by_routine[slot];
        if (p->n == 0)
            continue;
        uint32_t id = (uint32_t)slot - 1;
        char buf[REPORT_LABEL_MAX];
        const char *name = report_routine_name(&r->routines, names, id, buf);
        const struct routine *rt = id < r->routines.count ? &r->routines.items[id] : NULL;
        const char *replayed;
        if (r->replayed && rt && !rt->name && rt->addr && name == buf &&
            (replayed = rr_replay_routine_name(&r->replay, rt->addr, &r->routines)))
            name = replayed;
        struct run_routine *into = NULL;
        for (size_t i = 0; i < out->n_routines && !into; i++)
            if (strcmp(out->routines[i].name, name) == 0)
                into = &out->routines[i];
        if (!into) {
            into = &out->routines[out->n_routines++];
            into->name = xstrdup(name);
        }
        for (size_t i = 0; i < p->n; i++) {
            struct run_point *same = NULL;
            for (size_t j = 0; j < into->n_points && !same; j++)
                if (into->points[j].rms == p->items[i].rms)
                    same = &into->points[j];
            if (same) {
                merge_point(same, &p->items[i]);
                continue;
            }
            into->points = xrealloc(into->points, (into->n_points + 1) * sizeof *into->points);
            into->points[into->n_points++] = p->items[i];
        }
    }
    for (size_t i = 0; i < out->n_routines; i++)
        qsort(out->routines[i].points, out->routines[i].n_points, sizeof *out->routines[i].points,
              by_rms);
    qsort(out->routines, out->n_routines, sizeof *out->routines, by_name);
}

/* The accessed objects; regions of one name (unnamed memory) are one. */
static void collect_objects(struct run *r, struct run_analysis *out)
{
    out->tracked = r->objects.count;
    out->stream = r->reuse ? object_reuse_accesses(r->reuse) : 0;
    out->objects = xcalloc(r->objects.count + 1, sizeof *out->objects);
    for (size_t i = 0; i < r->objects.count; i++) {
        const struct object_reuse_stats *s = object_reuse_stats(r->reuse, i);
        if (s->accesses == 0)
            continue;
        const struct data_object *d = &r->objects.items[i];
        struct run_object *into = NULL;
        if (!d->module[0])
            for (size_t j = 0; j < out->n_objects && !into; j++)
                if (!out->objects[j].module[0] && strcmp(out->objects[j].name, d->name) == 0)
                    into = &out->objects[j];
        if (!into) {
            into = &out->objects[out->n_objects++];
            *into = (struct run_object){.name = xstrdup(d->name), .module = xstrdup(d->module),
                                        .start = d->start, .size = d->size};
        }
        into->accesses += s->accesses;
        into->cold += s->cold;
        /* merge the sorted bins */
        struct reuse_bin *bins = xcalloc(into->n_bins + s->n_bins + 1, sizeof *bins);
        size_t a = 0, b = 0, n = 0;
        while (a < into->n_bins || b < s->n_bins) {
            if (b == s->n_bins || (a < into->n_bins && into->bins[a].distance < s->bins[b].distance))
                bins[n++] = into->bins[a++];
            else if (a == into->n_bins || s->bins[b].distance < into->bins[a].distance)
                bins[n++] = s->bins[b++];
            else {
                bins[n] = into->bins[a++];
                bins[n++].count += s->bins[b++].count;
            }
        }
        free(into->bins);
        into->bins = bins;
        into->n_bins = n;
    }
}

int run_analyze(const char *rec_path, const struct run_analysis_options *o,
                struct run_analysis *out, struct trms_error *err)
{
    memset(out, 0, sizeof *out);
    struct recording rec;
    if (recording_open(rec_path, &rec, err) != 0)
        return -1;
    const char *engine = recording_meta(&rec, "engine");
    int is_rr = engine && strcmp(engine, "rr") == 0;
    struct run r = {.o = o, .program = recording_meta(&rec, "program")};
    routine_table_init(&r.routines);
    data_objects_init(&r.objects);
    struct symbol_names names;
    symbol_names_init(&names);
    int rc = 0;
    if (!recording_has_trace(&rec))
        rc = recording_no_trace_error(rec_path, "explored (explore analyzes each recording's "
                                      "event trace)", err);
    else if (!r.program)
        rc = error_set(err, "%s: the recording does not name its program", rec_path);
    if (rc == 0 && !is_rr) {
        struct memory_maps maps;
        memory_maps_init(&maps);
        char *maps_path = recording_file(rec_path, MAPS_FILE);
        rc = memory_maps_read(&maps, maps_path, err);
        free(maps_path);
        if (rc == 0)
            rc = set_up_objects(&r, &maps, err);
        memory_maps_free(&maps);
    }
    struct analysis_options opt;
    analysis_options_default(&opt);
    opt.cell_size = o->cell_size;
    opt.passes = PASS_INPUT_SIZE;
    opt.shards = 1;
    opt.threads = 0;
    if (rc == 0 && !(r.analysis = analysis_new(&opt, err)))
        rc = -1;
    if (rc == 0) {
        analysis_on_activation(r.analysis, on_activation, &r);
        rc = is_rr ? replay(rec_path, &r, err) : read_trace(rec_path, &r, err);
    }
    if (rc == 0 && !r.objects_ready)  /* an rr replay without a single access */
        rc = set_up_objects(&r, symbolizer_maps(r.replay.symbols), err);
    if (rc == 0) {
        struct analysis_result *result = analysis_finish(r.analysis, &r.routines);
        out->threads = result->n_threads;
        out->events = r.events;
        analysis_result_free(result);
        struct trms_error names_err;
        if (symbol_store_load(rec_path, &names, &names_err) != 0)
            symbol_names_init(&names);  /* unnamed routines keep their addresses */
        collect_routines(&r, &names, out);
        collect_objects(&r, out);
    }
    analysis_free(r.analysis);
    object_reuse_free(r.reuse);
    data_objects_free(&r.objects);
    for (size_t i = 0; i < r.n_by_routine; i++) {
        u64map_free(&r.by_routine[i].by_rms);
        free(r.by_routine[i].items);
    }
    free(r.by_routine);
    if (r.replayed)
        rr_replay_result_free(&r.replay);
    routine_table_free(&r.routines);
    symbol_names_free(&names);
    recording_close(&rec);
    if (rc != 0)
        run_analysis_free(out);
    return rc;
}

void run_analysis_free(struct run_analysis *r)
{
    for (size_t i = 0; i < r->n_routines; i++) {
        free(r->routines[i].name);
        free(r->routines[i].points);
    }
    free(r->routines);
    for (size_t i = 0; i < r->n_objects; i++) {
        free(r->objects[i].name);
        free(r->objects[i].module);
        free(r->objects[i].bins);
    }
    free(r->objects);
    memset(r, 0, sizeof *r);
}
