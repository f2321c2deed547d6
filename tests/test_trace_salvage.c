/* A trace whose writes fail half way (a full disk; here a file size
 * limit) keeps its whole blocks, closed with an end block, and reads back
 * whole; trace_check_end tells a whole trace from one cut short, one with
 * bytes past its end, and one that is not a trace, without reading it. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/check.h"
#include "tests/random_trace.h"
#include "trace/trace_check.h"
#include "trace/trace_reader.h"
#include "trace/trace_writer.h"

static char tmpdir[] = "/tmp/trms-test-salvage-XXXXXX";

static int count(void *ctx, const struct event *ev, struct trms_error *err)
{
    (void)ev;
    (void)err;
    ++*(uint64_t *)ctx;
    return 0;
}

static void random_events(uint64_t seed, uint64_t n, struct event_list *events,
                          struct routine_table *routines)
{
    struct random_trace_shape shape = {.threads = 3, .events = n, .routines = 20,
                                       .regions = 4, .region_span = 1 << 20, .max_depth = 8};
    routine_table_init(routines);
    random_trace(seed, &shape, events, routines);
}

static uint64_t file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
}

/* In a child limited to LIMIT bytes per file: writes until a write fails,
 * then, the limit lifted (the reserve given back), salvages. Exits with
 * the events kept in the pipe. */
static void write_until_full(const char *path, uint64_t limit, const struct event_list *events,
                             const struct routine_table *routines, int out)
{
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit rl = {.rlim_cur = limit, .rlim_max = RLIM_INFINITY};
    setrlimit(RLIMIT_FSIZE, &rl);
    struct trms_error err;
    struct trace_writer *w = trace_writer_create(path, &err);
    if (!w)
        _exit(2);
    size_t i = 0;
    while (i < events->count && trace_writer_event(w, &events->items[i], routines, &err) == 0)
        i++;
    /* The writer thread may meet the limit after the last event was taken:
     * draining shows it then. */
    if (i == events->count && trace_writer_drain(w, &err) == 0)
        _exit(3);
    if (trace_writer_failed(w) != EFBIG)
        _exit(3);
    rl.rlim_cur = RLIM_INFINITY;
    setrlimit(RLIMIT_FSIZE, &rl);
    uint64_t kept;
    if (trace_writer_salvage(w, &kept, &err) != 0)
        _exit(4);
    if (write(out, &kept, sizeof kept) != sizeof kept)
        _exit(5);
    _exit(0);
}

/* EVENTS written whole, as a trace of their own, to PATH. */
static void write_whole(const char *path, const struct event_list *events,
                        const struct routine_table *routines)
{
    struct trms_error err;
    struct trace_writer *w = trace_writer_create(path, &err);
    for (size_t i = 0; w && i < events->count; i++)
        CHECK(trace_writer_event(w, &events->items[i], routines, &err) == 0);
    CHECK(w && trace_writer_close(w, routines, &err) == 0);
}

static void salvage(void)
{
    struct event_list events = {0};
    struct routine_table routines;
    /* Enough blocks (256 KiB before compression) that each limit falls
     * after some whole ones: the limits are shares of the whole trace. */
    random_events(11, 1500000, &events, &routines);
    char whole[300];
    snprintf(whole, sizeof whole, "%s/salvage-whole.trms", tmpdir);
    write_whole(whole, &events, &routines);
    uint64_t whole_size = file_size(whole);
    /* The last cuts the last events block (the end block is under 64
     * bytes), which the writer thread meets after the last event was
     * taken: trace_writer_drain shows it. */
    const uint64_t limits[] = {whole_size / 5, whole_size / 2, whole_size * 4 / 5 + 1,
                               whole_size - 64};
    for (size_t l = 0; l < sizeof limits / sizeof *limits; l++) {
        char path[300];
        snprintf(path, sizeof path, "%s/salvaged-%zu.trms", tmpdir, l);
        int pipe_fds[2];
        CHECK(pipe(pipe_fds) == 0);
        fflush(NULL);
        pid_t child = fork();
        if (child == 0)
            write_until_full(path, limits[l], &events, &routines, pipe_fds[1]);
        close(pipe_fds[1]);
        uint64_t kept = 0;
        CHECK(read(pipe_fds[0], &kept, sizeof kept) == sizeof kept);
        close(pipe_fds[0]);
        int status;
        CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status) &&
              WEXITSTATUS(status) == 0);
        CHECK(kept > 0 && kept < events.count);
        CHECK(file_size(path) <= limits[l]);
        /* Whole, and the events up to the cut are the first KEPT written. */
        struct routine_table got;
        routine_table_init(&got);
        uint64_t n = 0;
        struct trms_error err;
        CHECK(trace_read(path, &got, count, &n, NULL, &err) == 0);
        CHECK_EQ(n, kept);
        routine_table_free(&got);
        struct trace_check c;
        trace_check_end(path, &c);
        CHECK_EQ(c.status, TRACE_CHECK_OK);
        CHECK_EQ(c.events, kept);
    }
    event_list_free(&events);
    routine_table_free(&routines);
}

static void check_end(void)
{
    struct event_list events = {0};
    struct routine_table routines;
    random_events(12, 400000, &events, &routines);
    char path[300];
    snprintf(path, sizeof path, "%s/whole.trms", tmpdir);
    write_whole(path, &events, &routines);
    struct trms_error err;
    uint64_t size = file_size(path);
    struct trace_check c;
    trace_check_end(path, &c);
    CHECK_EQ(c.status, TRACE_CHECK_OK);
    struct routine_table got;
    routine_table_init(&got);
    uint64_t n = 0;
    CHECK(trace_read(path, &got, count, &n, NULL, &err) == 0);
    routine_table_free(&got);
    CHECK_EQ(c.events, n);
    CHECK_EQ(c.routines, routines.count);
    CHECK(c.blocks > 3);
    CHECK_EQ(c.bytes, size);

    /* Cut anywhere: where the whole blocks end, and never past the cut. */
    uint64_t previous_cut = 0;
    for (uint64_t at = 0; at < size; at += size / 23 + 1) {
        char cut[320];
        snprintf(cut, sizeof cut, "%s.cut", path);
        char cmd[1200];
        snprintf(cmd, sizeof cmd, "head -c %llu %s > %s", (unsigned long long)at, path, cut);
        CHECK(system(cmd) == 0);
        trace_check_end(cut, &c);
        CHECK_EQ(c.status, TRACE_CHECK_CUT);
        CHECK(c.cut_at <= at && c.cut_at >= previous_cut);
        CHECK(at < 16 || c.cut_at >= 16);
        previous_cut = c.cut_at;
    }
    /* Bytes past the end block. */
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "cp %s %s.long && printf 'junk' >> %s.long", path, path, path);
    CHECK(system(cmd) == 0);
    char longer[320];
    snprintf(longer, sizeof longer, "%s.long", path);
    trace_check_end(longer, &c);
    CHECK_EQ(c.status, TRACE_CHECK_BAD);
    CHECK(strstr(c.why, "after its end block") != NULL);
    /* Not a trace; none at all. */
    snprintf(cmd, sizeof cmd, "printf 'NOTATRACE-------' > %s.not", path);
    CHECK(system(cmd) == 0);
    snprintf(longer, sizeof longer, "%s.not", path);
    trace_check_end(longer, &c);
    CHECK_EQ(c.status, TRACE_CHECK_BAD);
    snprintf(longer, sizeof longer, "%s.none", path);
    trace_check_end(longer, &c);
    CHECK_EQ(c.status, TRACE_CHECK_MISSING);
    event_list_free(&events);
    routine_table_free(&routines);
}

int main(void)
{
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    salvage();
    check_end();
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tmpdir);
    return check_report("test_trace_salvage");
}
