/* store_guard: a damaged result store is one line on stderr, never a
 * crash.
 *
 * LMDB reads its file through a memory map and trusts the pages it finds
 * there: a store cut short, or with bytes changed outside trms, can make a
 * read fault (SIGBUS past the end of the file, SIGSEGV past the map) or
 * trip one of LMDB's assertions. The guard turns a fault inside the map of
 * an open environment, and an LMDB assertion, into "trms: PATH: the result
 * store is damaged (...)" and exit status 1. A fault anywhere else is left
 * to the handler that was there before (a bug is still a crash, with its
 * core dump and sanitizer report). Exiting at once is safe: LMDB commits
 * atomically, so a write transaction cut short leaves the store as it was. */
#ifndef TRMS_STORE_GUARD_H
#define TRMS_STORE_GUARD_H

#include <lmdb.h>

/* Watches ENV's map (opened from PATH, the environment's directory) until
 * store_guard_unwatch(ENV); sets ENV's assertion callback. */
void store_guard_watch(MDB_env *env, const char *path);
void store_guard_unwatch(MDB_env *env);

/* ENV's map moved (mdb_env_set_mapsize): the guard watches the new one. */
void store_guard_rewatch(MDB_env *env);

#endif
