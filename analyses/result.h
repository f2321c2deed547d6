/* result: everything one analysis of a recording produced, as stored and
 * reported. Built by the analysis, serialized by the store, read back by
 * the reports; it owns all its memory. */
#ifndef TRMS_RESULT_H
#define TRMS_RESULT_H

#include <stddef.h>
#include <stdint.h>

#include "trace/event.h"
#include "trace/routine_table.h"

/* Cost statistics of the activations of one routine, in one thread, that
 * had the same input size n (the performance tuple of the papers). Sums of
 * squares are 128-bit so that they stay exact. */
struct profile_point {
    uint64_t n;
    uint64_t calls;
    uint64_t min, max, sum;     /* cumulative cost */
    unsigned __int128 sumsq;
    uint64_t real_sum;          /* cumulative cost of the non-recursive calls
                                   (aprof's "real" sum) */
    uint64_t self_min, self_max, self_sum;
    unsigned __int128 self_sumsq;
};

struct routine_profile {
    uint32_t routine;           /* index into result.routines, or ROUTINE_ROOT */
    uint32_t context;           /* index into result.contexts, or CONTEXT_NONE */
    uint32_t tid;
    uint64_t calls;
    uint64_t cost;              /* cumulative cost of non-recursive activations */
    uint64_t self_cost;
    uint64_t induced_thread;    /* summed over activations */
    uint64_t induced_external;
    uint64_t induced_channel;   /* of induced_external: through a pipe, FIFO
                                   or socket (struct activation) */
    uint32_t channel;           /* its inode, CHANNEL_SEVERAL, or 0 */
    struct profile_point *rms_points;   /* sorted by n */
    size_t n_rms_points;
    struct profile_point *trms_points;  /* sorted by n */
    size_t n_trms_points;
};

/* A node of the calling context tree: ROUTINE called from context PARENT.
 * Context 0 is every thread's root activation (ROUTINE_ROOT, no parent). */
struct calling_context {
    uint32_t parent;            /* CONTEXT_NONE for context 0 */
    uint32_t routine;
};

struct reuse_bin {
    uint64_t distance;
    uint64_t count;
};

struct reuse_histogram {
    uint64_t accesses;          /* line accesses, cold ones included */
    uint64_t cold;
    struct reuse_bin *bins;     /* non-zero counts, sorted by distance */
    size_t n_bins;
};

struct thread_reuse {
    uint32_t tid;
    struct reuse_histogram histogram;
};

/* The parts of an analysis a result holds (`--analyses`): a result
 * computed with fewer holds the others empty (analysis_finish). */
enum analysis_part {
    ANALYSIS_RMS = 1,     /* each profile's RMS points */
    ANALYSIS_TRMS = 2,    /* TRMS points and induced input */
    ANALYSIS_REUSE = 4,   /* reuse histograms, global and per thread */
    ANALYSIS_ALL = 7,
};

struct analysis_result {
    unsigned analyses;                  /* enum analysis_part bits it holds */
    uint64_t cell_size;
    uint64_t line_size;
    uint64_t events[EVENT_TYPE_COUNT];  /* events seen, by type */
    uint64_t activations;               /* completed, roots included (0 without
                                           RMS and TRMS: no profiles then) */
    struct routine_table routines;      /* the trace's routines */
    struct routine_profile *profiles;   /* by routine, context, thread */
    size_t n_profiles;
    struct calling_context *contexts;   /* when kept (analyze --contexts): the
                                           profiles are per context */
    size_t n_contexts;                  /* 0 when not kept */
    struct reuse_histogram reuse_global;
    struct thread_reuse *reuse_threads; /* in order of first appearance */
    size_t n_threads;
};

void analysis_result_free(struct analysis_result *r);

/* What a report prints for routine ID (ROUTINE_ROOT included); BUF must
 * hold 19 bytes for the address form. */
const char *analysis_result_routine_label(const struct analysis_result *r, uint32_t id,
                                          char buf[static 19]);

#endif
