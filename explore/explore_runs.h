/* explore_runs: `trms explore`'s runs. Each is `trms record` of the
 * program under another schedule (a child process, its output in a log
 * beside the recording), then run_analysis of the recording:
 *
 *  - pct: the step engine's PCT schedule (recorder/step_schedule.h) of
 *    depth D with seeds S, S+1...; a first run at depth 1 (seed 0)
 *    measures k, the events the schedule counts (the accesses to the
 *    tracked variables, or with all memory tracked, the accesses outside
 *    the threads' stacks and the synchronizing calls), and the time a run
 *    takes;
 *  - random: the step engine's seeded quanta (mean Q instructions), after
 *    a first run of fixed quanta (seed 0);
 *  - chaos: rr record --chaos, where rr works (no seed: the recording is
 *    the reproduction).
 *
 * The first run's time gives the expected total, said before the others
 * start. Recordings are kept, or only those the report names. */
#ifndef TRMS_EXPLORE_RUNS_H
#define TRMS_EXPLORE_RUNS_H

#include <stdint.h>

#include "common/error.h"
#include "explore/explore.h"

struct explore_plan {
    enum explore_schedule schedule;   /* PCT, RANDOM or CHAOS */
    uint32_t runs;                    /* after the first */
    uint32_t depth;                   /* PCT */
    uint32_t quantum;                 /* RANDOM */
    uint64_t first_seed;
    const char *directory;            /* created; must not exist */
    int keep_named_only;              /* keep only the recordings the report names */
    char *const *argv;                /* the program and its arguments */
    struct run_analysis_options analysis;
    const char *trms;                 /* this trms binary */
};

/* Records and analyzes the runs into X (initialized). Says on stderr what
 * it does, one line per run. Fails when a run cannot be recorded or
 * analyzed (what it had is kept in X and on disk). */
int explore_runs(const struct explore_plan *p, struct explore *x, struct trms_error *err);

/* Analyzes existing recordings REC[0..N) into X (for `trms explore REC...`). */
int explore_recordings(char *const *recs, size_t n, const struct run_analysis_options *o,
                       struct explore *x, struct trms_error *err);

#endif
