#include "store/result_store.h"

#include <inttypes.h>
#include <lmdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/byte_buffer.h"
#include "common/oom.h"
#include "store/result_codec.h"
#include "store/store_env.h"

#define LATEST_KEY "latest"

struct result_store {
    MDB_env *env;
    MDB_dbi results;
    char *path;
};

static int lmdb_error(struct result_store *s, struct trms_error *err, const char *what, int rc)
{
    return error_set(err, "%s: %s: %s", s->path, what, mdb_strerror(rc));
}

static void result_key(char *buf, size_t len, uint64_t cell, uint64_t line)
{
    snprintf(buf, len, "result/cell=%" PRIu64 "/line=%" PRIu64, cell, line);
}

int result_store_open(const char *rec_path, int writable, struct result_store **out,
                      struct trms_error *err)
{
    struct result_store *s = xcalloc(1, sizeof *s);
    int rc = store_env_open(rec_path, writable, &s->env, &s->path, err);
    if (rc == STORE_ENV_ABSENT) {
        error_set(err, "%s: no analysis stored yet; run `trms analyze %s` first", rec_path,
                  rec_path);
        goto fail;
    }
    if (rc != 0)
        goto fail;
    MDB_txn *txn;
    if ((rc = mdb_txn_begin(s->env, NULL, writable ? 0 : MDB_RDONLY, &txn)) != 0) {
        lmdb_error(s, err, "cannot read the result store", rc);
        goto fail;
    }
    rc = mdb_dbi_open(txn, "results", writable ? MDB_CREATE : 0, &s->results);
    if (rc == MDB_NOTFOUND) {
        mdb_txn_abort(txn);
        error_set(err, "%s: no analysis stored yet; run `trms analyze %s` first", rec_path,
                  rec_path);
        goto fail;
    }
    if (rc != 0)
        mdb_txn_abort(txn);
    else
        rc = mdb_txn_commit(txn); /* frees TXN even when it fails */
    if (rc != 0) {
        lmdb_error(s, err, "cannot read the result store", rc);
        goto fail;
    }
    *out = s;
    return 0;
fail:
    result_store_close(s);
    return -1;
}

void result_store_close(struct result_store *s)
{
    if (!s)
        return;
    if (s->env)
        mdb_env_close(s->env);
    free(s->path);
    free(s);
}

int result_store_save(struct result_store *s, const struct analysis_result *r,
                      struct trms_error *err)
{
    struct byte_buffer blob = {0};
    result_encode(r, &blob);
    char key[96];
    result_key(key, sizeof key, r->cell_size, r->line_size);
    MDB_txn *txn;
    int rc = mdb_txn_begin(s->env, NULL, 0, &txn);
    if (rc != 0) {
        byte_buffer_free(&blob);
        return lmdb_error(s, err, "cannot write the result store", rc);
    }
    MDB_val k = {strlen(key), key}, v = {blob.len, blob.data};
    MDB_val lk = {strlen(LATEST_KEY), LATEST_KEY}, lv = {strlen(key), key};
    if ((rc = mdb_put(txn, s->results, &k, &v, 0)) != 0 ||
        (rc = mdb_put(txn, s->results, &lk, &lv, 0)) != 0) {
        mdb_txn_abort(txn);
        byte_buffer_free(&blob);
        return lmdb_error(s, err, "cannot write the result store", rc);
    }
    rc = mdb_txn_commit(txn);
    byte_buffer_free(&blob);
    if (rc != 0)
        return lmdb_error(s, err, "cannot commit the result", rc);
    return 0;
}

int result_store_load(struct result_store *s, uint64_t cell_size, uint64_t line_size,
                      struct analysis_result **out, struct trms_error *err)
{
    MDB_txn *txn;
    int rc = mdb_txn_begin(s->env, NULL, MDB_RDONLY, &txn);
    if (rc != 0)
        return lmdb_error(s, err, "cannot read the result store", rc);
    char key[96];
    MDB_val k, v;
    if (cell_size == 0 && line_size == 0) {
        MDB_val lk = {strlen(LATEST_KEY), LATEST_KEY};
        rc = mdb_get(txn, s->results, &lk, &v);
        if (rc == 0 && v.mv_size < sizeof key) {
            memcpy(key, v.mv_data, v.mv_size);
            key[v.mv_size] = '\0';
        } else if (rc == 0) {
            rc = MDB_CORRUPTED;
        }
    } else {
        result_key(key, sizeof key, cell_size, line_size);
    }
    if (rc == 0) {
        k = (MDB_val){strlen(key), key};
        rc = mdb_get(txn, s->results, &k, &v);
    }
    if (rc == MDB_NOTFOUND) {
        mdb_txn_abort(txn);
        if (cell_size || line_size)
            return error_set(err, "%s: no result for cell size %" PRIu64 " and line size %" PRIu64
                                  "; run `trms analyze` with those options first",
                             s->path, cell_size, line_size);
        return error_set(err, "%s: no analysis stored yet", s->path);
    }
    if (rc != 0) {
        mdb_txn_abort(txn);
        return lmdb_error(s, err, "cannot read the result", rc);
    }
    struct trms_error inner;
    *out = result_decode(v.mv_data, v.mv_size, &inner);
    mdb_txn_abort(txn);
    if (!*out)
        return error_set(err, "%s: %s", s->path, inner.message);
    return 0;
}
