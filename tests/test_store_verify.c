/* test_store_verify: a result store damaged anywhere in a page header is
 * refused before LMDB walks it, or reads back exactly.
 *
 * A store of the shapes trms writes (many results, so branch pages; results
 * replaced, so free-page lists; a checkpoint of several parts, so long
 * overflow runs) must pass the check as written. Then every byte of the
 * first 24 of every page that starts with a header (as issue 19's
 * experiment changed them; continuation pages of overflow runs hold only
 * values) is set to other values, one at a time, and the store opened:
 * either it is refused as damaged, in one line naming what is wrong, or
 * every result and the checkpoint read back exactly or are refused by
 * their own checksums; never other numbers. A store the check passed and
 * trms then writes to (one change in 64) passes the check again. The sanitizer build runs it
 * too, so a walk of a damaged page would show. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyses/analysis.h"
#include "common/state_stream.h"
#include "store/checkpoint_store.h"
#include "store/result_store.h"
#include "tests/check.h"
#include "tests/fixture.h"
#include "tests/random_trace.h"
#include "tests/results_equal.h"

#define PAGE 4096
#define HEADER 24
#define N_RESULTS 40
#define CHECKPOINT_BYTES (600 * 1024)

static char tmpdir[] = "/tmp/trms-test-store-verify-XXXXXX";

static struct analysis_result *random_result(uint64_t seed, uint64_t cell, uint64_t line)
{
    struct random_trace_shape shape = {.threads = 2, .events = 600, .routines = 7,
                                       .regions = 2, .region_span = 1024, .max_depth = 4};
    struct analysis_options opt;
    analysis_options_default(&opt);
    opt.cell_size = cell;
    opt.line_size = line;
    return fixture_random_result(seed, &shape, &opt);
}

static struct result_key key_of(int i)
{
    /* Windows make many keys of one size pair, as rr windows do. */
    return (struct result_key){.cell_size = (uint64_t)1 << (i % 4), .line_size = 64,
                               .from = (uint64_t)i, .to = (uint64_t)i + 100};
}

static const struct result_key checkpoint_key = {4, 64, 0, 0, 0, 0};

static struct analysis_result *expected[N_RESULTS];

static void build(const char *rec)
{
    struct trms_error err;
    struct result_store *s;
    CHECK(result_store_open(rec, 1, &s, &err) == 0);
    for (int i = 0; i < N_RESULTS; i++) {
        struct result_key k = key_of(i);
        struct analysis_result *first = random_result(1000 + (uint64_t)i, k.cell_size, 64);
        CHECK(result_store_save_key(s, first, &k, &err) == 0);
        analysis_result_free(first);
        /* Replaced: the first one's pages go to the free-page list. */
        expected[i] = random_result((uint64_t)i, k.cell_size, 64);
        CHECK(result_store_save_key(s, expected[i], &k, &err) == 0);
    }
    struct checkpoint_save *c;
    CHECK(checkpoint_save_begin(s, &checkpoint_key, &c, &err) == 0);
    struct state_writer w;
    state_writer_init(&w, checkpoint_save_bytes, c);
    for (size_t i = 0; i < CHECKPOINT_BYTES; i++) {
        uint8_t b = (uint8_t)(i * 7);
        state_put_bytes(&w, &b, 1);
    }
    CHECK(state_writer_finish(&w) == 0);
    CHECK(checkpoint_save_commit(c, &err) == 0);
    result_store_close(s);
}

/* 1 when everything reads back exactly or is refused by its own check; 0
 * when something reads back as other numbers. */
static int reads_back(const char *rec)
{
    struct trms_error err;
    struct result_store *s;
    if (result_store_open(rec, 0, &s, &err) != 0)
        return strstr(err.message, "damaged") != NULL || strstr(err.message, "no analysis");
    int exact = 1;
    for (int i = 0; i < N_RESULTS; i++) {
        struct result_key k = key_of(i);
        struct analysis_result *got = NULL;
        if (result_store_load_key(s, &k, &got, &err) == 0)
            exact &= results_equal(got, expected[i]);
        else
            exact &= err.message[0] != '\0' && strchr(err.message, '\n') == NULL;
        analysis_result_free(got);
    }
    struct checkpoint_load *c;
    uint64_t total;
    if (checkpoint_load_open(s, &checkpoint_key, &c, &total, &err) == 0) {
        struct state_reader r;
        state_reader_init(&r, checkpoint_load_fill, c, total);
        for (uint64_t i = 0; i < total && !r.failed; i++) {
                uint8_t b = 0;
            state_get_bytes(&r, &b, 1);
            if (!r.failed && b != (uint8_t)(i * 7))
                exact = 0;
        }
        checkpoint_load_close(c);
    }
    result_store_close(s);
    return exact;
}

static void write_file(const char *path, const uint8_t *data, size_t len)
{
    FILE *fp = fopen(path, "wb");
    CHECK(fp && fwrite(data, 1, len, fp) == len);
    if (fp)
        fclose(fp);
}

static void put_byte(const char *path, size_t at, uint8_t value)
{
    FILE *fp = fopen(path, "r+b");
    CHECK(fp && fseek(fp, (long)at, SEEK_SET) == 0 && fputc(value, fp) == value);
    if (fp)
        fclose(fp);
}

/* Writing a new result to a store the check passed leaves a store the
 * check passes. */
static void write_again(const char *rec)
{
    struct trms_error err;
    struct result_store *s;
    if (result_store_open(rec, 1, &s, &err) != 0)
        return;  /* damaged: analyze sets it aside, tested elsewhere */
    struct analysis_result *r = random_result(77, 8, 64);
    CHECK(result_store_save(s, r, &err) == 0);
    result_store_close(s);
    analysis_result_free(r);
    if (result_store_open(rec, 0, &s, &err) != 0) {
        fprintf(stderr, "after a write: %s\n", err.message);
        CHECK(0);
        return;
    }
    result_store_close(s);
}

int main(void)
{
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 2;
    }
    char rec[128], data_path[160];
    snprintf(rec, sizeof rec, "%s/rec", tmpdir);
    mkdir(rec, 0777);
    build(rec);
    CHECK(reads_back(rec));
    snprintf(data_path, sizeof data_path, "%s/results/data.mdb", rec);
    FILE *fp = fopen(data_path, "rb");
    static uint8_t good[64 << 20];
    size_t len = fp ? fread(good, 1, sizeof good, fp) : 0;
    if (fp)
        fclose(fp);
    CHECK(len > 16 * PAGE && len % PAGE == 0);
    const char *env = getenv("TRMS_VERIFY_VALUES");
    size_t n_values = env ? (size_t)atoi(env) : 4;
    size_t pages = 0, tried = 0, refused = 0;
    for (size_t p = 0; p < len / PAGE; p++) {
        uint64_t pgno;
        memcpy(&pgno, good + p * PAGE, sizeof pgno);
        if (pgno != p)
            continue;  /* an overflow run's continuation: values only */
        pages++;
        for (size_t at = 0; at < HEADER; at++) {
            const uint8_t was = good[p * PAGE + at];
            const uint8_t values[] = {was ^ 0x01, was ^ 0x80, 0x00, 0xff};
            for (size_t v = 0; v < n_values && v < sizeof values; v++) {
                if (values[v] == was)
                    continue;
                put_byte(data_path, p * PAGE + at, values[v]);
                struct result_store *s;
                struct trms_error err;
                tried++;
                int rc = result_store_open(rec, 0, &s, &err);
                if (rc == RESULT_STORE_DAMAGED) {
                    refused++;
                    CHECK(strstr(err.message, "the result store is damaged (") != NULL);
                    CHECK(strchr(err.message, '\n') == NULL);
                    goto next;
                }
                if (rc == 0)
                    result_store_close(s);
                if (!reads_back(rec)) {
                    fprintf(stderr, "page %zu byte %zu = 0x%02x: read back as other numbers\n",
                            p, at, values[v]);
                    CHECK(0);
                }
                if (tried % 64 == 0) {  /* a write syncs: some of them */
                    write_again(rec);
                    write_file(data_path, good, len);
                }
            next:
                put_byte(data_path, p * PAGE + at, was);
            }
        }
    }
    printf("%zu pages with headers, %zu changes: %zu refused as damaged, the rest read back "
           "exactly or refused by their checksums\n", pages, tried, refused);
    CHECK(refused * 3 > tried);
    for (int i = 0; i < N_RESULTS; i++)
        analysis_result_free(expected[i]);
    char cmd[160];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    CHECK(system(cmd) == 0);
    return check_report("test_store_verify");
}
