#include "store/symbol_store.h"

#include <inttypes.h>
#include <lmdb.h>
#include <stdlib.h>
#include <string.h>

#include "common/byte_buffer.h"
#include "common/oom.h"
#include "store/store_env.h"
#include "store/store_space.h"

#define SYMBOLS_DB "symbols"

static void put_key(uint8_t key[8], uint64_t addr)
{
    for (int i = 0; i < 8; i++)
        key[i] = (uint8_t)(addr >> (56 - 8 * i));
}

static void encode(const struct symbol_name *n, struct byte_buffer *b)
{
    size_t name_len = strlen(n->name);
    byte_buffer_put_varint(b, SYMBOL_CODEC_VERSION);
    byte_buffer_put_varint(b, name_len);
    byte_buffer_put(b, n->name, name_len);
    size_t file_len = n->file ? strlen(n->file) : 0;
    byte_buffer_put_varint(b, n->file ? file_len + 1 : 0);
    byte_buffer_put(b, n->file, file_len);
    byte_buffer_put_varint(b, n->line > 0 ? (uint64_t)n->line : 0);
}

static char *copy_string(struct byte_cursor *c, uint64_t len)
{
    if (len > (uint64_t)(c->end - c->p)) {
        c->failed = 1;
        return NULL;
    }
    const uint8_t *bytes = byte_cursor_bytes(c, (size_t)len);
    if (!bytes || memchr(bytes, '\0', (size_t)len)) {
        c->failed = 1;
        return NULL;
    }
    char *s = xmalloc((size_t)len + 1);
    memcpy(s, bytes, (size_t)len);
    s[len] = '\0';
    return s;
}

/* Decodes one value into OUT (strings allocated); -1 with ERR when it is
 * not one this trms can read. */
static int decode(const char *path, uint64_t addr, const MDB_val *v, struct symbol_name *out,
                  struct trms_error *err)
{
    struct byte_cursor c;
    byte_cursor_init(&c, v->mv_data, v->mv_size);
    uint64_t version = byte_cursor_varint(&c);
    if (!c.failed && version != SYMBOL_CODEC_VERSION)
        return error_set(err, "%s: the symbol of 0x%" PRIx64 " has format %" PRIu64
                              "; this trms reads format %d",
                         path, addr, version, SYMBOL_CODEC_VERSION);
    char *name = copy_string(&c, byte_cursor_varint(&c));
    uint64_t file_len = byte_cursor_varint(&c);
    char *file = file_len ? copy_string(&c, file_len - 1) : NULL;
    uint64_t line = byte_cursor_varint(&c);
    if (c.failed || c.p != c.end || line > INT32_MAX || !name || !*name) {
        free(name);
        free(file);
        return error_set(err, "%s: the symbol of 0x%" PRIx64 " is corrupt", path, addr);
    }
    *out = (struct symbol_name){addr, name, file, (int)line};
    return 0;
}

int symbol_store_save(const char *rec_path, const struct symbol_name *names, size_t n,
                      struct trms_error *err)
{
    MDB_env *env;
    char *path;
    if (store_env_open(rec_path, 1, &env, &path, err) != 0) {
        free(path);
        return -1;
    }
    MDB_txn *txn = NULL;
    MDB_dbi dbi;
    struct byte_buffer value = {0};
    uint64_t need = 0;
    for (size_t i = 0; i < n; i++)
        need += 64 + (names[i].name ? strlen(names[i].name) : 0) +
                (names[i].file ? strlen(names[i].file) : 0);
    if (store_space_reserve(env, path, need, "storing the routine names", err) != 0) {
        store_env_close(env);
        free(path);
        return -1;
    }
    int rc = mdb_txn_begin(env, NULL, 0, &txn);
    if (rc == 0)
        rc = mdb_dbi_open(txn, SYMBOLS_DB, MDB_CREATE, &dbi);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        if (!names[i].name || !*names[i].name)
            continue; /* nothing worth keeping */
        uint8_t key[8];
        put_key(key, names[i].addr);
        value.len = 0;
        encode(&names[i], &value);
        MDB_val k = {sizeof key, key}, v = {value.len, value.data};
        rc = mdb_put(txn, dbi, &k, &v, 0);
    }
    if (txn && rc != 0)
        mdb_txn_abort(txn);
    else if (txn)
        rc = mdb_txn_commit(txn);
    if (rc != 0)
        store_write_error(path, rc, "storing the routine names", need, err);
    byte_buffer_free(&value);
    store_env_close(env);
    free(path);
    return rc ? -1 : 0;
}

void symbol_names_init(struct symbol_names *names)
{
    names->items = NULL;
    names->count = 0;
    u64map_init(&names->by_addr);
}

void symbol_names_free(struct symbol_names *names)
{
    for (size_t i = 0; i < names->count; i++) {
        free((char *)names->items[i].name);
        free((char *)names->items[i].file);
    }
    free(names->items);
    u64map_free(&names->by_addr);
    symbol_names_init(names);
}

void symbol_names_put(struct symbol_names *names, uint64_t addr, const char *name,
                      const char *file, int line)
{
    int inserted;
    uint64_t *index = u64map_upsert(&names->by_addr, addr, &inserted);
    if (inserted) {
        names->items = xrealloc(names->items, (names->count + 1) * sizeof *names->items);
        *index = names->count++;
    } else {
        free((char *)names->items[*index].name);
        free((char *)names->items[*index].file);
    }
    names->items[*index] = (struct symbol_name){addr, xstrdup(name), file ? xstrdup(file) : NULL,
                                                line};
}

const struct symbol_name *symbol_names_find(const struct symbol_names *names, uint64_t addr)
{
    if (!names)
        return NULL;
    const uint64_t *i = u64map_find(&names->by_addr, addr);
    return i ? &names->items[*i] : NULL;
}

static int read_all(MDB_txn *txn, MDB_dbi dbi, const char *path, struct symbol_names *out,
                    struct trms_error *err)
{
    MDB_cursor *cur;
    int rc = mdb_cursor_open(txn, dbi, &cur);
    if (rc != 0)
        return error_set(err, "%s: cannot read the symbol names: %s", path, mdb_strerror(rc));
    MDB_stat st;
    if ((rc = mdb_stat(txn, dbi, &st)) != 0) {
        mdb_cursor_close(cur);
        return error_set(err, "%s: cannot read the symbol names: %s", path, mdb_strerror(rc));
    }
    if (st.ms_entries)
        out->items = xcalloc(st.ms_entries, sizeof *out->items);
    MDB_val k, v;
    int status = 0;
    for (rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == 0;
         rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
        if (k.mv_size != 8 || out->count >= st.ms_entries) {
            status = error_set(err, "%s: a symbol key is corrupt", path);
            break;
        }
        uint64_t addr = 0;
        for (int i = 0; i < 8; i++)
            addr = addr << 8 | ((const uint8_t *)k.mv_data)[i];
        if ((status = decode(path, addr, &v, &out->items[out->count], err)) != 0)
            break;
        *u64map_upsert(&out->by_addr, addr, NULL) = out->count++;
    }
    if (status == 0 && rc != MDB_NOTFOUND)
        status = error_set(err, "%s: cannot read the symbol names: %s", path, mdb_strerror(rc));
    mdb_cursor_close(cur);
    return status;
}

int symbol_store_load(const char *rec_path, struct symbol_names *out, struct trms_error *err)
{
    symbol_names_init(out);
    MDB_env *env;
    char *path;
    int rc = store_env_open(rec_path, 0, &env, &path, err);
    if (rc != 0) {
        free(path);
        return rc == STORE_ENV_ABSENT ? 0 : -1;
    }
    MDB_txn *txn;
    MDB_dbi dbi;
    int status = 0;
    rc = mdb_txn_begin(env, NULL, MDB_RDONLY, &txn);
    if (rc == 0) {
        rc = mdb_dbi_open(txn, SYMBOLS_DB, 0, &dbi);
        if (rc == 0)
            status = read_all(txn, dbi, path, out, err);
        else if (rc == MDB_NOTFOUND)
            rc = 0; /* never stored any */
        mdb_txn_abort(txn);
    }
    if (rc != 0)
        status = error_set(err, "%s: cannot read the symbol names: %s", path, mdb_strerror(rc));
    if (status != 0)
        symbol_names_free(out);
    store_env_close(env);
    free(path);
    return status;
}
