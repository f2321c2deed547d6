#include "trace/staging.h"

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
#include "trace/recording.h"

#define STAGING_INFIX ".staging-"
#define STAGING_SUFFIX_LEN 6    /* mkdtemp's XXXXXX */
#define RESERVE_FILE "reserve"
#define MAX_HELD 8

/* The staging directories this process holds locked. */
static struct {
    char *path;
    int fd;
} held[MAX_HELD];

int staging_lock(const char *staging, struct trms_error *err)
{
    int fd = open(staging, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) != 0) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return error_set(err, "%s: cannot lock the staging directory: %s", staging, strerror(e));
    }
    for (int i = 0; i < MAX_HELD; i++)
        if (!held[i].path) {
            held[i].path = xstrdup(staging);
            held[i].fd = fd;
            return 0;
        }
    close(fd);
    return error_set(err, "%s: too many recordings staged at once", staging);
}

void staging_unlock(const char *staging)
{
    for (int i = 0; i < MAX_HELD; i++)
        if (held[i].path && strcmp(held[i].path, staging) == 0) {
            close(held[i].fd);
            free(held[i].path);
            held[i].path = NULL;
        }
}

int staging_is_name(const char *name)
{
    size_t len = strlen(name), infix = strlen(STAGING_INFIX);
    if (name[0] != '.' || len < 1 + 1 + infix + STAGING_SUFFIX_LEN)
        return 0;
    const char *tail = name + len - STAGING_SUFFIX_LEN - infix;
    return strncmp(tail, STAGING_INFIX, infix) == 0;
}

/* Deeper than any recording: a crafted one nested deeper is measured to
 * here, not through the stack. */
#define USAGE_MAX_DEPTH 16

static uint64_t usage_at(int at, const char *name, int depth)
{
    struct stat st;
    if (fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return 0;
    uint64_t total = (uint64_t)st.st_blocks * 512;
    if (!S_ISDIR(st.st_mode) || depth >= USAGE_MAX_DEPTH)
        return total;
    /* Never through a link: a recording's directory is measured, not
     * what a link inside it leads to. */
    int fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
    if (!dir) {
        if (fd >= 0)
            close(fd);
        return total;
    }
    for (struct dirent *e; (e = readdir(dir));)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            total += usage_at(dirfd(dir), e->d_name, depth + 1);
    closedir(dir);
    return total;
}

uint64_t staging_disk_usage(const char *path)
{
    return usage_at(AT_FDCWD, path, 0);
}

uint64_t staging_bytes_written(const char *staging)
{
    char *reserve = recording_file(staging, RESERVE_FILE);
    uint64_t all = staging_disk_usage(staging), kept_back = staging_disk_usage(reserve);
    free(reserve);
    return all > kept_back ? all - kept_back : 0;
}

int staging_remove_tree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return errno == ENOENT ? 0 : -1;
    if (!S_ISDIR(st.st_mode))
        return unlink(path);
    DIR *dir = opendir(path);
    if (!dir)
        return -1;
    int rc = 0;
    for (struct dirent *e; (e = readdir(dir));) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char *child = recording_file(path, e->d_name);
        if (staging_remove_tree(child) != 0)
            rc = -1;
        free(child);
    }
    closedir(dir);
    int e = errno;
    if (rmdir(path) != 0)
        return -1;
    errno = e;
    return rc;
}

/* A staging directory nobody holds: a live trms keeps its own locked. */
static int abandoned(const char *path)
{
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return 0;
    int free_to_take = flock(fd, LOCK_EX | LOCK_NB) == 0;
    close(fd);  /* releases it */
    return free_to_take;
}

int staging_find_leftovers(const char *dir, struct staging_leftover **out, size_t *n,
                           struct trms_error *err)
{
    *out = NULL;
    *n = 0;
    DIR *d = opendir(dir);
    if (!d)
        return error_set(err, "%s: cannot read the folder: %s", dir, strerror(errno));
    for (struct dirent *e; (e = readdir(d));) {
        if (!staging_is_name(e->d_name))
            continue;
        char *path = recording_file(dir, e->d_name);
        struct stat st;
        /* Ours only: a directory of this user's (any, for root). */
        int candidate = lstat(path, &st) == 0 && S_ISDIR(st.st_mode) &&
                        (st.st_uid == geteuid() || geteuid() == 0);
        if (!candidate || !abandoned(path)) {
            free(path);
            continue;
        }
        *out = xrealloc(*out, (*n + 1) * sizeof **out);
        (*out)[(*n)++] = (struct staging_leftover){.path = path,
                                                   .bytes = staging_disk_usage(path),
                                                   .modified = st.st_mtime};
    }
    closedir(d);
    return 0;
}

void staging_leftovers_free(struct staging_leftover *items, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(items[i].path);
    free(items);
}

int staging_reserve(const char *staging, uint64_t bytes, const char *name,
                    struct trms_error *err)
{
    char *path = recording_file(staging, RESERVE_FILE);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    int rc = fd < 0 ? errno : posix_fallocate(fd, 0, (off_t)bytes);
    if (fd >= 0)
        close(fd);
    if (rc == EOPNOTSUPP || rc == EINVAL)
        rc = 0;  /* no reserve where the file system cannot make one */
    if (rc != 0) {
        unlink(path);
        error_set(err, "%s: %s while creating the recording (needs about %.0f MiB)", name,
                  rc == ENOSPC ? "no space left on device" : strerror(rc),
                  (double)bytes / (1 << 20));
    }
    free(path);
    return rc ? -1 : 0;
}

void staging_release_reserve(const char *staging)
{
    char *path = recording_file(staging, RESERVE_FILE);
    unlink(path);
    free(path);
}

char *staging_parent_dir(const char *path)
{
    char *dir = xstrdup(path);
    size_t len = strlen(dir);
    while (len > 1 && dir[len - 1] == '/')  /* "x.rec/" is x.rec */
        dir[--len] = '\0';
    char *slash = strrchr(dir, '/');
    if (!slash)
        strcpy(dir, ".");
    else if (slash == dir)
        strcpy(dir, "/");
    else
        *slash = '\0';
    return dir;
}
