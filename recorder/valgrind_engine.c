/* valgrind_engine: the program under Valgrind, streamed (see valgrind_engine.h). */
#define _GNU_SOURCE  /* pipe2, memfd_create, accept4 */
#include "recorder/valgrind_engine.h"

#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/oom.h"
#include "common/stop_signals.h"
#include "recorder/process_socket.h"
#include "recorder/raw_stream.h"

#define TOOL_BINARY "trms-amd64-linux"
#define SEGMENT_BYTES ((size_t)RAW_SEGMENT_WORDS * 8)
#define RING_BYTES ((size_t)RAW_RING_BYTES)

/* The ring (raw_stream.h) and its two pipes, as this process sees them. */
struct ring {
    struct ring *next;                    /* in the tree's list of live rings */
    const uint64_t *words;
    volatile struct raw_ring_mark *mark;  /* the recorder writes requests there */
    uint64_t requests;                    /* forwarded so far */
    int memfd;
    int notify[2];  /* tool -> recorder: a segment's length */
    int free[2];    /* recorder -> tool: a segment handed back */
};

char *valgrind_tool_dir(struct trms_error *err)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n < 0) {
        error_set(err, "cannot find the trms binary: %s", strerror(errno));
        return NULL;
    }
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    *slash = '\0';
    /* lib/trms/trms (which bin/trms starts, tools/launcher.h) ->
     * lib/trms/valgrind. */
    size_t size = strlen(exe) + 64;
    char *dir = xmalloc(size);
    snprintf(dir, size, "%s/valgrind", exe);
    char *tool = xmalloc(size + sizeof TOOL_BINARY);
    snprintf(tool, size + sizeof TOOL_BINARY, "%s/" TOOL_BINARY, dir);
    int ok = access(tool, X_OK) == 0;
    free(tool);
    if (!ok) {
        error_set(err, "the trms Valgrind tool is missing from %s (rebuild trms)", dir);
        free(dir);
        return NULL;
    }
    return dir;
}

int valgrind_preload_path(const char *path)
{
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    size_t len = strlen(base);
    return strncmp(base, "vgpreload_", 10) == 0 && len > 3 && strcmp(base + len - 3, ".so") == 0;
}

char *valgrind_version(void)
{
    FILE *p = popen("valgrind --version 2>/dev/null", "r");
    if (!p)
        return NULL;
    char line[128] = "";
    char *got = fgets(line, sizeof line, p);
    pclose(p);
    if (!got)
        return NULL;
    line[strcspn(line, "\n")] = '\0';
    return line[0] ? xstrdup(line) : NULL;
}

static int ring_open(struct ring *r, struct trms_error *err)
{
    *r = (struct ring){.memfd = -1, .notify = {-1, -1}, .free = {-1, -1}};
    r->memfd = memfd_create("trms-ring", MFD_CLOEXEC);
    if (r->memfd < 0 || ftruncate(r->memfd, (off_t)RING_BYTES) != 0 ||
        pipe2(r->notify, O_CLOEXEC) != 0 || pipe2(r->free, O_CLOEXEC) != 0)
        return error_set(err, "cannot set up the recording ring: %s", strerror(errno));
    void *p = mmap(NULL, RING_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, r->memfd, 0);
    if (p == MAP_FAILED)
        return error_set(err, "cannot map the recording ring: %s", strerror(errno));
    r->words = p;
    r->mark = (void *)((char *)p + RAW_RING_MARK_OFFSET);
    return 0;
}

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

static void ring_close(struct ring *r)
{
    if (r->words)
        munmap((void *)r->words, RING_BYTES);
    close_fd(&r->memfd);
    for (int i = 0; i < 2; i++) {
        close_fd(&r->notify[i]);
        close_fd(&r->free[i]);
    }
}

static void exec_valgrind(const struct valgrind_run *run, const char *socket_path)
{
    size_t argc = 0;
    while (run->argv[argc])
        argc++;
    char log_option[PATH_MAX + 16], socket_option[PATH_MAX + 16], keep_option[PATH_MAX + 16];
    snprintf(log_option, sizeof log_option, "--log-file=%s", run->log_path);
    snprintf(keep_option, sizeof keep_option, "--trms-log=%s", run->log_path);
    snprintf(socket_option, sizeof socket_option, "--trms-socket=%s", socket_path);
    const char *exclude = run->children ? run->children->exclude : NULL;
    char *skip_option = NULL;
    if (exclude) {
        skip_option = xmalloc(strlen(exclude) + 32);
        sprintf(skip_option, "--trace-children-skip=%s", exclude);
    }
    const char *fixed[8] = {"valgrind", "--tool=trms", "-q", log_option, socket_option,
                            run->children ? "--trace-children=yes" : "--trace-children=no",
                            keep_option};
    size_t n_fixed = 7;
    if (skip_option)
        fixed[n_fixed++] = skip_option;
    char **args = xmalloc((n_fixed + argc + 1) * sizeof *args);
    for (size_t i = 0; i < n_fixed; i++)
        args[i] = (char *)fixed[i];
    for (size_t i = 0; i <= argc; i++)
        args[n_fixed + i] = run->argv[i];
    setenv("VALGRIND_LIB", run->tool_dir, 1);
    execvp("valgrind", args);
    fprintf(stderr, "trms: cannot run valgrind: %s\n", strerror(errno));
    _exit(127);
}

static void outcome_of(int status, struct program_outcome *outcome);

static int wait_for(pid_t pid, struct program_outcome *outcome, struct trms_error *err)
{
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return error_set(err, "waiting for valgrind: %s", strerror(errno));
    outcome_of(status, outcome);
    return 0;
}

/* Every ring being read, for `trms control`: a request reaches each live
 * process of the tree, and a new ring starts in the state the requests
 * left (under LOCK). */
struct ring_list {
    pthread_mutex_t lock;
    struct ring *first;
    int collecting;                       /* the latest request's state */
};

static void ring_list_add(struct ring_list *l, struct ring *r, int *collecting)
{
    pthread_mutex_lock(&l->lock);
    r->next = l->first;
    l->first = r;
    *collecting = l->collecting;
    pthread_mutex_unlock(&l->lock);
}

static void ring_list_remove(struct ring_list *l, struct ring *r)
{
    pthread_mutex_lock(&l->lock);
    for (struct ring **at = &l->first; *at; at = &(*at)->next)
        if (*at == r) {
            *at = r->next;
            break;
        }
    pthread_mutex_unlock(&l->lock);
}

/* Hands the requests that came to every tool: the request first, then 0
 * as the end of its segment, which makes the tool look (raw_stream.h). */
static void forward_requests(struct ring_list *l, const struct window_requests *q)
{
    int on;
    while (q->take(q->ctx, &on)) {
        pthread_mutex_lock(&l->lock);
        l->collecting = on != 0;
        for (struct ring *r = l->first; r; r = r->next) {
            uint64_t request = ++r->requests << 1 | (uint64_t)(on != 0);
            __atomic_store_n(&r->mark->window_request, request, __ATOMIC_RELEASE);
            __atomic_store_n(&r->mark->end, 0, __ATOMIC_RELEASE);
        }
        pthread_mutex_unlock(&l->lock);
    }
    q->taken(q->ctx);
}

/* Waits until the tool announces a segment, forwarding requests that come
 * meanwhile. */
static int await_segment(struct ring *r, struct ring_list *l,
                         const struct window_requests *q, struct trms_error *err)
{
    if (!q)
        return 0;
    for (;;) {
        struct pollfd fds[2] = {{.fd = r->notify[0], .events = POLLIN},
                                {.fd = q->fd, .events = POLLIN}};
        if (poll(fds, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            return error_set(err, "waiting for the recorder's ring: %s", strerror(errno));
        }
        if (fds[1].revents)
            forward_requests(l, q);
        if (fds[0].revents)
            return 0;
    }
}

/* Reads the next segment lengths the tool announced into LENGTHS;
 * returns how many, 0 at the end of the stream, -1 on error. */
static ssize_t next_lengths(int fd, uint64_t *lengths, size_t max, struct trms_error *err)
{
    size_t got = 0;
    do {
        ssize_t n = read(fd, (char *)lengths + got, max * 8 - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return error_set(err, "reading the recorder's ring: %s", strerror(errno));
        if (n == 0)
            return 0;  /* a length cut short by the tool's death goes with it */
        got += (size_t)n;
    } while (got % 8 != 0);
    return (ssize_t)(got / 8);
}

/* Passes the segment the tool handed over as the DONE-th, BYTES long, to SINK. */
static int pass_segment(const struct ring *r, const struct raw_segment_sink *sink, uint64_t done,
                        uint64_t bytes, struct trms_error *err)
{
    if (bytes > SEGMENT_BYTES || bytes % 8 != 0)
        return error_set(err, "the recorder's ring announced %" PRIu64 " bytes", bytes);
    const uint64_t *segment = r->words + (done % RAW_RING_SEGMENTS) * RAW_SEGMENT_WORDS;
    return sink->segment(sink->ctx, segment, (size_t)(bytes / 8), err);
}

/* Passes segments in ring order as the tool announces them, handing each
 * back once passed, until the tool closes its end; then, if it died
 * without handing over its last one, what its mark still shows. A tool
 * that finished handed over a segment after the last mark, so the mark is
 * behind and shows nothing more. */
static int drain_ring(struct ring *r, const struct raw_segment_sink *sink, struct ring_list *l,
                      const struct window_requests *q, struct trms_error *err)
{
    uint64_t done = 0;
    for (;;) {
        uint64_t lengths[RAW_RING_SEGMENTS];
        if (await_segment(r, l, q, err) != 0)
            return -1;
        ssize_t n = next_lengths(r->notify[0], lengths, RAW_RING_SEGMENTS, err);
        if (n < 0)
            return -1;
        if (n == 0)
            break;
        for (ssize_t i = 0; i < n; i++, done++) {
            if (pass_segment(r, sink, done, lengths[i], err) != 0)
                return -1;
            /* The tool may be gone (killed); then nobody needs it back. */
            if (write(r->free[1], "", 1) < 0 && errno != EPIPE)
                return error_set(err, "answering the recorder's ring: %s", strerror(errno));
        }
    }
    const volatile struct raw_ring_mark *mark = r->mark;
    if (mark->segments_done == done && mark->bytes > 0)
        return pass_segment(r, sink, done, mark->bytes, err);
    return 0;
}

/* ---- one ring per process (process_socket.h) ---- */

/* Where the tools ask for rings: a socket in a directory of our own. */
struct listener {
    int fd;
    char dir[64];
    char path[80];
};

static int listener_open(struct listener *l, struct trms_error *err)
{
    const char *tmp = getenv("TMPDIR");
    l->fd = -1;
    snprintf(l->dir, sizeof l->dir, "%s/trms-sock-XXXXXX",
             tmp && tmp[0] && strlen(tmp) < 24 ? tmp : "/tmp");
    if (!mkdtemp(l->dir))
        return error_set(err, "cannot make the recorder's socket directory %s: %s", l->dir,
                         strerror(errno));
    snprintf(l->path, sizeof l->path, "%s/s", l->dir);
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    snprintf(addr.sun_path, sizeof addr.sun_path, "%s", l->path);
    l->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (l->fd < 0 || bind(l->fd, (struct sockaddr *)&addr, sizeof addr) != 0 ||
        listen(l->fd, 64) != 0)
        return error_set(err, "cannot listen on %s: %s", l->path, strerror(errno));
    return 0;
}

static void listener_close(struct listener *l)
{
    close_fd(&l->fd);
    unlink(l->path);
    rmdir(l->dir);
}

/* A tool's request for a ring. */
struct hello {
    struct raw_hello h;
    char command[RAW_HELLO_MAX_COMMAND + 1];  /* arguments, each NUL-ended */
};

static int read_all(int fd, void *p, size_t n)
{
    char *c = p;
    while (n > 0) {
        ssize_t got = read(fd, c, n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return -1;
        c += got;
        n -= (size_t)got;
    }
    return 0;
}

/* Accepts one connection and reads its hello; -1 when there is none or
 * it is not a tool's. */
static int accept_hello(int listen_fd, struct hello *h)
{
    int conn = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
    if (conn < 0)
        return -1;
    if (read_all(conn, &h->h, sizeof h->h) != 0 || h->h.magic != RAW_HELLO_MAGIC ||
        h->h.command_bytes > RAW_HELLO_MAX_COMMAND ||
        read_all(conn, h->command, h->h.command_bytes) != 0) {
        close(conn);
        return -1;
    }
    h->command[h->h.command_bytes] = '\0';
    return conn;
}

/* Sends the tool its ring's descriptors and closes our copies of its ends. */
static int hand_ring(int conn, struct ring *r)
{
    char answer = RAW_ANSWER_RECORD;
    struct iovec iov = {.iov_base = &answer, .iov_len = 1};
    union {
        struct cmsghdr h;
        char space[CMSG_SPACE(3 * sizeof(int))];
    } control;
    memset(&control, 0, sizeof control);
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = &control,
                         .msg_controllen = sizeof control};
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(3 * sizeof(int));
    int fds[3] = {r->memfd, r->notify[1], r->free[0]};
    memcpy(CMSG_DATA(c), fds, sizeof fds);
    ssize_t sent = sendmsg(conn, &msg, MSG_NOSIGNAL);
    /* Only the tool's copies may keep its ends open. */
    close_fd(&r->notify[1]);
    close_fd(&r->free[0]);
    return sent == 1 ? 0 : -1;
}

static void answer_skip(int conn)
{
    char answer = RAW_ANSWER_SKIP;
    if (write(conn, &answer, 1) < 0) {
        /* the tool is gone: nothing to tell */
    }
}

/* The processes after the first, as their tools ask (a thread). */
struct tree {
    struct valgrind_children *children;
    struct listener *listener;
    int stop[2];                /* the main thread -> the listener: no more */
    pthread_mutex_t lock;
    pthread_cond_t changed;
    unsigned admitted;          /* rings handed out, the first included */
    unsigned numbered;          /* images numbered, the first included */
    unsigned active;            /* rings being read */
    int *pids;                  /* of the images whose rings are read */
    struct ring_list *rings;    /* where `trms control`'s requests go */
    const struct window_requests *requests;  /* NULL: none are taken */
    size_t n_pids;
};

/* The images being read, for a request to stop (under LOCK). */
static void pid_add(struct tree *t, int pid)
{
    t->pids = xrealloc(t->pids, (t->n_pids + 1) * sizeof *t->pids);
    t->pids[t->n_pids++] = pid;
}

static void pid_remove(struct tree *t, int pid)
{
    for (size_t i = 0; i < t->n_pids; i++)
        if (t->pids[i] == pid) {
            t->pids[i] = t->pids[--t->n_pids];
            return;
        }
}

struct child_job {
    struct tree *tree;
    struct ring ring;
    int conn;
    struct hello hello;
    char **argv;
    int collecting;                         /* the tree's state as its ring was listed */
    const struct raw_segment_sink *sink;    /* NULL: read and dropped */
    int pid;                                /* 0: a fork that failed */
};

static int discard_segment(void *ctx, const uint64_t *words, size_t n, struct trms_error *err)
{
    (void)ctx, (void)words, (void)n, (void)err;
    return 0;
}

/* Where a new image's stream goes. Called by the listener, in the order
 * the requests come: a forked child is numbered before the program it
 * execs, since it says its pid before it runs any code of its own. */
static void job_begin(struct child_job *job)
{
    struct tree *t = job->tree;
    /* The arguments, as an argv. */
    const struct raw_hello *hh = &job->hello.h;
    job->argv = xcalloc(hh->command_bytes + 2, sizeof *job->argv);
    size_t argc = 0;
    for (uint32_t at = 0; at < hh->command_bytes;
         at += (uint32_t)strlen(job->hello.command + at) + 1)
        job->argv[argc++] = job->hello.command + at;
    if (argc == 0)
        job->argv[argc++] = "?";
    struct valgrind_process p = {.pid = hh->pid, .ppid = hh->ppid, .argv = job->argv,
                                 .collecting = job->collecting};
    int born = 1;
    if (hh->kind == RAW_HELLO_FORK) {
        /* The child says its pid; end of file: the fork failed. */
        int32_t pid;
        p.forked = 1;
        p.ppid = hh->pid;
        born = read_all(job->conn, &pid, sizeof pid) == 0 && pid > 0;
        p.pid = born ? pid : 0;
    }
    close_fd(&job->conn);
    pthread_mutex_lock(&t->lock);
    if (born) {
        job->sink = t->children->begin(t->children->ctx, &p, ++t->numbered);
        job->pid = p.pid;
        pid_add(t, p.pid);
    } else {
        t->admitted--;
    }
    pthread_mutex_unlock(&t->lock);
}

/* Reads one image's ring to its end (a thread of its own). */
static void *child_thread(void *arg)
{
    struct child_job *job = arg;
    struct tree *t = job->tree;
    struct raw_segment_sink discard = {.segment = discard_segment};
    struct trms_error err = {.message = ""};
    int rc = drain_ring(&job->ring, job->sink ? job->sink : &discard, NULL, NULL, &err);
    ring_list_remove(t->rings, &job->ring);
    ring_close(&job->ring);
    if (job->sink)  /* unlocked: the others record meanwhile */
        t->children->end(t->children->ctx, job->sink, rc, &err);
    pthread_mutex_lock(&t->lock);
    t->active--;
    if (job->pid)
        pid_remove(t, job->pid);
    pthread_cond_broadcast(&t->changed);
    pthread_mutex_unlock(&t->lock);
    free(job->argv);
    free(job);
    return NULL;
}

/* One tool's request: a ring and a thread to read it, or a refusal. */
static void serve(struct tree *t, int conn, const struct hello *h)
{
    pthread_mutex_lock(&t->lock);
    int admit = t->admitted < t->children->max_processes;
    if (admit) {
        t->admitted++;
        t->active++;
    } else {
        t->children->over_limit++;
        if (h->h.kind == RAW_HELLO_IMAGE && t->children->skipped) {
            char *argv[] = {(char *)h->command, NULL};
            struct valgrind_process p = {.pid = h->h.pid, .ppid = h->h.ppid, .argv = argv};
            t->children->skipped(t->children->ctx, &p);
        }
    }
    pthread_mutex_unlock(&t->lock);
    struct trms_error err;
    struct child_job *job = admit ? xcalloc(1, sizeof *job) : NULL;
    /* Listed before the tool has it: it answers every request made since. */
    int listed = admit && ring_open(&job->ring, &err) == 0;
    if (listed)
        ring_list_add(t->rings, &job->ring, &job->collecting);
    if (!listed || hand_ring(conn, &job->ring) != 0) {
        if (listed)
            ring_list_remove(t->rings, &job->ring);
        if (admit) {
            fprintf(stderr, "trms: warning: a process of pid %d could not get its ring; it "
                            "runs unrecorded\n", (int)h->h.pid);
            ring_close(&job->ring);
            free(job);
            pthread_mutex_lock(&t->lock);
            t->admitted--;
            t->active--;
            pthread_cond_broadcast(&t->changed);
            pthread_mutex_unlock(&t->lock);
        }
        answer_skip(conn);
        close(conn);
        return;
    }
    job->tree = t;
    job->conn = conn;
    job->hello = *h;
    job_begin(job);
    pthread_t thread;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&thread, &attr, child_thread, job) != 0)
        child_thread(job);  /* its process waits meanwhile, but is recorded */
    pthread_attr_destroy(&attr);
}

static void *listener_thread(void *arg)
{
    struct tree *t = arg;
    struct hello *h = xmalloc(sizeof *h);
    for (;;) {
        struct pollfd fds[2] = {{.fd = t->listener->fd, .events = POLLIN},
                                {.fd = t->stop[0], .events = POLLIN}};
        if (poll(fds, 2, -1) < 0 && errno != EINTR)
            break;
        if (fds[0].revents) {
            int conn = accept_hello(t->listener->fd, h);
            if (conn >= 0)
                serve(t, conn, h);
        }
        if (fds[1].revents)
            break;
    }
    /* Requests already made are served. */
    int flags = fcntl(t->listener->fd, F_GETFL);
    fcntl(t->listener->fd, F_SETFL, flags | O_NONBLOCK);
    for (int conn; (conn = accept_hello(t->listener->fd, h)) >= 0 || errno == EINTR;)
        if (conn >= 0)
            serve(t, conn, h);
    free(h);
    return NULL;
}

/* The first tool's request, while valgrind (PID) lives; -1 when it ended
 * first (*STATUS then says how) or said nothing a tool says. */
static int first_hello(int listen_fd, pid_t pid, struct hello *h, int *status, int *ended)
{
    *ended = 0;
    for (;;) {
        struct pollfd fd = {.fd = listen_fd, .events = POLLIN};
        int n = poll(&fd, 1, 200);
        if (n > 0)
            return accept_hello(listen_fd, h);
        if (n < 0 && errno != EINTR)
            return -1;
        /* Valgrind that could not start the program never asks. */
        if (waitpid(pid, status, WNOHANG) == pid) {
            *ended = 1;
            return -1;
        }
    }
}

static void outcome_of(int status, struct program_outcome *outcome)
{
    *outcome = (struct program_outcome){0};
    if (WIFSIGNALED(status))
        outcome->signal = WTERMSIG(status);
    else
        outcome->exit_code = WEXITSTATUS(status);
}

/* Waits until every ring read has ended. A request to stop (stop_signals)
 * goes on to the processes still recorded, as to the first: the signal,
 * then SIGKILL after the same grace; the wait looks for one every 200 ms
 * (a request sets a flag, it wakes nobody). */
static void await_rings(struct tree *t)
{
    int forwarded = 0;
    struct timespec since = {0};
    pthread_mutex_lock(&t->lock);
    while (t->active > 0) {
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        /* Requests after the first process ended go to the others. */
        if (t->requests) {
            pthread_mutex_unlock(&t->lock);
            forward_requests(t->rings, t->requests);
            pthread_mutex_lock(&t->lock);
        }
        int sig = stop_signals_requested();
        if (sig && forwarded == 0) {
            for (size_t i = 0; i < t->n_pids; i++)
                kill(t->pids[i], sig);
            forwarded = 1;
            since = now;
        } else if (forwarded == 1 && now.tv_sec - since.tv_sec >= STOP_SIGNALS_GRACE_SECONDS) {
            for (size_t i = 0; i < t->n_pids; i++)
                kill(t->pids[i], SIGKILL);
            forwarded = 2;
        }
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 200 * 1000 * 1000;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&t->changed, &t->lock, &until);
    }
    pthread_mutex_unlock(&t->lock);
}

/* After the first process ended: the others, until every ring read has
 * ended, and the listener, with the requests made meanwhile. */
static void tree_finish(struct tree *t, pthread_t listener)
{
    await_rings(t);
    if (write(t->stop[1], "", 1) < 0) {
        /* the listener polls it: cannot fail while it lives */
    }
    pthread_join(listener, NULL);
    await_rings(t);
    free(t->pids);
}

int valgrind_stream(const struct valgrind_run *run, const struct raw_segment_sink *sink,
                    struct program_outcome *outcome, struct trms_error *err)
{
    struct ring ring = {.memfd = -1, .notify = {-1, -1}, .free = {-1, -1}};
    struct listener listener = {.fd = -1};
    if (listener_open(&listener, err) != 0) {
        listener_close(&listener);
        return -1;
    }
    struct sigaction ignore = {.sa_handler = SIG_IGN}, old_int, old_quit, old_pipe;
    sigemptyset(&ignore.sa_mask);
    /* ^C is the program's; a caller that handles it (stop_signals) knows. */
    sigaction(SIGINT, NULL, &old_int);
    if (old_int.sa_handler == SIG_DFL)
        sigaction(SIGINT, &ignore, NULL);
    sigaction(SIGQUIT, &ignore, &old_quit);
    sigaction(SIGPIPE, &ignore, &old_pipe);

    int rc = 0;
    pid_t pid = fork();
    if (pid < 0) {
        rc = error_set(err, "cannot start valgrind: %s", strerror(errno));
    } else if (pid == 0) {
        /* A trms killed outright (SIGKILL) takes the program with it, as
         * ptrace's EXITKILL does for the step engine: nobody would record
         * it any more. */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGQUIT, &old_quit, NULL);
        sigaction(SIGPIPE, &old_pipe, NULL);
        exec_valgrind(run, listener.path);
    } else {
        stop_signals_set_target(pid);  /* a request to stop goes to it */
        struct valgrind_children none = {.max_processes = 1, .collecting = 1};
        struct tree t = {.children = run->children ? run->children : &none,
                         .listener = &listener, .stop = {-1, -1}, .admitted = 1,
                         .numbered = 1, .requests = run->requests,
                         .lock = PTHREAD_MUTEX_INITIALIZER, .changed = PTHREAD_COND_INITIALIZER};
        struct ring_list rings = {.lock = PTHREAD_MUTEX_INITIALIZER,
                                  .collecting = t.children->collecting};
        t.rings = &rings;
        struct hello *h = xmalloc(sizeof *h);
        int status = 0, ended;
        int conn = first_hello(listener.fd, pid, h, &status, &ended);
        if (conn >= 0 && (ring_open(&ring, err) != 0 || hand_ring(conn, &ring) != 0)) {
            rc = -1;
            if (!err->message[0])
                error_set(err, "cannot hand the recorder's ring to valgrind");
        }
        if (conn >= 0) {
            close(conn);
            t.children->root_pid = h->h.pid;
            t.children->root_ppid = h->h.ppid;
        }
        free(h);
        pthread_t listen_thread;
        int listening = rc == 0 && conn >= 0 && pipe2(t.stop, O_CLOEXEC) == 0 &&
                        pthread_create(&listen_thread, NULL, listener_thread, &t) == 0;
        if (rc == 0 && conn >= 0) {
            int collecting;
            ring_list_add(&rings, &ring, &collecting);
            rc = drain_ring(&ring, sink, &rings, run->requests, err);
            ring_list_remove(&rings, &ring);
        }
        if (rc != 0)
            kill(pid, SIGKILL);  /* it would wait for segments nobody hands back */
        struct trms_error wait_err;
        if (ended)
            outcome_of(status, outcome);
        else if (wait_for(pid, outcome, rc == 0 ? err : &wait_err) != 0)
            rc = -1;
        if (listening)
            tree_finish(&t, listen_thread);
        close_fd(&t.stop[0]);
        close_fd(&t.stop[1]);
        stop_signals_set_target(0);
    }
    ring_close(&ring);
    listener_close(&listener);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGQUIT, &old_quit, NULL);
    sigaction(SIGPIPE, &old_pipe, NULL);
    return rc;
}

/* Segments into the decoder: records never span them. */
static int decode_segment(void *ctx, const uint64_t *words, size_t n, struct trms_error *err)
{
    size_t used;
    if (raw_decoder_feed(ctx, words, n, &used, err) != 0)
        return -1;
    if (used != n)
        return error_set(err, "raw stream: a record crosses a ring segment");
    return 0;
}

int valgrind_record(const struct valgrind_run *run, struct trace_writer *writer,
                    struct routine_table *routines,
                    const struct raw_decoder_callbacks *cb, struct raw_summary *summary,
                    struct program_outcome *outcome, struct trms_error *err)
{
    struct raw_decoder *d = raw_decoder_new(writer, routines, cb, summary);
    if (run->window)
        raw_decoder_set_window(d, run->window);
    struct raw_segment_sink sink = {.segment = decode_segment, .ctx = d};
    int rc = valgrind_stream(run, &sink, outcome, err);
    if (raw_decoder_finish(d, rc == 0 ? err : &(struct trms_error){0}) != 0)
        rc = -1;
    return rc;
}
