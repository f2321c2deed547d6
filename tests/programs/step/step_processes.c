/* What the step engine must not stall on or lose: a thread blocked in
 * read(2) on a pipe until the main thread writes (long after), a forked
 * child (stepped, left out of the recording), and, with an argument, an
 * exec into another program, whose routines the recording then holds. */
#include <pthread.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int fds[2];
static char got[16];

__attribute__((noinline)) static long receive(void)
{
    return read(fds[0], got, sizeof got);
}

static void *reader(void *arg)
{
    (void)arg;
    return (void *)receive();
}

__attribute__((noinline)) static int child_work(int n)
{
    int s = 0;
    for (int i = 0; i < n; i++)
        s += i;
    return s & 0x7f;
}

int main(int argc, char **argv)
{
    if (pipe(fds) != 0)
        return 2;
    pthread_t t;
    pthread_create(&t, NULL, reader, NULL);
    struct timespec pause = {0, 50 * 1000 * 1000};
    nanosleep(&pause, NULL);
    if (write(fds[1], "hand-over", 9) != 9)
        return 3;
    void *n;
    pthread_join(t, &n);
    pid_t child = fork();
    if (child == 0)
        _exit(child_work(50));
    int status;
    waitpid(child, &status, 0);
    if ((long)n != 9 || !WIFEXITED(status) || WEXITSTATUS(status) != child_work(50))
        return 4;
    if (argc > 1)
        execv(argv[1], argv + 1);
    return 0;
}
