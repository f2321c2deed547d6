/* analysis: one pass of every analysis over an event stream.
 *
 * Feeds each event to the input-size pass (RMS, TRMS, cost), the reuse
 * distance stacks (global and per thread) and the profiles, and assembles
 * the result. With calling contexts on, it also builds the calling context
 * tree and tags every activation with its node, so that the profiles are
 * kept per context. Engine-agnostic: it sees only struct event. */
#ifndef TRMS_ANALYSIS_H
#define TRMS_ANALYSIS_H

#include <stddef.h>
#include <stdint.h>

#include "analyses/activation.h"
#include "analyses/result.h"
#include "common/error.h"
#include "trace/event.h"
#include "trace/routine_table.h"

struct batch_event;

#define ANALYSIS_DEFAULT_CELL_SIZE 4   /* aprof's default memory resolution */
#define ANALYSIS_DEFAULT_LINE_SIZE 64
/* The default first reuse window (reuse_distance.c): a smaller one is for
 * tests; a larger one only costs memory up front. */
#define ANALYSIS_MAX_REUSE_WINDOW 65536u

enum analysis_pass {
    PASS_INPUT_SIZE = 1,  /* RMS, TRMS, cost and the profiles */
    PASS_REUSE = 2,       /* reuse distance, global and per thread */
    PASS_ALL = PASS_INPUT_SIZE | PASS_REUSE,
    /* Refinements of PASS_INPUT_SIZE (`--analyses`, analysis_parts.h): the
     * result leaves RMS, or TRMS and induced input, out; without TRMS the
     * pass also leaves kernel writes out, which only TRMS needs. */
    PASS_NO_RMS = 4,
    PASS_NO_TRMS = 8,
    PASS_VALID = PASS_ALL | PASS_NO_RMS | PASS_NO_TRMS,
};

struct analysis_options {
    uint64_t cell_size;   /* power of two, bytes */
    uint64_t line_size;   /* power of two, bytes */
    unsigned passes;      /* enum analysis_pass bits (analysis_parts_passes);
                             benchmarks run one alone */
    uint64_t time_limit;  /* 0, or a small timestamp range to make tests
                             exercise the renumbering of input_size.c */
    uint64_t reuse_window; /* 0, or a small first time window to make tests
                              exercise the renumbering of reuse_distance.c
                              (at most ANALYSIS_MAX_REUSE_WINDOW) */
    unsigned shards;      /* input-size shards, a power of two (1 .. 8) */
    int threads;          /* run the passes on worker threads */
    int contexts;         /* keep profiles per calling context, not per routine */
    uint32_t batch_events; /* 0, or fewer events a batch of the engine's
                              (engine_config): the results do not change */
};

/* Default sizes, every pass, no calling contexts, and 1 shard on worker
 * threads when the machine has more than one core. */
void analysis_options_default(struct analysis_options *opt);

struct analysis;

/* NULL with ERR filled when an option is invalid. */
struct analysis *analysis_new(const struct analysis_options *opt, struct trms_error *err);
void analysis_free(struct analysis *a);

/* Also send every completed activation to SINK (e.g. a CSV writer). */
void analysis_on_activation(struct analysis *a, activation_sink sink, void *ctx);

/* Non-zero with ERR filled when the stream is inconsistent (an event before
 * any thread, a return with no pending call, an access past 2^64). */
int analysis_event(struct analysis *a, const struct event *ev, struct trms_error *err);

/* analysis_event of EVENTS[0..N) in order; on a failure, *DONE says how
 * many were taken before the one that failed. */
int analysis_events(struct analysis *a, const struct event *events, size_t n, size_t *done,
                    struct trms_error *err);

/* For a producer of valid loads and stores (sizes 1..4095 below 2^48,
 * after the first thread event) that writes them straight into the
 * batches, with no struct event in between: 0 and room for at least one
 * in [*NEXT, *END), each written as {addr, size, type, shards 0xff};
 * non-zero when they must come through analysis_events (several shards,
 * or no thread yet). Then
 * analysis_accesses_written: NEXT past the last written, ACCESSES of
 * them, WRITES of those stores. *FLOWS non-zero: the current thread's
 * calls, returns and costs may go there too (no calling contexts to
 * keep), each written as analysis_events would ({routine, size, type,
 * 0xff} for a call, {addr, ...} for a return, {instructions, (uint32_t)
 * instructions, ...} for a cost), noted in order (struct flow_note) for
 * analysis_flows. */
int analysis_access_room(struct analysis *a, struct batch_event **next,
                         struct batch_event **end, int *flows);
void analysis_accesses_written(struct analysis *a, struct batch_event *next, uint64_t accesses,
                               uint64_t writes);

/* The N calls, returns and costs a producer wrote into the room
 * analysis_access_room gave, after analysis_accesses_written of the run
 * they came in: their thread's depth and instructions checked and
 * counted, as analysis_events would. On a failure, *DONE says how many
 * were taken before the one that failed. */
struct flow_note;
int analysis_flows(struct analysis *a, const struct flow_note *flows, size_t n, size_t *done,
                   struct trms_error *err);

/* For a producer that wrote N such loads and stores, and calls, returns
 * and costs as analysis_access_room says, into a buffer of its own (FROM)
 * to look at them first: copies them into the room analysis_access_room
 * gave (N at most its size), as analysis_accesses_written would after
 * writing them there, ACCESSES of them loads and stores, WRITES of those
 * stores (then analysis_flows of the rest). */
void analysis_accesses_copy(struct analysis *a, const struct batch_event *from, size_t n,
                            uint64_t accesses, uint64_t writes);

/* Completes pending activations and returns the result, which names
 * routines from ROUTINES (copied). A finished analysis takes no events. */
struct analysis_result *analysis_finish(struct analysis *a, const struct routine_table *routines);

/* Heap bytes the analyses hold, by part (after analysis_finish()). */
struct analysis_memory {
    size_t input_size;   /* shadow memory and stacks of the RMS/TRMS pass */
    size_t reuse;        /* reuse stacks, global and per thread */
    size_t profiles;     /* the profiles being built */
    size_t engine;       /* batches and bookkeeping */
};
void analysis_memory(const struct analysis *a, struct analysis_memory *m);

/* After analysis_finish(): how often the input-size pass renumbered its
 * timestamps. */
uint64_t analysis_renumberings(const struct analysis *a);

#endif
