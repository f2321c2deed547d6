/* program_path: the program to run, found as execvp finds it
 * (program_path.h). */
#include "tools/program_path.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *program_path(const char *name, int *status)
{
    *status = EXIT_NOT_FOUND;
    if (strchr(name, '/')) {
        if (access(name, F_OK) != 0)
            return NULL;
        *status = EXIT_NOT_EXECUTABLE;
        struct stat st;
        if (access(name, X_OK) != 0 || stat(name, &st) != 0 || !S_ISREG(st.st_mode))
            return NULL;
        return realpath(name, NULL);
    }
    const char *path = getenv("PATH");
    if (!path)
        path = "/usr/local/bin:/usr/bin:/bin";
    while (*path) {
        size_t len = strcspn(path, ":");
        char candidate[PATH_MAX];
        snprintf(candidate, sizeof candidate, "%.*s/%s", (int)len, len ? path : ".", name);
        struct stat st;
        if (stat(candidate, &st) == 0 && S_ISREG(st.st_mode)) {
            if (access(candidate, X_OK) == 0)
                return realpath(candidate, NULL);
            *status = EXIT_NOT_EXECUTABLE;
        }
        path += len + (path[len] == ':');
    }
    return NULL;
}

const char *program_path_problem(int status)
{
    return status == EXIT_NOT_FOUND ? "no such program" : "not an executable file";
}
