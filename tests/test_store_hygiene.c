/* The result store under faults: compaction gives freed room back and
 * keeps every record; it waits for other processes to close the store; a
 * store cut short, or cut under a reader, is "damaged" in one line, never
 * a crash; a write that cannot get its room leaves the earlier result; one
 * analysis per key at a time. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "analyses/analysis.h"
#include "common/state_stream.h"
#include "store/checkpoint_store.h"
#include "store/result_store.h"
#include "store/store_compact.h"
#include "store/store_lock.h"
#include "tests/check.h"
#include "tests/fixture.h"
#include "tests/random_trace.h"
#include "tests/results_equal.h"

static char tmpdir[] = "/tmp/trms-test-hygiene-XXXXXX";

static struct analysis_result *random_result(uint64_t seed, uint64_t cell)
{
    struct random_trace_shape shape = {.threads = 3, .events = 3000, .routines = 9,
                                       .regions = 3, .region_span = 4096, .max_depth = 6};
    struct analysis_options opt;
    analysis_options_default(&opt);
    opt.cell_size = cell;
    return fixture_random_result(seed, &shape, &opt);
}

static char *make_rec(const char *name)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    mkdir(path, 0777);
    return path;
}

/* LEN bytes of checkpoint, pseudo-random so that nothing compresses. */
static int save_checkpoint(struct result_store *s, const struct result_key *key, size_t len,
                           uint32_t seed)
{
    struct trms_error err;
    struct checkpoint_save *c;
    if (checkpoint_save_begin(s, key, &c, &err) != 0)
        return -1;
    struct state_writer w;
    state_writer_init(&w, checkpoint_save_bytes, c);
    uint8_t block[4096];
    for (size_t done = 0; done < len; done += sizeof block) {
        for (size_t i = 0; i < sizeof block; i++) {
            seed = seed * 1103515245u + 12345u;
            block[i] = (uint8_t)(seed >> 16);
        }
        state_put_bytes(&w, block, sizeof block);
    }
    CHECK(state_writer_finish(&w) == 0);
    return checkpoint_save_commit(c, &err);
}

static int loads_as(const char *rec, uint64_t cell, const struct analysis_result *want)
{
    struct trms_error err;
    struct result_store *s;
    struct analysis_result *got = NULL;
    if (result_store_open(rec, 0, &s, &err) != 0)
        return 0;
    int same = result_store_load(s, cell, 64, &got, &err) == 0 && results_equal(got, want);
    analysis_result_free(got);
    result_store_close(s);
    return same;
}

/* Checkpoints of 3 x 12 MiB leave their room behind once the result
 * drops them; compacting gives it back and keeps every record. */
static void compaction(void)
{
    const char *rec = make_rec("compact");
    struct trms_error err;
    struct result_store *s;
    CHECK(result_store_open(rec, 1, &s, &err) == 0);
    struct analysis_result *r8 = random_result(1, 8), *r4 = random_result(2, 4);
    CHECK(result_store_save(s, r8, &err) == 0);
    struct result_key k4 = {.cell_size = 4, .line_size = 64};
    for (uint32_t i = 0; i < 3; i++)
        CHECK(save_checkpoint(s, &k4, 12u << 20, i) == 0);
    CHECK(result_store_save(s, r4, &err) == 0);  /* drops the checkpoint */
    result_store_close(s);

    struct store_usage before, after;
    CHECK(store_measure(rec, &before, &err) == 0);
    CHECK(before.free_bytes >= STORE_COMPACT_MIN_FREE && before.free_bytes >= before.used_bytes);
    int busy = 1;
    CHECK_EQ(store_compact(rec, 0, &before, &after, &busy, &err), 1);
    CHECK_EQ(busy, 0);
    CHECK(after.file_bytes < (2u << 20));
    CHECK(after.file_bytes * 10 < before.file_bytes);
    CHECK(after.used_bytes <= before.used_bytes);
    CHECK(loads_as(rec, 8, r8));
    CHECK(loads_as(rec, 4, r4));
    /* Nothing left worth it; and nothing of the copy left behind. */
    CHECK_EQ(store_compact(rec, 0, &before, &after, &busy, &err), 0);
    char copy[300];
    snprintf(copy, sizeof copy, "%s/results/.compact-%ld", rec, (long)getpid());
    struct stat st;
    CHECK(stat(copy, &st) != 0);
    /* The store still takes writes after the swap. */
    CHECK(result_store_open(rec, 1, &s, &err) == 0);
    CHECK(result_store_save(s, r8, &err) == 0);
    result_store_close(s);
    CHECK(loads_as(rec, 8, r8));
    CHECK(loads_as(rec, 4, r4));
    analysis_result_free(r8);
    analysis_result_free(r4);
}

/* Another process with the store open keeps it from being replaced. */
static void compaction_waits_for_readers(void)
{
    const char *rec = make_rec("busy");
    struct trms_error err;
    struct result_store *s;
    CHECK(result_store_open(rec, 1, &s, &err) == 0);
    struct analysis_result *r = random_result(3, 4);
    struct result_key k8 = {.cell_size = 8, .line_size = 64};
    CHECK(save_checkpoint(s, &k8, 1u << 20, 7) == 0);
    CHECK(checkpoint_remove(s, &k8, &err) == 0);
    CHECK(result_store_save(s, r, &err) == 0);
    result_store_close(s);
    int to_child[2], from_child[2];
    CHECK(pipe(to_child) == 0 && pipe(from_child) == 0);
    fflush(NULL);
    pid_t child = fork();
    if (child == 0) {
        char c = 0;
        int ok = result_store_open(rec, 0, &s, &err) == 0;
        if (write(from_child[1], &c, 1) != 1 || read(to_child[0], &c, 1) != 1)
            _exit(3);
        if (ok)
            result_store_close(s);
        _exit(ok ? 0 : 2);
    }
    char c;
    CHECK(read(from_child[0], &c, 1) == 1);
    struct store_usage before, after;
    int busy = 0;
    CHECK_EQ(store_compact(rec, 1, &before, &after, &busy, &err), 0);
    CHECK_EQ(busy, 1);
    CHECK(write(to_child[1], &c, 1) == 1);
    int status;
    CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK_EQ(store_compact(rec, 1, &before, &after, &busy, &err), 1);
    CHECK(loads_as(rec, 4, r));
    analysis_result_free(r);
    close(to_child[0]);
    close(to_child[1]);
    close(from_child[0]);
    close(from_child[1]);
}

static void cut_file(const char *rec, off_t size)
{
    char path[300];
    snprintf(path, sizeof path, "%s/results/data.mdb", rec);
    CHECK(truncate(path, size) == 0);
}

/* A data file shorter than its pages is refused at open, in one line. */
static void cut_short(void)
{
    const char *rec = make_rec("cut");
    struct trms_error err;
    struct result_store *s;
    CHECK(result_store_open(rec, 1, &s, &err) == 0);
    struct analysis_result *r = random_result(4, 4);
    CHECK(result_store_save(s, r, &err) == 0);
    analysis_result_free(r);
    result_store_close(s);
    struct store_usage u;
    CHECK(store_measure(rec, &u, &err) == 0);
    cut_file(rec, (off_t)(u.used_bytes / 2));
    for (int writable = 0; writable <= 1; writable++) {
        CHECK(result_store_open(rec, writable, &s, &err) != 0);
        CHECK(strstr(err.message, "the result store is damaged (data.mdb was cut short") != NULL);
        CHECK(strchr(err.message, '\n') == NULL);
    }
}

/* Cut while a reader has it open: its next read faults, and the guard
 * turns that into one line and exit status 1. */
static void cut_under_a_reader(void)
{
    const char *rec = make_rec("cut-live");
    struct trms_error err;
    struct result_store *s;
    CHECK(result_store_open(rec, 1, &s, &err) == 0);
    struct analysis_result *r = random_result(5, 4);
    CHECK(result_store_save(s, r, &err) == 0);
    analysis_result_free(r);
    result_store_close(s);
    int out[2];
    CHECK(pipe(out) == 0);
    fflush(NULL);
    pid_t child = fork();
    if (child == 0) {
        dup2(out[1], STDERR_FILENO);
        if (result_store_open(rec, 0, &s, &err) != 0)
            _exit(2);
        cut_file(rec, 8192);  /* the two meta pages */
        struct analysis_result *got;
        result_store_load(s, 4, 64, &got, &err);
        _exit(3);  /* the load should not have come back */
    }
    close(out[1]);
    char text[1024] = "";
    size_t got = 0;
    for (ssize_t n; got < sizeof text - 1 && (n = read(out[0], text + got, sizeof text - 1 - got)) > 0;)
        got += (size_t)n;  /* the guard writes its line in pieces */
    text[got] = '\0';
    close(out[0]);
    int status;
    CHECK(waitpid(child, &status, 0) == child);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 1)
        fprintf(stderr, "cut under a reader: status 0x%x, said: %s\n", status, text);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 1);
    CHECK(strstr(text, "the result store is damaged") != NULL);
    CHECK(strchr(text, '\n') == text + strlen(text) - 1);
}

/* A write that cannot get its room (here: a file size limit) fails before
 * anything is written, saying why; the earlier result stays. */
static void no_room(void)
{
    const char *rec = make_rec("no-room");
    struct trms_error err;
    struct result_store *s;
    CHECK(result_store_open(rec, 1, &s, &err) == 0);
    struct analysis_result *r = random_result(6, 4);
    CHECK(result_store_save(s, r, &err) == 0);
    result_store_close(s);
    fflush(NULL);
    pid_t child = fork();
    if (child == 0) {
        signal(SIGXFSZ, SIG_IGN);
        struct store_usage u;
        if (store_measure(rec, &u, &err) != 0)
            _exit(2);
        struct rlimit limit = {.rlim_cur = u.file_bytes, .rlim_max = RLIM_INFINITY};
        setrlimit(RLIMIT_FSIZE, &limit);
        if (result_store_open(rec, 1, &s, &err) != 0)
            _exit(3);
        struct analysis_result *big = random_result(7, 8);
        int rc = result_store_save(s, big, &err);
        _exit(rc != 0 && strstr(err.message, "while writing the result") ? 0 : 4);
    }
    int status;
    CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK(loads_as(rec, 4, r));
    analysis_result_free(r);
}

/* One analysis per key: the second is refused, another key goes on. */
static void one_analysis_per_key(void)
{
    const char *rec = make_rec("locks");
    struct trms_error err;
    struct result_store *s;
    CHECK(result_store_open(rec, 1, &s, &err) == 0);
    result_store_close(s);
    struct result_key k4 = {.cell_size = 4, .line_size = 64}, k8 = {.cell_size = 8, .line_size = 64},
                      k4c = {.cell_size = 4, .line_size = 64, .contexts = 1};
    int a, b, c, d;
    CHECK_EQ(store_lock_analysis(rec, &k4, &a, &err), 0);
    CHECK_EQ(store_lock_analysis(rec, &k4, &b, &err), STORE_LOCK_BUSY);
    CHECK_EQ(store_lock_analysis(rec, &k8, &c, &err), 0);
    CHECK_EQ(store_lock_analysis(rec, &k4c, &d, &err), 0);
    close(a);
    CHECK_EQ(store_lock_analysis(rec, &k4, &b, &err), 0);
    close(b);
    close(c);
    close(d);
}

int main(void)
{
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    compaction();
    compaction_waits_for_readers();
    cut_short();
    cut_under_a_reader();
    no_room();
    one_analysis_per_key();
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tmpdir);
    return check_report("test_store_hygiene");
}
