/* process_tree: a small process tree for tests/e2e/tree_e2e.py.
 *
 *   process_tree workers N   forks N workers; worker k sums an array of
 *                            (k + 1) * 1000 ints in sum_worker_part and
 *                            exits with k; the parent waits for all
 *   process_tree fork-exec PROG ARGS...   forks; the child execs PROG
 *   process_tree vfork-exec PROG ARGS...  the same through vfork
 *   process_tree children N  forks N children that each exit at once
 *   process_tree pause N     forks N children that each say "ready K" on
 *                            stdout and pause (for a test that stops the
 *                            tree: a signal must reach them)
 *   process_tree say TEXT PROG ARGS...   writes TEXT into Valgrind's log
 *                            (nothing natively), then as fork-exec
 *   process_tree say-exec TEXT PROG ARGS...   the same, then execs PROG in
 *                            this process
 *
 *   process_tree window N FIFO1 FIFO2   three phases in every process of a
 *                            tree of N forked children (child 0 execs
 *                            `process_tree window-exec`): phase_before,
 *                            then "ready" on stdout and a byte from FIFO1;
 *                            phase_inside, "inside" and a byte from FIFO2;
 *                            phase_after (for the windows of a tree)
 *
 * The parent exits 0 when every child exited as expected. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#else
#define VALGRIND_PRINTF(...) 0
#endif

static int values[64 * 1000];

/* Each worker's own routine: the test finds it in every worker's profile. */
__attribute__((noinline)) static long sum_worker_part(int n)
{
    long sum = 0;
    for (int i = 0; i < n; i++)
        sum += values[i];
    return sum;
}

__attribute__((noinline)) static void parent_setup(void)
{
    for (int i = 0; i < 64 * 1000; i++)
        values[i] = i % 7;
}

/* The three phases of `window`: each its own routine, which the test
 * finds or misses in each process's profile. */
__attribute__((noinline)) static long phase_before(void) { return sum_worker_part(2000); }
__attribute__((noinline)) static long phase_inside(void) { return sum_worker_part(3000); }
__attribute__((noinline)) static long phase_after(void) { return sum_worker_part(4000); }

/* Waits for the test to write a byte (after it turned the window). */
static int await_byte(int fd)
{
    char c;
    return read(fd, &c, 1) == 1 ? 0 : -1;
}

static int window_phases(int fifo1, int fifo2)
{
    long sum = phase_before();
    printf("ready\n");
    fflush(stdout);
    if (await_byte(fifo1) != 0)
        return 1;
    sum += phase_inside();
    printf("inside\n");
    fflush(stdout);
    if (await_byte(fifo2) != 0)
        return 1;
    sum += phase_after();
    return sum > 0 ? 0 : 1;
}

static int wait_all(int n, int expect_index_status)
{
    int ok = 1;
    for (int i = 0; i < n; i++) {
        int status;
        pid_t pid = wait(&status);
        if (pid < 0 || !WIFEXITED(status))
            ok = 0;
        else if (!expect_index_status && WEXITSTATUS(status) != 0)
            ok = 0;
    }
    return ok;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: process_tree workers|children N | fork-exec|vfork-exec PROG...\n");
        return 2;
    }
    parent_setup();
    if (strcmp(argv[1], "window-exec") == 0 && argc == 4)
        return window_phases(atoi(argv[2]), atoi(argv[3]));
    if (strcmp(argv[1], "window") == 0 && argc == 5) {
        /* Read and write: a reader that never sees end of file. */
        int n = atoi(argv[2]), fifo1 = open(argv[3], O_RDWR), fifo2 = open(argv[4], O_RDWR);
        if (fifo1 < 0 || fifo2 < 0)
            return 1;
        for (int k = 0; k < n; k++) {
            pid_t pid = fork();
            if (pid < 0)
                return 1;
            if (pid == 0 && k == 0) {
                char a[16], b[16];
                snprintf(a, sizeof a, "%d", fifo1);
                snprintf(b, sizeof b, "%d", fifo2);
                execl(argv[0], argv[0], "window-exec", a, b, (char *)NULL);
                _exit(127);
            }
            if (pid == 0)
                _exit(window_phases(fifo1, fifo2));
        }
        int rc = window_phases(fifo1, fifo2);
        return wait_all(n, 0) && rc == 0 ? 0 : 1;
    }
    if (strcmp(argv[1], "pause") == 0) {
        int n = atoi(argv[2]);
        for (int k = 0; k < n; k++) {
            pid_t pid = fork();
            if (pid < 0)
                return 1;
            if (pid == 0) {
                printf("ready %d\n", k);
                fflush(stdout);
                pause();
                _exit(0);
            }
        }
        return wait_all(n, 0) ? 0 : 1;
    }
    if (strcmp(argv[1], "workers") == 0 || strcmp(argv[1], "children") == 0) {
        int n = atoi(argv[2]), workers = strcmp(argv[1], "workers") == 0;
        for (int k = 0; k < n; k++) {
            pid_t pid = fork();
            if (pid < 0)
                return 1;
            if (pid == 0) {
                if (!workers)
                    _exit(0);
                long sum = sum_worker_part((k + 1) * 1000);
                printf("worker %d: %ld\n", k, sum);
                fflush(stdout);
                _exit(k);
            }
        }
        return wait_all(n, workers) ? 0 : 1;
    }
    if (strcmp(argv[1], "say-exec") == 0 && argc > 3) {
        VALGRIND_PRINTF("%s\n", argv[2]);
        execvp(argv[3], argv + 3);
        return 127;
    }
    if (strcmp(argv[1], "say") == 0 && argc > 3) {
        VALGRIND_PRINTF("%s\n", argv[2]);
        argv++;
        argv[1] = "fork-exec";
    }
    int use_vfork = strcmp(argv[1], "vfork-exec") == 0;
    if (!use_vfork && strcmp(argv[1], "fork-exec") != 0)
        return 2;
    pid_t pid = use_vfork ? vfork() : fork();
    if (pid < 0)
        return 1;
    if (pid == 0) {
        execvp(argv[2], argv + 2);
        _exit(127);
    }
    int status;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
        return 1;
    return WEXITSTATUS(status);
}
