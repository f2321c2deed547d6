/* Execs a path of 3 MiB, which the kernel refuses (ENAMETOOLONG), and
 * says so. The recorder wrote the path into its ring before the call, and
 * one of megabytes ran past a ring segment (`trms record` refused the
 * stream: "the recorder's ring announced ... bytes"). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(void)
{
    size_t n = 3u << 20;
    char *path = malloc(n + 1);
    if (!path)
        return 1;
    memset(path, 'a', n);
    path[0] = '/';
    path[n] = '\0';
    char *argv[] = {path, NULL};
    execv(path, argv);
    printf("execv: %s\n", strerror(errno));
    free(path);
    return 0;
}
