#include "pack/recording_check.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/parse_number.h"
#include "common/regular_file.h"
#include "common/u64map.h"
#include "store/symbol_file.h"
#include "symbols/memory_maps.h"
#include "trace/recording.h"
#include "trace/trace_check.h"
#include "trace/trace_reader.h"

#define VALGRIND_LOG "valgrind.log"
#define RR_DIR "rr"

/* The meta keys that hold a count, and the largest each may say. */
static const struct {
    const char *key;
    uint64_t max;
} counts[] = {
    {"events", UINT64_MAX},
    {"threads", RECORDING_MAX_THREADS},
    {"routines", UINT32_MAX},
};
#define N_COUNTS (sizeof counts / sizeof *counts)

/* The meta's counts: present ones are numbers within their bounds. */
static int check_counts(const char *dir, const struct recording *rec, uint64_t values[N_COUNTS],
                        int present[N_COUNTS], struct trms_error *err)
{
    for (size_t i = 0; i < N_COUNTS; i++) {
        const char *v = recording_meta(rec, counts[i].key);
        present[i] = v != NULL;
        if (v && (parse_u64_cstr(v, &values[i]) != PARSE_NUMBER_OK || values[i] > counts[i].max))
            return error_set(err, "%s: the meta's %s is not a count a recording can have",
                             dir, counts[i].key);
    }
    return 0;
}

int recording_has(const char *dir, const char *name)
{
    char *path = recording_file(dir, name);
    struct stat st;
    int yes = lstat(path, &st) == 0;
    free(path);
    return yes;
}

/* DIR/NAME, when present, is a regular file reached without a link. */
static int regular_or_absent(const char *dir, const char *name, struct trms_error *err)
{
    if (!recording_has(dir, name))
        return 0;
    const char *why;
    int fd = regular_file_open_in(dir, name, &why);
    if (fd < 0)
        return error_set(err, "%s/%s: cannot open: %s", dir, name, why);
    close(fd);
    return 0;
}

struct thread_count {
    struct u64map seen;
    uint32_t last;
    int any;
};

static int count_event(void *ctx, const struct event *ev, struct trms_error *err)
{
    (void)err;
    struct thread_count *t = ctx;
    if (ev->type == EVENT_THREAD && (!t->any || ev->tid != t->last)) {
        u64map_upsert(&t->seen, ev->tid, NULL);
        t->last = ev->tid;
        t->any = 1;
    }
    return 0;
}

/* The whole trace: every block, and its totals against the meta's. */
static int read_trace(const char *dir, const uint64_t values[N_COUNTS],
                      const int present[N_COUNTS], struct recording_facts *f,
                      struct trms_error *err)
{
    char *path = recording_file(dir, RECORDING_EVENTS);
    struct routine_table routines;
    routine_table_init(&routines);
    struct thread_count t = {.any = 0};
    u64map_init(&t.seen);
    struct trace_stats stats = {0};
    int rc = trace_read(path, &routines, count_event, &t, &stats, err);
    f->events = stats.events;
    f->blocks = stats.blocks;
    f->bytes = stats.bytes;
    f->threads = t.seen.count;
    f->routines = routines.count;
    u64map_free(&t.seen);
    routine_table_free(&routines);
    free(path);
    if (rc != 0)
        return -1;
    if (present[0] && values[0] != f->events)
        return error_set(err, "%s: the event trace holds %" PRIu64 " events, the meta says %"
                              PRIu64, dir, f->events, values[0]);
    /* Threads the engine saw but whose events a window left out are in
     * the meta only: never fewer there than the trace holds. */
    if (present[1] && values[1] < f->threads)
        return error_set(err, "%s: the event trace holds %" PRIu64 " threads, the meta says %"
                              PRIu64, dir, f->threads, values[1]);
    return 0;
}

/* The end block alone, against the meta. */
static int check_end(const char *dir, const uint64_t values[N_COUNTS], const int present[N_COUNTS],
                     struct trms_error *err)
{
    char *path = recording_file(dir, RECORDING_EVENTS);
    struct trace_check c;
    trace_check_end(path, &c);
    int rc = 0;
    if (c.status == TRACE_CHECK_BAD)
        rc = error_set(err, "%s: the trace is damaged: %s", path, c.why);
    else if (c.status == TRACE_CHECK_CUT)
        rc = error_set(err, "%s: the trace is cut short at byte %" PRIu64, path, c.cut_at);
    else if (c.status == TRACE_CHECK_OK && present[0] && values[0] != c.events)
        rc = error_set(err, "%s: the event trace holds %" PRIu64 " events, the meta says %" PRIu64,
                       dir, c.events, values[0]);
    free(path);
    return rc;
}

static int parse_maps(const char *dir, struct trms_error *err)
{
    char *path = recording_file(dir, MAPS_FILE);
    struct memory_maps maps;
    memory_maps_init(&maps);
    int rc = memory_maps_read(&maps, path, err);
    memory_maps_free(&maps);
    free(path);
    return rc;
}

static int parse_symbols(const char *dir, struct trms_error *err)
{
    struct symbol_names names;
    symbol_names_init(&names);
    int rc = symbol_file_read(dir, &names, err) < 0 ? -1 : 0;
    symbol_names_free(&names);
    return rc;
}

int recording_check(const char *dir, int full, struct recording_facts *f, struct trms_error *err)
{
    memset(f, 0, sizeof *f);
    struct recording rec;
    if (recording_open(dir, &rec, err) != 0)
        return -1;
    uint64_t values[N_COUNTS] = {0};
    int present[N_COUNTS] = {0};
    const char *engine = recording_meta(&rec, "engine");
    int is_rr = engine && strcmp(engine, "rr") == 0;
    int rc = check_counts(dir, &rec, values, present, err);
    f->no_trace = !recording_has_trace(&rec);
    recording_close(&rec);
    f->has_trace = recording_has(dir, RECORDING_EVENTS);
    if (rc == 0 && f->has_trace && f->no_trace)
        rc = error_set(err, "%s: its meta says it kept no event trace (--trace none), yet it "
                            "has %s", dir, RECORDING_EVENTS);
    if (rc == 0 && !f->has_trace && !is_rr && !f->no_trace)
        rc = error_set(err, "%s: the event trace (%s) is missing", dir, RECORDING_EVENTS);
    if (rc == 0 && !f->has_trace && is_rr && !recording_has(dir, RR_DIR))
        rc = error_set(err, "%s: an rr recording without rr's trace (%s/)", dir, RR_DIR);
    static const char *const files[] = {RECORDING_EVENTS, MAPS_FILE, SYMBOL_FILE_NAME,
                                        VALGRIND_LOG};
    for (size_t i = 0; rc == 0 && i < sizeof files / sizeof *files; i++)
        rc = regular_or_absent(dir, files[i], err);
    if (rc == 0 && f->has_trace)
        rc = full ? read_trace(dir, values, present, f, err) : check_end(dir, values, present, err);
    if (rc == 0 && recording_has(dir, MAPS_FILE))
        rc = parse_maps(dir, err);
    if (rc == 0 && recording_has(dir, SYMBOL_FILE_NAME))
        rc = parse_symbols(dir, err);
    return rc;
}
