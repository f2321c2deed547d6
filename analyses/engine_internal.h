/* engine_internal: the engine's state, shared by engine.c, which runs it,
 * and engine_state.c, which saves and restores its jobs (checkpoints).
 * Nothing else includes this. */
#ifndef TRMS_ENGINE_INTERNAL_H
#define TRMS_ENGINE_INTERNAL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "analyses/engine.h"

#define BATCH_EVENTS 16384
#define RING 16
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
    struct activation_list out[MAX_SHARDS];    /* per input-size shard */
    unsigned pending;                          /* worker groups still at it */
    uint64_t seq;
};

enum job_kind { JOB_INPUT_SIZE, JOB_REUSE_GLOBAL, JOB_REUSE_THREADS };

struct job {
    enum job_kind kind;
    struct engine *e;
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

struct worker {
    struct engine *e;
    unsigned group;
    pthread_t thread;
};

struct engine {
    struct engine_fill fill;                   /* in ring[next_seq % RING] */
    struct engine_config config;
    activation_sink collect;
    void *collect_ctx;
    struct batch ring[RING];
    uint64_t next_seq;                         /* of the batch being filled */
    uint64_t merged_seq;                       /* batches before it are merged */
    struct job jobs[MAX_SHARDS + 2];
    unsigned n_jobs;
    unsigned n_groups;                         /* worker threads, or 1 */
    struct worker workers[MAX_SHARDS + 2];
    int threaded;
    int finished;
    int discard;                               /* abandoned: merge nothing */
    pthread_mutex_t lock;
    pthread_cond_t published;
    pthread_cond_t done;
    uint64_t published_seq;                    /* batches before it are out */
};

/* The sink of an input-size job: keeps its shard's partial activations in
 * the batch being processed, for merge(). */
void engine_keep_partial(void *ctx, const struct activation *act);

#endif
