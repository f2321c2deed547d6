/* report_model: what every report format prints, built from one or more
 * stored results.
 *
 * A row is a routine (or, with contexts, a calling context) in one thread,
 * or in all threads together; rows of several recordings of the same
 * program merge by name (and source location), so that their performance
 * tuples add up: more input sizes, richer plots. Each row carries its
 * fitted growth: worst-case and average cost against RMS and TRMS. */
#ifndef TRMS_REPORT_MODEL_H
#define TRMS_REPORT_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "analyses/result.h"
#include "common/error.h"
#include "report/growth_fit.h"

struct symbol_names;

enum report_metric { METRIC_RMS, METRIC_TRMS, METRICS };
enum report_cost { COST_WORST, COST_AVERAGE, COST_KINDS };

extern const char *const report_metric_names[METRICS];  /* "rms", "trms" */
extern const unsigned report_metric_parts[METRICS];     /* ANALYSIS_RMS, ANALYSIS_TRMS */
extern const char *const report_cost_names[COST_KINDS]; /* "worst", "average" */

/* One stored result and where it came from. */
struct report_source {
    const char *recording;
    const struct analysis_result *result;
    const struct symbol_names *symbols;   /* names of address-only routines, or NULL */
    const char *window;                   /* what its recording left out, or NULL */
    int no_trace;                         /* its recording kept no event trace
                                             (`record --trace none`) */
};

/* Which rows, and how they are cut. */
struct report_selection {
    const char *const *routines;  /* shell patterns on names, or 0x addresses; none: all */
    size_t n_routines;
    const uint32_t *threads;      /* none: all */
    size_t n_threads;
    int aggregate_threads;        /* one row per routine, threads added up */
    int contexts;                 /* one row per calling context (results must have them) */
    int threads_by_order;         /* number threads 1, 2, ... by first appearance (always
                                     when merging recordings: thread ids change from run
                                     to run, the order of creation usually does not) */
    int by_self;                  /* rank by self cost, not by cost with descendants */
};

/* A wrapper: a routine called once that spends under this share of its
 * cost in its own code (<root>, the C library's start-up, a main that
 * calls the real work). Its one activation gives no growth, and ranked
 * by cumulative cost its callees' cost puts it on top: the text report
 * and the HTML plots fold wrappers out of their top rows; every format
 * still lists them in its full table. */
#define REPORT_WRAPPER_SELF_SHARE 0.10

/* The width at which two names that read the same make homonyms. */
#define REPORT_HOMONYM_WIDTH 40

struct report_row {
    char *name;                   /* the routine's name, or its address in hex */
    char *file;                   /* source location, NULL when unknown */
    int line;
    uint64_t address;             /* entry of an address-only routine, else 0 */
    char *module;                 /* path of the file mapped there, NULL when unknown */
    uint64_t module_address;      /* the entry in that file (what addr2line takes) */
    int symbol;                   /* the name is a symbol's (the module is then
                                     its location when the source is unknown) */
    char **context;               /* with contexts: routine names from the
                                     thread's first call down to this one */
    size_t context_depth;
    int all_threads;              /* threads aggregated: tids lists them */
    uint32_t tid;
    uint32_t *tids;
    size_t n_tids;
    uint64_t calls, cost, self_cost, induced_thread, induced_external;
    uint64_t induced_channel;     /* of induced_external: through a pipe, FIFO or socket */
    uint32_t channel;             /* its inode, CHANNEL_SEVERAL, or 0 */
    /* Of induced_external: what another recorded process of the tree wrote
     * into that channel (report_model_attribute_channels); the rest is
     * external. */
    uint64_t induced_process;
    int from_pid;                 /* that process; 0: none */
    const char *from_command;     /* its command line (the tree's) */
    struct profile_point *points[METRICS];  /* sorted by n */
    size_t n_points[METRICS];
    unsigned __int128 input[METRICS];       /* input sizes summed over calls */
    struct growth_fit fit[METRICS][COST_KINDS];
    int wrapper;                  /* see REPORT_WRAPPER_SELF_SHARE */
    long passes_to;               /* a frame that passes its cost to one callee
                                     (report_fold.h): the row its chain ends in;
                                     -1: it does its own work */
    int homonym;                  /* another row's name reads the same shortened
                                     (REPORT_HOMONYM_WIDTH): short labels add
                                     " @0x29b0", the module address */
};

struct report_model {
    const char **recordings;
    const char **windows;         /* per recording: what it left out, or NULL */
    int *no_trace;                /* per recording: kept no event trace */
    size_t n_recordings;
    uint64_t cell_size, line_size;
    unsigned analyses;            /* enum analysis_part: what every source computed */
    uint64_t events[EVENT_TYPE_COUNT];
    uint64_t activations;
    int contexts;                 /* rows are calling contexts */
    int aggregate_threads;
    int threads_by_order;         /* tids are 1, 2, ... by first appearance */
    int by_self;                  /* rows are ranked by self cost */
    struct report_row *rows;      /* by cost, highest first, ties by label and thread;
                                     by_self: by self cost, then by cost */
    size_t n_rows;
    struct reuse_histogram reuse_global;    /* summed over the recordings */
    struct thread_reuse *reuse_threads;     /* by thread id, selected threads */
    size_t n_threads;
};

/* Builds the model of the N sources. Fails with a message when the
 * selection names a routine or thread no source has, when contexts are
 * asked of a result without them, or when the sources were analyzed with
 * different cell or line sizes. */
int report_model_build(const struct report_source *sources, size_t n,
                       const struct report_selection *sel, struct report_model *out,
                       struct trms_error *err);
void report_model_free(struct report_model *m);

/* The lines every report gives of what M lacks: the parts not computed
 * (`--analyses`) in NOT_COMPUTED, and the recordings that kept no event
 * trace in NO_TRACE, each "" when there is nothing to say. */
#define REPORT_NOTE_MAX 512
void report_model_notes(const struct report_model *m, char not_computed[static REPORT_NOTE_MAX],
                        char no_trace[static REPORT_NOTE_MAX]);

/* The same notes as "trms: note: ..." lines on stderr, for the formats
 * that have no place for them (CSV, aprof). */
void report_model_say_notes(const struct report_model *m);

/* "name (file:line)", "name [libc.so.6]" (the module, for a symbol whose
 * source is unknown), or with contexts "main > a > qsort"; cut to LEN. */
const char *report_row_label(const struct report_row *row, char *buf, size_t len);

/* The row's label in at most WIDTH characters, for columns: the name
 * shortened readably (name_shorten.h) before its source location; a
 * calling context's names shortened, and the context cut between two calls
 * ("... > a > qsort"). BUF holds LEN > WIDTH bytes. */
const char *report_row_label_fit(const struct report_row *row, size_t width, char *buf,
                                 size_t len);

/* Whether ROW is folded out of the top rows: a wrapper, or a frame that
 * passes its cost to one callee. */
int report_row_folded(const struct report_row *row);

/* The rows a report's top N shows: the first N that are not folded
 * (all rows when N is 0), their indices into INDEX (room for m->n_rows);
 * returns how many, and through *FOLDED the folded rows passed over. */
size_t report_top_rows(const struct report_model *m, size_t n, size_t *index, size_t *folded);

/* The key rows are merged and compared by (diff): the label. */
const char *report_row_key(const struct report_row *row, char *buf, size_t len);

/* Share of the row's TRMS input that other threads (or the kernel) wrote,
 * in percent of the input summed over calls. */
/* Channel input of rows to the process that wrote the channel: WRITER
 * gives, for a channel inode, the pid and command of the one other
 * recorded process that wrote it (0 when none, or several did). */
typedef int (*channel_writer)(void *ctx, uint32_t channel, const char **command);
void report_model_attribute_channels(struct report_model *m, channel_writer writer, void *ctx);

/* Whether any row has input from another process. */
int report_model_has_process_input(const struct report_model *m);

double report_row_share(const struct report_row *row, int external);


#endif
