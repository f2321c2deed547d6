/* run_analysis: what `trms explore` keeps of one recording.
 *
 * One pass over the recording's events (its event trace, or an rr replay)
 * feeds the input-size pass (analyses/analysis.h), whose completed
 * activations are summed per routine and RMS (threads together: the
 * workers of a pool run one routine), and the reuse distances over the
 * accesses to the tracked objects only (analyses/object_reuse.h).
 *
 * Tracked objects: the program's global and static variables, named from
 * its symbols (symbols/data_objects.h), those matching the patterns when
 * there are any; or all memory: every mapped file's variables, and the
 * memory between them as unnamed regions, one per gap between the
 * recording's file mappings and one per mapping's unnamed part, so that
 * every access is in the stream. */
#ifndef TRMS_RUN_ANALYSIS_H
#define TRMS_RUN_ANALYSIS_H

#include <stddef.h>
#include <stdint.h>

#include "analyses/result.h"
#include "common/error.h"

struct run_analysis_options {
    const char *const *patterns;  /* shell patterns of variable names; none: all */
    size_t n_patterns;
    int all_memory;
    uint64_t unit;                /* bytes per location in an object, power of two */
    uint64_t cell_size;           /* RMS/TRMS cells */
};

/* One routine's activations of one RMS, over the run's threads. */
struct run_point {
    uint64_t rms;
    uint64_t activations;
    uint64_t trms_min, trms_max;
    uint64_t induced_min, induced_max;  /* thread-induced input */
};

struct run_routine {
    char *name;
    struct run_point *points;   /* by rms */
    size_t n_points;
};

struct run_object {
    char *name;
    char *module;               /* the file that names it; "" for unnamed memory */
    uint64_t start, size;
    uint64_t accesses, cold;
    struct reuse_bin *bins;     /* distances, by distance */
    size_t n_bins;
};

struct run_analysis {
    struct run_routine *routines;   /* by name */
    size_t n_routines;
    struct run_object *objects;     /* tracked and accessed, by address */
    size_t n_objects;
    size_t tracked;                 /* objects tracked, accessed or not */
    uint64_t stream;                /* accesses of the restricted stream */
    uint64_t events, threads;
};

/* Analyzes the recording at REC_PATH. Fails with a message when it
 * cannot be read, its program's variables cannot be named (no symbols)
 * or a pattern names none of them. */
int run_analyze(const char *rec_path, const struct run_analysis_options *o,
                struct run_analysis *out, struct trms_error *err);

void run_analysis_free(struct run_analysis *r);

#endif
