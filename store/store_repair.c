#include "store/store_repair.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace/recording.h"

/* Removes an earlier set-aside store: its files, one level, without
 * following a link anywhere (a recording from elsewhere may hold one). */
static int remove_earlier(const char *path, struct trms_error *err)
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

int store_set_aside(const char *rec_path, char **aside, struct trms_error *err)
{
    *aside = recording_file(rec_path, STORE_SET_ASIDE);
    char *results = recording_file(rec_path, RECORDING_RESULTS);
    int rc = remove_earlier(*aside, err);
    if (rc == 0 && rename(results, *aside) != 0)
        rc = error_set(err, "%s: cannot set the damaged result store aside: %s", results,
                       strerror(errno));
    free(results);
    return rc;
}
