/* analysis_internal: the driver's state, shared by analysis.c, which runs
 * it, and analysis_state.c, which saves and restores it (checkpoints).
 * Nothing else includes this. */
#ifndef TRMS_ANALYSIS_INTERNAL_H
#define TRMS_ANALYSIS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "analyses/analysis.h"
#include "common/u64map.h"

/* The analysis validates the event stream, numbers threads densely, and
 * hands the events to the engine, which runs the passes; it keeps the
 * profiles of the activations the engine completes and assembles the
 * result. */
struct analysis {
    struct analysis_options options;
    struct engine *engine;
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
};

/* The engine configuration of OPT; -1 with ERR filled when an option is
 * invalid. */
struct engine_config;
int analysis_engine_config(const struct analysis_options *opt, struct engine_config *config,
                           struct trms_error *err);

/* The completed-activation sink the driver gives the engine (profiles, the
 * caller's extra sink). */
void analysis_collect(void *ctx, const struct activation *act);

#endif
