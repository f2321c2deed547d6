/* launcher: what the trms command (tools/launcher.c) tells the trms it
 * starts (tools/trms.c).
 *
 * A dynamically linked program can be killed by a signal before its first
 * instruction runs: while the dynamic linker loads its libraries (a few
 * milliseconds, far more under a sanitizer or on a busy machine), SIGTERM
 * still kills it. So `trms` is a small static program that blocks the stop
 * signals first thing and executes the real trms, which installs its
 * handlers, then unblocks them: a signal sent at any moment is handled
 * (a blocked signal stays pending across exec). */
#ifndef TRMS_LAUNCHER_H
#define TRMS_LAUNCHER_H

/* The signals the launcher blocked (those that were not blocked already),
 * as decimal numbers joined by ',': the real trms unblocks them. */
#define LAUNCHER_UNBLOCK_ENV "TRMS_LAUNCHER_UNBLOCK"

/* Where the real trms lives, from the launcher's directory. */
#define LAUNCHER_REAL_PATH "../lib/trms/trms"

#endif
