#include "store/store_env.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>

#include "store/store_verify.h"
#include "trace/recording.h"

/* Address space reserved for the map; the file grows only as used. */
#define MAP_SIZE (UINT64_C(16) << 30)

static int damaged(const char *path, const char *why, struct trms_error *err)
{
    error_set(err, "%s: the result store is damaged (%s)" STORE_DAMAGED_HINT, path, why);
    return STORE_ENV_DAMAGED;
}

int store_env_open(const char *rec_path, int writable, MDB_env **env, char **path,
                   struct trms_error *err)
{
    *env = NULL;
    *path = recording_file(rec_path, RECORDING_RESULTS);
    struct stat st;
    if (lstat(*path, &st) != 0) {
        if (!writable)
            return STORE_ENV_ABSENT;
        if (mkdir(*path, 0777) != 0)
            return error_set(err, "%s: cannot create the result store: %s", *path,
                             strerror(errno));
    } else if (!S_ISDIR(st.st_mode)) {
        return error_set(err, "%s: not a result store (%s)", *path,
                         S_ISLNK(st.st_mode) ? "a symbolic link" : "not a directory");
    }
    char why[512];
    if (store_verify_files(*path, writable, why, sizeof why) != 0)
        return damaged(*path, why, err);
    int rc;
    if ((rc = mdb_env_create(env)) != 0 || (rc = mdb_env_set_mapsize(*env, MAP_SIZE)) != 0 ||
        (rc = mdb_env_set_maxdbs(*env, STORE_ENV_MAX_DBS)) != 0) {
        error_set(err, "%s: cannot set up the result store: %s", *path, mdb_strerror(rc));
        goto fail;
    }
    if ((rc = mdb_env_open(*env, *path, writable ? 0 : MDB_RDONLY, 0666)) != 0) {
        error_set(err, "%s: cannot open the result store: %s", *path, mdb_strerror(rc));
        goto fail;
    }
    if ((rc = store_verify_snapshot(*env, why, sizeof why)) != 0) {
        mdb_env_close(*env);
        *env = NULL;
        if (rc < 0)
            return damaged(*path, why, err);
        return error_set(err, "%s: cannot check the result store: %s", *path, why);
    }
    /* Reader slots of processes that were killed (an interrupted analyze)
     * would keep LMDB from reusing the pages they saw: free them. */
    int dead;
    mdb_reader_check(*env, &dead);
    return 0;
fail:
    if (*env)
        mdb_env_close(*env);
    *env = NULL;
    return -1;
}
