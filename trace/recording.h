/* recording: the directory a recording lives in.
 *
 *   REC/meta          what was recorded: format, engine, source, date, versions
 *   REC/events.trms   the binary event trace (none when meta says
 *                     "trace none": `record --trace none` keeps only the
 *                     analysis, with the maps and symbols)
 *   REC/results/      the LMDB result store (store/)
 *
 * A recording is built in a hidden staging directory beside its final path
 * and renamed into place only when complete, so a failed import or record
 * never leaves a half-written recording behind, and never replaces one. */
#ifndef TRMS_RECORDING_H
#define TRMS_RECORDING_H

#include <stddef.h>

#include "common/error.h"

#define RECORDING_FORMAT 1
#define RECORDING_META "meta"
#define RECORDING_EVENTS "events.trms"
#define RECORDING_RESULTS "results"
/* A process tree's other processes, each a recording in processes/N-PID
 * (tools/process_tree.h). */
#define RECORDING_PROCESSES "processes"

/* The meta key `record --trace none` adds, and its value. */
#define RECORDING_META_TRACE "trace"
#define RECORDING_TRACE_NONE "none"

/* The most threads a recording holds: the input-size pass names a cell's
 * owner in 19 bits. */
#define RECORDING_MAX_THREADS 524287

/* The largest meta file read: a few hundred bytes and the command line. */
#define RECORDING_META_MAX (16 << 20)

struct recording_meta_entry {
    char *key;
    char *value;
};

struct recording {
    char *path;
    struct recording_meta_entry *meta;
    size_t n_meta;
};

/* Creates the staging directory for FINAL_PATH, which must not exist yet;
 * *STAGING receives its path (free() it). */
int recording_stage(const char *final_path, char **staging, struct trms_error *err);

/* Writes STAGING/meta from KEYS/VALUES (N pairs), after the format line. */
int recording_write_meta(const char *staging, const char *const *keys,
                         const char *const *values, size_t n, struct trms_error *err);

/* Moves a complete staging directory to FINAL_PATH. */
int recording_commit(const char *staging, const char *final_path, struct trms_error *err);

/* Removes a staging directory and what it holds (best effort). */
void recording_discard(const char *staging);

/* Opens an existing recording: checks that it is one and reads its meta. */
int recording_open(const char *path, struct recording *rec, struct trms_error *err);
void recording_close(struct recording *rec);

/* The meta value of KEY, or NULL. */
const char *recording_meta(const struct recording *rec, const char *key);

/* Whether REC kept its event trace: not when recorded with --trace none. */
int recording_has_trace(const struct recording *rec);

/* Fills ERR with the one line that says REC (at PATH) cannot be WHAT
 * ("analyzed again") because it kept no trace; returns -1. */
int recording_no_trace_error(const char *path, const char *what, struct trms_error *err);

/* PATH/NAME in a new string (free() it). */
char *recording_file(const char *path, const char *name);

#endif
