/* store_verify_bench: what checking a result store before LMDB reads it
 * costs (store/store_verify.h), against reading every record of it through
 * LMDB, on stores of three shapes:
 *
 *   results      100 values of 1 MiB (results: long overflow runs)
 *   checkpoint   400 parts of 256 KiB (a large checkpoint)
 *   small        1,000,000 records of 32 bytes (many leaf and branch pages)
 *
 *   store-verify-bench [REPEAT]      (median and best of REPEAT runs, 5)
 *
 * The check reads every branch and leaf page and each overflow run's first
 * page; the LMDB read touches every page, values included, as a report
 * that reads every stored result does. */
#include <lmdb.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "store/store_verify.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void check(int rc, const char *what)
{
    if (rc != 0) {
        fprintf(stderr, "store-verify-bench: %s: %s\n", what, mdb_strerror(rc));
        exit(1);
    }
}

static MDB_env *open_env(const char *dir, unsigned flags)
{
    MDB_env *env;
    check(mdb_env_create(&env), "create");
    check(mdb_env_set_mapsize(env, UINT64_C(16) << 30), "mapsize");
    check(mdb_env_set_maxdbs(env, 4), "maxdbs");
    check(mdb_env_open(env, dir, flags, 0666), "open");
    return env;
}

/* A store of COUNT values of SIZE bytes under 8-byte big-endian keys. */
static void build(const char *dir, size_t count, size_t size)
{
    mkdir(dir, 0777);
    MDB_env *env = open_env(dir, MDB_NOSYNC);
    uint8_t *value = malloc(size);
    for (size_t i = 0; i < size; i++)
        value[i] = (uint8_t)(i * 131);
    size_t per_txn = size > 4096 ? 16 : 100000;
    for (size_t done = 0; done < count;) {
        MDB_txn *txn;
        MDB_dbi dbi;
        check(mdb_txn_begin(env, NULL, 0, &txn), "begin");
        check(mdb_dbi_open(txn, "results", MDB_CREATE, &dbi), "dbi");
        for (size_t k = 0; k < per_txn && done < count; k++, done++) {
            uint8_t key[8];
            for (int b = 0; b < 8; b++)
                key[b] = (uint8_t)(done >> (56 - 8 * b));
            MDB_val kv = {sizeof key, key}, vv = {size, value};
            check(mdb_put(txn, dbi, &kv, &vv, 0), "put");
        }
        check(mdb_txn_commit(txn), "commit");
    }
    free(value);
    mdb_env_sync(env, 1);
    mdb_env_close(env);
}

static double time_verify(const char *dir)
{
    MDB_env *env = open_env(dir, MDB_RDONLY);
    char why[512];
    double start = now();
    if (store_verify_snapshot(env, why, sizeof why) != 0) {
        fprintf(stderr, "store-verify-bench: the check failed: %s\n", why);
        exit(1);
    }
    double t = now() - start;
    mdb_env_close(env);
    return t;
}

static double time_read_all(const char *dir)
{
    MDB_env *env = open_env(dir, MDB_RDONLY);
    double start = now();
    MDB_txn *txn;
    MDB_dbi dbi;
    MDB_cursor *cur;
    check(mdb_txn_begin(env, NULL, MDB_RDONLY, &txn), "begin");
    check(mdb_dbi_open(txn, "results", 0, &dbi), "dbi");
    check(mdb_cursor_open(txn, dbi, &cur), "cursor");
    MDB_val k, v;
    uint64_t sum = 0;
    for (int rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == 0;
         rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT))
        for (size_t i = 0; i < v.mv_size; i += 4096)  /* touch every page */
            sum += ((const uint8_t *)v.mv_data)[i];
    mdb_cursor_close(cur);
    mdb_txn_abort(txn);
    double t = now() - start;
    mdb_env_close(env);
    if (sum == 1)
        puts("");
    return t;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    int repeat = argc > 1 ? atoi(argv[1]) : 5;
    if (repeat < 1 || repeat > 64)
        repeat = 5;
    char tmp[] = "/tmp/trms-store-verify-bench-XXXXXX";
    if (!mkdtemp(tmp))
        return 1;
    static const struct {
        const char *name;
        size_t count, size;
    } shapes[] = {{"results", 100, 1 << 20}, {"checkpoint", 400, 256 << 10},
                  {"small", 1000000, 32}};
    printf("| store | file | check: median (best) | every record through LMDB: median (best) "
           "| check / read |\n|---|---|---|---|---|\n");
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
        char dir[128], data[160];
        snprintf(dir, sizeof dir, "%s/%s", tmp, shapes[s].name);
        build(dir, shapes[s].count, shapes[s].size);
        snprintf(data, sizeof data, "%s/data.mdb", dir);
        struct stat st;
        stat(data, &st);
        double verify[64], read[64];
        for (int r = 0; r < repeat; r++) {  /* alternating, in one run */
            verify[r] = time_verify(dir);
            read[r] = time_read_all(dir);
        }
        qsort(verify, (size_t)repeat, sizeof *verify, by_value);
        qsort(read, (size_t)repeat, sizeof *read, by_value);
        double mv = verify[repeat / 2], mr = read[repeat / 2];
        printf("| %s: %zu x %zu B | %.0f MiB | %.1f ms (%.1f) | %.1f ms (%.1f) | %.2f |\n",
               shapes[s].name, shapes[s].count, shapes[s].size,
               (double)st.st_size / (1 << 20), mv * 1e3, verify[0] * 1e3, mr * 1e3,
               read[0] * 1e3, mv / mr);
        unlink(data);
        snprintf(data, sizeof data, "%s/lock.mdb", dir);
        unlink(data);
        rmdir(dir);
    }
    rmdir(tmp);
    return 0;
}
