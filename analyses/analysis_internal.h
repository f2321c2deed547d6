/* analysis_internal: the driver's state, shared by analysis.c, which runs
 * it, and analysis_state.c, which saves and restores it (checkpoints).
 * Nothing else includes this. */
#ifndef TRMS_ANALYSIS_INTERNAL_H
#define TRMS_ANALYSIS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "analyses/analysis.h"
#include "common/u64map.h"

struct engine_fill;

/* Calling contexts of one thread. The engine completes activations later
 * than the driver sees their returns (batches run behind), but in the same
 * order for each thread: the context of every return goes to a queue that
 * the completed activations of that thread take from, in order. */
struct thread_contexts {
    uint32_t *pending;             /* contexts of pending activations, root first */
    size_t depth, pending_capacity;
    uint32_t *completed;           /* returned, not yet reached by the engine */
    size_t head, count, completed_capacity;
};

/* The analysis validates the event stream, numbers threads densely, and
 * hands the events to the engine, which runs the passes; it keeps the
 * profiles of the activations the engine completes and assembles the
 * result. */
struct analysis {
    struct analysis_options options;
    struct engine *engine;
    struct engine_fill *fill;                  /* the engine's batch cursor */
    struct profiles *profiles;
    uint64_t activations;
    activation_sink extra_sink;
    void *extra_ctx;
    struct u64map thread_index;                /* tid -> dense index */
    uint32_t *tids;                            /* by dense index */
    uint64_t *depth;                           /* pending calls, by index */
    uint64_t *cost;                            /* instructions, by index */
    size_t n_threads;
    size_t threads_capacity;
    int has_thread;
    uint32_t current_index;
    uint64_t events[EVENT_TYPE_COUNT];
    /* calling context tree, when kept */
    struct thread_contexts *thread_contexts;   /* by dense index */
    struct u64map context_children;            /* parent << 32 | routine -> context */
    struct calling_context *contexts;
    size_t n_contexts, contexts_capacity;
};

/* The engine configuration of OPT; -1 with ERR filled when an option is
 * invalid. */
struct engine_config;
int analysis_engine_config(const struct analysis_options *opt, struct engine_config *config,
                           struct trms_error *err);

/* The completed-activation sink the driver gives the engine (profiles, the
 * caller's extra sink). */
void analysis_collect(void *ctx, const struct activation *act);

/* Tells the engine where analysis_collect may run (analysis.c). */
void analysis_choose_collector(struct analysis *a);

#endif
