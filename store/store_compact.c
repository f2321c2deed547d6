#include "store/store_compact.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/oom.h"
#include "common/regular_file.h"
#include "store/store_env.h"
#include "store/store_space.h"
#include "store/store_map.h"
#include "trace/recording.h"

#define COMPACT_PREFIX ".compact-"

static uint64_t db_pages(const MDB_stat *st)
{
    return (uint64_t)st->ms_branch_pages + st->ms_leaf_pages + st->ms_overflow_pages;
}

/* The pages of the main database and of every named one it lists. */
static int count_pages(MDB_txn *txn, uint64_t *pages, unsigned *psize)
{
    MDB_dbi main_dbi;
    MDB_stat st;
    int rc = mdb_dbi_open(txn, NULL, 0, &main_dbi);
    if (rc == 0)
        rc = mdb_stat(txn, main_dbi, &st);
    if (rc != 0)
        return rc;
    *pages = db_pages(&st);
    *psize = st.ms_psize;
    MDB_cursor *cur;
    if ((rc = mdb_cursor_open(txn, main_dbi, &cur)) != 0)
        return rc;
    MDB_val k, v;
    for (rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == 0;
         rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
        char name[64];
        if (k.mv_size == 0 || k.mv_size >= sizeof name || memchr(k.mv_data, '\0', k.mv_size))
            continue;
        memcpy(name, k.mv_data, k.mv_size);
        name[k.mv_size] = '\0';
        MDB_dbi dbi;
        if (mdb_dbi_open(txn, name, 0, &dbi) == 0 && mdb_stat(txn, dbi, &st) == 0)
            *pages += db_pages(&st);
    }
    mdb_cursor_close(cur);
    return rc == MDB_NOTFOUND ? 0 : rc;
}

int store_usage_of(MDB_env *env, const char *path, struct store_usage *u,
                   struct trms_error *err)
{
    *u = (struct store_usage){0};
    MDB_txn *txn;
    uint64_t pages = 0;
    unsigned psize = 0;
    int fd;
    struct stat st;
    int rc = store_txn_begin(env, MDB_RDONLY, &txn);
    if (rc == 0) {
        rc = count_pages(txn, &pages, &psize);
        mdb_txn_abort(txn);
    }
    if (rc != 0) {
        const char *damage = store_damage_cause(rc);
        return error_set(err, "%s: cannot measure the result store: %s", path,
                         damage ? "it is damaged" : mdb_strerror(rc));
    }
    if (mdb_env_get_fd(env, &fd) != 0 || fstat(fd, &st) != 0)
        return error_set(err, "%s: cannot measure the result store", path);
    u->file_bytes = (uint64_t)st.st_size;
    u->used_bytes = (pages + 2) * psize;  /* and the two meta pages */
    u->free_bytes = u->file_bytes > u->used_bytes ? u->file_bytes - u->used_bytes : 0;
    return 0;
}

int store_measure(const char *rec_path, struct store_usage *u, struct trms_error *err)
{
    *u = (struct store_usage){0};
    MDB_env *env;
    char *path;
    int rc = store_env_open(rec_path, 0, &env, &path, err);
    if (rc == 0) {
        rc = store_usage_of(env, path, u, err);
        store_env_close(env);
    }
    free(path);
    return rc == STORE_ENV_DAMAGED ? -1 : rc;
}

int store_check_pages(const char *rec_path, struct store_usage *u, struct trms_error *err)
{
    *u = (struct store_usage){0};
    MDB_env *env;
    char *path;
    int rc = store_env_open(rec_path, 0, &env, &path, err);
    if (rc == 0) {
        rc = store_usage_of(env, path, u, err);
        int sink = rc == 0 ? open("/dev/null", O_WRONLY | O_CLOEXEC) : -1;
        if (sink >= 0) {
            int lmdb_rc = mdb_env_copyfd2(env, sink, MDB_CP_COMPACT);
            close(sink);
            /* Only damage LMDB names is damage: no memory, a read error
             * are this machine's, and set nothing aside. */
            const char *damage = store_damage_cause(lmdb_rc);
            if (lmdb_rc != 0 && damage) {
                error_set(err, "%s: the result store is damaged (%s)" STORE_DAMAGED_HINT, path,
                          damage);
                rc = STORE_ENV_DAMAGED;
            } else if (lmdb_rc != 0) {
                error_set(err, "%s: cannot read the result store: %s", path,
                          mdb_strerror(lmdb_rc));
                rc = -1;
            }
        }
        store_env_close(env);
    }
    free(path);
    return rc;
}

static void remove_copy(const char *dir)
{
    char *data = recording_file(dir, "data.mdb");
    unlink(data);
    free(data);
    rmdir(dir);
}

/* Copies left by a compaction that was killed. */
static void remove_stale_copies(const char *path)
{
    DIR *d = opendir(path);
    if (!d)
        return;
    for (struct dirent *e; (e = readdir(d));) {
        if (strncmp(e->d_name, COMPACT_PREFIX, strlen(COMPACT_PREFIX)) != 0)
            continue;
        char *dir = recording_file(path, e->d_name);
        remove_copy(dir);
        free(dir);
    }
    closedir(d);
}

static int sync_path(const char *path, int flags)
{
    int fd = open(path, flags | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int rc = fsync(fd);
    close(fd);
    return rc;
}

/* Writes the compact copy into COPY_DIR and renames it over PATH's file. */
static int replace_with_copy(MDB_env **env, const char *path, const char *copy_dir,
                             struct store_usage *before, struct trms_error *err)
{
    if (mkdir(copy_dir, 0777) != 0)
        return error_set(err, "%s: cannot compact the result store: %s", path,
                         strerror(errno));
    int rc = mdb_env_copy2(*env, copy_dir, MDB_CP_COMPACT);
    char *copy = recording_file(copy_dir, "data.mdb");
    if (rc == 0 && sync_path(copy, O_RDONLY) != 0)
        rc = errno;
    if (rc != 0) {
        free(copy);
        remove_copy(copy_dir);
        return store_write_error(path, rc, "compacting the result store", before->used_bytes,
                                 err);
    }
    /* Nobody else has it open (the lock): the copy replaces it whole. */
    store_env_close(*env);
    *env = NULL;
    char *data = recording_file(path, "data.mdb");
    int moved = rename(copy, data) == 0;
    int e = errno;
    free(data);
    free(copy);
    remove_copy(copy_dir);
    if (!moved)
        return error_set(err, "%s: cannot compact the result store: %s", path, strerror(e));
    sync_path(path, O_RDONLY | O_DIRECTORY);
    return 0;
}

int store_compact(const char *rec_path, int force, struct store_usage *before,
                  struct store_usage *after, int *busy, struct trms_error *err)
{
    *before = *after = (struct store_usage){0};
    *busy = 0;
    char *path = recording_file(rec_path, RECORDING_RESULTS);
    const char *why;
    /* Never made through a link planted there (lock_file_open). */
    int lock = lock_file_open(path, STORE_ENV_LOCK_FILE, 1, &why);
    if (lock < 0 && (errno == ENOENT || errno == EROFS || errno == EACCES || errno == EPERM)) {
        free(path);  /* a read-only recording, or no store: nothing to do */
        return 0;
    }
    if (lock < 0) {
        error_set(err, "%s: the result store is damaged (%s is %s)" STORE_DAMAGED_HINT, path,
                  STORE_ENV_LOCK_FILE, why);
        free(path);
        return -1;
    }
    if (flock(lock, LOCK_EX | LOCK_NB) != 0) {
        *busy = 1;
        close(lock);
        free(path);
        return 0;
    }
    remove_stale_copies(path);
    MDB_env *env = NULL;
    char *env_path;
    int rc = store_env_open_unlocked(rec_path, 1, &env, &env_path, err);
    free(env_path);
    if (rc == 0)
        rc = store_usage_of(env, path, before, err);
    int worth = rc == 0 && (force ? before->free_bytes > 0
                                  : before->free_bytes >= STORE_COMPACT_MIN_FREE &&
                                        before->free_bytes >= before->used_bytes);
    if (worth) {
        char copy_dir[64];
        snprintf(copy_dir, sizeof copy_dir, "%s%ld", COMPACT_PREFIX, (long)getpid());
        char *copy_path = recording_file(path, copy_dir);
        rc = replace_with_copy(&env, path, copy_path, before, err);
        free(copy_path);
    }
    store_env_close(env);
    if (worth && rc == 0) {
        rc = store_env_open_unlocked(rec_path, 0, &env, &env_path, err);
        free(env_path);
        if (rc == 0) {
            rc = store_usage_of(env, path, after, err);
            store_env_close(env);
        }
    }
    close(lock);
    free(path);
    return rc != 0 ? -1 : worth;
}
