/* trms causal: a causal profile from one recording (analyses/causal_model.h):
 * for every routine, how much faster the program would be if the routine
 * were 0, 5, ..., 100% faster, from a simulation of the recorded run. */
#include <fnmatch.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyses/causal_input.h"
#include "analyses/causal_model.h"
#include "common/oom.h"
#include "common/parse_number.h"
#include "common/visible.h"
#include "replayer/rr_replay.h"
#include "report/causal_formats.h"
#include "report/json.h"
#include "report/report.h"
#include "store/symbol_store.h"
#include "tools/cli.h"
#include "trace/recording.h"
#include "trace/trace_reader.h"

#define STEPS CAUSAL_STEPS    /* routine speedups 0, 5, ..., 100% */
#define DEFAULT_TOP 20
/* Routines below this share of the instructions are left out: the most
 * they can buy is about that share. */
#define MIN_SHARE 0.001

struct curve {
    uint32_t routine;
    uint64_t instructions;  /* inclusive, over the run */
    double points[STEPS];   /* program speedup, a fraction */
    double measured[STEPS]; /* the time, period or latency it comes from */
    double max;
};

enum format { FORMAT_TEXT, FORMAT_JSON, FORMAT_COZ, FORMAT_HTML };

static const char *const format_names[] = {[FORMAT_TEXT] = "text", [FORMAT_JSON] = "json",
                                           [FORMAT_COZ] = "coz", [FORMAT_HTML] = "html"};

static int by_gain(const void *a, const void *b)
{
    const struct curve *x = a, *y = b;
    if (x->max != y->max)
        return x->max < y->max ? 1 : -1;
    return (x->routine > y->routine) - (x->routine < y->routine);
}

struct names {
    struct routine_table routines;
    struct symbol_names symbols;
    char buf[REPORT_LABEL_MAX];
    const char *progress;   /* the progress point's (or latency's begin) name or pattern */
    const char *end;        /* the latency's end, or NULL */
};

static int matches(const char *pattern, const char *name)
{
    return strcmp(name, pattern) == 0 || fnmatch(pattern, name, 0) == 0;
}

static int matches_progress(void *ctx, uint32_t routine)
{
    struct names *n = ctx;
    const char *name = report_routine_name(&n->routines, &n->symbols, routine, n->buf);
    if (matches(n->progress, name))
        return CAUSAL_PROGRESS;
    return n->end && matches(n->end, name) ? CAUSAL_END : 0;
}

/* What a what-if is measured by, after causal_model_time(): the run's time
 * (T, given), the period of the progress point, or the latency. */
static double measure(const struct causal_model *m, const struct names *n, double t,
                      uint64_t *count)
{
    if (n->end)
        return causal_model_latency(m, count);
    return n->progress ? causal_model_period(m, count) : t;
}

static const char *routine_name(struct names *n, uint32_t id)
{
    return report_routine_name(&n->routines, &n->symbols, id, n->buf);
}

static const char *routine_module(struct names *n, uint32_t id)
{
    const struct symbol_name *sym = report_routine_symbol(&n->routines, &n->symbols, id);
    return sym && sym->module ? report_module_name(sym->module) : "";
}

/* What a nanosecond of a blocking system call is worth, in instructions
 * (--instructions-per-ns). */
static double instructions_per_ns = 1.0;

/* An rr recording has no event trace: its records are replayed through
 * the decoder into M (events and sync records); its routines are named
 * from the trace's files where the store has no name. 1 when it had sync
 * records, 0 when not, -1 with ERR. */
static int replay_rr(const char *rec_path, struct names *names, struct causal_model *m,
                     struct trms_error *err)
{
    char *trace_dir = recording_file(rec_path, "rr");  /* as cmd_analyze.c has it */
    struct rr_replay_options o = {.trace_dir = trace_dir, .sink = causal_model_event,
                                  .sink_ctx = m, .sync = causal_model_sync, .sync_ctx = m,
                                  .routines = &names->routines};
    struct rr_replay_result r;
    int rc = rr_replay(&o, &r, err);
    free(trace_dir);
    for (size_t i = 0; rc == 0 && i < r.names.count; i++)
        if (!symbol_names_find(&names->symbols, r.names.items[i].addr))
            symbol_names_add(&names->symbols, &r.names.items[i]);
    int had_sync = r.summary.sync_records > 0;
    rr_replay_result_free(&r);
    return rc != 0 ? -1 : had_sync;
}

/* Reads TRACE (a file of the recording) into a new model; NULL with ERR
 * when it cannot, or has no synchronization to build one from. */
static struct causal_model *build_from(const char *rec_path, const char *trace,
                                       struct names *names, struct trms_error *err)
{
    char *path = recording_file(rec_path, trace);
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        error_set(err, "%s: cannot open", path);
        free(path);
        return NULL;
    }
    struct causal_model_options mo = {.instructions_per_ns = instructions_per_ns,
                                      .is_progress = names->progress ? matches_progress : NULL,
                                      .progress_ctx = names};
    struct causal_model *m = causal_model_new(&mo);
    struct trace_read_options options = {.batch = causal_model_events, .sync = causal_model_sync,
                                         .sync_ctx = m};
    struct trace_stats stats;
    int rc = trace_read_stream(fp, path, &names->routines, causal_model_event, m, &options,
                               &stats, err);
    fclose(fp);
    if (rc == 0 && !stats.has_sync)
        rc = error_set(err, "%s was recorded without synchronization records (by a trms "
                            "older than `trms causal`, or an engine that does not record "
                            "them): it has no causal profile; record it again",
                       rec_path);
    free(path);
    if (rc != 0) {
        causal_model_free(m);
        return NULL;
    }
    causal_model_finish(m);
    return m;
}

/* The model, from the causal input the analysis stored (causal_input.h)
 * when there is one, else from the whole trace, which is said: same
 * model, many times the time. */
static struct causal_model *build(const char *rec_path, const char *engine, struct names *names,
                                  struct trms_error *err)
{
    if (engine && strcmp(engine, "rr") == 0) {
        struct causal_model_options mo = {.instructions_per_ns = instructions_per_ns,
                                          .is_progress = names->progress ? matches_progress : NULL,
                                          .progress_ctx = names};
        struct causal_model *m = causal_model_new(&mo);
        int had = replay_rr(rec_path, names, m, err);
        if (had == 0)
            error_set(err, "%s: its rr trace gave no synchronization records: it has no "
                           "causal profile", rec_path);
        if (had != 1) {
            causal_model_free(m);
            return NULL;
        }
        causal_model_finish(m);
        return m;
    }
    char *stored = recording_file(rec_path, CAUSAL_INPUT_FILE);
    int has_stored = access(stored, F_OK) == 0;
    free(stored);
    if (has_stored) {
        struct causal_model *m = build_from(rec_path, CAUSAL_INPUT_FILE, names, err);
        if (m)
            return m;
        fprintf(stderr, "trms: warning: %s; reading the whole trace instead\n", err->message);
        routine_table_free(&names->routines);
        routine_table_init(&names->routines);
    }
    struct causal_model *m = build_from(rec_path, RECORDING_EVENTS, names, err);
    if (m && !has_stored) {
        fputs("trms: ", stderr);
        visible_fputs(rec_path, stderr);
        fprintf(stderr, " has no stored causal input (%s: recorded or analyzed by a trms "
                        "older than it): read the whole trace instead; `trms analyze` "
                        "stores it\n", CAUSAL_INPUT_FILE);
    }
    return m;
}

/* Coz's format and the HTML page, from the ranked curves (N of them). */
static void print_other(FILE *out, enum format format, const char *rec_path,
                        struct names *names, const struct causal_model_stats *st,
                        unsigned cores, double t0, const struct curve *curves, size_t n,
                        size_t left_out, uint64_t completions)
{
    struct causal_curve *cc = xcalloc(n + 1, sizeof *cc);
    for (size_t i = 0; i < n; i++) {
        cc[i].name = xstrdup(report_routine_name(&names->routines, &names->symbols,
                                                 curves[i].routine, names->buf));
        const struct symbol_name *sym =
            report_routine_symbol(&names->routines, &names->symbols, curves[i].routine);
        cc[i].module = xstrdup(sym && sym->module ? report_module_name(sym->module) : "");
        cc[i].instructions = curves[i].instructions;
        memcpy(cc[i].points, curves[i].points, sizeof cc[i].points);
        memcpy(cc[i].measured, curves[i].measured, sizeof cc[i].measured);
        cc[i].max = curves[i].max;
    }
    struct causal_profile p = {.recording = rec_path, .progress = names->progress,
                               .end = names->end, .completions = completions, .cores = cores,
                               .threads = st->threads, .segments = st->segments,
                               .edges = st->edges, .instructions = st->instructions,
                               .predicted_time = t0, .curves = cc, .n = n,
                               .left_out = left_out};
    if (format == FORMAT_COZ)
        causal_write_coz(out, &p);
    else
        causal_write_html(out, &p);
    for (size_t i = 0; i < n; i++) {
        free((char *)cc[i].name);
        free((char *)cc[i].module);
    }
    free(cc);
}

static void print_text(FILE *out, const char *rec_path, struct names *names,
                       const struct causal_model_stats *st, unsigned cores, double t0,
                       const struct curve *curves, size_t n, size_t shown, size_t left_out,
                       uint64_t completions, double period)
{
    fprintf(out, "causal profile of ");
    visible_fputs(rec_path, out);
    if (names->end) {
        fprintf(out, ": latency from ");
        visible_fputs(names->progress, out);
        fprintf(out, " to ");
        visible_fputs(names->end, out);
        fprintf(out, " (%" PRIu64 " pairs, %.0f instructions on average)\n", completions, period);
    } else if (names->progress) {
        fprintf(out, ": throughput of progress point ");
        visible_fputs(names->progress, out);
        fprintf(out, " (%" PRIu64 " completions, one every %.0f instructions)\n", completions,
                period);
    } else {
        fprintf(out, ": end-to-end time\n");
    }
    fprintf(out, "model: %" PRIu64 " threads, %" PRIu64 " segments, %" PRIu64
                 " cross-thread edges, %" PRIu64 " sync records; ",
            st->threads, st->segments, st->edges, st->sync_records);
    if (cores)
        fprintf(out, "%u cores\n", cores);
    else
        fprintf(out, "a core per thread\n");
    fprintf(out, "predicted time %.0f instructions (%" PRIu64 " executed, %.0f of blocking "
                 "system calls at 1 instruction/ns)\n\n",
            t0, st->instructions, st->blocking);
    fprintf(out, "%-8s %-8s %-8s %-8s %-8s %-8s  %s\n", "max", "at 25%", "at 50%", "at 75%",
            "at 100%", "share", "routine");
    for (size_t i = 0; i < n && i < shown; i++) {
        const struct curve *c = &curves[i];
        double share = st->instructions ? (double)c->instructions / (double)st->instructions : 0;
        fprintf(out, "%6.2f%%  %6.2f%%  %6.2f%%  %6.2f%%  %6.2f%%  ", 100 * c->max,
                100 * c->points[5], 100 * c->points[10], 100 * c->points[15],
                100 * c->points[20]);
        fprintf(out, "%6.2f%%   ", 100 * share);
        visible_fputs(routine_name(names, c->routine), out);
        const char *module = routine_module(names, c->routine);
        if (*module) {
            fputs(" [", out);
            visible_fputs(module, out);
            fputc(']', out);
        }
        fputc('\n', out);
    }
    if (n > shown)
        fprintf(out, "... %zu more (--top 0 shows all)\n", n - shown);
    if (left_out)
        fprintf(out, "%zu routines with less than %.1f%% of the instructions left out\n",
                left_out, 100 * MIN_SHARE);
}

static void print_json(FILE *out, struct names *names, const struct causal_model_stats *st,
                       unsigned cores, double t0, const struct curve *curves, size_t n,
                       size_t left_out)
{
    fputs("{\"progress\": ", out);
    json_string(out, names->progress && !names->end ? names->progress : "end-to-end");
    if (names->end) {
        fputs(", \"latency\": {\"begin\": ", out);
        json_string(out, names->progress);
        fputs(", \"end\": ", out);
        json_string(out, names->end);
        fputc('}', out);
    }
    fprintf(out, ", \"cores\": %u, \"threads\": %" PRIu64
                 ", \"segments\": %" PRIu64 ", \"edges\": %" PRIu64
                 ", \"instructions\": %" PRIu64 ", \"predicted_time\": %.0f",
            cores, st->threads, st->segments, st->edges, st->instructions, t0);
    fprintf(out, ", \"left_out\": %zu, \"routines\": [", left_out);
    for (size_t i = 0; i < n; i++) {
        const struct curve *c = &curves[i];
        fputs(i ? ",\n  {\"name\": " : "\n  {\"name\": ", out);
        json_string(out, routine_name(names, c->routine));
        fputs(", \"module\": ", out);
        json_string(out, routine_module(names, c->routine));
        fprintf(out, ", \"instructions\": %" PRIu64 ", \"points\": [",
                c->instructions);
        for (int s = 0; s < STEPS; s++) {
            fprintf(out, "%s{\"speedup\": %.2f, \"program_speedup\": ", s ? ", " : "", s * 0.05);
            json_number(out, c->points[s]);
            fputc('}', out);
        }
        fputs("], \"max_program_speedup\": ", out);
        json_number(out, c->max);
        fputc('}', out);
    }
    fputs("]}\n", out);
}

static int parse_count(const char *option, const char *text, uint64_t max, uint64_t *out)
{
    if (parse_u64(text, strlen(text), out) != PARSE_NUMBER_OK || *out > max)
        return cli_usage_error(&cmd_causal, "%s takes a number up to %" PRIu64 ", not '%s'",
                               option, max, text);
    return 0;
}

/* The cores the run had, from the meta (`cores`), or 0 (a core per
 * thread) when it does not say. */
static unsigned recorded_cores(const struct recording *rec)
{
    const char *v = recording_meta(rec, "cores");
    uint64_t n;
    if (v && parse_u64(v, strlen(v), &n) == PARSE_NUMBER_OK && n > 0 && n < 65536)
        return (unsigned)n;
    return 0;
}

static int run(int argc, char **argv)
{
    static const struct option options[] = {{"format", required_argument, NULL, 'f'},
                                            {"cores", required_argument, NULL, 'c'},
                                            {"top", required_argument, NULL, 't'},
                                            {"progress", required_argument, NULL, 'p'},
                                            {"latency", required_argument, NULL, 'l'},
                                            {"instructions-per-ns", required_argument, NULL, 'n'},
                                            {NULL, 0, NULL, 0}};
    enum format format = FORMAT_TEXT;
    int c, cores_given = 0, top_given = 0;
    uint64_t cores = 0, top = DEFAULT_TOP;
    const char *progress = NULL, *end = NULL;
    while ((c = cli_getopt(&cmd_causal, argc, argv, "", options)) != -1) {
        if (c == 'f') {
            size_t f = 0;
            while (f < sizeof format_names / sizeof *format_names &&
                   strcmp(optarg, format_names[f]) != 0)
                f++;
            if (f == sizeof format_names / sizeof *format_names)
                return cli_usage_error(&cmd_causal,
                                       "unknown format '%s' (text, json, coz or html)", optarg);
            format = (enum format)f;
        } else if (c == 'c') {
            if (parse_count("--cores", optarg, 65535, &cores) != 0)
                return EXIT_USAGE;
            cores_given = 1;
        } else if (c == 'p') {
            progress = optarg;
        } else if (c == 'l') {
            /* Two operands: the end is the next argument. */
            if (optind >= argc || argv[optind][0] == '-')
                return cli_usage_error(&cmd_causal, "--latency needs BEGIN and END");
            progress = optarg;
            end = argv[optind++];
        } else if (c == 't') {
            if (parse_count("--top", optarg, UINT32_MAX, &top) != 0)
                return EXIT_USAGE;
            top_given = 1;
        } else if (c == 'n') {
            char *rest;
            instructions_per_ns = strtod(optarg, &rest);
            if (rest == optarg || *rest || !(instructions_per_ns >= 0 && instructions_per_ns <= 1e6))
                return cli_usage_error(&cmd_causal,
                                       "--instructions-per-ns wants a number from 0 to 1e6, not '%s'",
                                       optarg);
        } else
            return EXIT_USAGE;  /* cli_getopt said why */
    }
    if (optind != argc - 1)
        return cli_usage_error(&cmd_causal, "expects one recording");
    const char *rec_path = argv[optind];
    struct trms_error err = {{0}};
    struct recording rec;
    if (recording_open(rec_path, &rec, &err) != 0)
        return cli_fail(&err);
    if (!cores_given)
        cores = recorded_cores(&rec);
    const char *engine_meta = recording_meta(&rec, "engine");
    char *engine = engine_meta ? xstrdup(engine_meta) : NULL;
    recording_close(&rec);

    struct names names = {.progress = progress, .end = end};
    routine_table_init(&names.routines);
    symbol_names_init(&names.symbols);
    struct causal_model *m = NULL;
    int rc = symbol_store_load(rec_path, &names.symbols, &err);
    if (rc == 0 && !(m = build(rec_path, engine, &names, &err)))
        rc = -1;
    free(engine);
    if (rc != 0) {
        symbol_names_free(&names.symbols);
        routine_table_free(&names.routines);
        return cli_fail(&err);
    }
    report_demangle_names(&names.routines, &names.symbols);

    struct causal_model_stats st;
    causal_model_stats(m, &st);
    double t0 = causal_model_time(m, CAUSAL_NO_ROUTINE, 0, (unsigned)cores);
    /* With a progress point, what shrinks is the time between two of its
     * completions, not the whole run. */
    uint64_t completions = 0;
    double period = measure(m, &names, t0, &completions), base = period;
    if (progress && period <= 0) {
        causal_model_free(m);
        symbol_names_free(&names.symbols);
        routine_table_free(&names.routines);
        if (end && completions)
            error_set(&err, "'%s' completes %.0f instructions before '%s' on average in %s "
                            "(%" PRIu64 " pairs): no latency to measure",
                      end, -period, progress, rec_path, completions);
        else if (end)
            error_set(&err, "no completion of '%s' paired with one of '%s' in %s: no latency "
                            "to measure", progress, end, rec_path);
        else
            error_set(&err, "progress point '%s' completed %" PRIu64 " time%s in %s: its "
                            "throughput needs two completions at different times",
                      progress, completions, completions == 1 ? "" : "s", rec_path);
        return cli_fail(&err);
    }
    uint32_t n_routines = causal_model_routines(m);
    struct curve *curves = xcalloc((size_t)n_routines + 1, sizeof *curves);
    size_t n = 0, left_out = 0;
    for (uint32_t r = 0; r < n_routines; r++) {
        uint64_t cost = causal_model_routine_cost(m, r);
        if (cost == 0)
            continue;
        if ((double)cost < MIN_SHARE * (double)st.instructions) {
            left_out++;
            continue;
        }
        struct curve *cv = &curves[n++];
        cv->routine = r;
        cv->instructions = cost;
        for (int s = 0; s < STEPS; s++) {
            double t = s ? measure(m, &names, causal_model_time(m, r, s * 0.05, (unsigned)cores),
                                   NULL)
                         : base;
            if (end && t < 0) /* END before BEGIN: no latency left */
                t = 0;
            cv->measured[s] = t;
            cv->points[s] = base > 0 ? 1 - t / base : 0;
            if (cv->points[s] > cv->max)
                cv->max = cv->points[s];
        }
    }
    qsort(curves, n, sizeof *curves, by_gain);
    int json = format == FORMAT_JSON;
    size_t shown = top_given && top ? (size_t)top : top_given || format == FORMAT_TEXT ? DEFAULT_TOP : n;
    if (top_given && top == 0)
        shown = n;
    if (format == FORMAT_COZ || format == FORMAT_HTML)
        print_other(stdout, format, rec_path, &names, &st, (unsigned)cores, t0, curves,
                    n < shown ? n : shown, left_out, completions);
    else if (json)
        print_json(stdout, &names, &st, (unsigned)cores, t0, curves, n < shown ? n : shown,
                   left_out);
    else
        print_text(stdout, rec_path, &names, &st, (unsigned)cores, t0, curves, n, shown,
                   left_out, completions, period);
    free(curves);
    causal_model_free(m);
    symbol_names_free(&names.symbols);
    routine_table_free(&names.routines);
    if (fflush(stdout) != 0) {
        error_set(&err, "cannot write the output");
        return cli_fail(&err);
    }
    return 0;
}

const struct command cmd_causal = {
    .name = "causal",
    .summary = "predict what speeding up each routine would buy (causal profile)",
    .usage = "usage: trms causal REC [--format text|json|coz|html] [--cores N] [--top N]\n"
             "                        [--progress ROUTINE | --latency BEGIN END]\n\n"
             "For every routine that runs at least 0.1% of the instructions, predicts\n"
             "how much faster the whole program would end if the routine (with what it\n"
             "calls) were 0, 5, ..., 100% faster, as Coz's virtual speedups would\n"
             "measure it, but from the recording alone: its threads' work is cut into\n"
             "segments at their synchronization (thread creation, start, exit and\n"
             "join, futex waits and wakes, locked read-modify-writes, blocking system\n"
             "calls as fixed delays), and the run is simulated with the routine's\n"
             "instructions shrunk. A contended lock goes to the thread that arrives\n"
             "first in the simulation, not the recording. Time is in instructions;\n"
             "blocking system calls count 1 instruction per nanosecond (unless\n"
             "--instructions-per-ns) of their recorded wall time. Routines are\n"
             "ranked by the largest predicted program speedup (fractions in JSON,\n"
             "percents in text).\n"
             "Recordings made before `trms causal` existed have no causal profile.\n"
             "The model is built from what the analysis stored (REC/causal.trms,\n"
             "written by `trms record` and `trms analyze`); without it, from the whole\n"
             "trace, which takes many times longer (said on stderr). An rr recording\n"
             "is replayed (rr must be installed).\n"
             "See docs/causal.md for what the model assumes.\n\n"
             "options:\n"
             "  --format F   text (default); json: {\"progress\", \"routines\": [{\"name\",\n"
             "               \"module\", \"points\": [{\"speedup\", \"program_speedup\"}...],\n"
             "               \"max_program_speedup\"}...]}; coz: Coz's own profile format\n"
             "               (profile.coz: experiment and throughput-point or\n"
             "               latency-point lines), which Coz's viewer opens; html: a\n"
             "               page of the curves, in the report's style\n"
             "  --cores N    simulate N cores (default: the recording's `cores`, else a\n"
             "               core per thread; 0: a core per thread)\n"
             "  --top N      the N routines of largest gain (default 20 in text, all in\n"
             "               json, coz and html; 0: all)\n"
             "  --progress ROUTINE\n"
             "               throughput instead of end-to-end time: the program speedup\n"
             "               is how much shorter the time between two completions of\n"
             "               ROUTINE (a name as the reports print it, or a shell\n"
             "               pattern) gets, as Coz's progress points measure it\n"
             "  --latency BEGIN END\n"
             "               latency instead: the mean time from the k-th completion of\n"
             "               BEGIN to the k-th of END\n"
             "  --instructions-per-ns X\n"
             "               what a nanosecond of a blocking system call is worth (default\n"
             "               1; 0: blocking calls cost nothing, the model is then\n"
             "               instructions and synchronization only)\n",
    .run = run,
};
