/* valgrind_engine: the program under Valgrind, streamed (see valgrind_engine.h). */
#define _GNU_SOURCE  /* pipe2, memfd_create */
#include "recorder/valgrind_engine.h"

#include <errno.h>
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
#include <sys/wait.h>
#include <unistd.h>

#include "common/oom.h"
#include "common/stop_signals.h"
#include "recorder/raw_stream.h"

#define TOOL_BINARY "trms-amd64-linux"
#define SEGMENT_BYTES ((size_t)RAW_SEGMENT_WORDS * 8)
#define RING_BYTES ((size_t)RAW_RING_BYTES)

/* The ring (raw_stream.h) and its two pipes, as this process sees them. */
struct ring {
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

/* A copy of FD the exec'd tool inherits (the originals close on exec). */
static int inheritable(int fd)
{
    int copy = fcntl(fd, F_DUPFD, 3);
    if (copy < 0)
        _exit(127);
    return copy;
}

static void exec_valgrind(const struct valgrind_run *run, const struct ring *r)
{
    size_t argc = 0;
    while (run->argv[argc])
        argc++;
    char notify_option[32], ring_option[32], free_option[32], log_option[PATH_MAX + 16];
    snprintf(notify_option, sizeof notify_option, "--trms-fd=%d", inheritable(r->notify[1]));
    snprintf(ring_option, sizeof ring_option, "--trms-ring-fd=%d", inheritable(r->memfd));
    snprintf(free_option, sizeof free_option, "--trms-free-fd=%d", inheritable(r->free[0]));
    snprintf(log_option, sizeof log_option, "--log-file=%s", run->log_path);
    const char *fixed[] = {"valgrind", "--tool=trms", "-q", log_option,
                           notify_option, ring_option, free_option};
    size_t n_fixed = sizeof fixed / sizeof *fixed;
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

static int wait_for(pid_t pid, struct program_outcome *outcome, struct trms_error *err)
{
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return error_set(err, "waiting for valgrind: %s", strerror(errno));
    *outcome = (struct program_outcome){0};
    if (WIFSIGNALED(status))
        outcome->signal = WTERMSIG(status);
    else
        outcome->exit_code = WEXITSTATUS(status);
    return 0;
}

/* Hands the requests that came to the tool: the request first, then 0 as
 * the end of its segment, which makes the tool look (raw_stream.h). */
static void forward_requests(struct ring *r, const struct window_requests *q)
{
    int on;
    while (q->take(q->ctx, &on)) {
        uint64_t request = ++r->requests << 1 | (uint64_t)(on != 0);
        __atomic_store_n(&r->mark->window_request, request, __ATOMIC_RELEASE);
        __atomic_store_n(&r->mark->end, 0, __ATOMIC_RELEASE);
    }
    q->taken(q->ctx);
}

/* Waits until the tool announces a segment, forwarding requests that come
 * meanwhile. */
static int await_segment(struct ring *r, const struct window_requests *q,
                         struct trms_error *err)
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
            forward_requests(r, q);
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
static int drain_ring(struct ring *r, const struct raw_segment_sink *sink,
                      const struct window_requests *q, struct trms_error *err)
{
    uint64_t done = 0;
    for (;;) {
        uint64_t lengths[RAW_RING_SEGMENTS];
        if (await_segment(r, q, err) != 0)
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

int valgrind_stream(const struct valgrind_run *run, const struct raw_segment_sink *sink,
                    struct program_outcome *outcome, struct trms_error *err)
{
    struct ring ring;
    if (ring_open(&ring, err) != 0) {
        ring_close(&ring);
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
        exec_valgrind(run, &ring);
    } else {
        stop_signals_set_target(pid);  /* a request to stop goes to it */
        /* Only the tool's copies may keep its ends open. */
        close_fd(&ring.notify[1]);
        close_fd(&ring.free[0]);
        rc = drain_ring(&ring, sink, run->requests, err);
        if (rc != 0)
            kill(pid, SIGKILL);  /* it would wait for segments nobody hands back */
        struct trms_error wait_err;
        if (wait_for(pid, outcome, rc == 0 ? err : &wait_err) != 0)
            rc = -1;
        stop_signals_set_target(0);
    }
    ring_close(&ring);
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
