/* trms-bench: throughput and memory of the analyses on a large synthetic
 * trace (see bench/README.md for the command and the figures).
 *
 *   trms-bench MODE [--events N] [--threads T] [--working-set BYTES]
 *                   [--cell-size N] [--line-size N] [--shards N] [--workers 0|1]
 *                   [--contexts 0|1] [--hostile 0|1]
 *
 * MODE is input-size (RMS + TRMS + profiles), reuse (global and per-thread
 * reuse distance), all (both, as `trms analyze` runs them), driver (no
 * pass: the validation and batching of the events alone), naive (the fast
 * analyses and the naive reference side by side on the same prefix, checked
 * equal), reuse-naive (one exact reuse stack against a move-to-front array
 * on the same line accesses, checked equal), or record DIR (write the trace
 * as a recording, to time `trms analyze` end to end). --recording REC
 * times input-size, reuse, all or driver on REC's events instead (read
 * into memory first), to see where a real trace's analysis spends. --contexts 1 keeps
 * the profiles per calling context, as `trms analyze --contexts`. Only the
 * analysis is timed: the events are
 * generated in memory first. --threads is the traced program's; --shards
 * and --workers choose how the analysis uses this machine's cores. Besides
 * the wall time, a run prints the CPU seconds of all its threads and those
 * of the thread that feeds the events (cpu_seconds, feed_cpu_seconds).
 * --hostile 1 generates the hostile shape (bench/synthetic_trace.h: skewed
 * random accesses over --working-set, default then 32 MiB, 2% calls, 2%
 * returns, a thread switch every few hundred events). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "analyses/analysis.h"
#include "analyses/reuse_distance.h"
#include "bench/synthetic_trace.h"
#include "common/oom.h"
#include "common/parse_number.h"
#include "tests/move_to_front.h"
#include "tests/naive_reference.h"
#include "trace/recording.h"
#include "trace/trace_reader.h"
#include "trace/trace_writer.h"

#define CHUNK (1u << 20)   /* events generated at a time when recording */

struct options {
    const char *mode;
    const char *dir;
    const char *recording;  /* --recording REC: its events, not synthetic ones */
    uint64_t events;
    struct synthetic_shape shape;
    struct analysis_options analysis;
};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* CPU seconds of every thread of the process, user and system. */
static double cpu_seconds(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
           (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
}

#ifndef RUSAGE_THREAD
#define RUSAGE_THREAD 1 /* Linux: the calling thread alone */
#endif
static double thread_cpu_seconds(void)
{
    struct rusage ru;
    getrusage(RUSAGE_THREAD, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
           (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
}

static long peak_rss_kib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

/* Distinct cells: one bit per cell of each region the trace can touch. */
struct cell_census {
    uint64_t base[64], size[64];
    uint64_t *bits[64];
    unsigned regions;
    unsigned cell_shift;
};

static void add_region(void *ctx, uint64_t base, uint64_t size)
{
    struct cell_census *c = ctx;
    c->base[c->regions] = base;
    c->size[c->regions] = size;
    c->bits[c->regions] = xcalloc((size >> c->cell_shift) / 64 + 2, sizeof(uint64_t));
    c->regions++;
}

static void census_access(struct cell_census *c, const struct event *e)
{
    for (unsigned r = 0; r < c->regions; r++) {
        if (e->addr < c->base[r] || e->addr >= c->base[r] + c->size[r])
            continue;
        uint64_t first = (e->addr - c->base[r]) >> c->cell_shift;
        uint64_t last = (e->addr + e->size - 1 - c->base[r]) >> c->cell_shift;
        for (uint64_t i = first; i <= last; i++)
            c->bits[r][i / 64] |= 1ull << (i % 64);
        return;
    }
}

static uint64_t census_count(const struct cell_census *c)
{
    uint64_t n = 0;
    for (unsigned r = 0; r < c->regions; r++)
        for (uint64_t w = 0; w < (c->size[r] >> c->cell_shift) / 64 + 2; w++)
            n += (uint64_t)__builtin_popcountll(c->bits[r][w]);
    return n;
}

struct loaded_events {
    struct event *events;
    size_t n;
    size_t capacity;
    uint64_t accesses;
};

static int keep_event(void *ctx, const struct event *ev, struct trms_error *err)
{
    (void)err;
    struct loaded_events *l = ctx;
    if (l->n == l->capacity) {
        l->capacity = l->capacity ? 2 * l->capacity : 1 << 20;
        l->events = xrealloc(l->events, l->capacity * sizeof *l->events);
    }
    l->events[l->n++] = *ev;
    l->accesses += event_is_access(ev->type);
    return 0;
}

/* Every event of recording DIR, in memory (a real program's trace, or the
 * 4-thread random one, to time the passes on). */
static int load_recording(const char *dir, struct loaded_events *l)
{
    struct trms_error err;
    struct routine_table routines;
    routine_table_init(&routines);
    char *path = recording_file(dir, RECORDING_EVENTS);
    int rc = trace_read(path, &routines, keep_event, l, NULL, &err);
    free(path);
    routine_table_free(&routines);
    if (rc != 0)
        fprintf(stderr, "trms-bench: %s\n", err.message);
    return rc;
}

static int run_analysis(const struct options *o)
{
    /* Generate everything first: the analysis runs on worker threads, so
     * only a loop that does nothing else can be timed fairly. */
    struct synthetic_trace *trace = synthetic_new(&o->shape);
    struct cell_census census = {.cell_shift = (unsigned)__builtin_ctzll(o->analysis.cell_size)};
    struct event *events;
    uint64_t accesses, n_events = o->events, cell_accesses = 0;
    if (o->recording) { /* no regions known: no census of distinct cells */
        struct loaded_events l = {0};
        if (load_recording(o->recording, &l) != 0)
            return 1;
        events = l.events;
        n_events = l.n;
        accesses = l.accesses;
    } else {
        synthetic_regions(trace, add_region, &census);
        events = xmalloc(o->events * sizeof *events);
        accesses = synthetic_fill(trace, events, (size_t)o->events);
    }
    for (uint64_t i = 0; i < n_events; i++)
        if (event_is_access(events[i].type)) {
            census_access(&census, &events[i]);
            cell_accesses += ((events[i].addr + events[i].size - 1) >> census.cell_shift) -
                             (events[i].addr >> census.cell_shift) + 1;
        }
    long baseline = peak_rss_kib();

    struct trms_error err;
    double start = now(), cpu_start = cpu_seconds(), main_start = thread_cpu_seconds();
    struct analysis *a = analysis_new(&o->analysis, &err);
    if (!a) {
        fprintf(stderr, "trms-bench: %s\n", err.message);
        return 1;
    }
    for (uint64_t i = 0; i < n_events; i++)
        if (analysis_event(a, &events[i], &err) != 0) {
            fprintf(stderr, "trms-bench: %s\n", err.message);
            return 1;
        }
    double main_cpu = thread_cpu_seconds() - main_start;
    struct analysis_result *r = analysis_finish(a, NULL);
    double seconds = now() - start, cpu = cpu_seconds() - cpu_start;
    struct analysis_memory mem;
    analysis_memory(a, &mem);
    uint64_t cells = census_count(&census);
    uint64_t lines = r->reuse_global.cold;
    printf("mode=%s events=%" PRIu64 " accesses=%" PRIu64 " cell_accesses=%" PRIu64
           " threads=%u shards=%u workers=%s seconds=%.3f cpu_seconds=%.3f feed_cpu_seconds=%.3f"
           " accesses_per_s=%.1fM"
           " rss_growth_mib=%.1f input_size_mib=%.1f reuse_mib=%.1f profiles_mib=%.1f"
           " engine_mib=%.1f distinct_cells=%" PRIu64 " distinct_lines=%" PRIu64
           " bytes_per_cell=%.1f bytes_per_line=%.1f\n",
           o->mode, n_events, accesses, cell_accesses, o->shape.threads, o->analysis.shards,
           o->analysis.threads ? "yes" : "no", seconds, cpu, main_cpu, (double)accesses / seconds / 1e6,
           (double)(peak_rss_kib() - baseline) / 1024, (double)mem.input_size / (1 << 20),
           (double)mem.reuse / (1 << 20), (double)mem.profiles / (1 << 20),
           (double)mem.engine / (1 << 20), cells, lines,
           (double)mem.input_size / (double)(cells ? cells : 1),
           (double)mem.reuse / (double)(lines ? lines : 1));
    analysis_result_free(r);
    analysis_free(a);
    synthetic_free(trace);
    free(events);
    for (unsigned i = 0; i < census.regions; i++)
        free(census.bits[i]);
    return 0;
}

/* The same prefix through the fast analyses and the naive reference. */
static int run_naive(const struct options *o)
{
    struct synthetic_trace *trace = synthetic_new(&o->shape);
    struct event *events = xmalloc(o->events * sizeof *events);
    uint64_t accesses = synthetic_fill(trace, events, (size_t)o->events);
    struct trms_error err;
    double start = now();
    struct analysis *a = analysis_new(&o->analysis, &err);
    for (uint64_t i = 0; i < o->events; i++)
        analysis_event(a, &events[i], &err);
    struct analysis_result *r = analysis_finish(a, NULL);
    double fast = now() - start;
    start = now();
    struct naive_result naive;
    int rc = naive_analyze(events, (size_t)o->events, o->analysis.cell_size,
                           o->analysis.line_size, &naive);
    double slow = now() - start;
    int same = rc == 0 && r->reuse_global.cold == naive.global.cold &&
               r->reuse_global.accesses == naive.global.accesses &&
               r->activations == naive.n_activations;
    printf("mode=naive events=%" PRIu64 " accesses=%" PRIu64 " fast_seconds=%.3f"
           " naive_seconds=%.3f speedup=%.0fx agree=%s\n",
           o->events, accesses, fast, slow, slow / fast, same ? "yes" : "NO");
    if (rc == 0)
        naive_result_free(&naive);
    analysis_result_free(r);
    analysis_free(a);
    synthetic_free(trace);
    free(events);
    return same ? 0 : 1;
}

/* The global reuse histogram of the same line accesses, by the engine's
 * pass (reuse distance alone, one stack) and by the move-to-front array. */
static int run_reuse_naive(const struct options *o)
{
    struct synthetic_trace *trace = synthetic_new(&o->shape);
    struct event *events = xmalloc(o->events * sizeof *events);
    synthetic_fill(trace, events, (size_t)o->events);
    unsigned shift = (unsigned)__builtin_ctzll(o->analysis.line_size);
    uint64_t *lines = NULL;
    size_t n = 0, capacity = 0;
    for (uint64_t i = 0; i < o->events; i++) {
        const struct event *e = &events[i];
        if (e->type != EVENT_READ && e->type != EVENT_WRITE)
            continue;
        for (uint64_t l = e->addr >> shift; l <= (e->addr + e->size - 1) >> shift; l++) {
            if (n == capacity) {
                capacity = capacity ? 2 * capacity : 1 << 20;
                lines = xrealloc(lines, capacity * sizeof *lines);
            }
            lines[n++] = l;
        }
    }
    double start = now();
    struct reuse_distance *rd = reuse_distance_new(0);
    for (size_t i = 0; i < n; i++)
        reuse_distance_access(rd, lines[i]);
    double fast = now() - start;
    start = now();
    struct mtf m = {0};
    for (size_t i = 0; i < n; i++)
        mtf_access(&m, lines[i]);
    double slow = now() - start;
    int same = reuse_distance_cold(rd) == m.cold && reuse_distance_accesses(rd) == n;
    for (uint64_t d = 0; same && d < m.hist_len; d++)
        same = reuse_distance_count(rd, d) == m.hist[d];
    same = same && reuse_distance_span(rd) <= m.hist_len;
    printf("mode=reuse-naive events=%" PRIu64 " line_accesses=%zu distinct_lines=%" PRIu64
           " fast_seconds=%.3f naive_seconds=%.3f fast_per_s=%.1fM naive_per_s=%.2fM"
           " speedup=%.0fx agree=%s\n",
           o->events, n, m.cold, fast, slow, (double)n / fast / 1e6, (double)n / slow / 1e6,
           slow / fast, same ? "yes" : "NO");
    reuse_distance_free(rd);
    mtf_free(&m);
    free(lines);
    free(events);
    synthetic_free(trace);
    return same ? 0 : 1;
}

/* Writes the trace as a recording, as an engine would. */
static int run_record(const struct options *o)
{
    struct trms_error err;
    char *staging;
    if (recording_stage(o->dir, &staging, &err) != 0) {
        fprintf(stderr, "trms-bench: %s\n", err.message);
        return 1;
    }
    struct routine_table routines;
    routine_table_init(&routines);
    for (unsigned r = 0; r < o->shape.routines; r++) {
        char name[32];
        uint32_t id;
        int len = snprintf(name, sizeof name, "routine_%u", r);
        routine_table_intern_name(&routines, name, (size_t)len, &id);
    }
    char *path = recording_file(staging, RECORDING_EVENTS);
    struct trace_writer *w = trace_writer_create(path, &err);
    free(path);
    struct synthetic_trace *trace = synthetic_new(&o->shape);
    struct event *chunk = xmalloc(CHUNK * sizeof *chunk);
    int rc = w ? 0 : -1;
    for (uint64_t done = 0; rc == 0 && done < o->events;) {
        size_t n = o->events - done < CHUNK ? (size_t)(o->events - done) : CHUNK;
        synthetic_fill(trace, chunk, n);
        for (size_t i = 0; rc == 0 && i < n; i++)
            rc = trace_writer_event(w, &chunk[i], &routines, &err);
        done += n;
    }
    if (rc == 0)
        rc = trace_writer_close(w, &routines, &err);
    const char *keys[] = {"engine", "source"}, *values[] = {"bench", "synthetic"};
    if (rc == 0)
        rc = recording_write_meta(staging, keys, values, 2, &err);
    if (rc == 0)
        rc = recording_commit(staging, o->dir, &err);
    if (rc != 0) {
        fprintf(stderr, "trms-bench: %s\n", err.message);
        recording_discard(staging);
    }
    free(staging);
    free(chunk);
    synthetic_free(trace);
    routine_table_free(&routines);
    return rc ? 1 : 0;
}

static int number(const char *text, uint64_t *out)
{
    if (parse_u64_cstr(text, out) != PARSE_NUMBER_OK) {
        fprintf(stderr, "trms-bench: '%s' is not a number\n", text);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    struct options o = {.events = 20000000,
                        .shape = {.threads = 4, .working_set = 64u << 20, .routines = 60,
                                  .seed = 1}};
    analysis_options_default(&o.analysis);
    if (argc < 2) {
        fprintf(stderr, "usage: trms-bench input-size|reuse|all|driver|naive|reuse-naive|record DIR [--events N] "
                        "[--threads T] [--working-set BYTES] [--cell-size N] [--line-size N] "
                        "[--recording REC] [--hostile 0|1]\n");
        return 2;
    }
    o.mode = argv[1];
    int i = 2, working_set_given = 0;
    if (strcmp(o.mode, "record") == 0) {
        if (argc < 3)
            return 2;
        o.dir = argv[i++];
    }
    for (; i + 1 < argc; i += 2) {
        uint64_t v = 0;
        if (strcmp(argv[i], "--recording") != 0 && number(argv[i + 1], &v) != 0)
            return 2;
        if (strcmp(argv[i], "--events") == 0)
            o.events = v;
        else if (strcmp(argv[i], "--threads") == 0)
            o.shape.threads = (unsigned)v;
        else if (strcmp(argv[i], "--working-set") == 0) {
            o.shape.working_set = v;
            working_set_given = 1;
        }
        else if (strcmp(argv[i], "--cell-size") == 0)
            o.analysis.cell_size = v;
        else if (strcmp(argv[i], "--line-size") == 0)
            o.analysis.line_size = v;
        else if (strcmp(argv[i], "--shards") == 0)
            o.analysis.shards = (unsigned)v;
        else if (strcmp(argv[i], "--workers") == 0)
            o.analysis.threads = v != 0;
        else if (strcmp(argv[i], "--contexts") == 0)
            o.analysis.contexts = v != 0;
        else if (strcmp(argv[i], "--hostile") == 0) {
            o.shape.hostile = v != 0;
            if (o.shape.hostile && !working_set_given)
                o.shape.working_set = 32u << 20;
        }
        else if (strcmp(argv[i], "--recording") == 0)
            o.recording = argv[i + 1];
        else {
            fprintf(stderr, "trms-bench: unknown option %s\n", argv[i]);
            return 2;
        }
    }
    if (strcmp(o.mode, "input-size") == 0)
        o.analysis.passes = PASS_INPUT_SIZE;
    else if (strcmp(o.mode, "reuse") == 0)
        o.analysis.passes = PASS_REUSE;
    else if (strcmp(o.mode, "all") == 0)
        o.analysis.passes = PASS_ALL;
    else if (strcmp(o.mode, "driver") == 0)
        o.analysis.passes = 0;
    else if (strcmp(o.mode, "naive") == 0)
        return run_naive(&o);
    else if (strcmp(o.mode, "reuse-naive") == 0)
        return run_reuse_naive(&o);
    else if (strcmp(o.mode, "record") == 0)
        return run_record(&o);
    else {
        fprintf(stderr, "trms-bench: unknown mode %s\n", o.mode);
        return 2;
    }
    return run_analysis(&o);
}
