/* engine: runs the passes over batches of events, on one worker per core.
 *
 * The analysis driver validates events and writes them into the engine's
 * batches. Each batch goes to a set of jobs: one per input-size shard, the
 * global reuse stack, the per-thread reuse stacks. Jobs only read the batch
 * and their own state, so they run on separate cores; every job sees every
 * batch in order, so the results do not depend on the schedule. One
 * worker thread per core runs, each time, whichever job is furthest behind
 * (a job runs its batches in order, on one worker at a time); the calling
 * thread only fills batches, and waits when the workers are RING batches
 * behind. Without workers (one core, or threads off) the calling thread
 * runs every job itself. The shards' partial activations are added up, in
 * completion order, once a batch has been through every job,
 * and only then reach the caller. */
#ifndef TRMS_ENGINE_H
#define TRMS_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include <string.h>

#include "analyses/activation.h"
#include "analyses/batch_event.h"
#include "analyses/input_size.h"
#include "analyses/result.h"

#define ENGINE_MAX_SHARDS 8
/* Events a batch holds. Each batch costs every job a hand-off (the lock, a
 * wake-up, the pass's set-up), and on two cores shared by the feeding
 * thread and two workers a hand-off that finds nothing ready leaves a core
 * idle while the sleeper wakes: with batches of 128 Ki events (8 in the
 * ring, 16 MiB) in place of 16 of 16 Ki, `trms record` of xz took 11% less
 * wall time and 8% less CPU (bench/README.md, "Fewer, larger batches"). */
#define ENGINE_BATCH_EVENTS 131072u

struct engine_config {
    unsigned cell_shift;
    unsigned line_shift;
    unsigned shard_shift;    /* 2^shard_shift input-size shards */
    int input_size;          /* run the RMS/TRMS pass */
    int kernel_writes;       /* ...with kernel writes (only TRMS needs them) */
    int reuse;               /* run the reuse-distance passes */
    uint64_t time_limit;     /* 0 or a small timestamp range (tests) */
    uint64_t reuse_window;   /* 0 or a small first reuse window (tests) */
    int threads;             /* use worker threads when there are cores */
    uint32_t batch_events;   /* 0 (ENGINE_BATCH_EVENTS), or fewer: tests cross
                                batch edges and wrap the ring cheaply */
};

struct engine;

/* COLLECT receives every completed activation, whole, in completion order,
 * on the calling thread (but see engine_collect_in_job). */
struct engine *engine_new(const struct engine_config *config, activation_sink collect,
                          void *ctx);

/* With ON, and one input-size shard, COLLECT runs in the input-size job
 * instead, on whichever worker runs it, still in completion order; every
 * activation of a batch is collected before engine_quiesce or
 * engine_finish returns past it. For a COLLECT that touches nothing the
 * calling thread touches meanwhile: the calling thread feeds the events
 * of the next batches, and for call-heavy programs (sqlite3) it is the
 * recording's slowest stage. Call before the first event. */
void engine_collect_in_job(struct engine *e, int on);

/* While COLLECT runs in the job: a batch's completed activations go to
 * COLLECT_ALL(ctx, acts, n) at once instead, in completion order, so that
 * the collector can ask for what the next ones will touch while it adds
 * one (profiles_prefetch). NULL: to COLLECT, one at a time. */
typedef void (*activation_list_sink)(void *ctx, const struct activation *acts, size_t n);
void engine_collect_all(struct engine *e, activation_list_sink collect_all);

/* Stops the workers (dropping what they would still deliver) and frees. */
void engine_free(struct engine *e);

/* The cursor in the batch being filled, for engine_put(), which runs once
 * per event and so is inline. */
struct engine_fill {
    struct batch_event *next;
    struct batch_event *end;
    unsigned cell_shift;       /* to tag accesses with their shards... */
    unsigned shard_shift;      /* ...when there are several */
    int has_thread;            /* the batch holds a thread event (engine_mark_thread) */
};

/* E's cursor; it stays the same object for E's lifetime. */
struct engine_fill *engine_fill(struct engine *e);

/* Says that the batch being filled holds a thread event: right after
 * the engine_put of every EVENT_THREAD (whichever batch engine_put put it
 * in, it is the one being filled then). A batch without one is passed
 * over whole by the per-thread reuse job while it has no stacks of its
 * own (a single-threaded program's every batch), where it looked at each
 * event for one. */
static inline void engine_mark_thread(struct engine_fill *f)
{
    f->has_thread = 1;
}

/* Hands the full batch to the jobs, then puts EV in the next one. */
void engine_put_next_batch(struct engine *e, struct batch_event ev);

/* Hands the full batch to the jobs: the cursor is at the next one. */
void engine_publish_full(struct engine *e);

/* Appends EV to the batch being filled; its shards tag is set here. */
static inline void engine_put(struct engine *e, struct engine_fill *f, struct batch_event ev)
{
    if (f->next == f->end) {
        engine_put_next_batch(e, ev); /* nothing live across the call */
        return;
    }
    /* Kernel writes stay with every shard: each counts them on its clock. */
    if (f->shard_shift &&
        (ev.type == EVENT_READ || ev.type == EVENT_WRITE || ev.type == EVENT_KREAD))
        ev.shards = input_size_shards_of(f->cell_shift, f->shard_shift, ev.value, ev.size);
    batch_event_store(f->next++, ev);
}

/* Runs everything outstanding: every event given so far has been through
 * every job and its completed activations have reached COLLECT; the
 * workers are idle, waiting for the next batch, so the jobs' state can be
 * read (saved) from the calling thread. Events may follow. */
void engine_quiesce(struct engine *e);

/* Runs everything outstanding and completes the pending activations; every
 * activation has reached COLLECT when it returns. */
void engine_finish(struct engine *e);

/* After engine_finish(): the global reuse histogram and the per-thread
 * ones (THREADS[i] for dense thread index i, N of them); once (the jobs'
 * own exports are handed over, not copied). */
void engine_export_reuse(struct engine *e, struct reuse_histogram *global,
                         struct thread_reuse *threads, size_t n);

/* After engine_finish(). */
uint64_t engine_renumberings(const struct engine *e);
void engine_memory(const struct engine *e, size_t *input_size, size_t *reuse, size_t *engine);

#endif
