/* test_store_limits: the machine's limits are not damage (issue 27).
 *
 * Under a limit on address space (ulimit -v) a healthy store opens, reads
 * and takes new results: its map falls back from 16 GiB to what the file
 * holds and some room, and grows before a write that needs more. A limit
 * too low for even the file is said as such ("not enough address space",
 * "ulimit -v"), never as damage. Damaged stores set aside are numbered,
 * and a later one never replaces an earlier one. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "analyses/analysis.h"
#include "store/result_store.h"
#include "store/store_env.h"
#include "store/store_map.h"
#include "store/store_repair.h"
#include "tests/check.h"
#include "tests/fixture.h"
#include "tests/random_trace.h"
#include "tests/results_equal.h"

static char tmpdir[] = "/tmp/trms-test-limits-XXXXXX";

static struct analysis_result *random_result(uint64_t seed, uint64_t cell)
{
    struct random_trace_shape shape = {.threads = 2, .events = 2000, .routines = 7,
                                       .regions = 3, .region_span = 4096, .max_depth = 5};
    struct analysis_options opt;
    analysis_options_default(&opt);
    opt.cell_size = cell;
    return fixture_random_result(seed, &shape, &opt);
}

/* The address space this process has mapped now. */
static uint64_t mapped_bytes(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long long pages = 0;
    if (f) {
        if (fscanf(f, "%llu", &pages) != 1)
            pages = 0;
        fclose(f);
    }
    return (uint64_t)pages * (uint64_t)sysconf(_SC_PAGESIZE);
}

/* Limits this process (a child) to what it maps now and ROOM more. */
static void limit_address_space(uint64_t room)
{
    struct rlimit rl;
    rl.rlim_cur = rl.rlim_max = mapped_bytes() + room;
    CHECK(setrlimit(RLIMIT_AS, &rl) == 0);
}

/* Runs FN in a child under a limit of ROOM bytes of address space more
 * than the child maps; the child's checks count as this test's. */
static void in_child(void (*fn)(const char *), const char *rec, uint64_t room)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        limit_address_space(room);
        fn(rec);
        exit(check_report("test_store_limits (child)"));
    }
    int status;
    CHECK(waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static struct analysis_result *stored_a, *stored_b;

static void healthy_under_limit(const char *rec)
{
    struct trms_error err;
    struct result_store *s;
    /* Read: the 16 GiB map does not fit; the store is no less readable. */
    CHECK(result_store_open(rec, 0, &s, &err) == 0);
    struct analysis_result *got = NULL;
    CHECK(result_store_load(s, 4, 64, &got, &err) == 0 && results_equal(got, stored_a));
    analysis_result_free(got);
    result_store_close(s);
    /* Written: a new result goes in beside it. */
    CHECK(result_store_open(rec, 1, &s, &err) == 0);
    CHECK(result_store_save(s, stored_b, &err) == 0);
    result_store_close(s);
    CHECK(result_store_open(rec, 0, &s, &err) == 0);
    CHECK(result_store_load(s, 8, 64, &got, &err) == 0 && results_equal(got, stored_b));
    analysis_result_free(got);
    result_store_close(s);
    /* The map grows before a write that needs more than it has. */
    MDB_env *env;
    char *path;
    CHECK(store_env_open(rec, 1, &env, &path, &err) == 0);
    MDB_envinfo before, after;
    CHECK(mdb_env_info(env, &before) == 0);
    CHECK(before.me_mapsize < STORE_MAP_MAX);
    CHECK(store_map_room(env, path, before.me_mapsize + (8u << 20), &err) == 0);
    CHECK(mdb_env_info(env, &after) == 0);
    CHECK(after.me_mapsize > before.me_mapsize + (8u << 20));
    /* And says so, as a limit, when the address space has no more. */
    CHECK(store_map_room(env, path, UINT64_C(64) << 30, &err) != 0);
    CHECK(strstr(err.message, "not enough address space") != NULL);
    store_env_close(env);
    free(path);
}

static void too_large_for_limit(const char *rec)
{
    struct trms_error err;
    struct result_store *s;
    int rc = result_store_open(rec, 0, &s, &err);
    CHECK(rc != 0 && rc != RESULT_STORE_DAMAGED);
    CHECK(strstr(err.message, "not enough address space") != NULL);
    CHECK(strstr(err.message, "ulimit -v") != NULL);
    CHECK(strstr(err.message, "damaged") == NULL);
    rc = result_store_open(rec, 1, &s, &err);
    CHECK(rc != 0 && rc != RESULT_STORE_DAMAGED);
    CHECK(strstr(err.message, "not enough address space") != NULL);
}

static void address_space(void)
{
    char rec[256];
    snprintf(rec, sizeof rec, "%s/limited.rec", tmpdir);
    CHECK(mkdir(rec, 0777) == 0);
    stored_a = random_result(1, 4);
    stored_b = random_result(2, 8);
    struct trms_error err;
    struct result_store *s;
    CHECK(result_store_open(rec, 1, &s, &err) == 0);
    CHECK(result_store_save(s, stored_a, &err) == 0);
    result_store_close(s);
    in_child(healthy_under_limit, rec, UINT64_C(512) << 20);
    /* The same store grown (room at its end, as a reservation leaves it)
     * past what the limit allows. */
    char data[300];
    snprintf(data, sizeof data, "%s/results/data.mdb", rec);
    CHECK(truncate(data, (off_t)(UINT64_C(4) << 30)) == 0);
    in_child(too_large_for_limit, rec, UINT64_C(512) << 20);
    /* Without the limit it is whole. */
    CHECK(result_store_open(rec, 0, &s, &err) == 0);
    result_store_close(s);
    analysis_result_free(stored_a);
    analysis_result_free(stored_b);
}

/* results/ holding one file named MARK. */
static void make_store_dir(const char *rec, const char *mark)
{
    char path[300];
    snprintf(path, sizeof path, "%s/results", rec);
    CHECK(mkdir(path, 0777) == 0);
    snprintf(path, sizeof path, "%s/results/%s", rec, mark);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f)
        fclose(f);
}

static int holds(const char *dir, const char *mark)
{
    char path[PATH_MAX];
    struct stat st;
    int n = snprintf(path, sizeof path, "%s/%s", dir, mark);
    return n > 0 && (size_t)n < sizeof path && stat(path, &st) == 0;
}

static void numbered_set_aside(void)
{
    char rec[256];
    snprintf(rec, sizeof rec, "%s/aside.rec", tmpdir);
    CHECK(mkdir(rec, 0777) == 0);
    const char *marks[] = {"first", "second", "third"};
    const char *names[] = {"results.damaged", "results.damaged.2", "results.damaged.3"};
    struct trms_error err;
    for (int i = 0; i < 3; i++) {
        make_store_dir(rec, marks[i]);
        char *aside, want[300];
        CHECK(store_set_aside(rec, &aside, &err) == 0);
        snprintf(want, sizeof want, "%s/%s", rec, names[i]);
        CHECK_STR(aside, want);
        free(aside);
    }
    /* Each kept its own, none replaced by a later repair. */
    for (int i = 0; i < 3; i++) {
        char dir[300];
        snprintf(dir, sizeof dir, "%s/%s", rec, names[i]);
        CHECK(holds(dir, marks[i]));
    }
    /* An empty directory under the next name is not replaced either. */
    char squat[300];
    snprintf(squat, sizeof squat, "%s/results.damaged.4", rec);
    CHECK(mkdir(squat, 0777) == 0);
    make_store_dir(rec, "fourth");
    char *aside;
    CHECK(store_set_aside(rec, &aside, &err) == 0);
    CHECK(strstr(aside, "results.damaged.5") != NULL);
    free(aside);
    char **paths;
    uint64_t *bytes;
    size_t n;
    CHECK(store_set_aside_list(rec, &paths, &bytes, &n, &err) == 0);
    CHECK_EQ(n, 5);
    for (size_t i = 0; i < n; i++) {
        CHECK(store_set_aside_remove(paths[i], &err) == 0);
        free(paths[i]);
    }
    free(paths);
    free(bytes);
    CHECK(store_set_aside_list(rec, &paths, &bytes, &n, &err) == 0);
    CHECK_EQ(n, 0);
    CHECK(store_is_set_aside_name("results.damaged.12"));
    CHECK(!store_is_set_aside_name("results.damaged.0"));
    CHECK(!store_is_set_aside_name("results.damaged."));
    CHECK(!store_is_set_aside_name("results.damagedx"));
    CHECK(!store_is_set_aside_name("results"));
}

int main(void)
{
    CHECK(mkdtemp(tmpdir) != NULL);
    address_space();
    numbered_set_aside();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    CHECK(system(cmd) == 0);
    return check_report("test_store_limits");
}
