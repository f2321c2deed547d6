#include "common/regular_file.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *kind_of(mode_t mode)
{
    static const struct {
        mode_t type;
        const char *why;
    } kinds[] = {
        {S_IFIFO, "a FIFO, not a regular file"},
        {S_IFCHR, "a character device, not a regular file"},
        {S_IFBLK, "a block device, not a regular file"},
        {S_IFSOCK, "a socket, not a regular file"},
        {S_IFDIR, "a directory, not a regular file"},
        {S_IFLNK, "a symbolic link, not a regular file"},
    };
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
        if ((mode & S_IFMT) == kinds[i].type)
            return kinds[i].why;
    return "not a regular file";
}

int regular_file_open(const char *path, int flags, const char **why)
{
    struct stat before, after;
    int nofollow = flags & REGULAR_FILE_NOFOLLOW;
    if ((nofollow ? lstat(path, &before) : stat(path, &before)) != 0) {
        *why = strerror(errno);
        return -1;
    }
    if (!S_ISREG(before.st_mode)) {
        *why = kind_of(before.st_mode);
        return -1;
    }
    /* O_NONBLOCK: if the name was swapped for a FIFO meanwhile, the open
     * still returns, and the check below refuses it. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | (nofollow ? O_NOFOLLOW : 0));
    if (fd < 0) {
        *why = strerror(errno);
        return -1;
    }
    if (fstat(fd, &after) != 0 || !S_ISREG(after.st_mode) || after.st_dev != before.st_dev ||
        after.st_ino != before.st_ino) {
        *why = "changed while it was opened";
        close(fd);
        return -1;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    return fd;
}

FILE *regular_file_fopen(const char *path, int flags, const char **why)
{
    int fd = regular_file_open(path, flags, why);
    if (fd < 0)
        return NULL;
    FILE *fp = fdopen(fd, "rb");
    if (!fp) {
        *why = strerror(errno);
        close(fd);
    }
    return fp;
}
