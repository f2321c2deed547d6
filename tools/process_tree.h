/* process_tree: the processes of one recording (issue 25).
 *
 * `trms record` follows every fork and exec; each program image gets a
 * recording of its own. The first is the recording directory itself, as a
 * single-process recording always was; the others are complete
 * recordings in REC/processes/N-PID/, N counting images in the order
 * they started (1 is the first). The top meta holds the tree:
 *
 *   processes N                    images recorded
 *   process-K pid=P ppid=Q parent=M via=start|fork|exec dir=D events=E
 *             end=exit:S|signal:S|exec|died|failed command=C...
 *   processes-left-out L           images that ran unrecorded, then
 *   left-out-I reason=R pid=P command=C...   (R: excluded, setuid,
 *             not-followed, dynamic (the step engine); those over
 *             --max-processes are only counted)
 *   processes-over-limit O
 *
 * A recording without these keys is a single-process one (older trms, or
 * another engine): it reads as a tree of one. */
#ifndef TRMS_PROCESS_TREE_H
#define TRMS_PROCESS_TREE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/error.h"
#include "trace/recording.h"

#define PROCESS_TREE_DIR RECORDING_PROCESSES

struct tree_process {
    unsigned number;        /* 1: the first image, REC itself */
    unsigned parent;        /* the image it came from; 0: none recorded */
    int pid, ppid;
    char via[8];            /* start, fork, exec */
    char *dir;              /* "." or processes/N-PID, inside REC */
    uint64_t events;
    char *end;              /* exit:S, signal:S, exec, died, failed */
    char *command;
};

struct tree_left_out {
    char *reason;
    int pid;
    char *command;
};

struct process_tree {
    struct tree_process *items;
    size_t n;
    struct tree_left_out *left_out;
    size_t n_left_out;
    uint64_t over_limit;
};

void process_tree_free(struct process_tree *t);

/* The tree of REC (opened): from its meta, or a tree of one without. -1
 * with ERR when the meta's tree is malformed. */
int process_tree_read(const struct recording *rec, struct process_tree *t,
                      struct trms_error *err);

/* The meta lines of T (keys and values, in new strings the caller frees
 * with process_tree_free_meta); returns how many. */
size_t process_tree_meta(const struct process_tree *t, char ***keys, char ***values);
void process_tree_free_meta(char **keys, char **values, size_t n);

/* Whether P is the process WHICH names: its pid, its program's base
 * name, or #N, its number (`--process`). */
int process_tree_matches(const struct tree_process *p, const char *which);

/* Whether WHICH (N_WHICH names, as for process_tree_matches) selects P:
 * any of them names it, or there are none. */
int process_tree_chosen(const struct tree_process *p, const char *const *which, size_t n_which);

/* The tree of the recording at REC_PATH (process_tree_read), where each
 * of WHICH names one of its processes at least; -1 with ERR otherwise
 * (`--process` naming none), nothing to free then. */
int process_tree_load(const char *rec_path, const char *const *which, size_t n_which,
                      struct process_tree *t, struct trms_error *err);

/* The tree as `trms info` shows it: each image under the one it came
 * from, then the processes left out and why. */
void process_tree_print(FILE *out, const struct process_tree *t);

/* Whether KEY is one of the meta's tree keys (shown by process_tree_print). */
int process_tree_key(const char *key);

/* The path of P's recording inside REC_PATH (REC_PATH itself for the
 * first), in a new string; NULL with ERR when it is not a directory of
 * REC's own (a link, missing). */
char *process_tree_path(const char *rec_path, const struct tree_process *p,
                        struct trms_error *err);

/* The base name of P's program, for short labels. */
const char *process_tree_name(const struct tree_process *p, char *buf, size_t size);

#endif
