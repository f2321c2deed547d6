/* record_control: see record_control.h. */
#define _GNU_SOURCE  /* O_PATH */
#include "tools/record_control.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "trace/recording.h"

/* 0: nothing asked; 1: on; 2: off. */
static volatile sig_atomic_t request;
static struct sigaction old_on, old_off;
/* The socket `trms control` writes to, which the engine waits on beside
 * its other work (record_control_fd), and one connected to it, through
 * which a signal's request joins the others in order and wakes the
 * engine at once. */
static int listening = -1, signalled = -1;

static const char ON_MESSAGE[] = "on", OFF_MESSAGE[] = "off";
/* The recorder's answers: the request reached the program's recorder (the
 * tool turns at the program's next basic block), or the recording ended
 * before it did. */
static const char TAKEN_REPLY[] = "taken", ENDED_REPLY[] = "ended";
#define CONFIRM_MS 10000

/* Who sent the requests taken and not yet answered. */
#define MAX_PENDING 32
static struct sockaddr_un pending[MAX_PENDING];
static socklen_t pending_len[MAX_PENDING];
static size_t n_pending;

static void asked(int sig)
{
    int saved = errno;
    request = sig == RECORD_CONTROL_ON_SIGNAL ? 1 : 2;
    if (signalled >= 0) {
        ssize_t sent = request == 1
                           ? send(signalled, ON_MESSAGE, sizeof ON_MESSAGE - 1, MSG_DONTWAIT)
                           : send(signalled, OFF_MESSAGE, sizeof OFF_MESSAGE - 1, MSG_DONTWAIT);
        (void)sent; /* full: requests already wait, and REQUEST is seen */
    }
    errno = saved;
}

/* The socket's address inside DIR_FD's directory: a path through
 * /proc/self/fd, which stays short (a socket's path has 108 bytes) however
 * long the staging directory's is. */
static void address_in(int dir_fd, struct sockaddr_un *a)
{
    memset(a, 0, sizeof *a);
    a->sun_family = AF_UNIX;
    snprintf(a->sun_path, sizeof a->sun_path, "/proc/self/fd/%d/" RECORD_CONTROL_SOCKET, dir_fd);
}

int record_control_start(const char *staging, struct trms_error *err)
{
    request = 0;
    int dir = open(staging, O_PATH | O_DIRECTORY | O_CLOEXEC);
    listening = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    signalled = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    struct sockaddr_un a;
    int rc = 0;
    if (dir < 0 || listening < 0 || signalled < 0) {
        rc = -1;
    } else {
        address_in(dir, &a);
        rc = bind(listening, (struct sockaddr *)&a, sizeof a);
        if (rc == 0)
            rc = connect(signalled, (struct sockaddr *)&a, sizeof a);
    }
    if (rc != 0) {
        error_set(err, "%s/%s: cannot listen for `trms control`: %s", staging,
                  RECORD_CONTROL_SOCKET, strerror(errno));
        if (listening >= 0)
            close(listening);
        if (signalled >= 0)
            close(signalled);
        listening = signalled = -1;
    }
    if (dir >= 0)
        close(dir);
    if (rc == 0) {
        /* SA_RESTART: the recorder's reads and writes of the ring go on. */
        struct sigaction sa = {.sa_handler = asked, .sa_flags = SA_RESTART};
        sigemptyset(&sa.sa_mask);
        sigaction(RECORD_CONTROL_ON_SIGNAL, &sa, &old_on);
        sigaction(RECORD_CONTROL_OFF_SIGNAL, &sa, &old_off);
    }
    return rc;
}

int record_control_fd(void)
{
    return listening;
}

int record_control_take(int *on)
{
    sig_atomic_t r = request;
    request = 0;
    char message[8];
    ssize_t n;
    /* Every message that came, in order (a signal's among them): the
     * latest wins. Senders with an address wait for an answer. */
    for (;;) {
        struct sockaddr_un from;
        socklen_t from_len = sizeof from;
        if (listening < 0 || (n = recvfrom(listening, message, sizeof message, MSG_DONTWAIT,
                                           (struct sockaddr *)&from, &from_len)) < 0)
            break;
        if ((size_t)n == sizeof ON_MESSAGE - 1 && memcmp(message, ON_MESSAGE, (size_t)n) == 0)
            r = 1;
        else if ((size_t)n == sizeof OFF_MESSAGE - 1 && memcmp(message, OFF_MESSAGE, (size_t)n) == 0)
            r = 2;
        else
            continue;
        if (from_len > sizeof(sa_family_t) && n_pending < MAX_PENDING) {
            pending[n_pending] = from;
            pending_len[n_pending++] = from_len;
        }
    }
    if (!r)
        return 0;
    *on = r == 1;
    return 1;
}

static void answer_pending(const char *reply)
{
    for (size_t i = 0; i < n_pending; i++)
        if (sendto(listening, reply, strlen(reply), MSG_DONTWAIT | MSG_NOSIGNAL,
                   (struct sockaddr *)&pending[i], pending_len[i]) < 0) {
            /* the sender gave up waiting: nobody to tell */
        }
    n_pending = 0;
}

void record_control_taken(void)
{
    if (listening >= 0)
        answer_pending(TAKEN_REPLY);
}

void record_control_stop(const char *staging)
{
    if (listening < 0)
        return;  /* never started, or its signals not taken */
    /* Requests nobody will take: say so rather than let them wait. */
    int on;
    n_pending = 0;
    while (record_control_take(&on)) {
    }
    answer_pending(ENDED_REPLY);
    sigaction(RECORD_CONTROL_ON_SIGNAL, &old_on, NULL);
    sigaction(RECORD_CONTROL_OFF_SIGNAL, &old_off, NULL);
    close(signalled);
    close(listening);
    listening = signalled = -1;
    char *path = recording_file(staging, RECORD_CONTROL_SOCKET);
    unlink(path);
    free(path);
}

/* A socket connected to the recorder listening in STAGING: the
 * descriptor, -1 when none listens there (a leftover of a trms that died,
 * or no socket: a FIFO or a file planted there is never opened). */
static int connect_to(const char *staging)
{
    int dir = open(staging, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dir < 0)
        return -1;
    struct stat st;
    int s = -1;
    if (fstatat(dir, RECORD_CONTROL_SOCKET, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
        S_ISSOCK(st.st_mode) && (s = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0)) >= 0) {
        struct sockaddr_un a;
        address_in(dir, &a);
        /* An address of its own (an abstract one the kernel picks), for
         * the recorder's answer. */
        struct sockaddr_un own = {.sun_family = AF_UNIX};
        if (bind(s, (struct sockaddr *)&own, sizeof(sa_family_t)) != 0 ||
            connect(s, (struct sockaddr *)&a, sizeof a) != 0) {
            close(s);
            s = -1;
        }
    }
    close(dir);
    return s;
}

int record_control_listening(const char *staging)
{
    int s = connect_to(staging);
    if (s >= 0)
        close(s);
    return s >= 0;
}

int record_control_send(const char *staging, int on, struct trms_error *err)
{
    int s = connect_to(staging);
    if (s < 0)
        return 1;
    const char *message = on ? ON_MESSAGE : OFF_MESSAGE;
    int rc = 0;
    if (send(s, message, strlen(message), MSG_DONTWAIT | MSG_NOSIGNAL) < 0) {
        rc = error_set(err, "%s: cannot ask the recorder: %s", staging,
                       errno == EAGAIN ? "it has not taken the requests already sent"
                                       : strerror(errno));
    } else {
        /* Until the recorder has handed the request to the program's
         * recorder: then the window turns at the program's next basic
         * block, and not before this returns. */
        struct pollfd p = {.fd = s, .events = POLLIN};
        char reply[16];
        ssize_t n = -1;
        int ready;
        while ((ready = poll(&p, 1, CONFIRM_MS)) < 0 && errno == EINTR) {
        }
        if (ready > 0)
            n = recv(s, reply, sizeof reply - 1, MSG_DONTWAIT);
        if (n == (ssize_t)strlen(TAKEN_REPLY) && memcmp(reply, TAKEN_REPLY, (size_t)n) == 0)
            rc = 0;
        else if (n == (ssize_t)strlen(ENDED_REPLY) && memcmp(reply, ENDED_REPLY, (size_t)n) == 0)
            rc = error_set(err, "%s: the recording ended before it took the request", staging);
        else if (ready == 0)
            rc = error_set(err, "%s: the recorder has not taken the request within %d s (it is "
                                "busy); it stays queued", staging, CONFIRM_MS / 1000);
        else
            rc = error_set(err, "%s: no answer from the recorder: %s", staging,
                           n < 0 ? strerror(errno) : "an unknown reply");
    }
    close(s);
    return rc;
}
