/* step_recording: a step engine run (step_engine.h) made into a recording:
 * its records go through the rerun decoder (replayer/rerun_decoder.h),
 * reading code and syscall arguments from the live process, into the
 * trace writer; the recorded process's file mappings are followed from
 * /proc for the recording's maps and for the symbols that tell PLT stubs
 * and function entries apart. Only the first process is recorded; its
 * forked children are stepped and left out, as the decoder does with rr.
 *
 * A capture directory, when given, also receives what an rr recording of
 * the same run would give the rr adapter: `rerun.raw`, the records as
 * `rr rerun --singlestep=... --raw` prints them, and `dump.txt`, the
 * frames as `rr dump -e -m -p` prints them (mappings with the mapped files
 * themselves as their data files, and the kernel's writes at each system
 * call's exit).
 *
 * Routines are named as the run goes, into the symbol store of REC_PATH:
 * those of each program when it execs another (whose routines are kept
 * apart by an address tag, routine_table_tag_addresses), the rest at the
 * end. */
#ifndef TRMS_STEP_RECORDING_H
#define TRMS_STEP_RECORDING_H

#include "common/error.h"
#include "recorder/step_engine.h"
#include "replayer/rerun_decoder.h"
#include "symbols/data_objects.h"
#include "symbols/memory_maps.h"
#include "symbols/symbolizer.h"
#include "trace/routine_table.h"
#include "trace/trace_writer.h"

struct step_recording_config {
    const struct step_options *step;
    struct trace_writer *writer;
    struct routine_table *routines;
    struct memory_maps *maps;       /* receives every file mapping seen */
    struct symbolizer *symbols;     /* follows the recorded process's mappings */
    const char *capture_dir;        /* NULL, or a directory for rerun.raw and dump.txt */
    const char *rec_path;           /* the recording (staging) directory, for names */
    /* The events that can matter, which PCT counts (step_engine.h): with
     * WATCH_OBJECTS, the instructions that access the program's variables
     * named by the N_WATCH shell patterns WATCH (every variable of the
     * program when none; symbols/data_objects.h): what is measured;
     * else the instructions that access memory outside their thread's
     * stack, and the system calls that synchronize (futex waits and
     * wakes, calls that may block, clone, exit, sched_yield). */
    int watch_objects;
    const char *const *watch;
    size_t n_watch;
};

struct step_recording_result {
    struct step_summary step;
    struct rerun_summary decoded;   /* free with rerun_summary_free */
    struct program_outcome outcome;
};

int step_recording_run(const struct step_recording_config *c, struct step_recording_result *r,
                       struct trms_error *err);

#endif
