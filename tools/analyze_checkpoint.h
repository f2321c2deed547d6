/* analyze_checkpoint: the checkpoints of `trms analyze` over a recording's
 * event trace, in the recording's result store.
 *
 * A checkpoint holds which recording it belongs to (its event trace's
 * size and the checksums of its first and last 64 KiB, and of its meta),
 * where the read of the trace stands (trace_position), the routines the
 * trace defined up to there (the analysis may hold those defined within
 * the position's block, before it), how many events the analysis has had,
 * and the whole analysis state (analysis_save). It is stored under the
 * result's key (store/checkpoint_store.h), so that only an analysis with
 * the same options resumes from it, and dropped when the result is
 * stored. */
#ifndef TRMS_ANALYZE_CHECKPOINT_H
#define TRMS_ANALYZE_CHECKPOINT_H

#include <stdint.h>

#include "analyses/analysis.h"
#include "common/error.h"
#include "store/result_store.h"
#include "trace/routine_table.h"
#include "trace/trace_reader.h"

/* 2: the routines up to the position, not only those before its block
 * (a checkpoint of version 1 taken within a block that defined a routine
 * could not be loaded). */
#define ANALYZE_CHECKPOINT_VERSION 2

/* What identifies the recording a checkpoint was taken of. */
struct recording_identity {
    uint64_t trace_bytes;
    uint32_t head_crc, tail_crc, meta_crc;
};

int recording_identity_of(const char *rec_path, struct recording_identity *id,
                          struct trms_error *err);

/* Saves A (after EVENTS events, the read at AT) under KEY, replacing the
 * previous checkpoint there in one transaction. */
int analyze_checkpoint_save(struct result_store *s, const struct result_key *key,
                            const struct recording_identity *id,
                            const struct trace_position *at, uint64_t events,
                            const struct routine_table *routines, struct analysis *a,
                            struct trms_error *err);

/* What a loaded checkpoint continues from. */
struct resume_point {
    struct analysis *analysis;
    struct trace_position from;
    uint64_t events;             /* events the analysis has had */
};

/* Loads the checkpoint under KEY when it belongs to the recording ID: 0
 * (POINT filled, ROUTINES, empty on entry, holding the routines defined
 * before POINT->from's block), CHECKPOINT_NONE when there is none, or -1
 * with ERR saying why it cannot be used (damaged, of another recording,
 * written by another trms). THREADS: whether the passes use worker
 * threads. */
int analyze_checkpoint_load(struct result_store *s, const struct result_key *key,
                            const struct recording_identity *id, int threads,
                            struct resume_point *point, struct routine_table *routines,
                            struct trms_error *err);

#endif
