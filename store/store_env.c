#define _GNU_SOURCE  /* fallocate */
#include "store/store_env.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/oom.h"
#include "common/regular_file.h"
#include "store/store_guard.h"
#include "store/store_map.h"
#include "store/store_space.h"
#include "store/store_verify.h"
#include "trace/recording.h"

/* LMDB's lock file holds its reader table (8 KiB for the default 126
 * readers) and is written through a shared map: a page of it that the
 * file system cannot allocate is a SIGBUS. Allocated ahead (past its end
 * without changing its size, for LMDB to extend it), so that LMDB finds
 * it backed. */
#define LMDB_LOCK_FILE "lock.mdb"
#define LMDB_DATA_FILE "data.mdb"
#define LMDB_LOCK_BYTES 8192
#define LOCK_FILE_ROOM (16u << 10)

struct env_extra {
    int lock_fd;    /* REC/results/trms.lock, shared-locked; -1 when none */
};

static int is_read_only_errno(int e)
{
    return e == EROFS || e == EACCES || e == EPERM;
}

static int read_only_error(const char *path, int e, struct trms_error *err)
{
    return error_set(err, "%s: cannot store results: the recording is read-only (%s); copy it "
                          "somewhere writable to analyze it", path, strerror(e));
}

static int creation_error(const char *path, int e, struct trms_error *err)
{
    if (e == ENOSPC || e == EDQUOT)
        return store_write_error(path, e, "creating the result store", 0, err);
    if (is_read_only_errno(e))
        return read_only_error(path, e, err);
    return error_set(err, "%s: cannot create the result store: %s", path, strerror(e));
}

/* The shared lock every open holds (store_compact takes it exclusively);
 * -1 where the file cannot even be read (nothing can replace the store
 * there either). Never made through a link (lock_file_open). */
static int take_open_lock(const char *path)
{
    const char *why;
    int fd = lock_file_open(path, STORE_ENV_LOCK_FILE, 1, &why);
    if (fd < 0)
        return -1;
    while (flock(fd, LOCK_SH) != 0)
        if (errno != EINTR)
            break;
    return fd;
}

/* LMDB's lock file, made (never through a link) and given its room
 * before LMDB opens it. 1 when there is no room for it and the open only
 * reads: the store is then read without it (MDB_NOLOCK), as on a
 * read-only mount; a writer fails with ERR. */
static int prepare_lmdb_lock_file(const char *path, int writable, const char *what,
                                  struct trms_error *err)
{
    struct stat st;
    char *file = recording_file(path, LMDB_LOCK_FILE);
    int existed = lstat(file, &st) == 0;
    const char *why;
    int fd = lock_file_open(path, LMDB_LOCK_FILE, 1, &why);
    if (fd < 0) {
        free(file);
        return 0;  /* LMDB's own open says why, or reads without it */
    }
    /* A file LMDB sized already is only checked for holes: a full disk
     * still reads a store whose lock file is whole. */
    off_t room = fstat(fd, &st) == 0 && st.st_size >= LMDB_LOCK_BYTES ? st.st_size
                                                                      : LOCK_FILE_ROOM;
    int rc = 0;
    if (fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, room) != 0 &&
        (errno == ENOSPC || errno == EDQUOT)) {
        int e = errno;
        if (!writable) {
            /* Unbacked, LMDB's map of it would fault: read without it. */
            if (!existed && st.st_size == 0)
                unlink(file);
            rc = 1;
        } else {
            rc = store_write_error(path, e, what, LOCK_FILE_ROOM, err);
        }
    }
    close(fd);
    free(file);
    return rc;
}

/* The data file of a new store, made before LMDB opens it (which would
 * follow a link planted there): empty, LMDB makes it a store. */
static void prepare_data_file(const char *path)
{
    const char *why;
    int fd = lock_file_open(path, LMDB_DATA_FILE, 1, &why);
    if (fd >= 0)
        close(fd);
}

/* LMDB's environment at PATH, mapped at the largest of the sizes
 * store_map_sizes gives that fits the address space; *SIZE the last one
 * tried. */
static int lmdb_open(const char *path, unsigned flags, MDB_env **env, uint64_t *size)
{
    char *data = recording_file(path, LMDB_DATA_FILE);
    struct stat st;
    uint64_t file_bytes = stat(data, &st) == 0 ? (uint64_t)st.st_size : 0;
    free(data);
    uint64_t sizes[3];
    int n = store_map_sizes(file_bytes, sizes), rc = ENOMEM;
    for (int i = 0; i < n && store_map_no_room(rc); i++) {
        *size = sizes[i];
        if ((rc = mdb_env_create(env)) != 0)
            return rc;
        if ((rc = mdb_env_set_mapsize(*env, (size_t)sizes[i])) != 0 ||
            (rc = mdb_env_set_maxdbs(*env, STORE_ENV_MAX_DBS)) != 0 ||
            (rc = mdb_env_open(*env, path, flags, 0666)) != 0) {
            mdb_env_close(*env);
            *env = NULL;
        }
    }
    return rc;
}

/* A file shorter than its last page would fault when that page is read. */
static int check_size(MDB_env *env, const char *path, struct trms_error *err)
{
    MDB_envinfo info;
    MDB_stat st;
    int fd;
    struct stat fst;
    if (mdb_env_info(env, &info) != 0 || mdb_env_stat(env, &st) != 0 ||
        mdb_env_get_fd(env, &fd) != 0 || fstat(fd, &fst) != 0)
        return 0;
    uint64_t needed = ((uint64_t)info.me_last_pgno + 1) * st.ms_psize;
    if ((uint64_t)fst.st_size < needed)
        return error_set(err, "%s: the result store is damaged (data.mdb was cut short: %lld "
                              "bytes, its pages reach byte %llu)" STORE_DAMAGED_HINT,
                         path, (long long)fst.st_size, (unsigned long long)needed);
    return 0;
}

/* A store found damaged: said with what to do, and told apart from other
 * failures (analyze sets it aside and rebuilds it). */
static int damaged(const char *path, const char *why, struct trms_error *err)
{
    error_set(err, "%s: the result store is damaged (%s)" STORE_DAMAGED_HINT, path, why);
    return STORE_ENV_DAMAGED;
}

static void remove_created(const char *path)
{
    const char *files[] = {LMDB_DATA_FILE, LMDB_LOCK_FILE, STORE_ENV_LOCK_FILE};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        char *file = recording_file(path, files[i]);
        unlink(file);
        free(file);
    }
    rmdir(path);
}

static int open_env(const char *rec_path, int writable, int lock, MDB_env **env, char **path,
                    struct trms_error *err)
{
    *env = NULL;
    *path = recording_file(rec_path, RECORDING_RESULTS);
    struct stat st;
    int created = 0;
    if (lstat(*path, &st) != 0) {
        if (!writable)
            return STORE_ENV_ABSENT;
        if (mkdir(*path, 0777) != 0)
            return creation_error(*path, errno, err);
        created = 1;
    } else if (!S_ISDIR(st.st_mode)) {
        /* A link would lead the store's writes out of the recording. */
        return error_set(err, "%s: not a result store (%s)", *path,
                         S_ISLNK(st.st_mode) ? "a symbolic link" : "not a directory");
    } else if (!writable) {
        char *data = recording_file(*path, LMDB_DATA_FILE);
        int absent = stat(data, &st) != 0 ? errno == ENOENT : st.st_size == 0;
        free(data);
        if (absent)  /* a creation that failed (a full disk), or an empty directory */
            return STORE_ENV_ABSENT;
    }
    /* Before any file in it is opened, let alone read by LMDB: the files
     * are what they should be, the meta pages sound (store_verify.h). */
    char why[512];
    if (store_verify_files(*path, writable, why, sizeof why) != 0)
        return damaged(*path, why, err);
    struct env_extra *extra = xcalloc(1, sizeof *extra);
    extra->lock_fd = lock ? take_open_lock(*path) : -1;
    const char *what = created ? "creating the result store" : "opening the result store";
    int lockless = prepare_lmdb_lock_file(*path, writable, what, err);
    int rc = lockless < 0 ? -1 : 0;
    if (rc == 0 && writable)
        prepare_data_file(*path);
    if (rc == 0) {
        uint64_t size = 0;
        rc = lmdb_open(*path, writable ? 0 : lockless ? MDB_RDONLY | MDB_NOLOCK : MDB_RDONLY, env,
                       &size);
        /* A read-only recording: read without LMDB's lock file, which
         * nobody may write there (nor write the store). */
        if (!writable && is_read_only_errno(rc))
            rc = lmdb_open(*path, MDB_RDONLY | MDB_NOLOCK, env, &size);
        if (rc != 0) {
            const char *damage = store_damage_cause(rc);
            if (is_read_only_errno(rc) && writable)
                read_only_error(*path, rc, err);
            else if (rc == ENOSPC || rc == EDQUOT)
                creation_error(*path, rc, err);
            else if (damage)
                rc = damaged(*path, damage, err);
            else if (store_map_no_room(rc))  /* the machine's limit, not the store's fault */
                store_map_error(*path, size, err);
            else
                error_set(err, "%s: cannot open the result store: %s", *path, mdb_strerror(rc));
            if (rc != STORE_ENV_DAMAGED)
                rc = -1;
        }
    }
    if (rc == 0 && check_size(*env, *path, err) != 0) {
        mdb_env_close(*env);
        *env = NULL;
        rc = STORE_ENV_DAMAGED;
    }
    /* Every page a transaction can reach, before LMDB walks any. */
    int checked = rc == 0 ? store_verify_snapshot(*env, why, sizeof why) : 0;
    if (checked != 0) {
        mdb_env_close(*env);
        *env = NULL;
        if (checked < 0)
            rc = damaged(*path, why, err);
        else
            rc = error_set(err, "%s: cannot check the result store: %s", *path, why);
    }
    if (rc != 0) {
        if (extra->lock_fd >= 0)
            close(extra->lock_fd);
        free(extra);
        if (created)
            remove_created(*path);
        return rc == STORE_ENV_DAMAGED ? rc : -1;
    }
    mdb_env_set_userctx(*env, extra);
    store_guard_watch(*env, *path);
    /* Reader slots of processes that were killed (an interrupted analyze)
     * would keep LMDB from reusing the pages they saw: free them. */
    int dead;
    mdb_reader_check(*env, &dead);
    return 0;
}

int store_env_open(const char *rec_path, int writable, MDB_env **env, char **path,
                   struct trms_error *err)
{
    return open_env(rec_path, writable, 1, env, path, err);
}

int store_env_open_unlocked(const char *rec_path, int writable, MDB_env **env, char **path,
                            struct trms_error *err)
{
    return open_env(rec_path, writable, 0, env, path, err);
}

void store_env_close(MDB_env *env)
{
    if (!env)
        return;
    struct env_extra *extra = mdb_env_get_userctx(env);
    store_guard_unwatch(env);
    mdb_env_close(env);
    if (extra && extra->lock_fd >= 0)
        close(extra->lock_fd);
    free(extra);
}
