#include "store/symbol_store.h"

#include <inttypes.h>
#include <lmdb.h>
#include <stdlib.h>
#include <string.h>

#include "common/byte_buffer.h"
#include "common/oom.h"
#include "store/store_env.h"
#include "store/symbol_file.h"
#include "store/store_map.h"

#define SYMBOLS_DB "symbols"

/* Names stored before the symbols file existed, in the store's "symbols"
 * database: read when a recording has no symbols file (the next save
 * writes one). */
static int load_legacy(const char *rec_path, struct symbol_names *out, struct trms_error *err);

int symbol_store_save(const char *rec_path, const struct symbol_name *names, size_t n,
                      struct trms_error *err)
{
    struct symbol_names all;
    if (symbol_store_load(rec_path, &all, err) != 0)
        return -1;
    for (size_t i = 0; i < n; i++)
        if ((names[i].name && *names[i].name) || (names[i].module && *names[i].module))
            symbol_names_add(&all, &names[i]);  /* else nothing worth keeping */
    int rc = symbol_file_write(rec_path, &all, err);
    symbol_names_free(&all);
    return rc;
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
        free((char *)names->items[i].module);
    }
    free(names->items);
    u64map_free(&names->by_addr);
    symbol_names_init(names);
}

static char *copy_or_null(const char *s)
{
    return s ? xstrdup(s) : NULL;
}

void symbol_names_add(struct symbol_names *names, const struct symbol_name *n)
{
    int inserted;
    uint64_t *index = u64map_upsert(&names->by_addr, n->addr, &inserted);
    if (inserted) {
        names->items = xrealloc(names->items, (names->count + 1) * sizeof *names->items);
        *index = names->count++;
    } else {
        free((char *)names->items[*index].name);
        free((char *)names->items[*index].file);
        free((char *)names->items[*index].module);
    }
    struct symbol_name *to = &names->items[*index];
    *to = *n;
    to->name = copy_or_null(n->name);
    to->file = copy_or_null(n->file);
    to->module = copy_or_null(n->module);
}

void symbol_names_put(struct symbol_names *names, uint64_t addr, const char *name,
                      const char *file, int line)
{
    symbol_names_add(names, &(struct symbol_name){addr, name, file, line, 0, NULL, 0});
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
        if ((status = symbol_entry_decode(path, addr, v.mv_data, v.mv_size,
                                          &out->items[out->count], err)) != 0)
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
    int rc = symbol_file_read(rec_path, out, err);
    if (rc <= 0) {
        if (rc != 0)
            symbol_names_free(out);
        return rc;
    }
    return load_legacy(rec_path, out, err);
}

static int load_legacy(const char *rec_path, struct symbol_names *out, struct trms_error *err)
{
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
    rc = store_txn_begin(env, MDB_RDONLY, &txn);
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
