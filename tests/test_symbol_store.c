/* test_symbol_store: routine names survive the symbols file exactly, beside
 * the results and without disturbing them; a recording without names reads
 * as empty; every damaged byte, cut or future format of the file is
 * refused with a message; names a recording kept in its result store
 * before the file existed are read from there (corrupt or future entries
 * refused) and carried into the file by the next save. */
#include <lmdb.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/byte_buffer.h"
#include "store/result_codec.h"
#include "store/result_store.h"
#include "store/symbol_store.h"
#include "tests/check.h"
#include "tests/fixture.h"
#include "tests/results_equal.h"

static char tmpdir[] = "/tmp/trms-test-symbol-store-XXXXXX";

static struct analysis_result *small_result(void)
{
    static const char trace[] = "call 0x401136\nread 0x100 4\ncost 5\nreturn\ncall f\ncost 1\nreturn\n";
    struct event_list events = {0};
    struct routine_table routines;
    routine_table_init(&routines);
    fixture_parse(trace, &events, &routines);
    struct run run;
    fixture_run_events(events.items, events.count, &routines, 4, 64, 0, &run);
    struct analysis_result *r = run_take_result(&run);
    event_list_free(&events);
    routine_table_free(&routines);
    return r;
}

static void roundtrip(const char *rec)
{
    struct trms_error err;
    struct symbol_names names;
    /* No results directory at all: no names, no error, nothing created. */
    CHECK(symbol_store_load(rec, &names, &err) == 0);
    CHECK_EQ(names.count, 0);
    symbol_names_free(&names);
    struct stat st;
    CHECK(stat(tmpdir, &st) == 0);

    /* A result first, then names: the result is intact. */
    struct analysis_result *r = small_result();
    struct result_store *s;
    CHECK(result_store_open(rec, 1, &s, &err) == 0);
    CHECK(result_store_save(s, r, &err) == 0);
    result_store_close(s);
    /* A store with results but no names yet. */
    CHECK(symbol_store_load(rec, &names, &err) == 0);
    CHECK_EQ(names.count, 0);
    symbol_names_free(&names);

    const struct symbol_name batch[] = {
        {.addr = 0x401136, .name = "str_tolower", .file = "wf.c", .line = 31},
        {.addr = UINT64_C(0xffffffffff600000), .name = "vsyscall"},
        {.addr = 0x7f0000001000, .name = "_ZN3foo3barEv", .file = "foo.cc", .line = 7}, /* C++: kept mangled */
        {.addr = 0x1234, .name = ""},                   /* nothing known: not stored */
    };
    CHECK(symbol_store_save(rec, batch, 4, &err) == 0);
    CHECK(symbol_store_load(rec, &names, &err) == 0);
    CHECK_EQ(names.count, 3);
    for (size_t i = 0; i < 3; i++) {
        const struct symbol_name *n = symbol_names_find(&names, batch[i].addr);
        CHECK(n != NULL);
        if (!n)
            continue;
        CHECK_STR(n->name, batch[i].name);
        CHECK(batch[i].file ? n->file && strcmp(n->file, batch[i].file) == 0 : n->file == NULL);
        CHECK_EQ(n->line, batch[i].line);
    }
    CHECK(symbol_names_find(&names, 0x1234) == NULL);
    CHECK(symbol_names_find(NULL, 0x401136) == NULL);
    symbol_names_free(&names);

    /* Saving again replaces the names of the same addresses only. */
    const struct symbol_name again[] = {{.addr = 0x401136, .name = "str_tolower2", .file = "wf2.c", .line = 32}};
    CHECK(symbol_store_save(rec, again, 1, &err) == 0);
    CHECK(symbol_store_load(rec, &names, &err) == 0);
    CHECK_EQ(names.count, 3);
    const struct symbol_name *n = symbol_names_find(&names, 0x401136);
    CHECK(n && strcmp(n->name, "str_tolower2") == 0 && n->line == 32);
    symbol_names_free(&names);

    struct analysis_result *got;
    CHECK(result_store_open(rec, 0, &s, &err) == 0);
    CHECK(result_store_load(s, 0, 0, &got, &err) == 0 && results_equal(got, r));
    analysis_result_free(got);
    result_store_close(s);
    /* And a result saved after the names leaves them be. */
    CHECK(result_store_open(rec, 1, &s, &err) == 0);
    CHECK(result_store_save(s, r, &err) == 0);
    result_store_close(s);
    CHECK(symbol_store_load(rec, &names, &err) == 0);
    CHECK_EQ(names.count, 3);
    symbol_names_free(&names);
    analysis_result_free(r);
}

/* Names saved in a fresh staging directory: the result store then reads
 * as never analyzed, not as broken. */
static void names_only(const char *rec)
{
    struct trms_error err;
    const struct symbol_name one = {.addr = 0x10, .name = "f", .file = "f.c", .line = 1};
    CHECK(symbol_store_save(rec, &one, 1, &err) == 0);
    struct result_store *s;
    CHECK(result_store_open(rec, 0, &s, &err) != 0);
    CHECK(strstr(err.message, "no analysis stored yet") != NULL);
}

static void put_raw(const char *rec, uint64_t addr, const void *value, size_t len)
{
    char path[256];
    snprintf(path, sizeof path, "%s/results", rec);
    mkdir(path, 0777);
    MDB_env *env;
    MDB_txn *txn;
    MDB_dbi dbi;
    mdb_env_create(&env);
    mdb_env_set_maxdbs(env, 4);
    mdb_env_set_mapsize(env, UINT64_C(16) << 30);
    CHECK(mdb_env_open(env, path, 0, 0666) == 0);
    mdb_txn_begin(env, NULL, 0, &txn);
    mdb_dbi_open(txn, "symbols", MDB_CREATE, &dbi);
    uint8_t key[8];
    for (int i = 0; i < 8; i++)
        key[i] = (uint8_t)(addr >> (56 - 8 * i));
    MDB_val k = {8, key}, v = {len, (void *)value};
    CHECK(mdb_put(txn, dbi, &k, &v, 0) == 0);
    CHECK(mdb_txn_commit(txn) == 0);
    mdb_env_close(env);
}

static void legacy(const char *rec)
{
    struct trms_error err;
    struct symbol_names names;
    put_raw(rec, 0x500, "\x01\x04main\x04m.c\x07", 11);
    CHECK(symbol_store_load(rec, &names, &err) == 0);
    const struct symbol_name *m = symbol_names_find(&names, 0x500);
    CHECK(m && strcmp(m->name, "main") == 0 && m->file && strcmp(m->file, "m.c") == 0 &&
          m->line == 7);
    symbol_names_free(&names);
    put_raw(rec, 0xabc, "\x01\x05na", 4); /* name runs past the end */
    CHECK(symbol_store_load(rec, &names, &err) != 0);
    CHECK(strstr(err.message, "the symbol of 0xabc is corrupt") != NULL);
    CHECK_EQ(names.count, 0);
    put_raw(rec, 0xabc, "\x03\x02x\x00\x00\x00\x00\x00", 8); /* a future format */
    CHECK(symbol_store_load(rec, &names, &err) != 0);
    CHECK(strstr(err.message, "has format 3") != NULL);
    /* Format 2 with neither a name nor a module: nothing to keep. */
    put_raw(rec, 0xabc, "\x02\x00\x00\x00\x00\x00\x00", 7);
    CHECK(symbol_store_load(rec, &names, &err) != 0);
    CHECK(strstr(err.message, "the symbol of 0xabc is corrupt") != NULL);
    /* Format 2 cut short after its format 1 fields. */
    put_raw(rec, 0xabc, "\x02\x02x\x00\x00", 5);
    CHECK(symbol_store_load(rec, &names, &err) != 0);
    put_raw(rec, 0xabc, "\x01\x01x\x00\x00", 5); /* repaired, as format 1 */
    CHECK(symbol_store_load(rec, &names, &err) == 0);
    const struct symbol_name *n = symbol_names_find(&names, 0xabc);
    CHECK(n && strcmp(n->name, "x") == 0 && n->file == NULL && n->line == 0 &&
          n->offset == 0 && n->module == NULL && n->module_addr == 0);
    symbol_names_free(&names);
    /* A save carries the store's names into the file. */
    const struct symbol_name more = {.addr = 0x600, .name = "more"};
    CHECK(symbol_store_save(rec, &more, 1, &err) == 0);
    char path[256];
    snprintf(path, sizeof path, "%s/symbols", rec);
    struct stat st;
    CHECK(stat(path, &st) == 0);
    put_raw(rec, 0x500, "\x09", 1); /* the store's copy no longer matters */
    CHECK(symbol_store_load(rec, &names, &err) == 0);
    CHECK_EQ(names.count, 3);
    CHECK(symbol_names_find(&names, 0x500) && symbol_names_find(&names, 0x600) &&
          symbol_names_find(&names, 0xabc));
    symbol_names_free(&names);
}

/* Format 2 keeps where a routine is in its file, and routines no symbol
 * covers. */
static void modules(const char *rec)
{
    struct trms_error err;
    const struct symbol_name batch[] = {
        {.addr = 0x4a10e0, .module = "/usr/lib/liblzma.so.5", .module_addr = 0x190e0},
        {.addr = 0x4a2000, .name = "lzma_code", .offset = 0x1a, .file = "common.c", .line = 9,
         .module = "/usr/lib/liblzma.so.5", .module_addr = 0x1a01a},
        {.addr = 0x5000, .name = "main", .module = "/bin/x", .module_addr = 0x5000},
    };
    CHECK(symbol_store_save(rec, batch, 3, &err) == 0);
    struct symbol_names names;
    CHECK(symbol_store_load(rec, &names, &err) == 0);
    for (size_t i = 0; i < 3; i++) {
        const struct symbol_name *n = symbol_names_find(&names, batch[i].addr);
        CHECK(n != NULL);
        if (!n)
            continue;
        CHECK(batch[i].name ? n->name && strcmp(n->name, batch[i].name) == 0 : !n->name);
        CHECK(batch[i].file ? n->file && strcmp(n->file, batch[i].file) == 0 : !n->file);
        CHECK_EQ(n->line, batch[i].line);
        CHECK_EQ(n->offset, batch[i].offset);
        CHECK_STR(n->module, batch[i].module);
        CHECK_EQ(n->module_addr, batch[i].module_addr);
    }
    /* Copies in memory keep every field too. */
    struct symbol_names copy;
    symbol_names_init(&copy);
    for (size_t i = 0; i < names.count; i++)
        symbol_names_add(&copy, &names.items[i]);
    const struct symbol_name *c = symbol_names_find(&copy, 0x4a2000);
    CHECK(c && c->offset == 0x1a && c->module_addr == 0x1a01a && strcmp(c->module, batch[1].module) == 0);
    symbol_names_add(&copy, &batch[0]); /* replaces */
    CHECK_EQ(copy.count, names.count);
    symbol_names_free(&copy);
    symbol_names_free(&names);
}

static void write_bytes(const char *path, const uint8_t *data, size_t len)
{
    FILE *fp = fopen(path, "wb");
    CHECK(fp && fwrite(data, 1, len, fp) == len);
    if (fp)
        fclose(fp);
}

/* The symbols file: every flipped byte and every cut is refused, with one
 * line naming the file; never other names. */
static void damaged_file(const char *rec)
{
    struct trms_error err;
    struct symbol_names names;
    const struct symbol_name batch[] = {
        {.addr = 0x401136, .name = "str_tolower", .file = "wf.c", .line = 31},
        {.addr = 0x401200, .name = "main", .module = "/bin/wf", .module_addr = 0x1200}};
    CHECK(symbol_store_save(rec, batch, 2, &err) == 0);
    char path[256];
    snprintf(path, sizeof path, "%s/symbols", rec);
    FILE *fp = fopen(path, "rb");
    uint8_t good[4096];
    size_t len = fp ? fread(good, 1, sizeof good, fp) : 0;
    if (fp)
        fclose(fp);
    CHECK(len > 20);
    uint8_t bad[4096];
    for (size_t at = 0; at < len; at++) {
        memcpy(bad, good, len);
        bad[at] ^= (uint8_t)(1u << (at % 8));
        write_bytes(path, bad, len);
        err.message[0] = '\0';
        CHECK(symbol_store_load(rec, &names, &err) != 0);
        CHECK(strstr(err.message, path) != NULL && strchr(err.message, '\n') == NULL);
        CHECK_EQ(names.count, 0);
    }
    for (size_t cut = 0; cut < len; cut++) {
        write_bytes(path, good, cut);
        CHECK(symbol_store_load(rec, &names, &err) != 0);
    }
    /* A symbolic link or a FIFO in its place is not followed or opened. */
    unlink(path);
    CHECK(symlink("/etc/hostname", path) == 0);
    CHECK(symbol_store_load(rec, &names, &err) != 0);
    CHECK(strstr(err.message, "symbolic link") != NULL);
    unlink(path);
    CHECK(mkfifo(path, 0666) == 0);
    CHECK(symbol_store_load(rec, &names, &err) != 0);
    CHECK(strstr(err.message, "FIFO") != NULL);
    unlink(path);
    write_bytes(path, good, len);
    CHECK(symbol_store_load(rec, &names, &err) == 0);
    CHECK_EQ(names.count, 4);  /* with the names roundtrip() left */
    symbol_names_free(&names);
}

int main(void)
{
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 2;
    }
    char rec[128], staging[128], old[128];
    snprintf(rec, sizeof rec, "%s/rec", tmpdir);
    mkdir(rec, 0777);
    snprintf(old, sizeof old, "%s/old", tmpdir);
    mkdir(old, 0777);
    snprintf(staging, sizeof staging, "%s/staging", tmpdir);
    mkdir(staging, 0777);
    roundtrip(rec);
    names_only(staging);
    legacy(old);
    damaged_file(rec);
    modules(rec);
    char cmd[160];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    CHECK(system(cmd) == 0);
    return check_report("test_symbol_store");
}
