#include "common/stop_signals.h"

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define REPEAT_WINDOW_NS 1000000000LL

static const int stop_signals[] = {SIGTERM, SIGHUP, SIGINT};
#define N_STOP (sizeof stop_signals / sizeof *stop_signals)

static volatile sig_atomic_t requested, aborted, shares_terminal, stopped_target;
static volatile pid_t target, owner;
static volatile int64_t requested_at;
static const char *volatile abort_message;

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void forward(int sig)
{
    pid_t t = target;
    if (t > 0) {
        stopped_target = 1;
        kill(t, sig);
        alarm(STOP_SIGNALS_GRACE_SECONDS);
    }
}

/* "trms: MESSAGE\n" in one write: one line, whole. */
static void say(const char *message)
{
    char line[512] = "trms: ";
    size_t n = strlen(line);
    for (const char *c = message; *c && n + 2 < sizeof line; c++)
        line[n++] = *c;
    line[n++] = '\n';
    if (write(STDERR_FILENO, line, n) < 0)
        return;
}

static void on_stop(int sig, siginfo_t *info, void *context)
{
    (void)context;
    if (getpid() != owner) {  /* a child between fork and exec */
        signal(sig, SIG_DFL);
        raise(sig);
        return;
    }
    if (shares_terminal && info->si_code == SI_KERNEL && sig != SIGTERM)
        return;  /* the terminal's: the program got it too */
    if (!requested) {
        requested_at = now_ns();
        requested = sig;
        forward(sig);
        return;
    }
    if (aborted || now_ns() - requested_at < REPEAT_WINDOW_NS)
        return;
    aborted = sig;
    const char *message = abort_message;
    if (message) {
        say(message);
        _exit(1);
    }
    pid_t t = target;
    if (t > 0)
        kill(t, SIGKILL);
}

/* The grace is over: the program did not end on its own. */
static void on_alarm(int sig)
{
    (void)sig;
    pid_t t = target;
    if (t > 0 && requested)
        kill(t, SIGKILL);
}

void stop_signals_install(int program_shares_terminal)
{
    owner = getpid();
    shares_terminal = program_shares_terminal;
    struct sigaction sa = {.sa_sigaction = on_stop, .sa_flags = SA_SIGINFO | SA_RESTART};
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < N_STOP; i++) {
        struct sigaction old;
        sigaction(stop_signals[i], NULL, &old);
        if (old.sa_handler != SIG_IGN)
            sigaction(stop_signals[i], &sa, NULL);
    }
    struct sigaction alarm_action = {.sa_handler = on_alarm, .sa_flags = SA_RESTART};
    sigemptyset(&alarm_action.sa_mask);
    sigaction(SIGALRM, &alarm_action, NULL);
}

int stop_signals_requested(void)
{
    return requested;
}

int stop_signals_stopped_target(void)
{
    return stopped_target;
}

const char *stop_signals_name(int sig)
{
    static char other[24];
    switch (sig) {
    case SIGTERM:
        return "SIGTERM";
    case SIGHUP:
        return "SIGHUP";
    case SIGINT:
        return "SIGINT";
    default:
        snprintf(other, sizeof other, "signal %d", sig);
        return other;
    }
}

int stop_signals_aborted(void)
{
    return aborted;
}

void stop_signals_set_target(pid_t pid)
{
    target = pid;
    if (pid <= 0) {
        alarm(0);
        return;
    }
    int sig = requested;
    if (sig)
        forward(aborted ? SIGKILL : sig);
}

void stop_signals_abort_exits(const char *message)
{
    abort_message = message;
}
