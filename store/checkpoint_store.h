/* checkpoint_store: the checkpoints of `trms analyze`, in the recording's
 * result store.
 *
 * A checkpoint is an opaque byte string (what analysis_save() and the
 * caller's header wrote through a state_writer), stored under the same key
 * as the result it will become (cell and line size, rr event window), in
 * the environment's "checkpoints" database: parts of up to 256 KiB
 * ("KEY/part/GENERATION/N") and a head ("KEY/head": format, generation,
 * length, parts, CRC-32 of the bytes, when). A save writes a new
 * generation of parts in transactions of up to 16 MiB, so that it takes
 * little memory whatever the state's size, and then, in one transaction,
 * points the head at it and deletes the previous generation: a process
 * killed at any moment leaves the previous checkpoint or the new one,
 * whole, and never touches the stored results. Saving the result under
 * the same key drops the checkpoint (result_store_save_key). */
#ifndef TRMS_CHECKPOINT_STORE_H
#define TRMS_CHECKPOINT_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "store/result_store.h"

#define CHECKPOINT_STORE_VERSION 2

/* checkpoint_load_open's answer when there is no checkpoint under the key. */
#define CHECKPOINT_NONE 1

struct checkpoint_save;

/* Starts replacing the checkpoint under KEY. Nothing is visible until
 * checkpoint_save_commit(); nothing else may write to the store
 * meanwhile. */
int checkpoint_save_begin(struct result_store *s, const struct result_key *key,
                          struct checkpoint_save **out, struct trms_error *err);

/* A state_writer's flush: appends the bytes (CTX is the checkpoint_save). */
int checkpoint_save_bytes(void *ctx, const uint8_t *data, size_t len);

/* Makes the bytes the checkpoint under the key and frees C; -1 with ERR
 * filled when they could not be stored (the previous checkpoint stays). */
int checkpoint_save_commit(struct checkpoint_save *c, struct trms_error *err);

/* Forgets the bytes (the previous checkpoint stays; parts written so far
 * go at the next save) and frees C. */
void checkpoint_save_abort(struct checkpoint_save *c);

struct checkpoint_load;

/* Opens the checkpoint under KEY and checks its checksum: 0 (*TOTAL its
 * length), CHECKPOINT_NONE, or -1 with ERR filled when it is damaged or of
 * another format. Holds a read transaction until closed. */
int checkpoint_load_open(struct result_store *s, const struct result_key *key,
                         struct checkpoint_load **out, uint64_t *total,
                         struct trms_error *err);

/* A state_reader's fill: the parts in order (CTX is the checkpoint_load). */
int checkpoint_load_fill(void *ctx, const uint8_t **data, size_t *len);

void checkpoint_load_close(struct checkpoint_load *c);

/* Deletes the checkpoint under KEY; 0 also when there is none. */
int checkpoint_remove(struct result_store *s, const struct result_key *key,
                      struct trms_error *err);

/* What is stored of one checkpoint. */
struct checkpoint_info {
    struct result_key key;
    uint64_t bytes;
    char saved[32];         /* when (UTC, ISO 8601) */
};

/* Calls FN for each checkpoint, in key order; stops at FN's first
 * non-zero answer and returns it. */
int checkpoint_list(struct result_store *s,
                    int (*fn)(void *ctx, const struct checkpoint_info *info), void *ctx,
                    struct trms_error *err);

#endif
