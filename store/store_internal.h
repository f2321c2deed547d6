/* store_internal: what the result store shares with the checkpoint store,
 * which keeps its records in the same LMDB environment. Internal to
 * store/. */
#ifndef TRMS_STORE_INTERNAL_H
#define TRMS_STORE_INTERNAL_H

#include <lmdb.h>
#include <stddef.h>

#include "store/result_store.h"

/* How results are keyed in the "results" database: PREFIX then the key
 * (result_key_string), one record each for the result and when it was
 * stored, and LATEST_KEY naming the latest result's key. */
#define RESULT_PREFIX "result/"
#define ANALYZED_PREFIX "analyzed/"
#define LATEST_KEY "latest"

MDB_env *result_store_env(const struct result_store *s);
MDB_dbi result_store_dbi(const struct result_store *s);
const char *result_store_path(const struct result_store *s);

/* PREFIX "cell=N/line=M[/events=F-T]": how a key is spelled in the store. */
void result_key_string(char *buf, size_t len, const char *prefix, const struct result_key *k);

/* The key spelled STR (PREFIX first); -1 when STR is not one. */
int result_key_parse(const char *str, const char *prefix, struct result_key *k);

/* Deletes the checkpoint stored under KEY inside TXN (a result saved under
 * KEY makes it obsolete); 0 also when there is none. */
int checkpoint_drop(MDB_txn *txn, const struct result_key *key);

#endif
