/* store_repair: setting a damaged result store aside.
 *
 * Everything the result store holds can be rebuilt from the recording:
 * results and checkpoints from its trace, and the routine names are not in
 * it (store/symbol_file.h). So a store found damaged, or changed outside
 * trms into something LMDB must not read (RESULT_STORE_DAMAGED), is not
 * repaired in place: `trms analyze` moves it to REC/results.damaged
 * (replacing an earlier one), for whoever wants to look at it, and
 * analyzes into a new store. Nothing ever reads the set-aside store. */
#ifndef TRMS_STORE_REPAIR_H
#define TRMS_STORE_REPAIR_H

#include "common/error.h"

#define STORE_SET_ASIDE "results.damaged"

/* Moves REC_PATH/results to REC_PATH/results.damaged; *ASIDE receives that
 * path (free() it, also on failure). */
int store_set_aside(const char *rec_path, char **aside, struct trms_error *err);

#endif
