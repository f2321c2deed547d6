/* step_recording: a step engine run (step_engine.h) made into a recording:
 * its records go through the rerun decoder (replayer/rerun_decoder.h),
 * reading code and syscall arguments from the live process, into the
 * trace writer; the recorded process's file mappings are followed from
 * /proc for the recording's maps and for the symbols that tell PLT stubs
 * and function entries apart.
 *
 * Every program image is a recording of its own (issue 25), as under the
 * Valgrind engine: the first goes to the config's writer, each later one
 * (a forked process, the program a process exec'd) to what
 * step_children.begin gives, with a decoder of its own fed that process's
 * records alone. Images beyond max_processes are stepped all the same (the
 * schedule stays the seed's) but not decoded. An exec'd program that is
 * dynamically linked, or matches an exclude pattern, is left out: its
 * process is detached and runs untraced (single-stepping ld.so alone is
 * some 100,000 steps, seconds each time), which the tree names with the
 * reason ("dynamic", "excluded"). The first program is recorded whatever
 * it is.
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

/* Where one program image's recording goes. */
struct step_image_recording {
    struct trace_writer *writer;
    struct routine_table *routines;
    struct memory_maps *maps;       /* receives every file mapping seen */
    struct symbolizer *symbols;     /* follows the image's mappings */
    const char *rec_path;           /* its directory, for names */
};

/* A program image after the first. */
struct step_image_info {
    unsigned number;        /* in the order images started; 1 is the first */
    unsigned parent;        /* the image it came from: the forking one, or the one it replaced */
    pid_t pid, ppid;
    const char *via;        /* "fork" or "exec" */
    char *const *argv;      /* its command line (a fork: its parent's) */
};

/* How an image ended. */
struct step_image_end {
    char end[32];           /* exit:S, signal:S, exec, died (as tools/process_tree.h) */
    int exit_code, signal;
    char *exec_path;        /* exec: the program it exec'd */
    struct rerun_summary decoded;
};

struct step_children {
    /* Image P starts: where it is recorded, or NULL when it cannot be
     * (the callee says why; it is stepped unrecorded). */
    const struct step_image_recording *(*begin)(void *ctx, const struct step_image_info *p);
    /* Its process exec'd or ended (or the run did): REC as begin gave it.
     * Its decoder has finished, its names are in its symbol store. */
    void (*end)(void *ctx, const struct step_image_info *p, const struct step_image_recording *rec,
                const struct step_image_end *end);
    /* An exec'd program left out (detached), and why. */
    void (*left_out)(void *ctx, pid_t pid, const char *command, const char *reason);
    void *ctx;
    unsigned max_processes;     /* images recorded at most, the first included; 0: no limit */
    const char *const *exclude; /* shell patterns of programs (path or base name) left out */
    size_t n_exclude;
};

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
    const struct step_children *children;  /* NULL: later images stepped, unrecorded */
};

struct step_recording_result {
    struct step_summary step;
    struct rerun_summary decoded;   /* the first image's; free with rerun_summary_free */
    struct program_outcome outcome;
    pid_t pid, ppid;                /* the first image's process */
    char end[32];                   /* how the first image ended (step_image_end) */
    char *exec_path;                /* what it exec'd, or NULL; free it */
    unsigned images;                /* program images met */
    uint64_t over_limit;            /* beyond max_processes: stepped, unrecorded */
    uint64_t unrecorded_threads;    /* threads of the images not recorded */
};

int step_recording_run(const struct step_recording_config *c, struct step_recording_result *r,
                       struct trms_error *err);

#endif
