/* Ends as its argument says: segv, abort, term (SIGTERM to itself), kill
 * (SIGKILL to itself), hang (until someone kills it), or exit N. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

__attribute__((noinline)) void work(int *p, int n)
{
    for (int i = 0; i < n; i++)
        p[i] = i;
}

int main(int argc, char **argv)
{
    int a[16];
    work(a, 16);
    printf("working\n");
    fflush(stdout);
    const char *how = argc > 1 ? argv[1] : "segv";
    if (strcmp(how, "segv") == 0)
        work((int *)8, 1);
    if (strcmp(how, "abort") == 0)
        abort();
    if (strcmp(how, "term") == 0)
        kill(getpid(), SIGTERM);
    if (strcmp(how, "kill") == 0)
        kill(getpid(), SIGKILL);
    while (strcmp(how, "hang") == 0)
        pause();
    return argc > 2 ? atoi(argv[2]) : 0;
}
