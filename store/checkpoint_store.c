#include "store/checkpoint_store.h"

#include <errno.h>
#include <inttypes.h>
#include <lmdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/byte_buffer.h"
#include "common/oom.h"
#include "store/store_internal.h"
#include "store/store_space.h"
#include "store/store_map.h"
#include "trace/crc32.h"

#define CHECKPOINTS_DB "checkpoints"
#define HEAD_SUFFIX "/head"
#define KEY_MAX 200

static void head_key(char *buf, const struct result_key *key)
{
    char k[128];
    result_key_string(k, sizeof k, "", key);
    snprintf(buf, KEY_MAX, "%s" HEAD_SUFFIX, k);
}

/* Parts are kept per generation (one per save), so that a save can be
 * written in several transactions while the head still names the previous
 * generation, whole. */
static void part_prefix(char *buf, const struct result_key *key)
{
    char k[128];
    result_key_string(k, sizeof k, "", key);
    snprintf(buf, KEY_MAX, "%s/part/", k);
}

static void part_key(char *buf, const struct result_key *key, uint64_t generation,
                     uint64_t part)
{
    char k[128];
    result_key_string(k, sizeof k, "", key);
    snprintf(buf, KEY_MAX, "%s/part/%08" PRIx64 "/%08" PRIx64, k, generation, part);
}

static MDB_val string_val(const char *s)
{
    return (MDB_val){strlen(s), (void *)s};
}

struct head {
    uint64_t version, generation, bytes, parts;
    uint32_t crc;
    char saved[32];
};

static void encode_head(const struct head *h, struct byte_buffer *b)
{
    byte_buffer_put_varint(b, h->version);
    byte_buffer_put_varint(b, h->generation);
    byte_buffer_put_varint(b, h->bytes);
    byte_buffer_put_varint(b, h->parts);
    byte_buffer_put_varint(b, h->crc);
    byte_buffer_put_varint(b, strlen(h->saved));
    byte_buffer_put(b, h->saved, strlen(h->saved));
}

static int decode_head(const MDB_val *v, struct head *h)
{
    struct byte_cursor c;
    byte_cursor_init(&c, v->mv_data, v->mv_size);
    h->version = byte_cursor_varint(&c);
    h->generation = byte_cursor_varint(&c);
    h->bytes = byte_cursor_varint(&c);
    h->parts = byte_cursor_varint(&c);
    uint64_t crc = byte_cursor_varint(&c);
    uint64_t len = byte_cursor_varint(&c);
    const uint8_t *saved = len < sizeof h->saved ? byte_cursor_bytes(&c, (size_t)len) : NULL;
    if (c.failed || !saved || c.p != c.end || crc > UINT32_MAX)
        return -1;
    h->crc = (uint32_t)crc;
    memcpy(h->saved, saved, (size_t)len);
    h->saved[len] = '\0';
    return 0;
}

/* The head under KEY in TXN: 0, MDB_NOTFOUND, or another LMDB error
 * (MDB_CORRUPTED for a head that does not decode). */
static int read_head(MDB_txn *txn, MDB_dbi dbi, const struct result_key *key, struct head *h)
{
    char k[KEY_MAX];
    head_key(k, key);
    MDB_val kv = string_val(k), v;
    int rc = mdb_get(txn, dbi, &kv, &v);
    if (rc == 0 && decode_head(&v, h) != 0)
        rc = MDB_CORRUPTED;
    return rc;
}

/* Deletes the parts under KEY of every generation but KEEP (UINT64_MAX:
 * of all): those of the previous save, and of saves never finished. */
static int drop_parts(MDB_txn *txn, MDB_dbi dbi, const struct result_key *key, uint64_t keep)
{
    char prefix[KEY_MAX], kept[KEY_MAX + 24] = "";
    part_prefix(prefix, key);
    if (keep != UINT64_MAX)
        snprintf(kept, sizeof kept, "%s%08" PRIx64 "/", prefix, keep);
    size_t n = strlen(prefix), kn = strlen(kept);
    MDB_cursor *cur;
    int rc = mdb_cursor_open(txn, dbi, &cur);
    if (rc != 0)
        return rc;
    MDB_val k = string_val(prefix);
    /* After a delete the cursor stands on the next key, which MDB_NEXT
     * then returns. Keys only: the parts' pages are not read. */
    for (rc = mdb_cursor_get(cur, &k, NULL, MDB_SET_RANGE); rc == 0;
         rc = mdb_cursor_get(cur, &k, NULL, MDB_NEXT)) {
        if (k.mv_size < n || memcmp(k.mv_data, prefix, n) != 0)
            break; /* past this key's parts */
        if (kn && k.mv_size >= kn && memcmp(k.mv_data, kept, kn) == 0)
            continue;
        if ((rc = mdb_cursor_del(cur, 0)) != 0)
            break;
    }
    mdb_cursor_close(cur);
    return rc == MDB_NOTFOUND ? 0 : rc;
}

int checkpoint_drop(MDB_txn *txn, const struct result_key *key)
{
    MDB_dbi dbi;
    int rc = mdb_dbi_open(txn, CHECKPOINTS_DB, 0, &dbi);
    if (rc == MDB_NOTFOUND)
        return 0;
    /* Parts go even without a head: a first save that never finished. */
    if (rc != 0 || (rc = drop_parts(txn, dbi, key, UINT64_MAX)) != 0)
        return rc;
    char k[KEY_MAX];
    head_key(k, key);
    MDB_val kv = string_val(k);
    rc = mdb_del(txn, dbi, &kv, NULL);
    return rc == MDB_NOTFOUND ? 0 : rc;
}

/* ---- saving ----
 *
 * A save writes a new generation of parts in transactions of up to
 * TXN_BYTES (LMDB keeps a write transaction's pages in memory until it
 * commits: one transaction would take as much memory again as the state),
 * while the head still names the previous generation; the last
 * transaction points the head at the new one and deletes the old. A kill
 * before that leaves the previous checkpoint whole (and parts of the new
 * one, which the next save or the result's drop removes). */

#define TXN_BYTES (16u << 20)

struct checkpoint_save {
    struct result_store *store;
    struct result_key key;
    MDB_txn *txn;
    MDB_dbi dbi;
    uint64_t generation;    /* of this save */
    uint64_t previous;      /* the head's, UINT64_MAX when none */
    uint64_t parts;
    uint64_t bytes;
    uint64_t txn_bytes;     /* in the open transaction */
    uint32_t crc;
    int rc;                 /* the first LMDB failure */
    uint64_t txns_committed;    /* of this generation's parts */
    int short_of_space;     /* SPACE says so */
    struct trms_error space;
};

#define SAVING "saving a checkpoint"

static int save_error(const struct checkpoint_save *c, struct trms_error *err, int rc)
{
    if (c->short_of_space) {
        *err = c->space;
        return -1;
    }
    return store_write_error(result_store_path(c->store), rc, SAVING, c->txn_bytes, err);
}

/* Opens C's next transaction: parts only, so one sync per commit is enough
 * (LMDB keeps its integrity; the head's transaction syncs in full). */
static int begin_txn(struct checkpoint_save *c, unsigned flags)
{
    /* A map of limited size grows here, where no transaction is open:
     * room for a transaction's parts (TXN_BYTES, or one part past it). */
    if (store_map_room(result_store_env(c->store), result_store_path(c->store), 2 * TXN_BYTES,
                       &c->space) != 0) {
        c->short_of_space = 1;
        c->txn = NULL;
        return ENOMEM;
    }
    int rc = store_txn_begin(result_store_env(c->store), flags, &c->txn);
    if (rc == 0 && (rc = mdb_dbi_open(c->txn, CHECKPOINTS_DB, MDB_CREATE, &c->dbi)) != 0) {
        mdb_txn_abort(c->txn);
        c->txn = NULL;
    }
    c->txn_bytes = 0;
    return rc;
}

int checkpoint_save_begin(struct result_store *s, const struct result_key *key,
                          struct checkpoint_save **out, struct trms_error *err)
{
    struct checkpoint_save *c = xcalloc(1, sizeof *c);
    c->store = s;
    c->key = *key;
    struct head old;
    int rc = begin_txn(c, 0);
    if (rc == 0) {
        rc = read_head(c->txn, c->dbi, key, &old);
        c->previous = rc == 0 ? old.generation : UINT64_MAX;
        c->generation = rc == 0 ? old.generation + 1 : 0;
        rc = rc == MDB_NOTFOUND || rc == MDB_CORRUPTED ? 0 : rc;
    }
    /* Parts of saves that never finished go first. */
    if (rc == 0)
        rc = drop_parts(c->txn, c->dbi, key, c->previous);
    if (rc != 0) {
        if (c->txn)
            mdb_txn_abort(c->txn);
        save_error(c, err, rc);
        free(c);
        return -1;
    }
    *out = c;
    return 0;
}

/* Room for the open transaction's parts and LEN bytes more. */
static int reserve(struct checkpoint_save *c, size_t len)
{
    uint64_t need = c->txn_bytes + len + len / 16;
    if (store_space_reserve(result_store_env(c->store), result_store_path(c->store), need,
                            SAVING, &c->space) != 0) {
        c->short_of_space = 1;
        return ENOSPC;
    }
    return 0;
}

int checkpoint_save_bytes(void *ctx, const uint8_t *data, size_t len)
{
    struct checkpoint_save *c = ctx;
    if (c->rc)
        return -1;
    if (c->txn_bytes + len > TXN_BYTES && c->txn_bytes > 0) {
        c->rc = mdb_txn_commit(c->txn);
        c->txn = NULL;
        if (c->rc == 0) {
            c->txns_committed++;
            c->rc = begin_txn(c, MDB_NOMETASYNC);
        }
        if (c->rc)
            return -1;
    }
    if ((c->rc = reserve(c, len)) != 0)
        return -1;
    char k[KEY_MAX];
    part_key(k, &c->key, c->generation, c->parts);
    MDB_val kv = string_val(k), v = {len, (void *)data};
    c->rc = mdb_put(c->txn, c->dbi, &kv, &v, 0);
    if (c->rc)
        return -1;
    c->parts++;
    c->bytes += len;
    c->txn_bytes += len;
    c->crc = crc32_update(c->crc, data, len);
    return 0;
}

int checkpoint_save_commit(struct checkpoint_save *c, struct trms_error *err)
{
    struct head h = {.version = CHECKPOINT_STORE_VERSION, .generation = c->generation,
                     .bytes = c->bytes, .parts = c->parts, .crc = c->crc};
    time_t now = time(NULL);
    strftime(h.saved, sizeof h.saved, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    int rc = c->rc;
    if (rc == 0) {
        struct byte_buffer b = {0};
        encode_head(&h, &b);
        char k[KEY_MAX];
        head_key(k, &c->key);
        MDB_val kv = string_val(k), v = {b.len, b.data};
        rc = mdb_put(c->txn, c->dbi, &kv, &v, 0);
        byte_buffer_free(&b);
    }
    if (rc == 0)
        rc = drop_parts(c->txn, c->dbi, &c->key, c->generation);
    if (rc == 0) {
        rc = mdb_txn_commit(c->txn); /* frees the transaction either way */
        c->txn = NULL;
    }
    if (rc != 0)
        save_error(c, err, rc);
    else
        c->txns_committed = 0;  /* they are the checkpoint now */
    checkpoint_save_abort(c);
    return rc ? -1 : 0;
}

void checkpoint_save_abort(struct checkpoint_save *c)
{
    if (!c)
        return;
    if (c->txn)
        mdb_txn_abort(c->txn);
    c->txn = NULL;
    /* Parts already committed give their room back (the head still names
     * the previous generation): a disk that filled keeps its space for
     * the result. Best effort; the next save drops them too. */
    if (c->txns_committed && begin_txn(c, 0) == 0) {
        if (drop_parts(c->txn, c->dbi, &c->key, c->previous) == 0)
            mdb_txn_commit(c->txn);
        else
            mdb_txn_abort(c->txn);
    }
    free(c);
}

/* ---- loading ---- */

struct checkpoint_load {
    MDB_txn *txn;
    MDB_val *parts;
    uint64_t n_parts;
    uint64_t next;
};

void checkpoint_load_close(struct checkpoint_load *c)
{
    if (!c)
        return;
    mdb_txn_abort(c->txn);
    free(c->parts);
    free(c);
}

int checkpoint_load_open(struct result_store *s, const struct result_key *key,
                         struct checkpoint_load **out, uint64_t *total,
                         struct trms_error *err)
{
    const char *path = result_store_path(s);
    struct checkpoint_load *c = xcalloc(1, sizeof *c);
    MDB_dbi dbi;
    struct head h;
    int rc = store_txn_begin(result_store_env(s), MDB_RDONLY, &c->txn);
    if (rc != 0) {
        free(c);
        return error_set(err, "%s: cannot read the checkpoint: %s", path, mdb_strerror(rc));
    }
    rc = mdb_dbi_open(c->txn, CHECKPOINTS_DB, 0, &dbi);
    if (rc == 0)
        rc = read_head(c->txn, dbi, key, &h);
    if (rc == MDB_NOTFOUND) {
        checkpoint_load_close(c);
        return CHECKPOINT_NONE;
    }
    int answer = -1;
    if (rc == MDB_CORRUPTED) {
        error_set(err, "%s: the checkpoint is damaged (its head does not decode)", path);
        goto fail;
    }
    if (rc != 0) {
        error_set(err, "%s: cannot read the checkpoint: %s", path, mdb_strerror(rc));
        goto fail;
    }
    if (h.version != CHECKPOINT_STORE_VERSION) {
        error_set(err, "%s: the checkpoint has format %" PRIu64 ", this trms reads %d", path,
                  h.version, CHECKPOINT_STORE_VERSION);
        goto fail;
    }
    if (h.parts > h.bytes + 1) {
        error_set(err, "%s: the checkpoint is damaged (more parts than bytes)", path);
        goto fail;
    }
    c->parts = xcalloc(h.parts ? h.parts : 1, sizeof *c->parts);
    uint64_t bytes = 0;
    uint32_t crc = 0;
    for (uint64_t i = 0; i < h.parts; i++) {
        char k[KEY_MAX];
        part_key(k, key, h.generation, i);
        MDB_val kv = string_val(k);
        if ((rc = mdb_get(c->txn, dbi, &kv, &c->parts[i])) != 0) {
            error_set(err, "%s: the checkpoint is damaged (part %" PRIu64 ": %s)", path, i,
                      mdb_strerror(rc));
            goto fail;
        }
        bytes += c->parts[i].mv_size;
        crc = crc32_update(crc, c->parts[i].mv_data, c->parts[i].mv_size);
    }
    if (bytes != h.bytes || crc != h.crc) {
        error_set(err, "%s: the checkpoint is damaged (checksum mismatch)", path);
        goto fail;
    }
    c->n_parts = h.parts;
    *total = h.bytes;
    *out = c;
    return 0;
fail:
    checkpoint_load_close(c);
    return answer;
}

int checkpoint_load_fill(void *ctx, const uint8_t **data, size_t *len)
{
    struct checkpoint_load *c = ctx;
    if (c->next == c->n_parts) {
        *data = NULL;
        *len = 0;
        return 0;
    }
    *data = c->parts[c->next].mv_data;
    *len = c->parts[c->next].mv_size;
    c->next++;
    return 0;
}

/* ---- removing and listing ---- */

int checkpoint_remove(struct result_store *s, const struct result_key *key,
                      struct trms_error *err)
{
    MDB_txn *txn;
    int rc = store_txn_begin(result_store_env(s), 0, &txn);
    if (rc == 0 && (rc = checkpoint_drop(txn, key)) != 0)
        mdb_txn_abort(txn);
    else if (rc == 0)
        rc = mdb_txn_commit(txn);
    if (rc != 0)
        return error_set(err, "%s: cannot remove the checkpoint: %s", result_store_path(s),
                         mdb_strerror(rc));
    return 0;
}

int checkpoint_list(struct result_store *s,
                    int (*fn)(void *ctx, const struct checkpoint_info *info), void *ctx,
                    struct trms_error *err)
{
    MDB_txn *txn;
    MDB_dbi dbi;
    int rc = store_txn_begin(result_store_env(s), MDB_RDONLY, &txn);
    if (rc != 0)
        return error_set(err, "%s: cannot read the checkpoints: %s", result_store_path(s),
                         mdb_strerror(rc));
    rc = mdb_dbi_open(txn, CHECKPOINTS_DB, 0, &dbi);
    if (rc == MDB_NOTFOUND) {
        mdb_txn_abort(txn);
        return 0;
    }
    struct checkpoint_info *infos = NULL;
    size_t n = 0;
    MDB_cursor *cur = NULL;
    if (rc == 0)
        rc = mdb_cursor_open(txn, dbi, &cur);
    MDB_val k, v;
    for (int op = MDB_FIRST; rc == 0; op = MDB_NEXT) {
        if ((rc = mdb_cursor_get(cur, &k, &v, (MDB_cursor_op)op)) != 0)
            break;
        char key[KEY_MAX];
        size_t suffix = strlen(HEAD_SUFFIX);
        if (k.mv_size >= sizeof key || k.mv_size < suffix ||
            memcmp((char *)k.mv_data + k.mv_size - suffix, HEAD_SUFFIX, suffix) != 0)
            continue;
        memcpy(key, k.mv_data, k.mv_size - suffix);
        key[k.mv_size - suffix] = '\0';
        struct checkpoint_info info = {0};
        struct head h;
        if (result_key_parse(key, "", &info.key) != 0 || decode_head(&v, &h) != 0)
            continue;
        info.bytes = h.bytes;
        memcpy(info.saved, h.saved, sizeof info.saved);
        infos = xrealloc(infos, (n + 1) * sizeof *infos);
        infos[n++] = info;
    }
    if (cur)
        mdb_cursor_close(cur);
    mdb_txn_abort(txn);
    if (rc != MDB_NOTFOUND) {
        free(infos);
        return error_set(err, "%s: cannot read the checkpoints: %s", result_store_path(s),
                         mdb_strerror(rc));
    }
    int answer = 0;
    for (size_t i = 0; i < n && answer == 0; i++)
        answer = fn(ctx, &infos[i]);
    free(infos);
    return answer;
}
