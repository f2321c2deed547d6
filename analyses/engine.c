#include "analyses/engine.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyses/engine_internal.h"
#include "analyses/input_size.h"
#include "analyses/reuse_distance.h"
#include "common/huge_pages.h"
#include "common/oom.h"

/* ---- jobs ---- */

void engine_keep_partial(void *ctx, const struct activation *act)
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
    struct engine *e = job->e;
    if (!e->collect_in_job || e->config.shard_shift)
        return; /* merge() collects them */
    if (e->collect_all)
        e->collect_all(e->collect_ctx, job->out->items, job->out->count);
    else
        for (size_t i = 0; i < job->out->count; i++)
            e->collect(e->collect_ctx, &job->out->items[i]);
    job->out->count = 0;
}

/* The global stack: the whole batch, with a pause where the second thread
 * first appears while a copy is wanted, to hand the copy over. */
static void run_reuse_global(struct job *job, const struct batch *b)
{
    struct engine *e = job->e;
    unsigned shift = e->config.line_shift;
    size_t i = 0;
    while (i < b->count) {
        i += reuse_distance_events(job->global, b->events + i, b->count - i, shift,
                                   job->fork_wanted ? 1 : REUSE_STOP_NEVER);
        if (i == b->count)
            break;
        /* The thread event that introduces thread 1: the first thread's
         * stack goes its own way from here, as a copy of this one. */
        struct reuse_distance *copy = reuse_distance_clone(job->global);
        job->fork_wanted = 0;
        if (e->threaded)
            pthread_mutex_lock(&e->lock);
        e->fork = copy;
        if (e->threaded) {
            pthread_cond_broadcast(&e->forked);
            pthread_mutex_unlock(&e->lock);
        }
    }
}

/* The copy of the global stack the global job makes where thread 1 first
 * appears: the first thread's stack until then. */
static struct reuse_distance *take_fork(struct engine *e)
{
    if (e->threaded) {
        pthread_mutex_lock(&e->lock);
        while (!e->fork)
            pthread_cond_wait(&e->forked, &e->lock);
    }
    struct reuse_distance *fork = e->fork;
    e->fork = NULL;
    if (e->threaded)
        pthread_mutex_unlock(&e->lock);
    return fork;
}

static void switch_reuse_thread(struct job *job, uint32_t index)
{
    if (index == job->n_per_thread) {
        if (index == 1 && !job->per_thread[0]) {
            job->per_thread[0] = take_fork(job->e);
            reuse_distance_count_ahead(job->per_thread[0], &job->marks_ahead_stacks);
        }
        /* Doubling: thousands of threads cost no copy each. */
        if (job->n_per_thread == job->per_thread_capacity) {
            job->per_thread_capacity = job->per_thread_capacity ? 2 * job->per_thread_capacity : 8;
            job->per_thread = xrealloc(job->per_thread,
                                       job->per_thread_capacity * sizeof *job->per_thread);
        }
        /* The first thread's stack is the global one, until a second comes;
         * a thread's own starts with a small window (most threads touch
         * few lines), which grows with its lines. */
        struct reuse_distance *rd =
            index == 0 ? NULL : reuse_distance_new(engine_thread_window(&job->e->config));
        if (rd)
            reuse_distance_count_ahead(rd, &job->marks_ahead_stacks);
        job->per_thread[job->n_per_thread++] = rd;
    }
    job->current = index;
}

/* The per-thread stacks: each access to its thread's stack, nothing while
 * the one thread's stack is the global one; a stack is made where its
 * thread first appears. */
static void run_reuse_threads(struct job *job, const struct batch *b)
{
    unsigned shift = job->e->config.line_shift;
    size_t i = 0;
    while (i < b->count) {
        int own = job->current < job->n_per_thread && job->per_thread[job->current];
        if (own)
            i += reuse_distance_thread_events(job->per_thread, job->n_per_thread, &job->current,
                                              b->events + i, b->count - i, shift,
                                              job->marks_ahead_stacks > 0);
        else if (!b->has_thread) /* (engine_mark_thread) */
            i = b->count;
        else /* no thread yet, or the one thread's stack is the global one */
            while (i < b->count && b->events[i].type != EVENT_THREAD)
                i++;
        if (i < b->count) /* a thread event, of a thread without a stack of its own */
            switch_reuse_thread(job, b->events[i++].size);
    }
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

/* A reuse job's histograms, once it has run the final batch: the
 * export reads every distance of a stack's histogram (a stack of many lines
 * has hundreds of thousands), so each job does its own on its worker. */
static void export_job(struct job *job)
{
    if (job->kind == JOB_REUSE_GLOBAL) {
        job->exported = xcalloc(1, sizeof *job->exported);
        export_histogram(job->global, job->exported);
        job->n_exported = 1;
        return;
    }
    job->exported = xcalloc(job->n_per_thread ? job->n_per_thread : 1, sizeof *job->exported);
    for (size_t i = 0; i < job->n_per_thread; i++)
        if (job->per_thread[i]) /* (else the global one's, exported by its job) */
            export_histogram(job->per_thread[i], &job->exported[i]);
    job->n_exported = job->n_per_thread;
}

static void run_job(struct job *job, struct batch *b)
{
    switch (job->kind) {
    case JOB_INPUT_SIZE:
        job->out = &b->out[job->shard];
        run_input_size(job, b);
        break;
    case JOB_REUSE_GLOBAL:
        run_reuse_global(job, b);
        break;
    case JOB_REUSE_THREADS:
        run_reuse_threads(job, b);
        break;
    }
    if (b->final && job->kind != JOB_INPUT_SIZE && !job->e->discard)
        export_job(job);
}

/* Every job on batch B, in job order (without workers). */
static void run_all(struct engine *e, struct batch *b)
{
    for (unsigned j = 0; j < e->n_jobs; j++)
        run_job(&e->jobs[j], b);
}

/* With e->lock held: whether a job may be claimed (not running, not done,
 * its next batch out). */
static int claimable(const struct engine *e, const struct job *job)
{
    return !job->busy && !job->done && job->next_seq < e->published_seq;
}

/* With e->lock held: the jobs that may be claimed, and in *ALL_DONE
 * whether every job has run the final batch. */
static unsigned count_claimable(const struct engine *e, int *all_done)
{
    unsigned n = 0;
    *all_done = 1;
    for (unsigned j = 0; j < e->n_jobs; j++) {
        n += (unsigned)claimable(e, &e->jobs[j]);
        *all_done &= e->jobs[j].done;
    }
    return n;
}

/* With e->lock held: the job furthest behind whose next batch is out,
 * claimed; waits for one; NULL once every job has run the final batch. */
static struct job *claim_job(struct engine *e)
{
    for (;;) {
        struct job *best = NULL;
        int all_done = 1;
        for (unsigned j = 0; j < e->n_jobs; j++) {
            struct job *job = &e->jobs[j];
            all_done &= job->done;
            if (!claimable(e, job))
                continue;
            if (!best || job->next_seq < best->next_seq)
                best = job;
        }
        if (best) {
            best->busy = 1;
            return best;
        }
        if (all_done)
            return NULL;
        pthread_cond_wait(&e->published, &e->lock);
    }
}

/* A worker runs whichever job is furthest behind on its next batch, so
 * that the cores share the work however it is divided among the jobs (a
 * stream of one thread leaves the per-thread reuse job idle). A job runs
 * its batches in order, on one worker at a time. */
static void *work(void *arg)
{
    struct worker *w = arg;
    struct engine *e = w->e;
    pthread_mutex_lock(&e->lock);
    struct job *job;
    while ((job = claim_job(e))) {
        struct batch *b = &e->ring[job->next_seq % RING];
        pthread_mutex_unlock(&e->lock);
        run_job(job, b);
        pthread_mutex_lock(&e->lock);
        job->busy = 0;
        job->next_seq++;
        job->done = b->final;
        if (--b->pending == 0)
            pthread_cond_broadcast(&e->done);
        /* This worker claims the next job itself: the others are woken
         * only for a second one, or to stop. Waking them after every job
         * (some 11,000 times for xz) mostly found nothing to take. */
        int all_done;
        if (count_claimable(e, &all_done) > 1 || all_done)
            pthread_cond_broadcast(&e->published);
    }
    pthread_mutex_unlock(&e->lock);
    return NULL;
}

/* ---- merging the shards' activations ---- */

static void merge(struct engine *e, struct batch *b)
{
    unsigned shards = 1u << e->config.shard_shift;
    if (!e->config.input_size || e->discard)
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
            act.induced_channel += part->induced_channel;
            act.channel = channel_join(act.channel, part->channel);
        }
        e->collect(e->collect_ctx, &act);
    }
    for (unsigned s = 0; s < shards; s++)
        b->out[s].count = 0;
}

/* Waits until batch SEQ has been processed by every job, then merges it. */
static void retire(struct engine *e, uint64_t seq)
{
    struct batch *b = &e->ring[seq % RING];
    if (e->threaded) {
        pthread_mutex_lock(&e->lock);
        while (b->pending)
            pthread_cond_wait(&e->done, &e->lock);
        pthread_mutex_unlock(&e->lock);
    }
    merge(e, b);
    e->merged_seq = seq + 1;
}

/* A batch's events, in bytes: what is mapped for it and given back. */
static size_t batch_bytes(const struct engine *e)
{
    return e->batch_events * sizeof(struct batch_event);
}

/* Points the fill cursor at the (empty) batch of slot next_seq, whose
 * events are allocated when the slot is first filled: a short trace needs
 * one batch, not the whole ring. A batch of 128 Ki events is one 2 MiB
 * huge page, not 512 small ones: the producer and both workers cross
 * every page of every batch (`trms record` of xz: 2-11% less CPU). */
static void ready_fill(struct engine *e)
{
    struct batch *b = &e->ring[e->next_seq % RING];
    if (!b->events)
        b->events = huge_pages_calloc(batch_bytes(e));
    b->count = 0;
    e->fill.has_thread = 0;
    e->fill.next = b->events;
    e->fill.end = b->events + e->batch_events;
}

static size_t filled(const struct engine *e)
{
    return (size_t)(e->fill.next - e->ring[e->next_seq % RING].events);
}

/* Hands the batch being filled to the jobs and readies the next slot. */
static void publish(struct engine *e, int final)
{
    struct batch *b = &e->ring[e->next_seq % RING];
    b->count = filled(e);
    b->final = final;
    b->has_thread = e->fill.has_thread;
    b->seq = e->next_seq;
    b->pending = e->threaded ? e->n_jobs : 0;
    if (e->threaded) {
        pthread_mutex_lock(&e->lock);
        e->published_seq = b->seq + 1;
        pthread_cond_broadcast(&e->published);
        pthread_mutex_unlock(&e->lock);
    }
    if (!e->threaded)
        run_all(e, b);
    e->next_seq++;
    if (e->next_seq >= RING && e->merged_seq <= e->next_seq - RING)
        retire(e, e->next_seq - RING); /* the slot about to be refilled */
    ready_fill(e);
}

/* ---- the interface ---- */

static void add_job(struct engine *e, enum job_kind kind, unsigned shard)
{
    struct job *job = &e->jobs[e->n_jobs++];
    memset(job, 0, sizeof *job);
    job->kind = kind;
    job->e = e;
    job->shard = shard;
    if (kind == JOB_INPUT_SIZE) {
        job->input_size = input_size_new(e->config.cell_shift, shard, e->config.shard_shift,
                                         engine_keep_partial, job);
        if (e->config.time_limit)
            input_size_set_time_limit(job->input_size, e->config.time_limit);
        if (!e->config.kernel_writes)
            input_size_skip_kernel_writes(job->input_size);
    } else if (kind == JOB_REUSE_GLOBAL) {
        job->global = reuse_distance_new(e->config.reuse_window);
        job->fork_wanted = 1;
    }
    job->current = SIZE_MAX;
}

struct engine *engine_new(const struct engine_config *config, activation_sink collect,
                          void *ctx)
{
    struct engine *e = xcalloc(1, sizeof *e);
    e->config = *config;
    e->collect = collect;
    e->collect_ctx = ctx;
    e->batch_events = config->batch_events ? config->batch_events : ENGINE_BATCH_EVENTS;
    if (config->input_size)
        for (unsigned s = 0; s < 1u << config->shard_shift; s++)
            add_job(e, JOB_INPUT_SIZE, s);
    if (config->reuse) {
        add_job(e, JOB_REUSE_GLOBAL, 0);
        add_job(e, JOB_REUSE_THREADS, 0);
    }
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    e->n_workers = (unsigned)(cores < (long)e->n_jobs ? cores : (long)e->n_jobs);
    e->threaded = config->threads && cores > 1 && e->n_jobs > 0;
    e->fill.cell_shift = config->cell_shift;
    e->fill.shard_shift = config->input_size ? config->shard_shift : 0;
    ready_fill(e);
    if (e->threaded) {
        pthread_mutex_init(&e->lock, NULL);
        pthread_cond_init(&e->published, NULL);
        pthread_cond_init(&e->done, NULL);
        pthread_cond_init(&e->forked, NULL);
        for (unsigned g = 0; g < e->n_workers; g++) {
            e->workers[g] = (struct worker){.e = e};
            if (pthread_create(&e->workers[g].thread, NULL, work, &e->workers[g]) != 0)
                oom_exit("worker thread");
        }
    }
    return e;
}

void engine_collect_in_job(struct engine *e, int on)
{
    e->collect_in_job = on;
}

void engine_collect_all(struct engine *e, activation_list_sink collect_all)
{
    e->collect_all = collect_all;
}

struct engine_fill *engine_fill(struct engine *e)
{
    return &e->fill;
}

void engine_put_next_batch(struct engine *e, struct batch_event ev)
{
    publish(e, 0);
    engine_put(e, &e->fill, ev);
}

void engine_publish_full(struct engine *e)
{
    publish(e, 0);
}

void engine_quiesce(struct engine *e)
{
    if (filled(e))
        publish(e, 0);
    for (uint64_t seq = e->merged_seq; seq < e->next_seq; seq++)
        retire(e, seq);
}

void engine_finish(struct engine *e)
{
    publish(e, 1);
    for (uint64_t seq = e->merged_seq; seq < e->next_seq; seq++)
        retire(e, seq);
    for (unsigned g = 0; e->threaded && g < e->n_workers; g++)
        pthread_join(e->workers[g].thread, NULL);
    e->finished = 1;
}

/* Stops the workers of an engine that will not be finished. */
static void stop_workers(struct engine *e)
{
    if (!e->threaded || e->finished)
        return;
    e->discard = 1;
    ready_fill(e); /* an empty final batch */
    publish(e, 1);
    for (unsigned g = 0; g < e->n_workers; g++)
        pthread_join(e->workers[g].thread, NULL);
    e->finished = 1;
}

void engine_free(struct engine *e)
{
    if (!e)
        return;
    stop_workers(e);
    for (unsigned j = 0; j < e->n_jobs; j++) {
        struct job *job = &e->jobs[j];
        input_size_free(job->input_size);
        reuse_distance_free(job->global);
        for (size_t i = 0; i < job->n_per_thread; i++)
            reuse_distance_free(job->per_thread[i]);
        free(job->per_thread);
        for (size_t k = 0; k < job->n_exported; k++) /* (those not taken) */
            free(job->exported[k].bins);
        free(job->exported);
    }
    for (unsigned i = 0; i < RING; i++) {
        huge_pages_free(e->ring[i].events, batch_bytes(e));
        for (unsigned s = 0; s < MAX_SHARDS; s++)
            free(e->ring[i].out[s].items);
    }
    if (e->threaded) {
        pthread_mutex_destroy(&e->lock);
        pthread_cond_destroy(&e->published);
        pthread_cond_destroy(&e->done);
        pthread_cond_destroy(&e->forked);
    }
    reuse_distance_free(e->fork);
    free(e);
}

const struct reuse_distance *engine_global_reuse(const struct engine *e)
{
    for (unsigned j = 0; j < e->n_jobs; j++)
        if (e->jobs[j].kind == JOB_REUSE_GLOBAL)
            return e->jobs[j].global;
    return NULL;
}

/* Hands over into H the histogram JOB exported for its stack K; 0 when
 * it exported none there (the caller then exports the stack itself). */
static int take_exported(struct job *job, size_t k, struct reuse_histogram *h)
{
    if (k >= job->n_exported || !job->exported[k].bins)
        return 0;
    *h = job->exported[k];
    job->exported[k].bins = NULL;
    return 1;
}

void engine_export_reuse(struct engine *e, struct reuse_histogram *global,
                         struct thread_reuse *threads, size_t n)
{
    for (unsigned j = 0; j < e->n_jobs; j++) {
        struct job *job = &e->jobs[j];
        if (job->kind == JOB_REUSE_GLOBAL && !take_exported(job, 0, global))
            export_histogram(job->global, global);
        if (job->kind == JOB_REUSE_THREADS)
            for (size_t i = 0; i < job->n_per_thread && i < n; i++)
                if (!job->per_thread[i] || !take_exported(job, i, &threads[i].histogram))
                    export_histogram(job->per_thread[i] ? job->per_thread[i]
                                                        : engine_global_reuse(e),
                                     &threads[i].histogram);
    }
}

uint64_t engine_renumberings(const struct engine *e)
{
    for (unsigned j = 0; j < e->n_jobs; j++)
        if (e->jobs[j].kind == JOB_INPUT_SIZE)
            return input_size_renumberings(e->jobs[j].input_size);
    return 0;
}

void engine_memory(const struct engine *e, size_t *input_size, size_t *reuse, size_t *engine)
{
    *input_size = *reuse = 0;
    size_t filled_slots = 0; /* (allocated when first filled) */
    for (unsigned i = 0; i < RING; i++)
        filled_slots += e->ring[i].events != NULL;
    *engine = sizeof *e + filled_slots * batch_bytes(e);
    for (unsigned j = 0; j < e->n_jobs; j++) {
        const struct job *job = &e->jobs[j];
        if (job->input_size)
            *input_size += input_size_bytes(job->input_size);
        if (job->global)
            *reuse += reuse_distance_bytes(job->global);
        for (size_t i = 0; i < job->n_per_thread; i++)
            if (job->per_thread[i])
                *reuse += reuse_distance_bytes(job->per_thread[i]);
    }
}
