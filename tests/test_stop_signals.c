/* stop_signals: the first signal is a request (forwarded to the target),
 * the same signal again within a second is the same request, a second one
 * later aborts (the target killed, or the process out with its message);
 * a target that ignores the request is killed after the grace. */
#include <errno.h>
#include <signal.h>
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
    return check_report("test_stop_signals");
}
