#define _GNU_SOURCE  /* getdents64 */
#include "common/stop_signals.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define REPEAT_WINDOW_NS 1000000000LL
/* A staging directory, its results/ and rr/, and what they hold. */
#define REMOVE_DEPTH 3

static const int stop_signals[] = {SIGTERM, SIGHUP, SIGINT};
#define N_STOP (sizeof stop_signals / sizeof *stop_signals)

static volatile sig_atomic_t requested, aborted, shares_terminal, stopped_target;
static volatile pid_t target, owner;
static volatile int64_t requested_at;
static const char *volatile abort_message;
/* Exit mode (stop_signals_install_exiting). */
static volatile sig_atomic_t exiting;
static const char *volatile exit_command, *volatile exit_after, *volatile exit_remove;
/* stop_signals_rename: while renaming (a signal that another thread takes
 * waits: DEFERRED), and once the output is in place. */
static volatile sig_atomic_t renaming, renamed, deferred;

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

/* SIGTERM, SIGHUP, SIGINT by name, without snprintf (a handler's). */
static const char *short_name(int sig)
{
    return sig == SIGTERM ? "SIGTERM" : sig == SIGHUP ? "SIGHUP" : sig == SIGINT ? "SIGINT"
                                                                                : "a signal";
}

/* Removes what DIRFD/NAME is, a directory with what it holds DEPTH levels
 * down, with system calls only (a handler's). A directory read is begun
 * again while a pass removed something: removing shifts what remains. */
static void remove_at(int dirfd, const char *name, int depth)
{
    if (unlinkat(dirfd, name, 0) == 0 || depth == 0)
        return;
    int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return;
    char buf[4096];
    for (int removed = 1; removed;) {
        removed = 0;
        lseek(fd, 0, SEEK_SET);
        ssize_t n;
        while ((n = getdents64(fd, buf, sizeof buf)) > 0)
            for (ssize_t off = 0; off < n;) {
                struct dirent64 *d = (struct dirent64 *)(buf + off);
                off += d->d_reclen;
                if (strcmp(d->d_name, ".") == 0 || strcmp(d->d_name, "..") == 0)
                    continue;
                remove_at(fd, d->d_name, depth - 1);
                removed = 1;
            }
        if (n < 0)
            break;
    }
    close(fd);
    unlinkat(dirfd, name, AT_REMOVEDIR);
}

/* Exit mode: one line, whole, and status 1. */
static void exit_now(int sig)
{
    char message[400] = "";
    size_t n = 0;
    const char *parts[] = {exit_command, " stopped by ", short_name(sig),
                           exit_after ? ": " : "", exit_after ? exit_after : ""};
    for (size_t i = 0; i < sizeof parts / sizeof *parts; i++)
        for (const char *c = parts[i]; c && *c && n + 1 < sizeof message; c++)
            message[n++] = *c;
    message[n] = '\0';
    const char *remove = exit_remove;
    if (remove)
        remove_at(AT_FDCWD, remove, REMOVE_DEPTH);
    say(message);
    _exit(1);
}

static void on_stop(int sig, siginfo_t *info, void *context)
{
    (void)context;
    if (getpid() != owner) {  /* a child between fork and exec */
        signal(sig, SIG_DFL);
        raise(sig);
        return;
    }
    if (exiting) {
        if (renamed)
            return;  /* the output is in place: nothing left to stop */
        if (renaming) {
            deferred = sig;
            return;
        }
        exit_now(sig);
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

static void install(void)
{
    owner = getpid();
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

void stop_signals_install_exiting(const char *command, const char *after)
{
    exit_command = command;
    exit_after = after;
    exiting = 1;
    install();
}

void stop_signals_remove_on_exit(const char *path)
{
    exit_remove = path;
    if (path)
        renamed = 0;  /* a new output under way: a stop stops it again */
}

void stop_signals_hold(sigset_t *before)
{
    sigset_t stop;
    sigemptyset(&stop);
    for (size_t i = 0; i < N_STOP; i++)
        sigaddset(&stop, stop_signals[i]);
    pthread_sigmask(SIG_BLOCK, &stop, before);
}

int stop_signals_rename(const char *from, const char *to)
{
    sigset_t before;
    stop_signals_hold(&before);
    renaming = 1;
    int rc = rename(from, to), e = errno;
    if (rc == 0) {
        exit_remove = NULL;
        renamed = 1;
    }
    renaming = 0;
    int waited = deferred;
    deferred = 0;
    if (rc != 0 && waited && exiting)
        exit_now(waited);  /* another thread took it: as it would have */
    pthread_sigmask(SIG_SETMASK, &before, NULL);  /* (this thread's: delivered now) */
    errno = e;
    return rc;
}

void stop_signals_install(int program_shares_terminal)
{
    shares_terminal = program_shares_terminal;
    exiting = 0;
    install();
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
