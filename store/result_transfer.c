#include "store/result_transfer.h"

#include <lmdb.h>
#include <stdlib.h>
#include <string.h>

#include "common/oom.h"
#include "store/store_internal.h"
#include "store/store_map.h"

void result_transfer_key_string(char *buf, size_t len, const struct result_key *k)
{
    result_key_string(buf, len, "", k);
}

int result_transfer_key_parse(const char *s, struct result_key *k)
{
    return result_key_parse(s, "", k);
}

struct infos {
    struct stored_result_info *items;
    size_t n;
};

static int keep(void *ctx, const struct stored_result_info *info)
{
    struct infos *l = ctx;
    l->items = xrealloc(l->items, (l->n + 1) * sizeof *l->items);
    l->items[l->n++] = *info;
    return 0;
}

int result_store_each_bytes(struct result_store *s,
                            int (*fn)(void *ctx, const struct stored_result_bytes *r), void *ctx,
                            struct trms_error *err)
{
    struct infos l = {0};
    if (result_store_list(s, keep, &l, err) != 0) {
        free(l.items);
        return -1;
    }
    MDB_txn *txn;
    int rc = store_txn_begin(result_store_env(s), MDB_RDONLY, &txn);
    if (rc != 0) {
        free(l.items);
        return error_set(err, "%s: cannot read the result store: %s", result_store_path(s),
                         mdb_strerror(rc));
    }
    int answer = 0;
    for (size_t i = 0; i < l.n && answer == 0; i++) {
        char key[128];
        result_key_string(key, sizeof key, RESULT_PREFIX, &l.items[i].key);
        MDB_val k = {strlen(key), key}, v;
        if ((rc = mdb_get(txn, result_store_dbi(s), &k, &v)) != 0) {
            answer = error_set(err, "%s: cannot read the result %s: %s", result_store_path(s),
                               key, mdb_strerror(rc));
            break;
        }
        struct stored_result_bytes r = {.info = l.items[i], .value = v.mv_data, .len = v.mv_size};
        answer = fn(ctx, &r);
    }
    mdb_txn_abort(txn);
    free(l.items);
    return answer;
}

int result_store_put_bytes(struct result_store *s, const struct stored_result_bytes *r,
                           struct trms_error *err)
{
    char key[128], when_key[128];
    result_key_string(key, sizeof key, RESULT_PREFIX, &r->info.key);
    result_key_string(when_key, sizeof when_key, ANALYZED_PREFIX, &r->info.key);
    if (store_map_room(result_store_env(s), result_store_path(s), r->len + sizeof key,
                       err) != 0)
        return -1;
    MDB_txn *txn;
    int rc = store_txn_begin(result_store_env(s), 0, &txn);
    if (rc != 0)
        return error_set(err, "%s: cannot write the result store: %s", result_store_path(s),
                         mdb_strerror(rc));
    MDB_dbi dbi = result_store_dbi(s);
    MDB_val k = {strlen(key), key}, v = {r->len, (void *)r->value};
    MDB_val wk = {strlen(when_key), when_key},
            wv = {strlen(r->info.analyzed), (void *)r->info.analyzed};
    MDB_val lk = {strlen(LATEST_KEY), LATEST_KEY}, lv = {strlen(key), key};
    if ((rc = mdb_put(txn, dbi, &k, &v, 0)) != 0 ||
        (r->info.analyzed[0] && (rc = mdb_put(txn, dbi, &wk, &wv, 0)) != 0) ||
        (r->info.latest && (rc = mdb_put(txn, dbi, &lk, &lv, 0)) != 0)) {
        mdb_txn_abort(txn);
        return error_set(err, "%s: cannot write the result store: %s", result_store_path(s),
                         mdb_strerror(rc));
    }
    if ((rc = mdb_txn_commit(txn)) != 0)
        return error_set(err, "%s: cannot commit the result: %s", result_store_path(s),
                         mdb_strerror(rc));
    return 0;
}
