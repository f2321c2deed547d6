/* record_control: see record_control.h. */
#include "tools/record_control.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace/recording.h"

/* 0: nothing asked; 1: on; 2: off. */
static volatile sig_atomic_t request;
static struct sigaction old_on, old_off;

static void asked(int sig)
{
    request = sig == RECORD_CONTROL_ON_SIGNAL ? 1 : 2;
}

int record_control_start(const char *staging, struct trms_error *err)
{
    request = 0;
    /* SA_RESTART: the recorder's reads and writes of the ring go on. */
    struct sigaction sa = {.sa_handler = asked, .sa_flags = SA_RESTART};
    sigemptyset(&sa.sa_mask);
    sigaction(RECORD_CONTROL_ON_SIGNAL, &sa, &old_on);
    sigaction(RECORD_CONTROL_OFF_SIGNAL, &sa, &old_off);
    char *path = recording_file(staging, RECORD_CONTROL_PID_FILE);
    FILE *f = fopen(path, "w");
    int rc = f && fprintf(f, "%ld\n", (long)getpid()) > 0 ? 0 : -1;
    if (f && fclose(f) != 0)
        rc = -1;
    if (rc != 0)
        error_set(err, "%s: cannot write: %s", path, strerror(errno));
    free(path);
    return rc;
}

int record_control_take(int *on)
{
    sig_atomic_t r = request;
    if (!r)
        return 0;
    request = 0;
    *on = r == 1;
    return 1;
}

void record_control_stop(const char *staging)
{
    sigaction(RECORD_CONTROL_ON_SIGNAL, &old_on, NULL);
    sigaction(RECORD_CONTROL_OFF_SIGNAL, &old_off, NULL);
    char *path = recording_file(staging, RECORD_CONTROL_PID_FILE);
    unlink(path);
    free(path);
}
