#include "store/store_space.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/statvfs.h>

#define MIB (1024.0 * 1024.0)

/* Bytes free for this user on PATH's file system; UINT64_MAX when unknown. */
static uint64_t free_bytes(const char *path)
{
    struct statvfs vfs;
    if (statvfs(path, &vfs) != 0)
        return UINT64_MAX;
    return (uint64_t)vfs.f_bavail * vfs.f_frsize;
}

static int space_error(const char *path, int errnum, const char *what, uint64_t need,
                       struct trms_error *err)
{
    uint64_t left = free_bytes(path);
    char free_text[48] = "";
    if (left != UINT64_MAX)
        snprintf(free_text, sizeof free_text, ", %.1f MiB free", (double)left / MIB);
    const char *cause = errnum == EDQUOT ? "disk quota exceeded" : "no space left on device";
    return error_set(err, "%s: %s while %s (needs about %.0f MiB%s)", path, cause, what,
                     (double)need / MIB + 0.999, free_text);
}

int store_space_reserve(MDB_env *env, const char *path, uint64_t bytes, const char *what,
                        struct trms_error *err)
{
    MDB_envinfo info;
    MDB_stat st;
    int fd;
    if (mdb_env_info(env, &info) != 0 || mdb_env_stat(env, &st) != 0 ||
        mdb_env_get_fd(env, &fd) != 0)
        return 0;  /* nothing to measure by: the write says what fails */
    uint64_t end = ((uint64_t)info.me_last_pgno + 1) * st.ms_psize;
    uint64_t want = (bytes + STORE_SPACE_SLACK(bytes) + st.ms_psize - 1) / st.ms_psize * st.ms_psize;
    /* Room already allocated (the rest of an earlier reservation) costs
     * nothing here; only what is missing is taken from the device. */
    int rc = posix_fallocate(fd, (off_t)end, (off_t)want);
    if (rc == 0 || rc == EOPNOTSUPP || rc == EINVAL)
        return 0;  /* a file system without it: the write will tell */
    if (rc == ENOSPC || rc == EDQUOT)
        return space_error(path, rc, what, want, err);
    return error_set(err, "%s: cannot make room while %s: %s", path, what, strerror(rc));
}

const char *store_damage_cause(int rc)
{
    switch (rc) {
    case MDB_CORRUPTED:
    case MDB_PAGE_NOTFOUND:
    case MDB_INVALID:
    case MDB_VERSION_MISMATCH:
    case MDB_BAD_TXN:
    case MDB_INCOMPATIBLE:
        return mdb_strerror(rc);
    default:
        return NULL;
    }
}

int store_write_error(const char *path, int rc, const char *what, uint64_t need,
                      struct trms_error *err)
{
    uint64_t want = need + STORE_SPACE_SLACK(need);
    if (rc == ENOSPC || rc == EDQUOT)
        return space_error(path, rc, what, want, err);
    /* LMDB reports a short write as EIO: a device that filled up. */
    if ((rc == EIO || rc == EFBIG) && free_bytes(path) < want)
        return space_error(path, ENOSPC, what, want, err);
    const char *damage = store_damage_cause(rc);
    if (damage)
        return error_set(err, "%s: the result store is damaged (%s) while %s", path, damage,
                         what);
    return error_set(err, "%s: %s while %s", path, mdb_strerror(rc), what);
}
