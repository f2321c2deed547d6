#define _GNU_SOURCE  /* renameat2 */
#include "store/store_repair.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/oom.h"
#include "trace/recording.h"
#include "trace/staging.h"

int store_is_set_aside_name(const char *name)
{
    size_t len = strlen(STORE_SET_ASIDE);
    if (strncmp(name, STORE_SET_ASIDE, len) != 0)
        return 0;
    const char *n = name + len;
    if (*n == '\0')
        return 1;
    if (*n != '.' || n[1] < '1' || n[1] > '9')
        return 0;
    for (n++; *n; n++)
        if (*n < '0' || *n > '9')
            return 0;
    return strlen(name + len + 1) < 10;
}

/* Renames FROM to TO unless TO exists (renameat2's RENAME_NOREPLACE;
 * where the file system lacks it, a look first). */
static int rename_new(const char *from, const char *to)
{
    if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) == 0)
        return 0;
    if (errno != EINVAL && errno != ENOSYS)
        return -1;
    struct stat st;
    if (lstat(to, &st) == 0) {
        errno = EEXIST;
        return -1;
    }
    return rename(from, to);
}

int store_set_aside(const char *rec_path, char **aside, struct trms_error *err)
{
    char *results = recording_file(rec_path, RECORDING_RESULTS);
    size_t size = strlen(rec_path) + sizeof STORE_SET_ASIDE + 16;
    *aside = xmalloc(size);
    int rc = -1;
    for (int n = 1; n <= STORE_SET_ASIDE_MAX; n++) {
        if (n == 1)
            snprintf(*aside, size, "%s/%s", rec_path, STORE_SET_ASIDE);
        else
            snprintf(*aside, size, "%s/%s.%d", rec_path, STORE_SET_ASIDE, n);
        if (rename_new(results, *aside) == 0) {
            rc = 0;
            break;
        }
        if (errno != EEXIST && errno != ENOTEMPTY)
            break;
    }
    if (rc != 0 && (errno == EEXIST || errno == ENOTEMPTY))
        error_set(err, "%s: cannot set the damaged result store aside: the recording holds %d "
                       "set aside already; `trms gc %s` removes them", results,
                  STORE_SET_ASIDE_MAX, rec_path);
    else if (rc != 0)
        error_set(err, "%s: cannot set the damaged result store aside: %s", results,
                  strerror(errno));
    free(results);
    return rc;
}

int store_set_aside_list(const char *rec_path, char ***paths, uint64_t **bytes, size_t *n,
                         struct trms_error *err)
{
    *paths = NULL;
    *bytes = NULL;
    *n = 0;
    DIR *d = opendir(rec_path);
    if (!d)
        return error_set(err, "%s: %s", rec_path, strerror(errno));
    for (struct dirent *e; (e = readdir(d));) {
        if (!store_is_set_aside_name(e->d_name))
            continue;
        *paths = xrealloc(*paths, (*n + 1) * sizeof **paths);
        *bytes = xrealloc(*bytes, (*n + 1) * sizeof **bytes);
        (*paths)[*n] = recording_file(rec_path, e->d_name);
        (*bytes)[*n] = staging_disk_usage((*paths)[*n]);
        ++*n;
    }
    closedir(d);
    return 0;
}

int store_set_aside_remove(const char *path, struct trms_error *err)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return errno == ENOENT ? 0 : error_set(err, "%s: %s", path, strerror(errno));
    if (!S_ISDIR(st.st_mode)) {
        if (unlink(path) != 0)
            return error_set(err, "%s: cannot remove: %s", path, strerror(errno));
        return 0;
    }
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
    if (!dir) {
        if (fd >= 0)
            close(fd);
        return error_set(err, "%s: cannot remove: %s", path, strerror(errno));
    }
    for (struct dirent *e; (e = readdir(dir));)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            unlinkat(fd, e->d_name, 0);  /* a subdirectory stays, and rmdir says so */
    closedir(dir);
    if (rmdir(path) != 0)
        return error_set(err, "%s: cannot remove: %s", path, strerror(errno));
    return 0;
}
