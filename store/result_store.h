/* result_store: analysis results of one recording, in LMDB.
 *
 * The environment lives in REC/results. Each result is one record keyed by
 * the options it was computed with (cell and line size), written together
 * with the "latest" pointer in one transaction: readers see the previous
 * result or the new one, never a mix, and an analysis that dies before
 * committing leaves the store as it was. */
#ifndef TRMS_RESULT_STORE_H
#define TRMS_RESULT_STORE_H

#include <stdint.h>

#include "analyses/result.h"
#include "common/error.h"

struct result_store;

/* result_store_open's answer (ERR says it too) for a read-only open of a
 * recording never analyzed. */
#define RESULT_STORE_NONE 1

/* result_store_open's answer (ERR says it too) for a store that is
 * damaged, or was changed outside trms into something LMDB must not read
 * (store/store_verify.h). Everything in it can be rebuilt from the
 * recording: store/store_repair.h sets it aside. */
#define RESULT_STORE_DAMAGED 2

/* Opens the store of the recording at REC_PATH; WRITABLE creates it when
 * absent. Returns 0, RESULT_STORE_NONE, RESULT_STORE_DAMAGED, or -1 when
 * the store cannot be read. */
int result_store_open(const char *rec_path, int writable, struct result_store **out,
                      struct trms_error *err);
void result_store_close(struct result_store *s);

/* What a result is stored under: the options it was computed with
 * (sizes, calling contexts kept or not), and for an analysis of part of an
 * rr recording, that part (rr's events FROM to TO; 0 and 0 for the whole
 * recording, TO 0 for "to the end"). */
struct result_key {
    uint64_t cell_size, line_size;
    uint64_t from, to;
    int contexts;
    unsigned analyses;  /* enum analysis_part bits; 0 is every part, as are
                           the keys stored before `--analyses` */
};

/* KEY's parts: ANALYSIS_ALL for 0. */
unsigned result_key_analyses(const struct result_key *key);

/* Stores R under KEY (whose sizes must be R's), replacing the result with
 * the same key, and makes it the latest; in the same transaction, drops
 * the checkpoint of an analysis under KEY (store/checkpoint_store.h),
 * which the result makes obsolete. */
int result_store_save_key(struct result_store *s, const struct analysis_result *r,
                          const struct result_key *key, struct trms_error *err);

/* result_store_save_key for the whole recording (with contexts when R
 * has them, and R's parts). */
int result_store_save(struct result_store *s, const struct analysis_result *r,
                      struct trms_error *err);

/* What is stored of one result, without loading it. */
struct stored_result_info {
    struct result_key key;
    int latest;             /* the one `trms report` shows by default */
    char analyzed[32];      /* when it was stored (UTC, ISO 8601), or "" */
};

/* Calls FN for each stored result, by cell then line size; stops at FN's
 * first non-zero answer and returns it. */
int result_store_list(struct result_store *s,
                      int (*fn)(void *ctx, const struct stored_result_info *info), void *ctx,
                      struct trms_error *err);

/* Loads the result stored under KEY, or the latest one when KEY's sizes
 * are 0 (*KEY then receives its key); with KEY's sizes 0 and contexts or
 * analyses set, the latest stored with calling contexts, of those
 * analyses. Fails with a message when there is none. */
int result_store_load_key(struct result_store *s, struct result_key *key,
                          struct analysis_result **out, struct trms_error *err);

/* Loads the whole recording's result computed with CELL_SIZE and
 * LINE_SIZE, or the latest one when both are 0. */
int result_store_load(struct result_store *s, uint64_t cell_size, uint64_t line_size,
                      struct analysis_result **out, struct trms_error *err);

#endif
