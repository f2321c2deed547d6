#define _GNU_SOURCE  /* O_PATH */
#include "common/regular_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What a file that is not a regular one is, and the errno it reads as. */
static const struct {
    mode_t type;
    const char *why;
    int errnum;
} kinds[] = {
    {S_IFIFO, "a FIFO, not a regular file", ENXIO},
    {S_IFCHR, "a character device, not a regular file", ENXIO},
    {S_IFBLK, "a block device, not a regular file", ENXIO},
    {S_IFSOCK, "a socket, not a regular file", ENXIO},
    {S_IFDIR, "a directory, not a regular file", EISDIR},
    {S_IFLNK, "a symbolic link, not a regular file", ELOOP},
};

static int refuse_kind(mode_t mode, const char **why)
{
    *why = "not a regular file";
    errno = EINVAL;
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
        if ((mode & S_IFMT) == kinds[i].type) {
            *why = kinds[i].why;
            errno = kinds[i].errnum;
        }
    return -1;
}

static int fail_errno(const char **why)
{
    *why = strerror(errno);
    return -1;
}

/* The descriptor FD (opened O_NONBLOCK) is the regular file BEFORE
 * described; made blocking again. */
static int same_regular(int fd, const struct stat *before, const char **why)
{
    struct stat after;
    if (fstat(fd, &after) != 0 || !S_ISREG(after.st_mode) || after.st_dev != before->st_dev ||
        after.st_ino != before->st_ino) {
        close(fd);
        *why = "changed while it was opened";
        errno = ESTALE;
        return -1;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    return fd;
}

/* The directory NAME's last component lives in, walked down from DIRFD
 * (which is consumed) without following a link; *LAST points into NAME at
 * that component. -1 with *WHY. */
static int walk_down(int dirfd, const char *name, const char **last, const char **why)
{
    const char *p = name;
    for (;;) {
        const char *slash = strchr(p, '/');
        size_t len = slash ? (size_t)(slash - p) : strlen(p);
        if (len == 0 || (len == 1 && p[0] == '.') || (len == 2 && p[0] == '.' && p[1] == '.') ||
            len > NAME_MAX) {
            close(dirfd);
            *why = "not a plain name inside the recording";
            errno = EINVAL;
            return -1;
        }
        if (!slash) {
            *last = p;
            return dirfd;
        }
        char part[NAME_MAX + 1];
        memcpy(part, p, len);
        part[len] = '\0';
        struct stat st;
        int rc = fstatat(dirfd, part, &st, AT_SYMLINK_NOFOLLOW);
        if (rc != 0 || !S_ISDIR(st.st_mode)) {
            int e = errno;
            close(dirfd);
            if (rc != 0) {
                errno = e;
                return fail_errno(why);
            }
            return refuse_kind(st.st_mode, why);
        }
        int next = openat(dirfd, part, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        int e = errno;
        close(dirfd);
        if (next < 0) {
            errno = e;
            return fail_errno(why);
        }
        dirfd = next;
        p = slash + 1;
    }
}

/* The directory of NAME's last component, from DIR down (walk_down). */
static int open_parent_in(const char *dir, const char *name, const char **last, const char **why)
{
    int dirfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (dirfd < 0)
        return fail_errno(why);
    return walk_down(dirfd, name, last, why);
}

int regular_file_open_in(const char *dir, const char *name, const char **why)
{
    const char *last;
    int dirfd = open_parent_in(dir, name, &last, why);
    if (dirfd < 0)
        return -1;
    struct stat before;
    if (fstatat(dirfd, last, &before, AT_SYMLINK_NOFOLLOW) != 0) {
        int e = errno;
        close(dirfd);
        errno = e;
        return fail_errno(why);
    }
    if (!S_ISREG(before.st_mode)) {
        close(dirfd);
        return refuse_kind(before.st_mode, why);
    }
    /* O_NONBLOCK: a name swapped for a FIFO meanwhile still opens at once,
     * and same_regular refuses it. */
    int fd = openat(dirfd, last, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW);
    int e = errno;
    close(dirfd);
    if (fd < 0) {
        errno = e;
        return fail_errno(why);
    }
    return same_regular(fd, &before, why);
}

static int open_followed(const char *path, const char **why)
{
    struct stat before;
    if (stat(path, &before) != 0)
        return fail_errno(why);
    if (!S_ISREG(before.st_mode))
        return refuse_kind(before.st_mode, why);
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0)
        return fail_errno(why);
    return same_regular(fd, &before, why);
}

int regular_file_open(const char *path, int flags, const char **why)
{
    if (!(flags & REGULAR_FILE_NOFOLLOW))
        return open_followed(path, why);
    const char *slash = strrchr(path, '/');
    if (!slash)
        return regular_file_open_in(".", path, why);
    size_t len = slash == path ? 1 : (size_t)(slash - path);
    char *dir = malloc(len + 1);
    if (!dir) {
        *why = strerror(ENOMEM);
        errno = ENOMEM;
        return -1;
    }
    memcpy(dir, path, len);
    dir[len] = '\0';
    int fd = regular_file_open_in(dir, slash + 1, why);
    int e = errno;
    free(dir);
    errno = e;
    return fd;
}

static FILE *as_stream(int fd, const char **why)
{
    if (fd < 0)
        return NULL;
    FILE *fp = fdopen(fd, "rb");
    if (!fp) {
        *why = strerror(errno);
        close(fd);
    }
    return fp;
}

FILE *regular_file_fopen(const char *path, int flags, const char **why)
{
    return as_stream(regular_file_open(path, flags, why), why);
}

FILE *regular_file_fopen_in(const char *dir, const char *name, const char **why)
{
    return as_stream(regular_file_open_in(dir, name, why), why);
}

/* An existing lock file: read-write, or read-only where it cannot be
 * written; never through a link (O_NOFOLLOW), never blocking. */
static int open_existing_lock(int dirfd, const char *name)
{
    int flags = O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW;
    int fd = openat(dirfd, name, O_RDWR | flags);
    if (fd < 0 && (errno == EACCES || errno == EROFS || errno == EPERM))
        fd = openat(dirfd, name, O_RDONLY | flags);
    return fd;
}

int lock_file_open(const char *dir, const char *name, int create, const char **why)
{
    const char *last;
    int dirfd = open_parent_in(dir, name, &last, why);
    if (dirfd < 0)
        return -1;
    struct stat st;
    int fd = -1;
    /* Looked at before it is opened: a device is never opened at all. */
    if (fstatat(dirfd, last, &st, AT_SYMLINK_NOFOLLOW) == 0) {
        if (!S_ISREG(st.st_mode)) {
            close(dirfd);
            return refuse_kind(st.st_mode, why);
        }
        fd = open_existing_lock(dirfd, last);
    } else if (errno == ENOENT && create) {
        /* O_EXCL with O_CREAT never follows a link, dangling or not:
         * another process that made it meanwhile makes it EEXIST. */
        fd = openat(dirfd, last, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY,
                    0666);
        if (fd < 0 && errno == EEXIST && fstatat(dirfd, last, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
            S_ISREG(st.st_mode))
            fd = open_existing_lock(dirfd, last);
        else if (fd < 0 && errno == EEXIST)
            errno = ELOOP;  /* something else took the name: a link */
    }
    int e = errno;
    close(dirfd);
    if (fd < 0) {
        errno = e;
        return e == ELOOP ? refuse_kind(S_IFLNK, why) : fail_errno(why);
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return refuse_kind(st.st_mode, why);
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    return fd;
}
