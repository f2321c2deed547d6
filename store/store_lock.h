/* store_lock: one analysis per recording and options at a time.
 *
 * Two `trms analyze` runs of one recording with the same options would
 * write the same checkpoint under one key, each replacing the other's
 * parts. The second is refused instead: each run holds an open file
 * description lock (F_OFD_SETLK) on one byte of REC/results/trms.lock,
 * chosen by its key; runs with other options take other bytes and go
 * on side by side (LMDB orders their writes). The lock goes with the
 * process, however it ends. */
#ifndef TRMS_STORE_LOCK_H
#define TRMS_STORE_LOCK_H

#include "common/error.h"
#include "store/result_store.h"

/* store_lock_analysis's answer when another process holds the key. */
#define STORE_LOCK_BUSY 1

/* Takes the lock of KEY in the store of the recording at REC_PATH (whose
 * results directory exists): 0 (*FD holds it until closed),
 * STORE_LOCK_BUSY, or -1 with ERR. */
int store_lock_analysis(const char *rec_path, const struct result_key *key, int *fd,
                        struct trms_error *err);

#endif
