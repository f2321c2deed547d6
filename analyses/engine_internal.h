/* engine_internal: the engine's state, shared by engine.c, which runs it,
 * and engine_state.c, which saves and restores its jobs (checkpoints).
 * Nothing else includes this. */
#ifndef TRMS_ENGINE_INTERNAL_H
#define TRMS_ENGINE_INTERNAL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "analyses/engine.h"

#define RING 8
#define MAX_SHARDS ENGINE_MAX_SHARDS

struct activation_list {
    struct activation *items;
    size_t count;
    size_t capacity;
};

struct batch {
    struct batch_event *events;
    size_t count;
    int final;                                 /* jobs finish after it */
    int has_thread;                            /* holds an EVENT_THREAD */
    struct activation_list out[MAX_SHARDS];    /* per input-size shard */
    unsigned pending;                          /* jobs still at it */
    uint64_t seq;
};

enum job_kind { JOB_INPUT_SIZE, JOB_REUSE_GLOBAL, JOB_REUSE_THREADS };

struct job {
    enum job_kind kind;
    struct engine *e;
    /* With workers, under e->lock: the next batch this job runs, whether a
     * worker runs it now, whether it has run the final batch. */
    uint64_t next_seq;
    int busy;
    int done;
    /* JOB_INPUT_SIZE */
    unsigned shard;
    struct input_size *input_size;
    struct activation_list *out;               /* of the batch being processed */
    /* JOB_REUSE_* */
    struct reuse_distance *global;
    /* JOB_REUSE_THREADS: by dense thread index. While the stream has had
     * one thread, its stack is the global one: per_thread[0] stays NULL,
     * and the global job hands over a copy of itself where the second
     * thread appears (engine.c: the fork). */
    struct reuse_distance **per_thread;
    size_t n_per_thread, per_thread_capacity;
    unsigned marks_ahead_stacks;               /* of per_thread (reuse_distance_count_ahead) */
    size_t current;                            /* index, or SIZE_MAX before any */
    /* JOB_REUSE_GLOBAL: a copy of the global stack is wanted where the
     * second thread first appears (per_thread[0] is shared). */
    int fork_wanted;
    /* JOB_REUSE_*: the histograms, exported by the job itself once it has
     * run the final batch (on a worker, beside the other jobs, not on the
     * thread that finishes the engine): the global stack's, and by dense
     * index the per-thread stacks' (NULL bins and accesses 0 where the
     * stack is the global one); taken by engine_export_reuse. */
    struct reuse_histogram *exported;
    size_t n_exported;
};

struct worker {
    struct engine *e;
    pthread_t thread;
};

struct engine {
    struct engine_fill fill;                   /* in ring[next_seq % RING] */
    struct engine_config config;
    activation_sink collect;
    void *collect_ctx;
    int collect_in_job;                        /* engine_collect_in_job */
    activation_list_sink collect_all;          /* engine_collect_all */
    struct batch ring[RING];
    size_t batch_events;                       /* events a batch holds */
    uint64_t next_seq;                         /* of the batch being filled */
    uint64_t merged_seq;                       /* batches before it are merged */
    struct job jobs[MAX_SHARDS + 2];
    unsigned n_jobs;
    unsigned n_workers;                        /* worker threads, when threaded */
    struct worker workers[MAX_SHARDS + 2];
    int threaded;
    int finished;
    int discard;                               /* abandoned: merge nothing */
    pthread_mutex_t lock;
    pthread_cond_t published;
    pthread_cond_t done;
    uint64_t published_seq;                    /* batches before it are out */
    /* The global reuse stack's copy where the second thread appeared, from
     * the global job to the per-thread job (under lock, cond forked). */
    struct reuse_distance *fork;
    pthread_cond_t forked;
};

/* The global reuse stack (which the first thread's shares until a second
 * thread appears); NULL without the reuse passes. */
const struct reuse_distance *engine_global_reuse(const struct engine *e);

/* The sink of an input-size job: keeps its shard's partial activations in
 * the batch being processed, for merge(). */
void engine_keep_partial(void *ctx, const struct activation *act);

/* The first window of a thread's own reuse stack: small, since most
 * threads touch few lines (a window of 64 Ki times would cost every
 * thread 9 KiB); it grows with the thread's lines. A smaller first window
 * the tests ask for holds. */
#define ENGINE_THREAD_WINDOW 4096u

static inline uint64_t engine_thread_window(const struct engine_config *c)
{
    return c->reuse_window && c->reuse_window < ENGINE_THREAD_WINDOW ? c->reuse_window
                                                                     : ENGINE_THREAD_WINDOW;
}

#endif
