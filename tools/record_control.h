/* record_control: turning a recording's collection on and off from outside,
 * while it runs (callgrind_control -i on|off for trms).
 *
 * `trms record` listens on a datagram socket in its staging directory,
 * where `trms control REC on|off` finds it: a message goes only to the
 * recorder of that recording, and a staging directory left by a trms
 * that died, or a FIFO or file planted there, takes none (and never makes
 * control wait). Given a process id instead, `trms control` checks that
 * it is a `trms record` run by this same trms binary and talks to its
 * socket, found through the process's own open staging directory. The
 * recorder also takes SIGUSR1 as "on" and SIGUSR2 as "off". */
#ifndef TRMS_RECORD_CONTROL_H
#define TRMS_RECORD_CONTROL_H

#include <sys/types.h>

#include "common/error.h"

#define RECORD_CONTROL_ON_SIGNAL SIGUSR1
#define RECORD_CONTROL_OFF_SIGNAL SIGUSR2
/* In the staging directory while the recording runs. */
#define RECORD_CONTROL_SOCKET "control.sock"

/* Takes the signals, and listens on the socket in STAGING. */
int record_control_start(const char *staging, struct trms_error *err);

/* A descriptor that becomes readable when a request comes (-1 before
 * record_control_start). */
int record_control_fd(void);

/* 1 with *ON set when a request came since the last call (the latest
 * wins), else 0. */
int record_control_take(int *on);

/* Tells the senders of the requests take() gave that the program's
 * recorder has them now (`trms control` waits for it). */
void record_control_taken(void);

/* Restores the signals' dispositions, tells the senders of requests not
 * taken that the recording ended, closes and removes the socket. */
void record_control_stop(const char *staging);

/* Whether a recorder listens in STAGING (never blocks). */
int record_control_listening(const char *staging);

/* Sends ON or off to the recorder whose staging directory is STAGING and
 * waits (up to 10 s) until it has handed the request on: 0, 1 when none
 * listens there (a leftover, or not a socket), or -1 with ERR. Never
 * blocks on a FIFO or a planted file. */
int record_control_send(const char *staging, int on, struct trms_error *err);

#endif
