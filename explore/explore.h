/* explore: what `trms explore` found across its runs, each run a
 * recording under another schedule (explore_runs.h records them), each
 * analyzed alike (run_analysis.h).
 *
 * Per routine and RMS: the range of TRMS and of thread-induced input over
 * every activation of every run. Per tracked object: the range of its
 * reuse distances over the runs, the distances seen, and each run's own
 * range (the memory-distance paper's Figures 2 and 3). Every extreme
 * names the first run that produced it and counts the runs that did: that
 * run's recording replays exactly the interleaving that produced it. */
#ifndef TRMS_EXPLORE_H
#define TRMS_EXPLORE_H

#include <stddef.h>
#include <stdint.h>

#include "common/u64map.h"
#include "explore/run_analysis.h"

struct explore_extreme {
    uint64_t value;
    uint32_t run;       /* the first run that produced it */
    uint32_t runs;      /* how many did */
};

/* One routine's activations of one RMS, over the runs. */
struct explore_point {
    uint64_t rms;
    uint64_t activations;
    uint32_t runs;      /* runs that had such activations */
    struct explore_extreme trms_min, trms_max, induced_min, induced_max;
};

struct explore_routine {
    char *name;
    struct explore_point *points;   /* by rms */
    size_t n_points;
};

/* One run's range of an object's distances, or one distance: the first
 * run that had it, and how many did. */
struct explore_range {
    uint64_t min, max;
    uint32_t run, runs;
};

struct explore_object {
    char *name, *module;    /* module "" for unnamed memory */
    uint64_t start, size;
    uint64_t accesses;      /* over the runs */
    uint32_t runs;          /* runs that accessed it */
    uint32_t reused;        /* runs in which it had a distance (an access not its first) */
    struct explore_extreme min, max;    /* over those */
    struct explore_range *ranges;       /* the runs' (min, max), by min then max */
    size_t n_ranges;
    struct explore_range *distances;    /* each distance seen (min = max = it), by distance */
    size_t n_distances;
};

enum explore_schedule { EXPLORE_PCT, EXPLORE_RANDOM, EXPLORE_CHAOS, EXPLORE_GIVEN };

struct explore_run {
    char *recording;        /* its path */
    uint64_t seed;
    uint32_t depth;         /* PCT: the run's depth (the calibration's is 1) */
    int calibration;        /* the first run, which measured k */
    int kept;
    double seconds;         /* recording it */
    int exit_status;        /* the program's */
    uint64_t threads;
    uint64_t counted;       /* PCT: the events it counted */
    uint64_t stream;        /* accesses to the tracked objects */
};

struct explore {
    /* how the runs were made */
    enum explore_schedule schedule;
    char *command;          /* the program and its arguments, quoted */
    char *directory;        /* where the recordings are */
    uint32_t depth;
    uint64_t k;             /* PCT: the counted events expected */
    uint32_t quantum;       /* random: the mean quantum */
    char *objects;          /* what is tracked, in words */
    uint64_t unit, cell_size;
    size_t tracked;         /* objects tracked */
    int interrupted;        /* ^C stopped the runs early */
    /* what they gave */
    struct explore_run *runs;
    size_t n_runs;
    struct explore_routine *routines;   /* by name */
    size_t n_routines;
    struct explore_object *objects_seen;
    size_t n_objects;
    struct u64map object_index;         /* hash of module and name -> index + 1 */
};

void explore_init(struct explore *x);
void explore_free(struct explore *x);

/* Adds run X->runs[RUN]'s analysis. */
void explore_add(struct explore *x, uint32_t run, const struct run_analysis *a);

/* Whether the report names run RUN (an extreme, a range or a distance
 * first seen in it). */
int explore_names_run(const struct explore *x, uint32_t run);

/* Whether a routine's input at one RMS differs between its activations,
 * and whether it depends on the interleaving: some run that had such
 * activations did not reach one of the extremes. */
int explore_point_varies(const struct explore_point *p);
int explore_point_depends(const struct explore_point *p);

/* Whether an object's reuse depends on the interleaving: the runs'
 * ranges differ (or some runs reused it and others did not). */
int explore_object_varies(const struct explore_object *o);

/* The threads of the run with the most, for the PCT bound (n). */
uint64_t explore_max_threads(const struct explore *x);

/* PCT's guarantee: a result that needs DEPTH - 1 particular preemptions
 * and one particular thread first shows up in a run with probability at
 * least 1 / (n k^(depth-1)); that denominator (0 when it overflows). */
double explore_pct_runs(uint64_t threads, uint64_t k, uint32_t depth);

/* The name a report gives run RUN: its recording's file name. */
const char *explore_run_name(const struct explore *x, uint32_t run);

#endif
