/* explore_runs: record, analyze, add up (explore_runs.h). */
#define _GNU_SOURCE
#include "explore/explore_runs.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/oom.h"
#include "trace/recording.h"

extern char **environ;

/* ^C reaches the program being recorded (it shares the terminal) and this
 * process: the run in progress ends, and the exploration stops after it
 * with what it has. */
static volatile sig_atomic_t interrupted;

static void on_interrupt(int sig)
{
    (void)sig;
    interrupted = 1;
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The command line as a shell would need it typed. */
static char *quoted(char *const *argv)
{
    size_t size = 1;
    for (char *const *a = argv; *a; a++)
        size += 4 * strlen(*a) + 3;
    char *out = xmalloc(size), *p = out;
    for (char *const *a = argv; *a; a++) {
        if (a != argv)
            *p++ = ' ';
        if (**a && strspn(*a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                              "-_./=:,+@%") == strlen(*a)) {
            p = stpcpy(p, *a);
            continue;
        }
        *p++ = '\'';
        for (const char *c = *a; *c; c++)
            p = *c == '\'' ? stpcpy(p, "'\\''") : (*p = *c, p + 1);
        *p++ = '\'';
    }
    *p = '\0';
    return out;
}

static char *joined(const char *const *words, size_t n, const char *sep)
{
    size_t size = 1;
    for (size_t i = 0; i < n; i++)
        size += strlen(words[i]) + strlen(sep);
    char *out = xmalloc(size);
    out[0] = '\0';
    for (size_t i = 0; i < n; i++)
        strcat(strcat(out, i ? sep : ""), words[i]);
    return out;
}

static char *format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *format(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    if (vasprintf(&s, fmt, ap) < 0)
        oom_exit("explore");
    va_end(ap);
    return s;
}

/* ---- one recording ---- */

/* The last line of the log at PATH, for a run that failed. */
static void last_line(const char *path, char *buf, size_t size)
{
    buf[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f))
        if (line[0] != '\n') {
            line[strcspn(line, "\n")] = '\0';
            snprintf(buf, size, "%s", line);
        }
    fclose(f);
}

struct run_request {
    uint64_t seed;
    uint32_t depth;       /* PCT */
    int calibration;
};

/* `trms record` of the program, as RUN, into X's next run. */
static int record_run(const struct explore_plan *p, struct explore *x, const struct run_request *rq,
                      struct trms_error *err)
{
    size_t index = x->n_runs;
    char *rec = p->schedule == EXPLORE_CHAOS
                    ? format("%s/run-%zu.rec", p->directory, index)
                    : format("%s/seed-%" PRIu64 ".rec", p->directory, rq->seed);
    char *log = format("%.*s.log", (int)(strlen(rec) - 4), rec);
    char seed[32], depth[16], events[32], quantum[16];
    snprintf(seed, sizeof seed, "%" PRIu64, rq->seed);
    snprintf(depth, sizeof depth, "%" PRIu32, rq->depth);
    snprintf(events, sizeof events, "%" PRIu64, x->k);
    snprintf(quantum, sizeof quantum, "%" PRIu32, p->quantum);
    const char *args[64] = {p->trms, "record"};
    size_t n = 2;
    char *watch = NULL;
    switch (p->schedule) {
    case EXPLORE_PCT:
        args[n++] = "--engine", args[n++] = "step", args[n++] = "--schedule", args[n++] = "pct";
        args[n++] = "--depth", args[n++] = depth;
        if (rq->depth > 1)
            args[n++] = "--pct-events", args[n++] = events;
        if (!p->analysis.all_memory) {
            watch = p->analysis.n_patterns
                        ? joined(p->analysis.patterns, p->analysis.n_patterns, ",")
                        : xstrdup("*");
            args[n++] = "--pct-objects", args[n++] = watch;
        }
        args[n++] = "--seed", args[n++] = seed;
        break;
    case EXPLORE_RANDOM:
        args[n++] = "--engine", args[n++] = "step", args[n++] = "--seed", args[n++] = seed;
        args[n++] = "--quantum", args[n++] = quantum;
        break;
    default:
        args[n++] = "--engine", args[n++] = "rr", args[n++] = "--chaos";
        break;
    }
    args[n++] = "-o", args[n++] = rec, args[n++] = "--";
    size_t argc = 0;
    while (p->argv[argc])
        argc++;
    const char **all = xcalloc(n + argc + 1, sizeof *all);
    memcpy(all, args, n * sizeof *all);
    memcpy(all + n, p->argv, argc * sizeof *all);

    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    double start = now_seconds();
    pid_t pid;
    int rc = posix_spawn(&pid, p->trms, &fa, NULL, (char *const *)all, environ);
    posix_spawn_file_actions_destroy(&fa);
    free(all);
    free(watch);
    int status = 0;
    if (rc != 0) {
        rc = error_set(err, "cannot run %s: %s", p->trms, strerror(rc));
    } else {
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
            ;
        char *meta = recording_file(rec, "meta");
        struct stat st;
        if (stat(meta, &st) != 0) {
            char line[512];
            last_line(log, line, sizeof line);
            rc = error_set(err, "%s was not recorded: %s (see %s)", rec,
                           line[0] ? line : "trms record failed", log);
        }
        free(meta);
    }
    double seconds = now_seconds() - start;
    free(log);
    if (rc != 0) {
        free(rec);
        return -1;
    }
    x->runs = xrealloc(x->runs, (x->n_runs + 1) * sizeof *x->runs);
    struct explore_run *r = &x->runs[x->n_runs++];
    *r = (struct explore_run){.recording = rec, .seed = rq->seed, .depth = rq->depth,
                              .calibration = rq->calibration, .kept = 1, .seconds = seconds,
                              .exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1};
    struct recording meta;
    if (recording_open(rec, &meta, err) != 0)
        return -1;
    const char *counted = recording_meta(&meta, "pct-counted");
    r->counted = counted ? strtoull(counted, NULL, 10) : 0;
    recording_close(&meta);
    return 0;
}

static int analyze_run(const struct run_analysis_options *o, struct explore *x, uint32_t run,
                       struct trms_error *err)
{
    struct run_analysis a;
    if (run_analyze(x->runs[run].recording, o, &a, err) != 0)
        return -1;
    explore_add(x, run, &a);
    run_analysis_free(&a);
    return 0;
}

/* ---- keeping ---- */

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    remove(path);  /* best effort: what stays is only disk space */
    return 0;
}

static void remove_unnamed(struct explore *x)
{
    for (uint32_t i = 0; i < x->n_runs; i++) {
        if (explore_names_run(x, i))
            continue;
        const char *rec = x->runs[i].recording;
        nftw(rec, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
        char *log = format("%.*s.log", (int)(strlen(rec) - 4), rec);
        remove(log);
        free(log);
        x->runs[i].kept = 0;
    }
}

/* ---- the plan ---- */

static void describe_objects(const struct explore_plan *p, struct explore *x)
{
    const struct run_analysis_options *o = &p->analysis;
    char *names = o->n_patterns ? joined(o->patterns, o->n_patterns, ", ") : NULL;
    if (o->all_memory)
        x->objects = names ? format("all memory: the variables %s", names)
                           : xstrdup("all memory: every variable, and the memory between");
    else
        x->objects = names ? format("the variables %s of the program", names)
                           : xstrdup("every global and static variable of the program");
    free(names);
}

static int explore_all(const struct explore_plan *p, struct explore *x, struct trms_error *err);

/* Forgets the last run, which was recorded but not added up. */
static void drop_last_run(struct explore *x)
{
    struct explore_run *r = &x->runs[--x->n_runs];
    nftw(r->recording, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    free(r->recording);
}

static void say_duration(double seconds, char *buf, size_t size)
{
    if (seconds < 120)
        snprintf(buf, size, "%.1f s", seconds);
    else if (seconds < 7200)
        snprintf(buf, size, "%.1f min", seconds / 60);
    else
        snprintf(buf, size, "%.1f h", seconds / 3600);
}

int explore_runs(const struct explore_plan *p, struct explore *x, struct trms_error *err)
{
    x->schedule = p->schedule;
    x->command = quoted(p->argv);
    x->directory = xstrdup(p->directory);
    x->depth = p->depth;
    x->quantum = p->quantum;
    x->unit = p->analysis.unit;
    x->cell_size = p->analysis.cell_size;
    describe_objects(p, x);
    if (mkdir(p->directory, 0777) != 0)
        return error_set(err, "%s: cannot create: %s", p->directory, strerror(errno));
    x->runs = NULL;
    interrupted = 0;
    struct sigaction stop = {.sa_handler = on_interrupt}, old_int, old_term;
    sigemptyset(&stop.sa_mask);
    sigaction(SIGINT, &stop, &old_int);
    sigaction(SIGTERM, &stop, &old_term);
    int rc = explore_all(p, x, err);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    return rc;
}

static int explore_all(const struct explore_plan *p, struct explore *x, struct trms_error *err)
{
    /* The first run: what a run costs, and for PCT how many events count. */
    struct run_request first = {.seed = 0, .depth = 1, .calibration = 1};
    double start = now_seconds();
    int rc = record_run(p, x, &first, err);
    if (interrupted)
        return error_set(err, "interrupted during the first run: nothing to report (what it "
                              "recorded is in %s)", p->directory);
    if (rc != 0 || analyze_run(&p->analysis, x, 0, err) != 0)
        return -1;
    double each = now_seconds() - start;
    const struct explore_run *c = &x->runs[0];
    if (p->schedule == EXPLORE_PCT) {
        x->k = c->counted ? c->counted : 1;
        if (x->k < p->depth)
            x->k = p->depth;
        fprintf(stderr, "trms: explore: first run (PCT depth 1, seed 0): %" PRIu64 " threads, %"
                        PRIu64 " events that can be reordered (k); PCT depth %" PRIu32
                        " draws %" PRIu32 " change points among the first %" PRIu64 "\n",
                c->threads, c->counted, p->depth, p->depth - 1, x->k);
        if (c->counted == 0)
            fprintf(stderr, "trms: explore: no event counted: the threads never ran side by "
                            "side (or touched no tracked variable then); every run may be "
                            "alike\n");
    } else {
        fprintf(stderr, "trms: explore: first run (%s): %" PRIu64 " threads\n",
                p->schedule == EXPLORE_RANDOM ? "fixed quanta, seed 0" : "rr chaos",
                c->threads);
    }
    char one[32], total[32];
    say_duration(each, one, sizeof one);
    say_duration(each * p->runs, total, sizeof total);
    fprintf(stderr, "trms: explore: a run takes %s (recording and analysis); %" PRIu32
                    " more runs: about %s\n", one, p->runs, total);

    for (uint32_t i = 0; i < p->runs && !interrupted; i++) {
        struct run_request rq = {.seed = p->first_seed + i, .depth = p->depth};
        size_t before = x->n_runs;
        rc = record_run(p, x, &rq, err);
        if (interrupted) {
            /* ^C stopped the program (or `trms record`) in the middle of
             * this run: it is not one of those reported. */
            if (x->n_runs > before)
                drop_last_run(x);
            break;
        }
        if (rc != 0 || analyze_run(&p->analysis, x, (uint32_t)(x->n_runs - 1), err) != 0)
            return -1;
        const struct explore_run *r = &x->runs[x->n_runs - 1];
        if (p->schedule == EXPLORE_CHAOS)
            fprintf(stderr, "trms: explore: run %" PRIu32 "/%" PRIu32 ": %s, %.2f s\n", i + 1,
                    p->runs, explore_run_name(x, (uint32_t)(x->n_runs - 1)), r->seconds);
        else if (p->schedule == EXPLORE_PCT)
            fprintf(stderr, "trms: explore: run %" PRIu32 "/%" PRIu32 ", seed %" PRIu64
                            ": %.2f s, %" PRIu64 " threads, %" PRIu64 " events counted\n",
                    i + 1, p->runs, r->seed, r->seconds, r->threads, r->counted);
        else
            fprintf(stderr, "trms: explore: run %" PRIu32 "/%" PRIu32 ", seed %" PRIu64
                            ": %.2f s, %" PRIu64 " threads\n",
                    i + 1, p->runs, r->seed, r->seconds, r->threads);
    }
    if (interrupted) {
        x->interrupted = 1;
        fprintf(stderr, "trms: explore: interrupted after %zu runs; reporting those\n",
                x->n_runs);
    }
    if (p->keep_named_only)
        remove_unnamed(x);
    return 0;
}

int explore_recordings(char *const *recs, size_t n, const struct run_analysis_options *o,
                       struct explore *x, struct trms_error *err)
{
    x->schedule = EXPLORE_GIVEN;
    x->unit = o->unit;
    x->cell_size = o->cell_size;
    x->command = xstrdup("");
    x->directory = xstrdup("");
    char *names = o->n_patterns ? joined(o->patterns, o->n_patterns, ", ") : NULL;
    x->objects = o->all_memory ? xstrdup("all memory")
                 : names       ? format("the variables %s of the program", names)
                               : xstrdup("every global and static variable of the program");
    free(names);
    for (size_t i = 0; i < n; i++) {
        struct recording rec;
        if (recording_open(recs[i], &rec, err) != 0)
            return -1;
        x->runs = xrealloc(x->runs, (x->n_runs + 1) * sizeof *x->runs);
        struct explore_run *r = &x->runs[x->n_runs++];
        const char *seed = recording_meta(&rec, "seed");
        const char *command = recording_meta(&rec, "command");
        *r = (struct explore_run){.recording = xstrdup(recs[i]), .kept = 1,
                                  .seed = seed ? strtoull(seed, NULL, 10) : 0};
        if (i == 0 && command) {
            free(x->command);
            x->command = xstrdup(command);
        }
        recording_close(&rec);
        if (analyze_run(o, x, (uint32_t)i, err) != 0)
            return -1;
    }
    return 0;
}
