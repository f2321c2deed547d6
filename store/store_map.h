/* store_map: the address space LMDB's map of the result store takes.
 *
 * LMDB maps its file whole, and a writer can fill the store only up to
 * the map's size. A map of STORE_MAP_MAX never needs to grow, but takes
 * that much address space, which a limit (ulimit -v, common on shared
 * hosts and CI) may not allow. Where it does not, the store is mapped at
 * what its file holds and some room, and the map grows before a write
 * transaction that could need more (store_map_room); a reader whose map
 * another process's writes outgrew remaps (store_txn_begin). A limit too
 * low for even what the store holds is said as such ("not enough address
 * space ... ulimit -v"): it is the machine's limit, never damage, and a
 * store is never set aside for it. */
#ifndef TRMS_STORE_MAP_H
#define TRMS_STORE_MAP_H

#include <lmdb.h>
#include <stdint.h>

#include "common/error.h"

#define STORE_MAP_MAX (UINT64_C(16) << 30)

/* Room beyond a file's bytes a map of limited size keeps for writes. */
#define STORE_MAP_ROOM (UINT64_C(64) << 20)

/* The map sizes to try, largest first, for a store whose data file has
 * FILE_BYTES: fills SIZES, returns how many. */
int store_map_sizes(uint64_t file_bytes, uint64_t sizes[3]);

/* Whether LMDB's (or the kernel's) RC says the map did not fit the
 * address space. */
int store_map_no_room(int rc);

/* ERR: "PATH: not enough address space to map the result store (it needs
 * N MiB; ulimit -v allows M MiB)"; returns -1. */
int store_map_error(const char *path, uint64_t bytes, struct trms_error *err);

/* Before a write transaction (none open in this process): grows ENV's
 * map, when it is of limited size, to hold BYTES more than the store
 * holds. 0, or -1 with ERR. */
int store_map_room(MDB_env *env, const char *path, uint64_t bytes, struct trms_error *err);

/* mdb_txn_begin, remapping once where another process's writes outgrew
 * this one's map (MDB_MAP_RESIZED). */
int store_txn_begin(MDB_env *env, unsigned flags, MDB_txn **txn);

#endif
