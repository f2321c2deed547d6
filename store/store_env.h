/* store_env: the LMDB environment in REC/results.
 *
 * The result store and the symbol store are named databases in this one
 * environment, opened with the same settings by both. LMDB forbids opening
 * one environment twice in a process: a caller closes one store before
 * opening the other.
 *
 * Every open takes a shared lock on REC/results/trms.lock, which
 * store_compact takes exclusively to replace the file. A read-only
 * recording (a read-only mount, or files the user may not write) is read
 * without LMDB's lock file; opening it to write says that it is
 * read-only. Before any page is used, the file's size is checked against
 * its last page: a store cut short is "damaged", not a crash (see also
 * store_guard.h). */
#ifndef TRMS_STORE_ENV_H
#define TRMS_STORE_ENV_H

#include <lmdb.h>

#include "common/error.h"

/* Named databases the environment may hold. */
#define STORE_ENV_MAX_DBS 4

/* The lock file of trms's own, beside LMDB's. */
#define STORE_ENV_LOCK_FILE "trms.lock"

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
 * REC_PATH, checked before LMDB reads any of it (store_verify.h);
 * WRITABLE creates its directory when absent. *PATH receives
 * REC_PATH/results (free() it, also on failure). Close with
 * store_env_close. */
int store_env_open(const char *rec_path, int writable, MDB_env **env, char **path,
                   struct trms_error *err);

/* store_env_open for one that holds the environment's lock exclusively
 * already (store_compact): takes no lock of its own. */
int store_env_open_unlocked(const char *rec_path, int writable, MDB_env **env, char **path,
                            struct trms_error *err);

void store_env_close(MDB_env *env);

#endif
