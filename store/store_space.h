/* store_space: room on disk for the store's writes, and failures named
 * by their cause.
 *
 * LMDB writes a transaction's pages at commit and turns a short write
 * into "Input/output error"; a store whose directory cannot hold it fails
 * in ways that name something else. Before a write transaction, the
 * writer reserves the room it may take (posix_fallocate past the last
 * page in use), so that a full disk is found before anything is written,
 * and said as such: "no space left on device while writing the result
 * (needs about 3 MiB, 0.1 MiB free)". Reserved room that a transaction
 * did not use stays in the file for the next one (store_compact gives it
 * back). */
#ifndef TRMS_STORE_SPACE_H
#define TRMS_STORE_SPACE_H

#include <lmdb.h>
#include <stdint.h>

#include "common/error.h"

/* What a write transaction may take beyond its data: copied branch and
 * leaf pages, the free list's records. */
#define STORE_SPACE_SLACK(bytes) ((64u << 10) + (bytes) / 16)

/* Makes sure ENV's file has room for BYTES more (plus the slack) past its
 * last page in use. 0, or -1 with ERR: "PATH: no space left on device
 * while WHAT (needs about N MiB, M MiB free)". */
int store_space_reserve(MDB_env *env, const char *path, uint64_t bytes, const char *what,
                        struct trms_error *err);

/* ERR for LMDB's failure RC while WHAT (a transaction that needed about
 * NEED bytes): the device's cause when the disk is what failed (a short
 * write is EIO to LMDB), "the result store is damaged" for a store LMDB
 * cannot make sense of, else LMDB's own words. Returns -1. */
int store_write_error(const char *path, int rc, const char *what, uint64_t need,
                      struct trms_error *err);

/* The words for an errno or LMDB code that says the store is damaged, or
 * NULL when RC says something else. */
const char *store_damage_cause(int rc);

#endif
