/* causal_input: the part of a trace the causal model reads, written as a
 * trace of its own (REC/causal.trms) while an analysis pass reads or
 * records the events anyway, so that `trms causal` decodes a few million
 * records instead of every memory access.
 *
 * Kept, in order: thread switches, calls and returns, the sync records,
 * the reads of an address some thread's exit clears (a join that finds
 * the thread gone: causal_model.h), a thread's reads and writes for
 * CAUSAL_MODEL_FOLLOWED_ACCESSES after each lock take (what a critical
 * section read from another: a superset of what the model follows), and
 * the instructions between two kept
 * records summed into one cost event. Those are exactly what the model
 * builds its segments from, so the model of the reduced trace is the
 * model of the whole one (tests/e2e/causal_input_e2e.py checks the
 * output byte for byte). The model itself is not stored: a progress
 * point or a latency (`--progress`, `--latency`) cuts segments at returns
 * chosen when `trms causal` runs.
 *
 * Engine-agnostic: events (or runs of loads and stores as batch events)
 * and sync records in, a trace out. */
#ifndef TRMS_CAUSAL_INPUT_H
#define TRMS_CAUSAL_INPUT_H

#include <stddef.h>

#include "analyses/batch_event.h"
#include "common/error.h"
#include "trace/event.h"
#include "trace/routine_table.h"
#include "trace/sync_event.h"

/* The file in a recording (trace/recording.h's layout). */
#define CAUSAL_INPUT_FILE "causal.trms"

struct causal_input;

/* Writes into REC_PATH/causal.trms (through a temporary file beside it);
 * NULL with ERR when it cannot be created. ROUTINES is the table the
 * events' routine ids refer to, filled as they come. */
struct causal_input *causal_input_create(const char *rec_path,
                                         const struct routine_table *routines,
                                         struct trms_error *err);

/* Sinks: the trace's events (one or a run) and its sync records, in
 * order; CTX the causal_input. */
int causal_input_event(void *ctx, const struct event *ev, struct trms_error *err);
int causal_input_events(void *ctx, const struct event *events, size_t n,
                        struct trms_error *err);
int causal_input_sync(void *ctx, const struct sync_event *ev, struct trms_error *err);

/* What the causal input needs of the current thread's next loads and
 * stores (none of a run of them changes the answer). */
enum causal_access_need {
    CAUSAL_PASSES_ACCESSES,     /* nothing: they may pass it by */
    CAUSAL_KEEPS_SOME_READS,    /* the reads of an address a thread's exit
                                   clears (once a thread was created):
                                   causal_input_access_run may take a run */
    CAUSAL_FOLLOWS_ACCESSES,    /* each (a lock take's window, held_locks.h):
                                   through causal_input_events */
};
enum causal_access_need causal_input_access_need(const struct causal_input *ci);

/* A run of N loads and stores of the current thread as the analysis's
 * batches hold them (analyses/batch_event.h), in order after every event
 * and sync record given before, while they are not followed
 * (causal_input_access_need):
 * keeps the reads of a cleared address exactly as causal_input_events
 * would (the run holds no cost, so the instructions summed before each
 * kept read are the same). CTX the causal_input. */
int causal_input_access_run(void *ctx, const struct batch_event *run, size_t n,
                            struct trms_error *err);

/* N calls, returns and costs of the current thread, in order, as notes
 * (analyses/batch_event.h), after every event and sync record given
 * before (the loads and stores in between included: passed by, or given
 * to causal_input_access_run): as causal_input_events of them. CTX the
 * causal_input. */
int causal_input_flows(void *ctx, const struct flow_note *flows, size_t n,
                       struct trms_error *err);

/* Completes the file and puts it in place: 0, or -1 with ERR (nothing is
 * left behind). A trace without sync records has no causal profile: no
 * file then (*WRITTEN 0). Frees CI. */
int causal_input_finish(struct causal_input *ci, int *written, struct trms_error *err);

/* Removes the temporary file and frees CI (after a failed pass). */
void causal_input_abandon(struct causal_input *ci);

#endif
