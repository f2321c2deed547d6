/* record_control: turning a recording's collection on and off from outside,
 * while it runs (callgrind_control -i on|off for trms).
 *
 * `trms record` takes SIGUSR1 as "on" and SIGUSR2 as "off", and leaves
 * its process id in a file of its staging directory, where
 * `trms control REC on|off` finds it (or give it the process id). */
#ifndef TRMS_RECORD_CONTROL_H
#define TRMS_RECORD_CONTROL_H

#include "common/error.h"

#define RECORD_CONTROL_ON_SIGNAL SIGUSR1
#define RECORD_CONTROL_OFF_SIGNAL SIGUSR2
/* In the staging directory while the recording runs. */
#define RECORD_CONTROL_PID_FILE "recorder.pid"

/* Takes the signals, and writes the process id into STAGING. */
int record_control_start(const char *staging, struct trms_error *err);

/* A descriptor that becomes readable when a request comes (-1 before
 * record_control_start). */
int record_control_fd(void);

/* 1 with *ON set when a request came since the last call (the latest
 * wins), else 0. */
int record_control_take(int *on);

/* Restores the signals' dispositions and removes the process id file. */
void record_control_stop(const char *staging);

#endif
