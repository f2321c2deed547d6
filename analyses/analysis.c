#include "analyses/analysis.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyses/batch_event.h"
#include "analyses/input_size.h"
#include "analyses/profiles.h"
#include "analyses/reuse_distance.h"
#include "common/oom.h"
#include "common/u64map.h"

/* How the passes share the machine.
 *
 * Events are validated here, in order, and gathered into batches. Each
 * batch is handed to a set of jobs: one per input-size shard, the global
 * reuse stack, and the per-thread reuse stacks. Jobs only read the batch
 * and their own state, so they can run on separate cores; every job sees
 * every batch in order, so the results do not depend on the schedule. The
 * jobs are dealt into one group per core, each run by a worker thread; the
 * calling thread only validates and batches, which is light, and waits when
 * the workers are RING batches behind. Without workers (one core, or
 * threads off) the calling thread runs the single group itself. The
 * shards' partial activations are added up, in completion order, when a
 * batch has been processed by every group, and only then reach the
 * profiles and the caller's sink. */
#define BATCH_EVENTS 16384
#define RING 16
#define MAX_SHARDS 8

struct activation_list {
    struct activation *items;
    size_t count;
    size_t capacity;
};

struct batch {
    struct batch_event *events;
    size_t count;
    int final;                                 /* jobs finish after it */
    struct activation_list out[MAX_SHARDS];    /* per input-size shard */
    unsigned pending;                          /* worker groups still at it */
    uint64_t seq;
};

enum job_kind { JOB_INPUT_SIZE, JOB_REUSE_GLOBAL, JOB_REUSE_THREADS };

struct job {
    enum job_kind kind;
    struct analysis *a;
    unsigned group;
    /* JOB_INPUT_SIZE */
    unsigned shard;
    struct input_size *input_size;
    struct activation_list *out;               /* of the batch being processed */
    /* JOB_REUSE_* */
    struct reuse_distance *global;
    struct reuse_distance **per_thread;        /* by dense thread index */
    size_t n_per_thread;
    struct reuse_distance *current;
};

struct analysis {
    struct analysis_options options;
    unsigned cell_shift;
    unsigned line_shift;
    unsigned shard_shift;
    struct profiles *profiles;
    uint64_t activations;
    activation_sink extra_sink;
    void *extra_ctx;

    /* Validation state, on the caller's thread. */
    struct u64map thread_index;                /* tid -> dense index */
    uint32_t *tids;                            /* by dense index */
    uint64_t *depth;                           /* pending calls, by index */
    uint64_t *cost;                            /* instructions, by index */
    size_t n_threads;
    size_t threads_capacity;
    int has_thread;
    uint32_t current_index;
    uint64_t events[EVENT_TYPE_COUNT];

    /* The batches and the jobs. */
    struct batch ring[RING];
    uint64_t next_seq;                         /* of the batch being filled */
    uint64_t merged_seq;                       /* batches before it are merged */
    struct job *jobs;
    unsigned n_jobs;
    unsigned n_groups;                         /* worker threads, or 1 */
    struct worker {
        struct analysis *a;
        unsigned group;
        pthread_t thread;
    } workers[MAX_SHARDS + 2];
    int threaded;
    int finished;
    int discard;                               /* abandoned: merge nothing */
    pthread_mutex_t lock;
    pthread_cond_t published;
    pthread_cond_t done;
    uint64_t published_seq;                    /* batches before it are out */
};

void analysis_options_default(struct analysis_options *opt)
{
    opt->cell_size = ANALYSIS_DEFAULT_CELL_SIZE;
    opt->line_size = ANALYSIS_DEFAULT_LINE_SIZE;
    opt->passes = PASS_ALL;
    opt->time_limit = 0;
    opt->reuse_window = 0;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    opt->shards = cores > 1 ? 2 : 1;
    opt->threads = cores > 1;
}

static int log2_exact(uint64_t v, unsigned *shift)
{
    if (v == 0 || (v & (v - 1)) != 0)
        return -1;
    *shift = (unsigned)__builtin_ctzll(v);
    return 0;
}

/* ---- jobs ---- */

static void keep_partial(void *ctx, const struct activation *act)
{
    struct job *job = ctx;
    struct activation_list *l = job->out;
    if (l->count == l->capacity) {
        l->capacity = l->capacity ? l->capacity * 2 : 256;
        l->items = xrealloc(l->items, l->capacity * sizeof *l->items);
    }
    l->items[l->count++] = *act;
}

static void run_input_size(struct job *job, const struct batch *b)
{
    input_size_run(job->input_size, b->events, b->count);
    if (b->final)
        input_size_finish(job->input_size);
}

static void run_reuse(struct job *job, const struct batch *b, int per_thread)
{
    unsigned shift = job->a->line_shift;
    for (size_t i = 0; i < b->count; i++) {
        const struct batch_event *e = &b->events[i];
        if (e->type == EVENT_THREAD && per_thread) {
            if (e->size == job->n_per_thread) {
                job->per_thread = xrealloc(job->per_thread,
                                           (job->n_per_thread + 1) * sizeof *job->per_thread);
                job->per_thread[job->n_per_thread++] =
                    reuse_distance_new(job->a->options.reuse_window);
            }
            job->current = job->per_thread[e->size];
        }
        if (e->type != EVENT_READ && e->type != EVENT_WRITE)
            continue; /* the kernel's accesses are no reuse */
        reuse_distance_lines(job->current, e->value >> shift, (e->value + e->size - 1) >> shift);
    }
}

static void run_job(struct job *job, struct batch *b)
{
    switch (job->kind) {
    case JOB_INPUT_SIZE:
        job->out = &b->out[job->shard];
        run_input_size(job, b);
        break;
    case JOB_REUSE_GLOBAL:
        run_reuse(job, b, 0);
        break;
    case JOB_REUSE_THREADS:
        run_reuse(job, b, 1);
        break;
    }
}

static void run_group(struct analysis *a, unsigned group, struct batch *b)
{
    for (unsigned j = 0; j < a->n_jobs; j++)
        if (a->jobs[j].group == group)
            run_job(&a->jobs[j], b);
}

static void *work(void *arg)
{
    struct worker *w = arg;
    struct analysis *a = w->a;
    for (uint64_t seq = 0;; seq++) {
        pthread_mutex_lock(&a->lock);
        while (a->published_seq <= seq)
            pthread_cond_wait(&a->published, &a->lock);
        struct batch *b = &a->ring[seq % RING];
        pthread_mutex_unlock(&a->lock);
        run_group(a, w->group, b);
        int final = b->final;
        pthread_mutex_lock(&a->lock);
        if (--b->pending == 0)
            pthread_cond_broadcast(&a->done);
        pthread_mutex_unlock(&a->lock);
        if (final)
            return NULL;
    }
}

/* ---- merging the shards' activations ---- */

static void collect(struct analysis *a, const struct activation *act)
{
    a->activations++;
    profiles_add(a->profiles, act);
    if (a->extra_sink)
        a->extra_sink(a->extra_ctx, act);
}

static void merge(struct analysis *a, struct batch *b)
{
    unsigned shards = 1u << a->shard_shift;
    if (!(a->options.passes & PASS_INPUT_SIZE) || a->discard)
        return;
    for (unsigned s = 1; s < shards; s++)
        if (b->out[s].count != b->out[0].count) {
            fprintf(stderr, "trms: internal error: shards completed %zu and %zu activations\n",
                    b->out[0].count, b->out[s].count);
            abort();
        }
    for (size_t i = 0; i < b->out[0].count; i++) {
        struct activation act = b->out[0].items[i];
        for (unsigned s = 1; s < shards; s++) {
            const struct activation *part = &b->out[s].items[i];
            act.rms += part->rms;
            act.trms += part->trms;
            act.induced_thread += part->induced_thread;
            act.induced_external += part->induced_external;
        }
        collect(a, &act);
    }
    for (unsigned s = 0; s < shards; s++)
        b->out[s].count = 0;
}

/* Waits until batch SEQ has been processed by every job, then merges it. */
static void retire(struct analysis *a, uint64_t seq)
{
    struct batch *b = &a->ring[seq % RING];
    if (a->threaded) {
        pthread_mutex_lock(&a->lock);
        while (b->pending)
            pthread_cond_wait(&a->done, &a->lock);
        pthread_mutex_unlock(&a->lock);
    }
    merge(a, b);
    a->merged_seq = seq + 1;
}

/* Hands the batch being filled to the jobs and readies the next slot. */
static void publish(struct analysis *a, int final)
{
    struct batch *b = &a->ring[a->next_seq % RING];
    b->final = final;
    b->seq = a->next_seq;
    b->pending = a->threaded ? a->n_groups : 0;
    if (a->threaded) {
        pthread_mutex_lock(&a->lock);
        a->published_seq = b->seq + 1;
        pthread_cond_broadcast(&a->published);
        pthread_mutex_unlock(&a->lock);
    }
    if (!a->threaded)
        run_group(a, 0, b);
    a->next_seq++;
    if (a->next_seq >= RING && a->merged_seq <= a->next_seq - RING)
        retire(a, a->next_seq - RING); /* the slot about to be refilled */
    a->ring[a->next_seq % RING].count = 0;
}

/* ---- the public interface ---- */

static void add_job(struct analysis *a, enum job_kind kind, unsigned shard)
{
    struct job *job = &a->jobs[a->n_jobs++];
    memset(job, 0, sizeof *job);
    job->kind = kind;
    job->a = a;
    job->shard = shard;
    if (kind == JOB_INPUT_SIZE) {
        job->input_size = input_size_new(a->cell_shift, shard, a->shard_shift, keep_partial, job);
        if (a->options.time_limit)
            input_size_set_time_limit(job->input_size, a->options.time_limit);
    } else if (kind == JOB_REUSE_GLOBAL) {
        job->global = job->current = reuse_distance_new(a->options.reuse_window);
    }
}

struct analysis *analysis_new(const struct analysis_options *opt, struct trms_error *err)
{
    unsigned cell_shift, line_shift, shard_shift;
    if (log2_exact(opt->cell_size, &cell_shift) != 0) {
        error_set(err, "cell size %" PRIu64 " is not a power of two", opt->cell_size);
        return NULL;
    }
    if (log2_exact(opt->line_size, &line_shift) != 0) {
        error_set(err, "line size %" PRIu64 " is not a power of two", opt->line_size);
        return NULL;
    }
    if (log2_exact(opt->shards, &shard_shift) != 0 || opt->shards > MAX_SHARDS) {
        error_set(err, "%u shards: a power of two up to %d is needed", opt->shards, MAX_SHARDS);
        return NULL;
    }
    struct analysis *a = xcalloc(1, sizeof *a);
    a->options = *opt;
    a->cell_shift = cell_shift;
    a->line_shift = line_shift;
    a->shard_shift = shard_shift;
    a->profiles = profiles_new();
    u64map_init(&a->thread_index);
    for (unsigned i = 0; i < RING; i++)
        a->ring[i].events = xmalloc(BATCH_EVENTS * sizeof *a->ring[i].events);
    a->jobs = xcalloc(MAX_SHARDS + 2, sizeof *a->jobs);
    if (opt->passes & PASS_INPUT_SIZE)
        for (unsigned s = 0; s < opt->shards; s++)
            add_job(a, JOB_INPUT_SIZE, s);
    if (opt->passes & PASS_REUSE) {
        add_job(a, JOB_REUSE_GLOBAL, 0);
        add_job(a, JOB_REUSE_THREADS, 0);
    }
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    a->n_groups = 1;
    if (opt->threads && cores > 1)
        a->n_groups = (unsigned)(cores < (long)a->n_jobs ? cores : (long)a->n_jobs);
    if (a->n_groups < 1)
        a->n_groups = 1;
    for (unsigned j = 0; j < a->n_jobs; j++)
        a->jobs[j].group = j % a->n_groups;
    a->threaded = opt->threads && cores > 1 && a->n_jobs > 0;
    if (a->threaded) {
        pthread_mutex_init(&a->lock, NULL);
        pthread_cond_init(&a->published, NULL);
        pthread_cond_init(&a->done, NULL);
        for (unsigned g = 0; g < a->n_groups; g++) {
            a->workers[g] = (struct worker){.a = a, .group = g};
            if (pthread_create(&a->workers[g].thread, NULL, work, &a->workers[g]) != 0)
                oom_exit("worker thread");
        }
    }
    return a;
}

/* Stops the workers of an analysis that will not be finished. */
static void stop_workers(struct analysis *a)
{
    if (!a->threaded || a->finished)
        return;
    a->discard = 1;
    a->ring[a->next_seq % RING].count = 0; /* an empty final batch */
    publish(a, 1);
    for (unsigned g = 0; g < a->n_groups; g++)
        pthread_join(a->workers[g].thread, NULL);
    a->finished = 1;
}

void analysis_free(struct analysis *a)
{
    if (!a)
        return;
    stop_workers(a);
    for (unsigned j = 0; j < a->n_jobs; j++) {
        struct job *job = &a->jobs[j];
        input_size_free(job->input_size);
        reuse_distance_free(job->global);
        for (size_t i = 0; i < job->n_per_thread; i++)
            reuse_distance_free(job->per_thread[i]);
        free(job->per_thread);
    }
    for (unsigned i = 0; i < RING; i++) {
        free(a->ring[i].events);
        for (unsigned s = 0; s < MAX_SHARDS; s++)
            free(a->ring[i].out[s].items);
    }
    if (a->threaded) {
        pthread_mutex_destroy(&a->lock);
        pthread_cond_destroy(&a->published);
        pthread_cond_destroy(&a->done);
    }
    free(a->jobs);
    profiles_free(a->profiles);
    free(a->tids);
    free(a->depth);
    free(a->cost);
    u64map_free(&a->thread_index);
    free(a);
}

void analysis_on_activation(struct analysis *a, activation_sink sink, void *ctx)
{
    a->extra_sink = sink;
    a->extra_ctx = ctx;
}

static uint32_t thread_index_of(struct analysis *a, uint32_t tid)
{
    int inserted;
    uint64_t *index = u64map_upsert(&a->thread_index, tid, &inserted);
    if (inserted) {
        if (a->n_threads == a->threads_capacity) {
            a->threads_capacity = a->threads_capacity ? a->threads_capacity * 2 : 8;
            a->tids = xrealloc(a->tids, a->threads_capacity * sizeof *a->tids);
            a->depth = xrealloc(a->depth, a->threads_capacity * sizeof *a->depth);
            a->cost = xrealloc(a->cost, a->threads_capacity * sizeof *a->cost);
        }
        *index = a->n_threads;
        a->tids[a->n_threads] = tid;
        a->depth[a->n_threads] = 0;
        a->cost[a->n_threads] = 0;
        a->n_threads++;
    }
    return (uint32_t)*index;
}

int analysis_event(struct analysis *a, const struct event *ev, struct trms_error *err)
{
    if ((unsigned)ev->type >= EVENT_TYPE_COUNT)
        return error_set(err, "unknown event type %d", (int)ev->type);
    struct batch_event be = {.type = (uint8_t)ev->type, .value = ev->addr,
                             .size = (uint32_t)ev->size};
    uint32_t t = a->current_index;
    switch (ev->type) {
    case EVENT_THREAD:
        a->events[EVENT_THREAD]++;
        if (a->has_thread && ev->tid == a->tids[t])
            return 0; /* not a switch */
        a->has_thread = 1;
        a->current_index = be.size = thread_index_of(a, ev->tid);
        be.value = ev->tid;
        break;
    case EVENT_CALL:
        if (!a->has_thread)
            break;
        a->depth[t]++;
        be.value = ev->routine;
        break;
    case EVENT_RETURN:
        if (a->has_thread && a->depth[t]-- == 0) {
            a->depth[t] = 0;
            return error_set(err, "return with no pending call in thread %" PRIu32, a->tids[t]);
        }
        break;
    case EVENT_COST:
        if (a->has_thread && a->cost[t] + ev->size < a->cost[t])
            return error_set(err, "the instruction count of thread %" PRIu32 " passes 2^64",
                             a->tids[t]);
        if (a->has_thread)
            a->cost[t] += ev->size;
        be.value = ev->size;
        break;
    default:
        if (ev->size == 0 || ev->size > EVENT_MAX_ACCESS_SIZE || ev->addr + (ev->size - 1) < ev->addr)
            return error_set(err, "%s of %" PRIu64 " bytes at 0x%" PRIx64 " is not a valid access",
                             event_type_name(ev->type), ev->size, ev->addr);
        break;
    }
    if (!a->has_thread)
        return error_set(err, "%s event before any thread event", event_type_name(ev->type));
    if (ev->type != EVENT_THREAD)
        a->events[ev->type]++;
    struct batch *b = &a->ring[a->next_seq % RING];
    b->events[b->count++] = be;
    if (b->count == BATCH_EVENTS)
        publish(a, 0);
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
    publish(a, 1);
    for (uint64_t seq = a->merged_seq; seq < a->next_seq; seq++)
        retire(a, seq);
    for (unsigned g = 0; a->threaded && g < a->n_groups; g++)
        pthread_join(a->workers[g].thread, NULL);
    a->finished = 1;

    struct analysis_result *r = xcalloc(1, sizeof *r);
    r->cell_size = a->options.cell_size;
    r->line_size = a->options.line_size;
    memcpy(r->events, a->events, sizeof r->events);
    r->activations = a->activations;
    if (routines)
        routine_table_copy(&r->routines, routines);
    else
        routine_table_init(&r->routines);
    profiles_export(a->profiles, r);
    r->n_threads = a->n_threads;
    r->reuse_threads = xcalloc(a->n_threads, sizeof *r->reuse_threads);
    for (size_t i = 0; i < a->n_threads; i++)
        r->reuse_threads[i].tid = a->tids[i];
    for (unsigned j = 0; j < a->n_jobs; j++) {
        const struct job *job = &a->jobs[j];
        if (job->kind == JOB_REUSE_GLOBAL)
            export_histogram(job->global, &r->reuse_global);
        if (job->kind == JOB_REUSE_THREADS)
            for (size_t i = 0; i < job->n_per_thread; i++)
                export_histogram(job->per_thread[i], &r->reuse_threads[i].histogram);
    }
    return r;
}

uint64_t analysis_renumberings(const struct analysis *a)
{
    for (unsigned j = 0; j < a->n_jobs; j++)
        if (a->jobs[j].kind == JOB_INPUT_SIZE)
            return input_size_renumberings(a->jobs[j].input_size);
    return 0;
}

size_t analysis_bytes(const struct analysis *a)
{
    size_t bytes = sizeof *a + u64map_bytes(&a->thread_index) + profiles_bytes(a->profiles) +
                   RING * BATCH_EVENTS * sizeof(struct batch_event);
    for (unsigned j = 0; j < a->n_jobs; j++) {
        const struct job *job = &a->jobs[j];
        if (job->input_size)
            bytes += input_size_bytes(job->input_size);
        if (job->global)
            bytes += reuse_distance_bytes(job->global);
        for (size_t i = 0; i < job->n_per_thread; i++)
            bytes += reuse_distance_bytes(job->per_thread[i]);
    }
    return bytes;
}
