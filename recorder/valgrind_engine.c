/* valgrind_engine: the program under Valgrind, streamed (see valgrind_engine.h). */
#define _GNU_SOURCE  /* pipe2, F_SETPIPE_SZ */
#include "recorder/valgrind_engine.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/oom.h"

#define TOOL_BINARY "trms-amd64-linux"
#define PIPE_BYTES (1 << 20)

char *valgrind_tool_dir(struct trms_error *err)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n < 0) {
        error_set(err, "cannot find the trms binary: %s", strerror(errno));
        return NULL;
    }
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    *slash = '\0';
    /* bin/trms -> lib/trms/valgrind, in the build tree and once installed. */
    size_t size = strlen(exe) + 64;
    char *dir = xmalloc(size);
    snprintf(dir, size, "%s/../lib/trms/valgrind", exe);
    char *tool = xmalloc(size + sizeof TOOL_BINARY);
    snprintf(tool, size + sizeof TOOL_BINARY, "%s/" TOOL_BINARY, dir);
    int ok = access(tool, X_OK) == 0;
    free(tool);
    if (!ok) {
        error_set(err, "the trms Valgrind tool is missing from %s (rebuild trms)", dir);
        free(dir);
        return NULL;
    }
    return dir;
}

char *valgrind_version(void)
{
    FILE *p = popen("valgrind --version 2>/dev/null", "r");
    if (!p)
        return NULL;
    char line[128] = "";
    char *got = fgets(line, sizeof line, p);
    pclose(p);
    if (!got)
        return NULL;
    line[strcspn(line, "\n")] = '\0';
    return line[0] ? xstrdup(line) : NULL;
}

static void exec_valgrind(const struct valgrind_run *run, int fd)
{
    size_t argc = 0;
    while (run->argv[argc])
        argc++;
    char fd_option[32], log_option[PATH_MAX + 16];
    snprintf(fd_option, sizeof fd_option, "--trms-fd=%d", fd);
    snprintf(log_option, sizeof log_option, "--log-file=%s", run->log_path);
    const char *fixed[] = {"valgrind", "--tool=trms", "-q", log_option, fd_option};
    size_t n_fixed = sizeof fixed / sizeof *fixed;
    char **args = xmalloc((n_fixed + argc + 1) * sizeof *args);
    for (size_t i = 0; i < n_fixed; i++)
        args[i] = (char *)fixed[i];
    for (size_t i = 0; i <= argc; i++)
        args[n_fixed + i] = run->argv[i];
    setenv("VALGRIND_LIB", run->tool_dir, 1);
    execvp("valgrind", args);
    fprintf(stderr, "trms: cannot run valgrind: %s\n", strerror(errno));
    _exit(127);
}

static int wait_for(pid_t pid, struct program_outcome *outcome, struct trms_error *err)
{
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return error_set(err, "waiting for valgrind: %s", strerror(errno));
    *outcome = (struct program_outcome){0};
    if (WIFSIGNALED(status))
        outcome->signal = WTERMSIG(status);
    else
        outcome->exit_code = WEXITSTATUS(status);
    return 0;
}

int valgrind_record(const struct valgrind_run *run, struct routine_table *routines,
                    const struct raw_decoder_callbacks *cb, struct raw_summary *summary,
                    struct program_outcome *outcome, struct trms_error *err)
{
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0)
        return error_set(err, "cannot create a pipe: %s", strerror(errno));
    /* A larger pipe lets the tool run ahead of the decoder in bursts. */
    fcntl(fds[0], F_SETPIPE_SZ, PIPE_BYTES);

    struct sigaction ignore = {.sa_handler = SIG_IGN}, old_int, old_quit;
    sigemptyset(&ignore.sa_mask);
    sigaction(SIGINT, &ignore, &old_int);
    sigaction(SIGQUIT, &ignore, &old_quit);

    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGQUIT, &old_quit, NULL);
        return error_set(err, "cannot start valgrind: %s", strerror(errno));
    }
    if (pid == 0) {
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGQUIT, &old_quit, NULL);
        int fd = fcntl(fds[1], F_DUPFD, 3);  /* without close-on-exec */
        if (fd < 0)
            _exit(127);
        exec_valgrind(run, fd);
    }
    close(fds[1]);
    int rc = raw_decode_fd(fds[0], routines, cb, summary, err);
    if (rc != 0)
        kill(pid, SIGKILL);  /* it would block on a pipe nobody reads */
    close(fds[0]);
    struct trms_error wait_err;
    if (wait_for(pid, outcome, rc == 0 ? err : &wait_err) != 0)
        rc = -1;
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGQUIT, &old_quit, NULL);
    return rc;
}
