#include "analyses/analysis.h"

#include <inttypes.h>
#include <stdlib.h>

#include "analyses/input_size.h"
#include "analyses/profiles.h"
#include "analyses/reuse_distance.h"
#include "common/oom.h"
#include "common/u64map.h"

struct analysis {
    struct analysis_options options;
    unsigned cell_shift;
    unsigned line_shift;
    struct input_size *input_size;
    struct profiles *profiles;
    struct reuse_distance *reuse_global;
    struct reuse_distance **reuse_threads; /* by dense thread index */
    uint32_t *tids;                        /* by dense thread index */
    size_t n_threads;
    size_t threads_capacity;
    struct u64map thread_index;            /* tid -> dense index */
    int has_thread;
    uint32_t current_tid;
    struct reuse_distance *reuse_current;
    uint64_t events[EVENT_TYPE_COUNT];
    uint64_t activations;
    activation_sink extra_sink;
    void *extra_ctx;
};

void analysis_options_default(struct analysis_options *opt)
{
    opt->cell_size = ANALYSIS_DEFAULT_CELL_SIZE;
    opt->line_size = ANALYSIS_DEFAULT_LINE_SIZE;
    opt->passes = PASS_ALL;
    opt->time_limit = 0;
}

static int log2_exact(uint64_t v, unsigned *shift)
{
    if (v == 0 || (v & (v - 1)) != 0)
        return -1;
    *shift = (unsigned)__builtin_ctzll(v);
    return 0;
}

static void collect(void *ctx, const struct activation *act)
{
    struct analysis *a = ctx;
    a->activations++;
    profiles_add(a->profiles, act);
    if (a->extra_sink)
        a->extra_sink(a->extra_ctx, act);
}

struct analysis *analysis_new(const struct analysis_options *opt, struct trms_error *err)
{
    unsigned cell_shift, line_shift;
    if (log2_exact(opt->cell_size, &cell_shift) != 0) {
        error_set(err, "cell size %" PRIu64 " is not a power of two", opt->cell_size);
        return NULL;
    }
    if (log2_exact(opt->line_size, &line_shift) != 0) {
        error_set(err, "line size %" PRIu64 " is not a power of two", opt->line_size);
        return NULL;
    }
    struct analysis *a = xcalloc(1, sizeof *a);
    a->options = *opt;
    a->cell_shift = cell_shift;
    a->line_shift = line_shift;
    u64map_init(&a->thread_index);
    if (opt->passes & PASS_INPUT_SIZE) {
        a->input_size = input_size_new(cell_shift, collect, a);
        if (opt->time_limit)
            input_size_set_time_limit(a->input_size, opt->time_limit);
    }
    a->profiles = profiles_new();
    if (opt->passes & PASS_REUSE)
        a->reuse_global = reuse_distance_new();
    return a;
}

void analysis_free(struct analysis *a)
{
    if (!a)
        return;
    input_size_free(a->input_size);
    profiles_free(a->profiles);
    reuse_distance_free(a->reuse_global);
    for (size_t i = 0; i < a->n_threads; i++)
        reuse_distance_free(a->reuse_threads ? a->reuse_threads[i] : NULL);
    free(a->reuse_threads);
    free(a->tids);
    u64map_free(&a->thread_index);
    free(a);
}

void analysis_on_activation(struct analysis *a, activation_sink sink, void *ctx)
{
    a->extra_sink = sink;
    a->extra_ctx = ctx;
}

static void switch_thread(struct analysis *a, uint32_t tid)
{
    int inserted;
    uint64_t *index = u64map_upsert(&a->thread_index, tid, &inserted);
    if (inserted) {
        if (a->n_threads == a->threads_capacity) {
            a->threads_capacity = a->threads_capacity ? a->threads_capacity * 2 : 8;
            a->tids = xrealloc(a->tids, a->threads_capacity * sizeof *a->tids);
            a->reuse_threads = xrealloc(a->reuse_threads,
                                        a->threads_capacity * sizeof *a->reuse_threads);
        }
        *index = a->n_threads;
        a->tids[a->n_threads] = tid;
        a->reuse_threads[a->n_threads] = a->reuse_global ? reuse_distance_new() : NULL;
        a->n_threads++;
    }
    a->has_thread = 1;
    a->current_tid = tid;
    a->reuse_current = a->reuse_threads[*index];
    if (a->input_size)
        input_size_switch(a->input_size, (uint32_t)*index, tid);
}

static void reuse_access(struct analysis *a, uint64_t addr, uint64_t size)
{
    uint64_t first = addr >> a->line_shift;
    uint64_t last = (addr + size - 1) >> a->line_shift;
    for (uint64_t line = first;; line++) {
        reuse_distance_access(a->reuse_global, line);
        reuse_distance_access(a->reuse_current, line);
        if (line == last)
            break;
    }
}

int analysis_event(struct analysis *a, const struct event *ev, struct trms_error *err)
{
    if ((unsigned)ev->type >= EVENT_TYPE_COUNT)
        return error_set(err, "unknown event type %d", (int)ev->type);
    if (ev->type == EVENT_THREAD) {
        a->events[EVENT_THREAD]++;
        if (!a->has_thread || ev->tid != a->current_tid)
            switch_thread(a, ev->tid);
        return 0;
    }
    if (!a->has_thread)
        return error_set(err, "%s event before any thread event", event_type_name(ev->type));
    if (event_is_access(ev->type)) {
        if (ev->size == 0 || ev->size > EVENT_MAX_ACCESS_SIZE || ev->addr + (ev->size - 1) < ev->addr)
            return error_set(err, "%s of %" PRIu64 " bytes at 0x%" PRIx64 " is not a valid access",
                             event_type_name(ev->type), ev->size, ev->addr);
    }
    a->events[ev->type]++;
    switch (ev->type) {
    case EVENT_CALL:
        if (a->input_size)
            input_size_call(a->input_size, ev->routine);
        break;
    case EVENT_RETURN:
        if (a->input_size && input_size_return(a->input_size) != 0)
            return error_set(err, "return with no pending call in thread %" PRIu32,
                             a->current_tid);
        break;
    case EVENT_READ:
    case EVENT_WRITE:
        if (a->input_size)
            input_size_access(a->input_size, ev->type, ev->addr, ev->size);
        if (a->reuse_global)
            reuse_access(a, ev->addr, ev->size);
        break;
    case EVENT_KREAD:
    case EVENT_KWRITE:
        if (a->input_size)
            input_size_access(a->input_size, ev->type, ev->addr, ev->size);
        break;
    case EVENT_COST:
        if (a->input_size && input_size_cost(a->input_size, ev->size) != 0)
            return error_set(err, "the instruction count of thread %" PRIu32
                                  " passes 2^64", a->current_tid);
        break;
    default:
        break;
    }
    return 0;
}

static void export_histogram(const struct reuse_distance *rd, struct reuse_histogram *h)
{
    h->accesses = reuse_distance_accesses(rd);
    h->cold = reuse_distance_cold(rd);
    uint64_t span = reuse_distance_span(rd);
    size_t n = 0;
    for (uint64_t d = 0; d < span; d++)
        n += reuse_distance_count(rd, d) != 0;
    h->bins = xcalloc(n, sizeof *h->bins);
    h->n_bins = 0;
    for (uint64_t d = 0; d < span; d++) {
        uint64_t c = reuse_distance_count(rd, d);
        if (c)
            h->bins[h->n_bins++] = (struct reuse_bin){.distance = d, .count = c};
    }
}

struct analysis_result *analysis_finish(struct analysis *a, const struct routine_table *routines)
{
    if (a->input_size)
        input_size_finish(a->input_size);
    struct analysis_result *r = xcalloc(1, sizeof *r);
    r->cell_size = a->options.cell_size;
    r->line_size = a->options.line_size;
    for (int t = 0; t < EVENT_TYPE_COUNT; t++)
        r->events[t] = a->events[t];
    r->activations = a->activations;
    if (routines)
        routine_table_copy(&r->routines, routines);
    else
        routine_table_init(&r->routines);
    profiles_export(a->profiles, r);
    r->n_threads = a->n_threads;
    r->reuse_threads = xcalloc(a->n_threads, sizeof *r->reuse_threads);
    for (size_t i = 0; i < a->n_threads; i++) {
        r->reuse_threads[i].tid = a->tids[i];
        if (a->reuse_threads[i])
            export_histogram(a->reuse_threads[i], &r->reuse_threads[i].histogram);
    }
    if (a->reuse_global)
        export_histogram(a->reuse_global, &r->reuse_global);
    return r;
}

uint64_t analysis_renumberings(const struct analysis *a)
{
    return a->input_size ? input_size_renumberings(a->input_size) : 0;
}

size_t analysis_bytes(const struct analysis *a)
{
    size_t bytes = sizeof *a + u64map_bytes(&a->thread_index) + profiles_bytes(a->profiles);
    if (a->input_size)
        bytes += input_size_bytes(a->input_size);
    if (a->reuse_global)
        bytes += reuse_distance_bytes(a->reuse_global);
    for (size_t i = 0; i < a->n_threads; i++)
        if (a->reuse_threads[i])
            bytes += reuse_distance_bytes(a->reuse_threads[i]);
    return bytes;
}
