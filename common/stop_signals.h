/* stop_signals: SIGTERM, SIGHUP and SIGINT as a request to stop cleanly,
 * for the commands that must not die of them: `record` keeps what it has
 * recorded, `analyze` its checkpoint.
 *
 * The first signal is the request: it is forwarded to the target process
 * (the program being recorded), which gets STOP_SIGNALS_GRACE_SECONDS to
 * end before it is killed (SIGKILL). A second signal, a second or more
 * after the first, aborts: the target is killed at once, or, once
 * stop_signals_abort_exits() has been called, the process writes its
 * message and exits with status 1 on the spot (never a death by the
 * signal). The same signal arriving again
 * within the second is the same request (`timeout` and a shell's kill of
 * a process group send it to the process and to its group).
 *
 * With PROGRAM_SHARES_TERMINAL (record), a SIGINT or SIGHUP that the
 * kernel sent (^C, a terminal hanging up) reached the program too, which
 * decides what it means; only one sent to trms itself (kill) is a
 * request. Signals that were ignored when trms started stay ignored
 * (nohup). */
#ifndef TRMS_STOP_SIGNALS_H
#define TRMS_STOP_SIGNALS_H

#include <signal.h>
#include <sys/types.h>

#define STOP_SIGNALS_GRACE_SECONDS 3

/* Request mode (record, analyze): as above. */
void stop_signals_install(int program_shares_terminal);

/* Exit mode, what every command starts in (tools/trms.c installs it
 * before anything else): the first signal writes "trms: COMMAND stopped
 * by SIGTERM" (then ": AFTER" when AFTER is not NULL; both strings must
 * live on) and exits with status 1 on the spot: a command that has
 * nothing to keep never dies of the signal. */
void stop_signals_install_exiting(const char *command, const char *after);

/* A file exit mode removes on its way out (a temporary output), or a
 * directory, with what it holds (a staging directory); NULL for none.
 * The string must live until it is replaced. */
void stop_signals_remove_on_exit(const char *path);

/* Blocks the stop signals in the calling thread (what it did before in
 * *BEFORE, for pthread_sigmask(SIG_SETMASK, ...)): a step they must not
 * split. */
void stop_signals_hold(sigset_t *before);

/* rename(FROM, TO) of the temporary output that remove_on_exit names, as
 * one step a stop signal cannot split. In exit mode, a signal before it
 * removes FROM and says the command stopped, as always; one that comes
 * while it renames waits, and one after it (until the next temporary
 * output is named) is ignored: the output is in place, and the command,
 * which only has its closing line left to say, ends as if no signal had
 * come, rather than with status 1 beside a finished output. When the
 * rename fails, FROM is still the one to remove: a signal that waited is
 * then delivered. Returns rename's result, errno kept. */
int stop_signals_rename(const char *from, const char *to);

/* The first signal received (the request to stop), or 0. */
int stop_signals_requested(void);

/* Whether the request stopped a target (the program was running). */
int stop_signals_stopped_target(void);

/* "SIGTERM", "SIGHUP", "SIGINT" (or "signal N" for another). */
const char *stop_signals_name(int sig);

/* The signal that aborted, or 0. */
int stop_signals_aborted(void);

/* The process a request goes to (0: none). A request received before is
 * forwarded at once. */
void stop_signals_set_target(pid_t pid);

/* From now on, a second signal writes "trms: MESSAGE" (a string that must
 * live on) and exits with status 1. */
void stop_signals_abort_exits(const char *message);

#endif
