/* record_control: see record_control.h. */
#define _GNU_SOURCE  /* pipe2 */
#include "tools/record_control.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace/recording.h"

/* 0: nothing asked; 1: on; 2: off. */
static volatile sig_atomic_t request;
static struct sigaction old_on, old_off;
/* A byte in it says a request came: the engine waits on the read end
 * beside its other work and hands the request on at once. */
static int woken[2] = {-1, -1};

static void asked(int sig)
{
    int saved = errno;
    request = sig == RECORD_CONTROL_ON_SIGNAL ? 1 : 2;
    if (woken[1] >= 0 && write(woken[1], "", 1) < 0) {
        /* full: a byte is already waiting */
    }
    errno = saved;
}

int record_control_start(const char *staging, struct trms_error *err)
{
    request = 0;
    if (woken[0] < 0 && pipe2(woken, O_CLOEXEC | O_NONBLOCK) != 0)
        return error_set(err, "cannot set up `trms control`: %s", strerror(errno));
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

int record_control_fd(void)
{
    return woken[0];
}

int record_control_take(int *on)
{
    char bytes[64];
    while (woken[0] >= 0 && read(woken[0], bytes, sizeof bytes) > 0) {
    }
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
    for (int i = 0; i < 2; i++) {
        if (woken[i] >= 0)
            close(woken[i]);
        woken[i] = -1;
    }
    char *path = recording_file(staging, RECORD_CONTROL_PID_FILE);
    unlink(path);
    free(path);
}
