/* test_store: results survive the LMDB store exactly; a result replaces
 * only the one with the same options; broken stores and blobs are refused
 * with a message and left as they were: a store LMDB cannot read is
 * damaged (RESULT_STORE_DAMAGED), every single flipped byte of a result is
 * caught, and a result whose indices do not hold together is refused. */
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <lmdb.h>
#include <string.h>

#include "common/byte_buffer.h"
#include "common/state_stream.h"
#include "store/checkpoint_store.h"
#include "store/result_codec.h"
#include "store/result_store.h"
#include "tests/check.h"
#include "tests/fixture.h"
#include "tests/results_equal.h"
#include "tests/random_trace.h"
#include "analyses/analysis.h"
#include "analyses/analysis_parts.h"
#include "trace/crc32.h"

static char tmpdir[] = "/tmp/trms-test-store-XXXXXX";

static struct analysis_result *random_result_with(uint64_t seed, uint64_t cell, uint64_t line,
                                                  int contexts)
{
    struct random_trace_shape shape = {.threads = 3, .events = 2000, .routines = 9,
                                       .regions = 3, .region_span = 4096, .max_depth = 6};
    struct event_list events = {0};
    struct routine_table routines;
    routine_table_init(&routines);
    uint32_t id;
    routine_table_intern_addr(&routines, 0xdeadbeef, &id);
    random_trace(seed, &shape, &events, &routines);
    struct run run;
    struct analysis_options opt;
    analysis_options_default(&opt);
    opt.cell_size = cell;
    opt.line_size = line;
    opt.contexts = contexts;
    fixture_run_with(events.items, events.count, &routines, &opt, &run);
    struct analysis_result *r = run_take_result(&run);
    event_list_free(&events);
    routine_table_free(&routines);
    return r;
}

static struct analysis_result *random_result(uint64_t seed, uint64_t cell, uint64_t line)
{
    return random_result_with(seed, cell, line, 0);
}

static void roundtrip_and_replace(const char *rec)
{
    struct trms_error err;
    struct result_store *s;
    CHECK(result_store_open(rec, 0, &s, &err) != 0); /* nothing stored yet */
    CHECK(strstr(err.message, "no analysis stored yet") != NULL);
    CHECK(result_store_open(rec, 1, &s, &err) == 0);
    struct analysis_result *a = random_result(1, 4, 64);
    struct analysis_result *b = random_result(2, 8, 64);
    struct analysis_result *c = random_result(3, 4, 64);
    CHECK(result_store_save(s, a, &err) == 0);
    CHECK(result_store_save(s, b, &err) == 0);
    result_store_close(s);

    CHECK(result_store_open(rec, 0, &s, &err) == 0);
    struct analysis_result *got;
    CHECK(result_store_load(s, 4, 64, &got, &err) == 0 && results_equal(got, a));
    analysis_result_free(got);
    CHECK(result_store_load(s, 0, 0, &got, &err) == 0 && results_equal(got, b)); /* latest */
    analysis_result_free(got);
    CHECK(result_store_load(s, 16, 64, &got, &err) != 0);
    CHECK(strstr(err.message, "no result for cell size 16 and line size 64") != NULL);
    result_store_close(s);

    /* Same options: c replaces a; b stays. */
    CHECK(result_store_open(rec, 1, &s, &err) == 0);
    CHECK(result_store_save(s, c, &err) == 0);
    CHECK(result_store_load(s, 4, 64, &got, &err) == 0 && results_equal(got, c));
    analysis_result_free(got);
    CHECK(result_store_load(s, 8, 64, &got, &err) == 0 && results_equal(got, b));
    analysis_result_free(got);
    CHECK(result_store_load(s, 0, 0, &got, &err) == 0 && results_equal(got, c));
    analysis_result_free(got);
    result_store_close(s);
    analysis_result_free(a);
    analysis_result_free(b);
    analysis_result_free(c);
}

static int collect(void *ctx, const struct stored_result_info *info)
{
    struct stored_result_info *out = ctx;
    int i = 0;
    while (out[i].key.cell_size)
        i++;
    if (i < 7)
        out[i] = *info;
    return 0;
}

/* Results of parts of a recording (rr event windows) stand beside the
 * whole one: each replaces only its own, and the latest names its part. */
static void windows(const char *rec)
{
    struct trms_error err;
    struct result_store *s;
    CHECK(result_store_open(rec, 1, &s, &err) == 0);
    struct analysis_result *whole = random_result(4, 2, 64);
    struct analysis_result *part = random_result(5, 2, 64);
    struct analysis_result *tail = random_result(6, 2, 64);
    struct result_key k_part = {2, 64, 10, 20, 0, 0}, k_tail = {2, 64, 30, 0, 0, 0};
    CHECK(result_store_save(s, whole, &err) == 0);
    CHECK(result_store_save_key(s, part, &k_part, &err) == 0);
    CHECK(result_store_save_key(s, tail, &k_tail, &err) == 0);

    struct analysis_result *got;
    CHECK(result_store_load(s, 2, 64, &got, &err) == 0 && results_equal(got, whole));
    analysis_result_free(got);
    struct result_key k = {2, 64, 10, 20, 0, 0};
    CHECK(result_store_load_key(s, &k, &got, &err) == 0 && results_equal(got, part));
    analysis_result_free(got);
    k = (struct result_key){0};
    CHECK(result_store_load_key(s, &k, &got, &err) == 0 && results_equal(got, tail));
    analysis_result_free(got);
    CHECK(k.cell_size == 2 && k.line_size == 64 && k.from == 30 && k.to == 0);
    k = (struct result_key){2, 64, 10, 21, 0, 0};
    CHECK(result_store_load_key(s, &k, &got, &err) != 0);
    CHECK(strstr(err.message, "over events 10 to 21") != NULL);

    /* Listed in key order, whole before its parts; earlier tests' results
     * (cell 4 and 8) after. */
    struct stored_result_info infos[8] = {0};
    CHECK(result_store_list(s, collect, infos, &err) == 0);
    CHECK(infos[0].key.cell_size == 2 && infos[0].key.from == 0 && !infos[0].latest);
    CHECK(infos[1].key.from == 10 && infos[1].key.to == 20 && !infos[1].latest);
    CHECK(infos[2].key.from == 30 && infos[2].key.to == 0 && infos[2].latest);
    CHECK(infos[3].key.cell_size == 4 && infos[4].key.cell_size == 8);
    CHECK(infos[5].key.cell_size == 0);
    result_store_close(s);
    analysis_result_free(whole);
    analysis_result_free(part);
    analysis_result_free(tail);
}

static void broken_store(const char *rec)
{
    char path[256];
    snprintf(path, sizeof path, "%s/results/data.mdb", rec);
    FILE *fp = fopen(path, "wb");
    for (int i = 0; i < 8192; i++)
        fputc(i * 7, fp);
    fclose(fp);
    struct stat before, after;
    stat(path, &before);
    struct trms_error err;
    struct result_store *s;
    CHECK_EQ(result_store_open(rec, 1, &s, &err), RESULT_STORE_DAMAGED);
    CHECK(strstr(err.message, "the result store is damaged (meta page 0") != NULL);
    CHECK(strchr(err.message, '\n') == NULL);
    CHECK_EQ(result_store_open(rec, 0, &s, &err), RESULT_STORE_DAMAGED);
    stat(path, &after);
    CHECK_EQ(after.st_size, before.st_size);
    CHECK(after.st_mtime == before.st_mtime);

    /* results is a file, not a directory */
    char rec2[128];
    snprintf(rec2, sizeof rec2, "%s/rec2", tmpdir);
    mkdir(rec2, 0777);
    snprintf(path, sizeof path, "%s/results", rec2);
    fp = fopen(path, "w");
    fputs("not a directory\n", fp);
    fclose(fp);
    CHECK(result_store_open(rec2, 1, &s, &err) != 0);
    CHECK(strstr(err.message, rec2) != NULL);
}

static void corrupt_blobs(void)
{
    struct analysis_result *r = random_result(5, 4, 16);
    struct byte_buffer blob = {0};
    result_encode(r, &blob);
    struct trms_error err;
    for (size_t cut = 0; cut < blob.len; cut += 1 + cut / 64) {
        struct analysis_result *got = result_decode(blob.data, cut, &err);
        CHECK(got == NULL);
        analysis_result_free(got);
    }
    struct analysis_result *got = result_decode(blob.data, blob.len, &err);
    CHECK(got && results_equal(got, r));
    analysis_result_free(got);
    uint8_t version = blob.data[0];
    blob.data[0] = 99; /* a future format version */
    CHECK(result_decode(blob.data, blob.len, &err) == NULL);
    CHECK_STR(err.message, "stored result has format version 99; this trms reads versions 1 to 5");
    blob.data[0] = version;
    /* Every byte changed anywhere is caught (by the checksum, the version
     * or the structure), never decoded into other numbers. */
    for (size_t at = 0; at < blob.len; at++) {
        uint8_t flip = (uint8_t)(1u << (at % 8) | 0x10);
        blob.data[at] ^= flip;
        got = result_decode(blob.data, blob.len, &err);
        CHECK(got == NULL);
        analysis_result_free(got);
        blob.data[at] ^= flip;
    }
    got = result_decode(blob.data, blob.len, &err);
    CHECK(got && results_equal(got, r));
    analysis_result_free(got);
    byte_buffer_free(&blob);
    analysis_result_free(r);
}

/* Results whose checksum holds but whose parts do not fit together (as a
 * store from elsewhere may hold) are refused: the reports follow those
 * indices. */
static void inconsistent_results(void)
{
    struct analysis_result *r = random_result_with(7, 4, 64, 1);
    CHECK(r->n_contexts > 2 && r->n_profiles > 0);
    struct {
        const char *what;
        uint32_t *field;
        uint32_t bad;
    } cases[] = {
        {"a profile of an unknown routine", &r->profiles[0].routine, (uint32_t)r->routines.count},
        {"a profile of an unknown context", &r->profiles[0].context, (uint32_t)r->n_contexts},
        {"a context whose parent comes after it", &r->contexts[1].parent, 1},
        {"a context of an unknown routine", &r->contexts[2].routine, (uint32_t)r->routines.count},
        {"a root with a parent", &r->contexts[0].parent, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        uint32_t keep = *cases[i].field;
        *cases[i].field = cases[i].bad;
        struct byte_buffer blob = {0};
        result_encode(r, &blob);
        struct trms_error err;
        struct analysis_result *got = result_decode(blob.data, blob.len, &err);
        if (got)
            fprintf(stderr, "accepted %s\n", cases[i].what);
        CHECK(got == NULL);
        analysis_result_free(got);
        byte_buffer_free(&blob);
        *cases[i].field = keep;
    }
    analysis_result_free(r);
}

/* Saves LEN bytes (byte i is i * 7) as the checkpoint under KEY. */
static int save_checkpoint(struct result_store *s, const struct result_key *key, size_t len)
{
    struct trms_error err;
    struct checkpoint_save *c;
    if (checkpoint_save_begin(s, key, &c, &err) != 0)
        return -1;
    struct state_writer w;
    state_writer_init(&w, checkpoint_save_bytes, c);
    for (size_t i = 0; i < len; i++) {
        uint8_t b = (uint8_t)(i * 7);
        state_put_bytes(&w, &b, 1);
    }
    CHECK(state_writer_finish(&w) == 0);
    return checkpoint_save_commit(c, &err);
}

/* The checkpoint under KEY is LEN bytes of save_checkpoint's. */
static int checkpoint_is(struct result_store *s, const struct result_key *key, size_t len)
{
    struct trms_error err;
    struct checkpoint_load *c;
    uint64_t total;
    if (checkpoint_load_open(s, key, &c, &total, &err) != 0)
        return 0;
    int same = total == len;
    const uint8_t *data;
    size_t n, at = 0;
    while (same && checkpoint_load_fill(c, &data, &n) == 0 && n)
        for (size_t i = 0; i < n && same; i++, at++)
            same = data[i] == (uint8_t)(at * 7);
    checkpoint_load_close(c);
    return same && at == len;
}

static int count_checkpoint(void *ctx, const struct checkpoint_info *info)
{
    (void)info;
    ++*(int *)ctx;
    return 0;
}

/* Keys of the checkpoints database that start with PREFIX. */
static size_t store_keys(const char *rec, const char *prefix)
{
    MDB_env *env = NULL;
    MDB_txn *txn;
    MDB_dbi dbi;
    MDB_cursor *cur;
    char path[160];
    snprintf(path, sizeof path, "%s/results", rec);
    size_t n = 0;
    if (mdb_env_create(&env) == 0 && mdb_env_set_maxdbs(env, 4) == 0 &&
        mdb_env_open(env, path, MDB_RDONLY, 0666) == 0 &&
        mdb_txn_begin(env, NULL, MDB_RDONLY, &txn) == 0) {
        if (mdb_dbi_open(txn, "checkpoints", 0, &dbi) == 0 && mdb_cursor_open(txn, dbi, &cur) == 0) {
            MDB_val k, v;
            for (int rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == 0;
                 rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT))
                n += k.mv_size >= strlen(prefix) && memcmp(k.mv_data, prefix, strlen(prefix)) == 0;
            mdb_cursor_close(cur);
        }
        mdb_txn_abort(txn);
    }
    mdb_env_close(env);
    return n;
}

/* Checkpoints replace each other whole (more parts, then fewer), survive
 * a save abandoned half way, are dropped by the result of their key only,
 * and a damaged part is caught by the checksum. */
static void checkpoints(const char *rec)
{
    struct trms_error err;
    struct result_store *s;
    CHECK(result_store_open(rec, 1, &s, &err) == 0);
    struct result_key k4 = {.cell_size = 4, .line_size = 64}, k8 = {.cell_size = 8, .line_size = 64};
    struct checkpoint_load *c;
    uint64_t total;
    CHECK(checkpoint_load_open(s, &k4, &c, &total, &err) == CHECKPOINT_NONE);
    size_t big = 3 * STATE_WRITER_BUFFER + 1000, small = 100;
    CHECK(save_checkpoint(s, &k4, big) == 0);
    CHECK(checkpoint_is(s, &k4, big));
    CHECK(save_checkpoint(s, &k4, small) == 0);
    CHECK(checkpoint_is(s, &k4, small));
    CHECK(save_checkpoint(s, &k8, big) == 0);
    int n = 0;
    CHECK(checkpoint_list(s, count_checkpoint, &n, &err) == 0);
    CHECK_EQ(n, 2);
    /* The result of cell size 8 drops its checkpoint, not cell size 4's. */
    struct analysis_result *r = random_result(3, 8, 64);
    CHECK(result_store_save(s, r, &err) == 0);
    analysis_result_free(r);
    CHECK(checkpoint_load_open(s, &k8, &c, &total, &err) == CHECKPOINT_NONE);
    CHECK(checkpoint_is(s, &k4, small));
    n = 0;
    CHECK(checkpoint_list(s, count_checkpoint, &n, &err) == 0);
    CHECK_EQ(n, 1);
    /* A save abandoned after several transactions of parts: the previous
     * checkpoint stays whole, and the parts written go (their room is
     * the result's, on a full disk). */
    struct checkpoint_save *abandoned;
    CHECK(checkpoint_save_begin(s, &k4, &abandoned, &err) == 0);
    struct state_writer w;
    state_writer_init(&w, checkpoint_save_bytes, abandoned);
    uint8_t junk[4096] = {1};
    for (int i = 0; i < 40 * 256; i++)
        state_put_bytes(&w, junk, sizeof junk);
    CHECK(state_writer_finish(&w) == 0);
    checkpoint_save_abort(abandoned);
    CHECK(checkpoint_is(s, &k4, small));
    result_store_close(s);
    CHECK_EQ(store_keys(rec, "cell=4/line=64/"), 2);  /* the head and its one part */
    /* The same save killed half way (a process that exits without a word):
     * the parts stay until the next save removes them. */
    fflush(NULL);
    pid_t child = fork();
    if (child == 0) {
        CHECK(result_store_open(rec, 1, &s, &err) == 0);
        CHECK(checkpoint_save_begin(s, &k4, &abandoned, &err) == 0);
        state_writer_init(&w, checkpoint_save_bytes, abandoned);
        for (int i = 0; i < 40 * 256; i++)
            state_put_bytes(&w, junk, sizeof junk);
        CHECK(state_writer_finish(&w) == 0);
        _exit(0);
    }
    int status;
    CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK(result_store_open(rec, 1, &s, &err) == 0);
    CHECK(checkpoint_is(s, &k4, small));
    result_store_close(s);
    CHECK(store_keys(rec, "cell=4/line=64/") > 100);
    CHECK(result_store_open(rec, 1, &s, &err) == 0);
    CHECK(save_checkpoint(s, &k4, big) == 0);
    CHECK(checkpoint_is(s, &k4, big));
    result_store_close(s);
    CHECK_EQ(store_keys(rec, "cell=4/line=64/"), 1 + (big + STATE_WRITER_BUFFER - 1) / STATE_WRITER_BUFFER);
    /* A flipped byte in a part, written behind the store's back. */
    MDB_env *env = NULL;
    MDB_txn *txn;
    MDB_dbi dbi;
    MDB_cursor *cur;
    char path[160];
    snprintf(path, sizeof path, "%s/results", rec);
    CHECK(mdb_env_create(&env) == 0 && mdb_env_set_maxdbs(env, 4) == 0 &&
          mdb_env_set_mapsize(env, 1u << 30) == 0 && mdb_env_open(env, path, 0, 0666) == 0);
    CHECK(mdb_txn_begin(env, NULL, 0, &txn) == 0 && mdb_dbi_open(txn, "checkpoints", 0, &dbi) == 0);
    CHECK(mdb_cursor_open(txn, dbi, &cur) == 0);
    MDB_val key = {strlen("cell=4/line=64/part/"), "cell=4/line=64/part/"}, v;
    CHECK(mdb_cursor_get(cur, &key, &v, MDB_SET_RANGE) == 0);
    CHECK(mdb_cursor_get(cur, &key, &v, MDB_NEXT) == 0); /* the second part */
    uint8_t *copy = malloc(v.mv_size);
    memcpy(copy, v.mv_data, v.mv_size);
    copy[v.mv_size / 2] ^= 1;
    MDB_val nv = {v.mv_size, copy};
    CHECK(mdb_cursor_put(cur, &key, &nv, MDB_CURRENT) == 0);
    mdb_cursor_close(cur);
    CHECK(mdb_txn_commit(txn) == 0);
    free(copy);
    mdb_env_close(env);
    CHECK(result_store_open(rec, 1, &s, &err) == 0);
    CHECK(checkpoint_load_open(s, &k4, &c, &total, &err) == -1);
    CHECK(strstr(err.message, "checksum mismatch") != NULL);
    CHECK(checkpoint_remove(s, &k4, &err) == 0);
    CHECK(checkpoint_load_open(s, &k4, &c, &total, &err) == CHECKPOINT_NONE);
    result_store_close(s);
    CHECK_EQ(store_keys(rec, ""), 0);
}

/* A result kept per calling context survives the store exactly, beside
 * the one without contexts; `report --contexts` finds the newest. */
static void contexts(const char *rec)
{
    struct trms_error err;
    struct result_store *s;
    CHECK(result_store_open(rec, 1, &s, &err) == 0);
    struct analysis_result *plain = random_result_with(7, 16, 64, 0);
    struct analysis_result *with = random_result_with(7, 16, 64, 1);
    CHECK(with->n_contexts > 9 && plain->n_contexts == 0);
    CHECK(with->n_profiles > plain->n_profiles);
    CHECK(result_store_save(s, with, &err) == 0);
    CHECK(result_store_save(s, plain, &err) == 0);
    struct analysis_result *got;
    struct result_key k = {16, 64, 0, 0, 1, 0};
    CHECK(result_store_load_key(s, &k, &got, &err) == 0 && results_equal(got, with));
    analysis_result_free(got);
    CHECK(result_store_load(s, 16, 64, &got, &err) == 0 && results_equal(got, plain));
    analysis_result_free(got);
    k = (struct result_key){0, 0, 0, 0, 1, 0}; /* the newest with contexts */
    CHECK(result_store_load_key(s, &k, &got, &err) == 0 && results_equal(got, with));
    CHECK(k.cell_size == 16 && k.contexts == 1);
    analysis_result_free(got);
    k = (struct result_key){0};              /* the latest: the plain one */
    CHECK(result_store_load_key(s, &k, &got, &err) == 0 && results_equal(got, plain));
    analysis_result_free(got);
    k = (struct result_key){2, 64, 0, 0, 1, 0};
    CHECK(result_store_load_key(s, &k, &got, &err) != 0);
    CHECK(strstr(err.message, "line size 64 with calling contexts") != NULL);
    result_store_close(s);
    analysis_result_free(plain);
    analysis_result_free(with);
}

/* A result stored by the first format (no real sums, no contexts) loads:
 * a profile of g, one point n 3, cost 10, and a one-bin histogram. */
static void version_1(void)
{
    static const uint8_t v1[] = {
        1, 4, 64, EVENT_TYPE_COUNT, 1, 2, 0, 0, 0, 0, 0, 0, /* events by type */
        3,                       /* activations */
        1, 0, 2, 'g',            /* one routine: address 0, name "g" */
        1,                       /* one profile */
        0, 1, 1, 10, 10, 0, 0,   /* routine 0, thread 1, calls, cost, self, induced */
        1, 3, 1, 10, 10, 10, 100, 0, 10, 10, 10, 100, 0, /* one RMS point */
        0,                       /* no TRMS points */
        7, 1, 1, 0, 6,           /* global reuse: 7 accesses, 1 cold, bin 0: 6 */
        0,                       /* no threads */
    };
    struct trms_error err;
    struct analysis_result *r = result_decode(v1, sizeof v1, &err);
    CHECK(r != NULL);
    if (!r) {
        fprintf(stderr, "%s\n", err.message);
        return;
    }
    CHECK_EQ(r->n_profiles, 1);
    CHECK_EQ(r->profiles[0].context, CONTEXT_NONE);
    CHECK_EQ(r->profiles[0].rms_points[0].sum, 10);
    CHECK_EQ(r->profiles[0].rms_points[0].real_sum, 10);
    CHECK_EQ(r->n_contexts, 0);
    CHECK_EQ(r->reuse_global.bins[0].count, 6);
    analysis_result_free(r);
}

/* A result of random events with the analyses PARTS (every thread
 * switch, kernel write and renumbering the random shapes bring). */
static struct analysis_result *random_parts(uint64_t seed, unsigned parts, uint64_t time_limit)
{
    struct random_trace_shape shape = {.threads = 3, .events = 3000, .routines = 9,
                                       .regions = 3, .region_span = 4096, .max_depth = 6};
    struct event_list events = {0};
    struct routine_table routines;
    routine_table_init(&routines);
    random_trace(seed, &shape, &events, &routines);
    struct run run;
    struct analysis_options opt;
    analysis_options_default(&opt);
    opt.passes = analysis_parts_passes(parts);
    opt.time_limit = time_limit;
    fixture_run_with(events.items, events.count, &routines, &opt, &run);
    struct analysis_result *r = run_take_result(&run);
    event_list_free(&events);
    routine_table_free(&routines);
    return r;
}

static void empty_histogram(struct reuse_histogram *h)
{
    free(h->bins);
    *h = (struct reuse_histogram){0};
}

/* FULL with only the parts PARTS kept: what a result of PARTS must be. */
static void keep_parts(struct analysis_result *full, unsigned parts)
{
    full->analyses = parts;
    for (size_t i = 0; i < full->n_profiles; i++) {
        struct routine_profile *p = &full->profiles[i];
        if (!(parts & ANALYSIS_RMS)) {
            free(p->rms_points);
            p->rms_points = NULL;
            p->n_rms_points = 0;
        }
        if (!(parts & ANALYSIS_TRMS)) {
            free(p->trms_points);
            p->trms_points = NULL;
            p->n_trms_points = 0;
            p->induced_thread = p->induced_external = 0;
        }
    }
    if (!(parts & (ANALYSIS_RMS | ANALYSIS_TRMS))) {
        for (size_t i = 0; i < full->n_profiles; i++) {
            free(full->profiles[i].rms_points);
            free(full->profiles[i].trms_points);
        }
        full->n_profiles = 0;
        full->activations = 0;
    }
    if (!(parts & ANALYSIS_REUSE)) {
        empty_histogram(&full->reuse_global);
        for (size_t i = 0; i < full->n_threads; i++)
            empty_histogram(&full->reuse_threads[i].histogram);
    }
}

/* Each set of analyses computes exactly its parts of the full result
 * (without TRMS the input-size pass leaves kernel writes out: RMS must not
 * change), with and without renumbering. */
static void subsets_are_parts(void)
{
    for (uint64_t seed = 1; seed <= 4; seed++)
        for (unsigned parts = 1; parts <= ANALYSIS_ALL; parts++) {
            uint64_t limit = seed % 2 ? 0 : 200;
            struct analysis_result *full = random_parts(seed, ANALYSIS_ALL, limit);
            struct analysis_result *part = random_parts(seed, parts, limit);
            CHECK_EQ(part->analyses, parts);
            keep_parts(full, parts);
            if (!results_equal(full, part))
                fprintf(stderr, "seed %llu, analyses %u: not the parts of the full result\n",
                        (unsigned long long)seed, parts);
            CHECK(results_equal(full, part));
            analysis_result_free(full);
            analysis_result_free(part);
        }
}

/* Results of other analyses are stored beside each other, as results of
 * other sizes; keys and results from before the choice are every part. */
static void analysis_sets(const char *rec)
{
    struct trms_error err;
    struct result_store *s;
    CHECK(result_store_open(rec, 1, &s, &err) == 0);
    struct analysis_result *full = random_parts(5, ANALYSIS_ALL, 0);
    struct analysis_result *some = random_parts(5, ANALYSIS_RMS | ANALYSIS_REUSE, 0);
    CHECK(result_store_save(s, some, &err) == 0);
    CHECK(result_store_save(s, full, &err) == 0);
    struct analysis_result *got;
    struct result_key k = {4, 64, 0, 0, 0, 0};
    CHECK(result_store_load_key(s, &k, &got, &err) == 0 && results_equal(got, full));
    analysis_result_free(got);
    k = (struct result_key){4, 64, 0, 0, 0, ANALYSIS_RMS | ANALYSIS_REUSE};
    CHECK(result_store_load_key(s, &k, &got, &err) == 0 && results_equal(got, some));
    analysis_result_free(got);
    k = (struct result_key){0, 0, 0, 0, 0, ANALYSIS_RMS | ANALYSIS_REUSE}; /* the newest such */
    CHECK(result_store_load_key(s, &k, &got, &err) == 0 && results_equal(got, some));
    CHECK(k.cell_size == 4 && k.analyses == (ANALYSIS_RMS | ANALYSIS_REUSE));
    analysis_result_free(got);
    k = (struct result_key){0, 0, 0, 0, 0, ANALYSIS_TRMS};
    CHECK(result_store_load_key(s, &k, &got, &err) != 0);
    CHECK(strstr(err.message, "no result of analyses trms stored") != NULL);
    result_store_close(s);
    /* A result of every part is written as format 3, which older trms read
     * (no parts in it), and reads back as every part; a subset is format 4,
     * its parts just before the checksum. */
    struct byte_buffer blob = {0};
    result_encode(full, &blob);
    CHECK(blob.data[0] == 3);
    got = result_decode(blob.data, blob.len, &err);
    CHECK(got && got->analyses == ANALYSIS_ALL && results_equal(got, full));
    analysis_result_free(got);
    blob.len = 0;
    result_encode(some, &blob);
    CHECK(blob.data[0] == 4 && blob.data[blob.len - 5] == (ANALYSIS_RMS | ANALYSIS_REUSE));
    got = result_decode(blob.data, blob.len, &err);
    CHECK(got && got->analyses == (ANALYSIS_RMS | ANALYSIS_REUSE) && results_equal(got, some));
    analysis_result_free(got);
    byte_buffer_free(&blob);
    analysis_result_free(full);
    analysis_result_free(some);
}

/* Input through a channel (issue 25): written as format 5 only when a
 * profile has some, read back whole; more of it than external input, or a
 * channel 0, is refused. */
static void channel_input(void)
{
    struct analysis_result *r = random_result(7, 4, 16);
    struct byte_buffer blob = {0};
    result_encode(r, &blob);
    CHECK_EQ(blob.data[0], 3);  /* none: older trms read it */
    free(blob.data);
    CHECK(r->n_profiles > 1);
    r->profiles[1].induced_external = 10;
    r->profiles[1].induced_channel = 7;
    r->profiles[1].channel = 4242;
    blob = (struct byte_buffer){0};
    result_encode(r, &blob);
    CHECK_EQ(blob.data[0], 5);
    struct trms_error err;
    struct analysis_result *got = result_decode(blob.data, blob.len, &err);
    CHECK(got && results_equal(got, r));
    CHECK(got && got->profiles[1].induced_channel == 7 && got->profiles[1].channel == 4242);
    analysis_result_free(got);
    free(blob.data);
    static const struct {
        uint64_t induced;
        uint32_t channel;
    } bad[] = {{11, 4242}, {7, 0}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        r->profiles[1].induced_channel = bad[i].induced;
        r->profiles[1].channel = bad[i].channel;
        blob = (struct byte_buffer){0};
        result_encode(r, &blob);
        got = result_decode(blob.data, blob.len, &err);
        CHECK(got == NULL);
        analysis_result_free(got);
        free(blob.data);
    }
    analysis_result_free(r);
}

int main(void)
{
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 2;
    }
    char rec[128];
    snprintf(rec, sizeof rec, "%s/rec", tmpdir);
    mkdir(rec, 0777);
    roundtrip_and_replace(rec);
    windows(rec);
    checkpoints(rec);
    contexts(rec);
    broken_store(rec);
    corrupt_blobs();
    inconsistent_results();
    version_1();
    channel_input();
    subsets_are_parts();
    char sets[160];
    snprintf(sets, sizeof sets, "%s/sets", tmpdir);
    mkdir(sets, 0777);
    analysis_sets(sets);
    char cmd[160];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    CHECK(system(cmd) == 0);
    return check_report("test_store");
}
