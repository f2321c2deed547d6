/* store_env: the LMDB environment in REC/results.
 *
 * The result store and the symbol store are named databases in this one
 * environment, opened with the same settings by both. LMDB forbids opening
 * one environment twice in a process: a caller closes one store before
 * opening the other. */
#ifndef TRMS_STORE_ENV_H
#define TRMS_STORE_ENV_H

#include <lmdb.h>

#include "common/error.h"

/* Named databases the environment may hold. */
#define STORE_ENV_MAX_DBS 4

/* store_env_open's answer for a read-only open of a recording whose
 * environment does not exist yet (ERR untouched). */
#define STORE_ENV_ABSENT 1

/* store_env_open's answer (ERR says it too) when the store is damaged, or
 * was changed outside trms into something LMDB must not read
 * (store/store_verify.h): everything in it can be rebuilt from the
 * recording, after setting it aside (store/store_repair.h). */
#define STORE_ENV_DAMAGED 2

/* How the message of a damaged store ends: what to do about it. */
#define STORE_DAMAGED_HINT "; `trms analyze` sets it aside and rebuilds it from the recording"

/* Opens the environment of the recording (or staging directory) at
 * REC_PATH, checked before LMDB reads any of it; WRITABLE creates its
 * directory when absent. *PATH receives REC_PATH/results (free() it, also
 * on failure). */
int store_env_open(const char *rec_path, int writable, MDB_env **env, char **path,
                   struct trms_error *err);

#endif
