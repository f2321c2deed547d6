/* recording_pack: a recording as one self-contained archive
 * (pack/pack_format.h), for a bug report, and back.
 *
 * What crosses, and how it is trusted on the other side:
 *  - the recording's files (meta, maps, the event trace, the routine names,
 *    Valgrind's log, an rr trace's directory): packed as they are, each
 *    first read the way trms reads it, so a damaged recording is not
 *    packed; unpacked after the archive's checksums, into names checked to
 *    stay inside the new recording, and read again in full before the
 *    recording is put in place;
 *  - the stored results: packed as their encoded bytes, each decoded first;
 *    unpacked into a fresh result store after decoding each again;
 *  - LMDB's pages: never. The store is rebuilt from plain records, so that
 *    nothing of a stranger's store file is ever read. Checkpoints of
 *    unfinished analyses are left out (`trms analyze` starts over).
 *
 * Binaries are not packed: the routine names resolved when the program was
 * recorded travel in the routine names file, so reports need no binary. */
#ifndef TRMS_RECORDING_PACK_H
#define TRMS_RECORDING_PACK_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

/* What a pack or an unpack did, and what it left out and why (one line
 * each, for the user). */
struct pack_summary {
    size_t processes;           /* of a tree, beside its first */
    size_t files;
    size_t results;
    uint64_t bytes;
    uint64_t events;            /* unpack: events of the trace, read in full */
    char **notes;
    size_t n_notes;
};

void pack_summary_free(struct pack_summary *s);

/* Packs the recording at REC_PATH into OUT_PATH (written beside it, then
 * renamed over it). A process tree (REC_PATH/processes/N-PID, from
 * `trms record`) is packed whole: every process's recording, each checked
 * first, its files and results after a 'P' record naming it. */
int recording_pack(const char *rec_path, const char *out_path, struct pack_summary *summary,
                   struct trms_error *err);

/* Unpacks the archive at IN_PATH ("-": standard input) into the recording
 * REC_PATH, which must not exist; nothing is left behind on failure. A
 * tree's processes are rebuilt in REC_PATH/processes/N-PID, each checked
 * as the first; then CHECK_TREE (when not NULL) checks the tree the
 * staged recording's meta names against them (tools/process_tree.h,
 * which this library does not know). */
int recording_unpack(const char *in_path, const char *rec_path,
                     int (*check_tree)(const char *staging, struct trms_error *err),
                     struct pack_summary *summary, struct trms_error *err);

#endif
