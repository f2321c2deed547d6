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

/* Opens the store of the recording at REC_PATH; WRITABLE creates it when
 * absent. A read-only open of a recording never analyzed fails with a
 * message saying so. */
int result_store_open(const char *rec_path, int writable, struct result_store **out,
                      struct trms_error *err);
void result_store_close(struct result_store *s);

/* Stores R, replacing the result with the same options, and makes it the
 * latest. */
int result_store_save(struct result_store *s, const struct analysis_result *r,
                      struct trms_error *err);

/* Loads the result computed with CELL_SIZE and LINE_SIZE, or the latest
 * one when both are 0. Fails with a message when there is none. */
int result_store_load(struct result_store *s, uint64_t cell_size, uint64_t line_size,
                      struct analysis_result **out, struct trms_error *err);

#endif
