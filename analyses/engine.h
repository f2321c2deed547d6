/* engine: runs the passes over batches of events, on one worker per core.
 *
 * The analysis driver validates events and writes them into the engine's
 * batches. Each batch goes to a set of jobs: one per input-size shard, the
 * global reuse stack, the per-thread reuse stacks. Jobs only read the batch
 * and their own state, so they run on separate cores; every job sees every
 * batch in order, so the results do not depend on the schedule. The jobs
 * are dealt into one group per core, each run by a worker thread; the
 * calling thread only fills batches, and waits when the workers are RING
 * batches behind. Without workers (one core, or threads off) the calling
 * thread runs the single group itself. The shards' partial activations are
 * added up, in completion order, once a batch has been through every group,
 * and only then reach the caller. */
#ifndef TRMS_ENGINE_H
#define TRMS_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "analyses/activation.h"
#include "analyses/batch_event.h"
#include "analyses/result.h"

#define ENGINE_MAX_SHARDS 8

struct engine_config {
    unsigned cell_shift;
    unsigned line_shift;
    unsigned shard_shift;    /* 2^shard_shift input-size shards */
    int input_size;          /* run the RMS/TRMS pass */
    int reuse;               /* run the reuse-distance passes */
    uint64_t time_limit;     /* 0 or a small timestamp range (tests) */
    uint64_t reuse_window;   /* 0 or a small first reuse window (tests) */
    int threads;             /* use worker threads when there are cores */
};

struct engine;

/* COLLECT receives every completed activation, whole, in completion order,
 * on the calling thread. */
struct engine *engine_new(const struct engine_config *config, activation_sink collect,
                          void *ctx);

/* Stops the workers (dropping what they would still deliver) and frees. */
void engine_free(struct engine *e);

/* Appends EV to the batch being filled. */
void engine_put(struct engine *e, const struct batch_event *ev);

/* Runs everything outstanding: every event given so far has been through
 * every job and its completed activations have reached COLLECT; the
 * workers are idle, waiting for the next batch, so the jobs' state can be
 * read (saved) from the calling thread. Events may follow. */
void engine_quiesce(struct engine *e);

/* Runs everything outstanding and completes the pending activations; every
 * activation has reached COLLECT when it returns. */
void engine_finish(struct engine *e);

/* After engine_finish(): the global reuse histogram and the per-thread
 * ones (THREADS[i] for dense thread index i, N of them). */
void engine_export_reuse(const struct engine *e, struct reuse_histogram *global,
                         struct thread_reuse *threads, size_t n);

/* After engine_finish(). */
uint64_t engine_renumberings(const struct engine *e);
void engine_memory(const struct engine *e, size_t *input_size, size_t *reuse, size_t *engine);

#endif
