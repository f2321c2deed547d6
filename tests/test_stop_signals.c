/* stop_signals: the first signal is a request (forwarded to the target),
 * the same signal again within a second is the same request, a second one
 * later aborts (the target killed, or the process out with its message);
 * a target that ignores the request is killed after the grace. In exit
 * mode, a signal after an output is renamed into place is ignored. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/stop_signals.h"
#include "tests/check.h"

static void sleep_seconds(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

/* Runs FN in a child; its exit status. */
static int in_child(void (*fn)(void))
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        fn();
        _exit(check_failures ? 90 : 0);
    }
    int status;
    waitpid(pid, &status, 0);
    return status;
}

static void request_then_abort(void)
{
    stop_signals_install(0);
    CHECK_EQ(stop_signals_requested(), 0);
    kill(getpid(), SIGHUP);
    CHECK_EQ(stop_signals_requested(), SIGHUP);
    kill(getpid(), SIGTERM);  /* at once: the same request */
    CHECK_EQ(stop_signals_aborted(), 0);
    CHECK_EQ(stop_signals_requested(), SIGHUP);
    sleep_seconds(1.1);
    kill(getpid(), SIGTERM);
    CHECK_EQ(stop_signals_aborted(), SIGTERM);
    CHECK_STR(stop_signals_name(SIGTERM), "SIGTERM");
    CHECK_EQ(stop_signals_stopped_target(), 0);
}

static void abort_exits(void)
{
    stop_signals_install(0);
    stop_signals_abort_exits("gone at once");
    kill(getpid(), SIGINT);
    sleep_seconds(1.1);
    kill(getpid(), SIGINT);
    _exit(99);  /* not reached */
}

/* A target that takes the signal, and one that ignores it; returns once
 * the target has set its disposition (a fixed delay was not always enough
 * on a loaded machine: SIGTERM then killed the target meant to ignore it). */
static pid_t start_target(int ignore_term)
{
    int ready[2];
    if (pipe(ready) != 0)
        abort();
    pid_t pid = fork();
    if (pid == 0) {
        signal(SIGTERM, ignore_term ? SIG_IGN : SIG_DFL);
        if (write(ready[1], "", 1) != 1)
            _exit(98);
        for (;;)
            pause();
    }
    char byte;
    while (read(ready[0], &byte, 1) < 0 && errno == EINTR)
        ;
    close(ready[0]);
    close(ready[1]);
    return pid;
}

static void forwards(void)
{
    stop_signals_install(1);
    pid_t target = start_target(0);
    stop_signals_set_target(target);
    kill(getpid(), SIGTERM);
    int status;
    CHECK(waitpid(target, &status, 0) == target);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
    CHECK_EQ(stop_signals_stopped_target(), 1);
    stop_signals_set_target(0);
}

static void grace_then_kill(void)
{
    stop_signals_install(1);
    pid_t target = start_target(1);
    stop_signals_set_target(target);
    time_t start = time(NULL);
    kill(getpid(), SIGTERM);
    int status;
    while (waitpid(target, &status, 0) != target)
        ;
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    CHECK(time(NULL) - start >= STOP_SIGNALS_GRACE_SECONDS - 1);
    stop_signals_set_target(0);
}

/* A request that came before the target existed goes to it at once. */
static void request_before_target(void)
{
    stop_signals_install(1);
    kill(getpid(), SIGINT);
    pid_t target = start_target(0);
    stop_signals_set_target(target);
    int status;
    CHECK(waitpid(target, &status, 0) == target);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT);
    stop_signals_set_target(0);
}

/* Exit mode's commit of an output (stop_signals_rename). */
static char dir[] = "/tmp/trms-stop-signals-XXXXXX";
static char tmp_path[64], out_path[64], next_path[64], survived_path[64];

static void make_file(const char *path)
{
    FILE *fp = fopen(path, "w");
    CHECK(fp != NULL);
    if (fp)
        fclose(fp);
}

static void block_term(int how)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigprocmask(how, &set, NULL);
}

/* A signal after the rename is ignored (the output is in place); one
 * after the next output is named stops the command and removes that. */
static void rename_then_signal(void)
{
    stop_signals_install_exiting("unit", NULL);
    stop_signals_remove_on_exit(tmp_path);
    make_file(tmp_path);
    CHECK_EQ(stop_signals_rename(tmp_path, out_path), 0);
    kill(getpid(), SIGTERM);
    CHECK(access(out_path, F_OK) == 0);
    make_file(survived_path);
    stop_signals_remove_on_exit(next_path);
    make_file(next_path);
    if (check_failures)
        _exit(90);
    kill(getpid(), SIGTERM);
    _exit(99);  /* not reached */
}

/* A signal that came while the rename ran (held back here by a mask) is
 * ignored once the output is in place. */
static void signal_during_rename(void)
{
    stop_signals_install_exiting("unit", NULL);
    stop_signals_remove_on_exit(tmp_path);
    make_file(tmp_path);
    block_term(SIG_BLOCK);
    kill(getpid(), SIGTERM);
    CHECK_EQ(stop_signals_rename(tmp_path, out_path), 0);
    block_term(SIG_UNBLOCK);
}

/* When the rename fails, the signal that waited stops the command and
 * removes the temporary output, as before the rename. */
static void signal_during_failed_rename(void)
{
    stop_signals_install_exiting("unit", NULL);
    stop_signals_remove_on_exit(tmp_path);
    make_file(tmp_path);
    block_term(SIG_BLOCK);
    kill(getpid(), SIGTERM);
    CHECK(stop_signals_rename(tmp_path, "/nonexistent-trms-dir/out") != 0);
    CHECK_EQ(errno, ENOENT);
    if (check_failures)
        _exit(90);
    block_term(SIG_UNBLOCK);
    _exit(99);  /* not reached */
}

static void exit_mode_rename(void)
{
    CHECK(mkdtemp(dir) != NULL);
    snprintf(tmp_path, sizeof tmp_path, "%s/out.tmp", dir);
    snprintf(out_path, sizeof out_path, "%s/out", dir);
    snprintf(next_path, sizeof next_path, "%s/next.tmp", dir);
    snprintf(survived_path, sizeof survived_path, "%s/survived", dir);
    int status = in_child(rename_then_signal);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 1);
    CHECK(access(out_path, F_OK) == 0 && access(tmp_path, F_OK) != 0);
    CHECK(access(next_path, F_OK) != 0 && access(survived_path, F_OK) == 0);
    unlink(out_path);
    unlink(survived_path);
    status = in_child(signal_during_rename);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK(access(out_path, F_OK) == 0 && access(tmp_path, F_OK) != 0);
    unlink(out_path);
    status = in_child(signal_during_failed_rename);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 1);
    CHECK(access(tmp_path, F_OK) != 0);
    rmdir(dir);
}

int main(void)
{
    int status = in_child(request_then_abort);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    status = in_child(abort_exits);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 1);
    status = in_child(forwards);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    status = in_child(grace_then_kill);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    status = in_child(request_before_target);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    exit_mode_rename();
    return check_report("test_stop_signals");
}
