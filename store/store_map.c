#include "store/store_map.h"

#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "store/store_guard.h"
#include "store/store_space.h"

#define MIB (UINT64_C(1) << 20)

static uint64_t round_mib(uint64_t bytes)
{
    uint64_t r = (bytes + MIB - 1) / MIB * MIB;
    return r ? r : MIB;
}

int store_map_sizes(uint64_t file_bytes, uint64_t sizes[3])
{
    uint64_t fitted = round_mib(file_bytes + STORE_MAP_ROOM), exact = round_mib(file_bytes);
    int n = 0;
    sizes[n++] = STORE_MAP_MAX > exact ? STORE_MAP_MAX : exact;
    if (fitted < sizes[0])
        sizes[n++] = fitted;
    if (exact < fitted)
        sizes[n++] = exact;
    return n;
}

int store_map_no_room(int rc)
{
    return rc == ENOMEM || rc == EFBIG;
}

int store_map_error(const char *path, uint64_t bytes, struct trms_error *err)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
        return error_set(err, "%s: not enough address space to map the result store (it needs "
                              "%" PRIu64 " MiB; ulimit -v allows %" PRIu64 " MiB for all of "
                              "trms): raise ulimit -v", path, round_mib(bytes) / MIB,
                         (uint64_t)rl.rlim_cur / MIB);
    return error_set(err, "%s: not enough address space to map the result store (it needs "
                          "%" PRIu64 " MiB)", path, round_mib(bytes) / MIB);
}

/* Maps ENV at SIZE (no transaction open); the guard follows the map. */
static int remap(MDB_env *env, uint64_t size)
{
    int rc = mdb_env_set_mapsize(env, (size_t)size);
    store_guard_rewatch(env);
    return rc;
}

int store_map_room(MDB_env *env, const char *path, uint64_t bytes, struct trms_error *err)
{
    MDB_envinfo info;
    MDB_stat st;
    if (mdb_env_info(env, &info) != 0 || mdb_env_stat(env, &st) != 0)
        return 0;  /* nothing to measure by: the write says what fails */
    uint64_t end = ((uint64_t)info.me_last_pgno + 1) * st.ms_psize;
    uint64_t want = end + bytes + STORE_SPACE_SLACK(bytes);
    if (want <= info.me_mapsize)
        return 0;
    uint64_t size = round_mib(want + STORE_MAP_ROOM);
    int rc = remap(env, size);
    if (rc == 0)
        return 0;
    if (store_map_no_room(rc))
        return store_map_error(path, size, err);
    return error_set(err, "%s: cannot map the result store: %s", path, mdb_strerror(rc));
}

int store_txn_begin(MDB_env *env, unsigned flags, MDB_txn **txn)
{
    int rc = mdb_txn_begin(env, NULL, flags, txn);
    if (rc != MDB_MAP_RESIZED)
        return rc;
    int fd;
    struct stat st;
    if (mdb_env_get_fd(env, &fd) != 0 || fstat(fd, &st) != 0)
        return rc;
    if ((rc = remap(env, round_mib((uint64_t)st.st_size + STORE_MAP_ROOM))) != 0)
        return rc;
    return mdb_txn_begin(env, NULL, flags, txn);
}
