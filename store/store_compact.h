/* store_compact: gives back the room a store no longer uses.
 *
 * LMDB reuses freed pages but never shrinks its file: a recording whose
 * analyses took checkpoints keeps their largest size (pages freed by each
 * generation, room reserved ahead of writes) after the result made them
 * obsolete. Compacting writes a copy of the pages in use
 * (mdb_env_copy2 with MDB_CP_COMPACT) beside the file and renames it into
 * place, holding the environment's lock exclusively (store_env.h): a
 * process that has the store open keeps its map of the old file, so the
 * copy is only made when no other process has it open; otherwise it is
 * left for later. A kill at any moment leaves the old file or the new
 * one, whole (the copy is synced before the rename). */
#ifndef TRMS_STORE_COMPACT_H
#define TRMS_STORE_COMPACT_H

#include <lmdb.h>
#include <stdint.h>

#include "common/error.h"

struct store_usage {
    uint64_t file_bytes;    /* data.mdb's size */
    uint64_t used_bytes;    /* the pages its databases hold, and the meta pages */
    uint64_t free_bytes;    /* the rest: what compacting gives back */
};

/* Measures ENV's file. 0, or -1 with ERR. */
int store_usage_of(MDB_env *env, const char *path, struct store_usage *u,
                   struct trms_error *err);

/* Measures the store of the recording at REC_PATH: 0, STORE_ENV_ABSENT
 * (never analyzed; U zero), or -1 with ERR. */
int store_measure(const char *rec_path, struct store_usage *u, struct trms_error *err);

/* Walks every page of the store of the recording at REC_PATH (a compact
 * copy written nowhere) and measures it: 0, STORE_ENV_ABSENT,
 * STORE_ENV_DAMAGED with ERR saying what is damaged, or -1 with ERR. */
int store_check_pages(const char *rec_path, struct store_usage *u, struct trms_error *err);

/* Compacting is worth it from this much free room, and half the file. */
#define STORE_COMPACT_MIN_FREE (4u << 20)

/* Compacts the store of the recording at REC_PATH when its free share is
 * large (FORCE: when anything is free). 1 when it did (BEFORE and AFTER
 * filled), 0 when not needed, or when another process has the store open
 * (BUSY set), -1 with ERR. */
int store_compact(const char *rec_path, int force, struct store_usage *before,
                  struct store_usage *after, int *busy, struct trms_error *err);

#endif
