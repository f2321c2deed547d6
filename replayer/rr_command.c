/* rr_command: an rr child process with its stdout piped (rr_command.h). */
#define _GNU_SOURCE /* pipe2 */
#include "replayer/rr_command.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static int temporary_file(void)
{
    const char *dir = getenv("TMPDIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/trms-rr-stderr.XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(path);
    if (fd >= 0)
        unlink(path);
    return fd;
}

int rr_command_start(struct rr_command *c, const char *what, char *const argv[],
                     struct trms_error *err)
{
    *c = (struct rr_command){.pid = -1, .out = -1, .err_fd = -1, .what = what};
    int pipe_fds[2];
    if (pipe2(pipe_fds, O_CLOEXEC) != 0)
        return error_set(err, "%s: cannot make a pipe: %s", what, strerror(errno));
    c->err_fd = temporary_file();
    if (c->err_fd < 0) {
        close(pipe_fds[0]);
        close(pipe_fds[1]);
        return error_set(err, "%s: cannot make a temporary file: %s", what, strerror(errno));
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, c->err_fd, STDERR_FILENO);
    int rc = posix_spawnp(&c->pid, argv[0], &actions, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    close(pipe_fds[1]);
    if (rc != 0) {
        close(pipe_fds[0]);
        close(c->err_fd);
        c->err_fd = -1;
        c->pid = -1;
        if (rc == ENOENT)
            return error_set(err, "rr is not installed (Debian package rr): rr recordings are "
                                  "analyzed by replaying them with rr");
        return error_set(err, "%s: cannot run rr: %s", what, strerror(rc));
    }
    c->out = pipe_fds[0];
    return 0;
}

/* The first non-empty line the child wrote on stderr, or "". */
static void first_line(int fd, char *buf, size_t size)
{
    buf[0] = '\0';
    char text[2048];
    ssize_t n = pread(fd, text, sizeof text - 1, 0);
    if (n <= 0)
        return;
    text[n] = '\0';
    char *line = text + strspn(text, "\n");
    line[strcspn(line, "\n")] = '\0';
    snprintf(buf, size, "%s", line);
}

int rr_command_finish(struct rr_command *c, struct trms_error *err)
{
    if (c->pid < 0)
        return 0;
    if (c->out >= 0)
        close(c->out);
    c->out = -1;
    int status = 0;
    while (waitpid(c->pid, &status, 0) < 0 && errno == EINTR)
        ;
    c->pid = -1;
    c->status = status;
    char line[512];
    first_line(c->err_fd, line, sizeof line);
    close(c->err_fd);
    c->err_fd = -1;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 0;
    char how[64];
    if (WIFSIGNALED(status))
        snprintf(how, sizeof how, "was killed by signal %d (%s)", WTERMSIG(status),
                 strsignal(WTERMSIG(status)));
    else
        snprintf(how, sizeof how, "exited with status %d", WEXITSTATUS(status));
    return error_set(err, "%s %s%s%s", c->what, how, line[0] ? ": " : "", line);
}
