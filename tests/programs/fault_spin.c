/* Runs until it is stopped, or for argv[1] seconds: walks a buffer over
 * and over (a steady stream of memory events for the recorder), and says
 * "ready" on stdout once it runs. argv[2]: "ignore" ignores SIGTERM,
 * "exit" ends with status 0 on SIGTERM; by default SIGTERM kills it. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile sig_atomic_t asked_to_end;

static void on_term(int sig)
{
    (void)sig;
    asked_to_end = 1;
}

__attribute__((noinline)) static long walk(const int *a, size_t n)
{
    long sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += a[i];
    return sum;
}

int main(int argc, char **argv)
{
    double seconds = argc > 1 ? atof(argv[1]) : 60;
    const char *mode = argc > 2 ? argv[2] : "default";
    if (strcmp(mode, "ignore") == 0)
        signal(SIGTERM, SIG_IGN);
    else if (strcmp(mode, "exit") == 0)
        signal(SIGTERM, on_term);
    size_t n = 1 << 16;
    int *a = calloc(n, sizeof *a);
    printf("ready\n");
    fflush(stdout);
    long total = 0;
    time_t start = time(NULL);
    while (!asked_to_end && difftime(time(NULL), start) < seconds)
        total += walk(a, n);
    free(a);
    return total == 42;  /* 0: the buffer is zeros */
}
