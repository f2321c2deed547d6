/* trms analyze: one pass of the analyses over a recording, stored. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyses/analysis.h"
#include "store/result_store.h"
#include "store/symbol_store.h"
#include "tools/cli.h"
#include "tools/csv.h"
#include "tools/progress.h"
#include "tools/report.h"
#include "trace/recording.h"
#include "trace/trace_reader.h"

struct run_state {
    struct analysis *analysis;
    struct routine_table routines;
    uint64_t events;
    FILE *csv;
    struct symbol_names symbols;    /* names of address-only routines */
    struct progress *progress;      /* NULL unless stderr is a terminal */
};

/* Events between two looks at the clock for the progress line. */
#define PROGRESS_EVERY 65536

static int feed(void *ctx, const struct event *ev, struct trms_error *err)
{
    struct run_state *st = ctx;
    if (++st->events % PROGRESS_EVERY == 0)
        progress_update(st->progress, st->events);
    if (analysis_event(st->analysis, ev, err) == 0)
        return 0;
    char inner[sizeof err->message];
    memcpy(inner, err->message, sizeof inner);
    return error_set(err, "event %" PRIu64 ": %s", st->events, inner);
}

static void write_activation(void *ctx, const struct activation *a)
{
    struct run_state *st = ctx;
    char buf[REPORT_LABEL_MAX];
    fprintf(st->csv, "%" PRIu32 ",", a->tid);
    csv_field(st->csv, report_routine_name(&st->routines, &st->symbols, a->routine, buf));
    fprintf(st->csv, ",%" PRIu32 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
                     ",%" PRIu64 "\n",
            a->depth, a->rms, a->trms, a->cost, a->self_cost, a->induced_thread,
            a->induced_external);
}

/* The CSV is written beside its final name and renamed once complete. */
static FILE *open_csv(const char *path, char **tmp, struct trms_error *err)
{
    size_t len = strlen(path) + 32;
    *tmp = malloc(len);
    if (!*tmp)
        return NULL;
    snprintf(*tmp, len, "%s.tmp-%ld", path, (long)getpid());
    FILE *fp = fopen(*tmp, "w");
    if (!fp) {
        error_set(err, "%s: cannot create: %s", path, strerror(errno));
        free(*tmp);
        *tmp = NULL;
        return NULL;
    }
    fputs("thread,routine,depth,rms,trms,cost,self_cost,induced_thread,induced_external\n", fp);
    return fp;
}

static int analyze(const char *rec_path, const struct analysis_options *opt,
                   const char *csv_path, struct trms_error *err)
{
    struct recording rec;
    if (recording_open(rec_path, &rec, err) != 0)
        return -1;
    /* Open the store before the long part, so a broken store fails fast. */
    struct result_store *store = NULL;
    struct run_state st = {0};
    routine_table_init(&st.routines);
    symbol_names_init(&st.symbols);
    char *csv_tmp = NULL, *events_path = NULL;
    struct analysis_result *result = NULL;
    /* The CSV names routines as the reports do; the names are read before
     * the result store is opened (one open of the environment at a time). */
    int rc = csv_path ? symbol_store_load(rec_path, &st.symbols, err) : 0;
    if (rc == 0)
        rc = result_store_open(rec_path, 1, &store, err);
    if (rc == 0 && csv_path && !(st.csv = open_csv(csv_path, &csv_tmp, err)))
        rc = -1;
    if (rc == 0 && !(st.analysis = analysis_new(opt, err)))
        rc = -1;
    if (rc == 0) {
        if (st.csv)
            analysis_on_activation(st.analysis, write_activation, &st);
        events_path = recording_file(rec_path, RECORDING_EVENTS);
        const char *total = recording_meta(&rec, "events");
        st.progress = progress_start("analyzing", "events", total ? strtoull(total, NULL, 10) : 0);
        rc = trace_read(events_path, &st.routines, feed, &st, NULL, err);
        progress_finish(st.progress);
    }
    if (rc == 0) {
        result = analysis_finish(st.analysis, &st.routines);
        rc = result_store_save(store, result, err);
    }
    if (st.csv) {
        if ((fflush(st.csv) != 0 || ferror(st.csv)) && rc == 0)
            rc = error_set(err, "%s: cannot write: %s", csv_path, strerror(errno));
        fclose(st.csv);
        if (rc == 0 && rename(csv_tmp, csv_path) != 0)
            rc = error_set(err, "%s: cannot create: %s", csv_path, strerror(errno));
        if (rc != 0)
            unlink(csv_tmp);
    }
    if (rc == 0) {
        uint64_t accesses = 0;
        for (int t = EVENT_READ; t <= EVENT_KWRITE; t++)
            accesses += result->events[t];
        printf("analyzed %s: %" PRIu64 " events (%" PRIu64 " memory accesses), %zu threads, %"
               PRIu64 " activations of %zu routines; cell size %" PRIu64 ", line size %"
               PRIu64 "\n",
               rec_path, st.events, accesses, result->n_threads, result->activations,
               result->routines.count, result->cell_size, result->line_size);
    }
    analysis_result_free(result);
    analysis_free(st.analysis);
    routine_table_free(&st.routines);
    symbol_names_free(&st.symbols);
    result_store_close(store);
    recording_close(&rec);
    free(csv_tmp);
    free(events_path);
    return rc;
}

static int run(int argc, char **argv)
{
    static const struct option options[] = {{"cell-size", required_argument, NULL, 'c'},
                                            {"line-size", required_argument, NULL, 'l'},
                                            {"activations", required_argument, NULL, 'a'},
                                            {NULL, 0, NULL, 0}};
    struct analysis_options opt;
    analysis_options_default(&opt);
    const char *csv_path = NULL;
    int c;
    while ((c = getopt_long(argc, argv, "", options, NULL)) != -1) {
        switch (c) {
        case 'c':
            if (cli_parse_power_of_two(&cmd_analyze, "--cell-size", optarg, &opt.cell_size))
                return EXIT_USAGE;
            break;
        case 'l':
            if (cli_parse_power_of_two(&cmd_analyze, "--line-size", optarg, &opt.line_size))
                return EXIT_USAGE;
            break;
        case 'a':
            csv_path = optarg;
            break;
        default:
            return cli_usage_error(&cmd_analyze, "unknown option");
        }
    }
    if (optind != argc - 1)
        return cli_usage_error(&cmd_analyze, "expects one recording");
    struct trms_error err;
    if (analyze(argv[optind], &opt, csv_path, &err) != 0)
        return cli_fail(&err);
    return 0;
}

const struct command cmd_analyze = {
    .name = "analyze",
    .summary = "compute RMS, TRMS, profiles and reuse distances of a recording",
    .usage =
        "usage: trms analyze REC [--cell-size N] [--line-size N] [--activations FILE.csv]\n\n"
        "Runs every analysis over the recording in one pass and stores the result\n"
        "in REC/results, replacing an earlier result computed with the same\n"
        "options (atomically: a failed analysis leaves the earlier result intact).\n\n"
        "options:\n"
        "  --cell-size N          bytes per memory cell for RMS/TRMS, a power of two\n"
        "                         (default 4); an access touches every cell it overlaps\n"
        "  --line-size N          bytes per line for reuse distance, a power of two\n"
        "                         (default 64)\n"
        "  --activations FILE     also write one CSV row per completed activation, in\n"
        "                         completion order: thread,routine,depth,rms,trms,cost,\n"
        "                         self_cost,induced_thread,induced_external (each thread's\n"
        "                         root activation, routine <root>, has depth 0)\n",
    .run = run,
};
