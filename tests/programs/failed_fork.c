/* A fork that fails, then one that succeeds: a clone the kernel refuses
 * (CLONE_SIGHAND without CLONE_VM: EINVAL) after Valgrind's before-fork
 * hook has run, which asks `trms record` for the child's ring; Valgrind
 * runs no after-fork hook for a failed fork. Prints whether the program's
 * lowest free descriptor after both is the one it had before them: the
 * failed fork's ring must not stay open in the program's range, nor keep
 * the recording from ending. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static int lowest_free_descriptor(void)
{
    int fd = open("/dev/null", O_RDONLY);
    if (fd >= 0)
        close(fd);
    return fd;
}

int main(void)
{
    int before = lowest_free_descriptor();
    long refused = syscall(SYS_clone, (long)(CLONE_SIGHAND | SIGCHLD), 0L, 0L, 0L, 0L);
    if (refused == 0)
        _exit(0); /* (a kernel that took it: the child leaves at once) */
    if (refused > 0)
        waitpid((pid_t)refused, NULL, 0);
    printf("clone: %s\n", refused < 0 ? strerror(errno) : "accepted");
    pid_t child = fork();
    if (child == 0)
        _exit(7);
    int status = 0;
    waitpid(child, &status, 0);
    printf("fork: child exited %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    int after = lowest_free_descriptor();
    printf("descriptors: %s\n", after == before ? "as before" : "one or more left open");
    return 0;
}
