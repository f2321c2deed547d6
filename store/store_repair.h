/* store_repair: setting a damaged result store aside.
 *
 * Everything the result store holds can be rebuilt from the recording:
 * results and checkpoints from its trace, and the routine names are not in
 * it (store/symbol_file.h). So a store found damaged, or changed outside
 * trms into something LMDB must not read (RESULT_STORE_DAMAGED), is not
 * repaired in place: `trms analyze` moves it aside, for whoever wants to
 * look at it, and analyzes into a new store. Set-aside stores are
 * numbered, REC/results.damaged, then REC/results.damaged.2, .3...: a
 * later repair never replaces an earlier one; `trms gc REC` removes them.
 * Nothing ever reads a set-aside store. */
#ifndef TRMS_STORE_REPAIR_H
#define TRMS_STORE_REPAIR_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

#define STORE_SET_ASIDE "results.damaged"

/* The most set-aside stores a recording keeps before a repair asks for
 * `trms gc` first. */
#define STORE_SET_ASIDE_MAX 1000

/* Whether NAME (a file name in a recording) is one a set-aside store
 * gets: results.damaged or results.damaged.N (N from 2). */
int store_is_set_aside_name(const char *name);

/* Moves REC_PATH/results to the first free set-aside name, never over
 * another; *ASIDE receives that path (free() it, also on failure). */
int store_set_aside(const char *rec_path, char **aside, struct trms_error *err);

/* The set-aside stores of the recording at REC_PATH: their paths (free()
 * each and the array) and bytes on disk. 0, or -1 with ERR. */
int store_set_aside_list(const char *rec_path, char ***paths, uint64_t **bytes, size_t *n,
                         struct trms_error *err);

/* Removes a set-aside store at PATH: its files, one level, without
 * following a link anywhere. 0, or -1 with ERR. */
int store_set_aside_remove(const char *path, struct trms_error *err);

#endif
