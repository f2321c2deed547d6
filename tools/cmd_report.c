/* trms report: prints the stored analysis of one recording, or of several
 * recordings of the same program merged. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/analysis_parts.h"
#include "common/oom.h"
#include "common/parse_number.h"
#include "tools/cli.h"
#include "tools/output_file.h"
#include "report/report.h"
#include "report/report_aprof.h"
#include "report/report_load.h"
#include "report/report_model.h"

static const struct {
    const char *name;
    int (*print)(FILE *, const struct report_model *, const struct report_options *);
    int text;  /* read on a terminal: escaped wherever it goes (visible.h) */
} formats[] = {{"text", report_text, 1}, {"json", report_json, 0}, {"csv", report_csv, 0},
               {"html", report_html, 0}, {"aprof", NULL, 0}};
#define N_FORMATS (sizeof formats / sizeof *formats)

struct report_args {
    size_t format;
    struct result_key want;
    uint64_t top;
    int top_given;
    const char *output;
    const char **routines;
    size_t n_routines;
    uint32_t *threads;
    size_t n_threads;
    struct report_selection sel;
    struct report_options opt;
};

static int parse(int argc, char **argv, struct report_args *a)
{
    static const struct option options[] = {{"format", required_argument, NULL, 'f'},
                                            {"cell-size", required_argument, NULL, 'c'},
                                            {"line-size", required_argument, NULL, 'l'},
                                            {"top", required_argument, NULL, 't'},
                                            {"routine", required_argument, NULL, 'r'},
                                            {"thread", required_argument, NULL, 'T'},
                                            {"aggregate-threads", no_argument, NULL, 'A'},
                                            {"contexts", no_argument, NULL, 'C'},
                                            {"metric", required_argument, NULL, 'm'},
                                            {"sort", required_argument, NULL, 's'},
                                            {"output", required_argument, NULL, 'o'},
                                            {"analyses", required_argument, NULL, 'a'},
                                            {NULL, 0, NULL, 0}};
    a->top = 25;
    int c;
    while ((c = cli_getopt(&cmd_report, argc, argv, "o:", options)) != -1) {
        switch (c) {
        case 'f':
            for (a->format = 0; a->format < N_FORMATS; a->format++)
                if (strcmp(formats[a->format].name, optarg) == 0)
                    break;
            if (a->format == N_FORMATS)
                return cli_usage_error(&cmd_report, "unknown format '%s' (text, json, csv, "
                                       "html or aprof)", optarg);
            break;
        case 'c':
            if (cli_parse_power_of_two(&cmd_report, "--cell-size", optarg, &a->want.cell_size))
                return EXIT_USAGE;
            break;
        case 'l':
            if (cli_parse_power_of_two(&cmd_report, "--line-size", optarg, &a->want.line_size))
                return EXIT_USAGE;
            break;
        case 't':
            if (parse_u64_cstr(optarg, &a->top) != PARSE_NUMBER_OK)
                return cli_usage_error(&cmd_report, "--top needs a number, not '%s'", optarg);
            a->top_given = 1;
            break;
        case 'o':
            a->output = optarg;
            break;
        case 'r':
            a->routines = xrealloc(a->routines, (a->n_routines + 1) * sizeof *a->routines);
            a->routines[a->n_routines++] = optarg;
            break;
        case 'T': {
            uint64_t tid;
            if (parse_u64_cstr(optarg, &tid) != PARSE_NUMBER_OK || tid > UINT32_MAX)
                return cli_usage_error(&cmd_report, "--thread needs a thread id, not '%s'",
                                       optarg);
            a->threads = xrealloc(a->threads, (a->n_threads + 1) * sizeof *a->threads);
            a->threads[a->n_threads++] = (uint32_t)tid;
            break;
        }
        case 'A':
            a->sel.aggregate_threads = 1;
            break;
        case 'a': {
            unsigned parts;
            if (analysis_parts_parse(optarg, &parts) != 0)
                return cli_usage_error(&cmd_report, "--analyses takes rms, trms and reuse, "
                                       "separated by commas, not '%s'", optarg);
            a->want.analyses = parts;
            break;
        }
        case 'C':
            a->sel.contexts = 1;
            a->want.contexts = 1;
            break;
        case 'm':
            if (strcmp(optarg, "rms") == 0)
                a->opt.metric = METRIC_RMS;
            else if (strcmp(optarg, "trms") == 0)
                a->opt.metric = METRIC_TRMS;
            else
                return cli_usage_error(&cmd_report, "--metric is rms or trms, not '%s'", optarg);
            break;
        case 's':
            if (strcmp(optarg, "cum") != 0 && strcmp(optarg, "self") != 0)
                return cli_usage_error(&cmd_report, "--sort is cum or self, not '%s'", optarg);
            a->sel.by_self = strcmp(optarg, "self") == 0;
            break;
        default:
            return EXIT_USAGE;  /* cli_getopt said why */
        }
    }
    if (optind >= argc)
        return cli_usage_error(&cmd_report, "expects a recording");
    if ((a->want.cell_size == 0) != (a->want.line_size == 0))
        return cli_usage_error(&cmd_report, "--cell-size and --line-size go together");
    if (formats[a->format].print == NULL && !a->output)
        return cli_usage_error(&cmd_report, "--format aprof writes one file per thread: give "
                                            "the directory with -o DIR");
    a->sel.routines = a->routines;
    a->sel.n_routines = a->n_routines;
    a->sel.threads = a->threads;
    a->sel.n_threads = a->n_threads;
    /* Selected routines are shown whole: all of them, with their tuples. */
    a->opt.top = a->n_routines && !a->top_given ? 0 : (size_t)a->top;
    a->opt.details = a->n_routines > 0;
    return 0;
}

static int write_report(const struct report_args *a, const struct report_model *m,
                        const struct loaded_reports *loaded, struct trms_error *err)
{
    if (formats[a->format].print == NULL)
        return report_aprof(a->output, m, loaded, err);
    struct output_file out;
    if (output_file_open(&out, a->output, formats[a->format].text, err) != 0)
        return -1;
    formats[a->format].print(out.fp, m, &a->opt);
    return output_file_close(&out, 0, err);
}

static int run(int argc, char **argv)
{
    struct report_args a = {0};
    int usage = parse(argc, argv, &a);
    struct trms_error err;
    int rc = usage ? usage : 0;
    struct loaded_reports loaded = {0};
    struct report_model model = {0};
    if (!usage && report_load(argv + optind, (size_t)(argc - optind), &a.want, &loaded, &err) != 0)
        rc = cli_fail(&err);
    if (!usage && rc == 0 &&
        report_model_build(loaded.sources, loaded.n, &a.sel, &model, &err) != 0)
        rc = cli_fail(&err);
    if (!usage && rc == 0 && write_report(&a, &model, &loaded, &err) != 0)
        rc = cli_fail(&err);
    report_model_free(&model);
    report_unload(&loaded);
    free(a.routines);
    free(a.threads);
    return rc;
}

const struct command cmd_report = {
    .name = "report",
    .summary = "report the stored analysis of recordings (text, json, csv, html, aprof)",
    .usage =
        "usage: trms report REC [REC...] [--format text|json|csv|html|aprof] [-o FILE]\n"
        "                   [--top N] [--routine PATTERN]... [--thread TID]...\n"
        "                   [--aggregate-threads] [--contexts] [--metric rms|trms]\n"
        "                   [--sort cum|self]\n"
        "                   [--cell-size N --line-size N] [--analyses LIST]\n\n"
        "Reports the latest analysis stored in REC, or the one computed with the\n"
        "given cell and line sizes and analyses. A result of fewer analyses\n"
        "(`analyze --analyses`) says what it did not compute, and leaves it out. Several recordings of the same program are\n"
        "merged: each routine's performance tuples from all of them, by name.\n"
        "Each routine's cost gets one growth verdict, worst-case and average,\n"
        "against RMS and TRMS, judged at the large end of its input sizes: a model\n"
        "among 1, log n, n, n log n, n^2, n^3, or ~n^k between them ('?': a poor\n"
        "fit), with the exponent k and its 95% interval; none below 4 distinct\n"
        "input sizes spanning 4x.\n\n"
        "formats:\n"
        "  text   routines ranked by cost with calls, input sizes, fitted growth,\n"
        "         shares of thread-induced and external input, source location;\n"
        "         then reuse distance histograms (log2 buckets) and LRU hit ratios\n"
        "  json   everything, exact: per routine and thread the RMS and TRMS\n"
        "         performance tuples, induced input, the fits, and the reuse\n"
        "         distance histograms, global and per thread\n"
        "  csv    one row per performance tuple\n"
        "  html   one self-contained page: a table of routines that sorts and\n"
        "         filters, cost plots with the fitted curves, workload plots, thread-\n"
        "         induced and external input, reuse distance histograms\n"
        "  aprof  the classic aprof report (version 6), one file per thread and\n"
        "         input metric (rms, drms) in the directory -o DIR\n\n"
        "options:\n"
        "  --top N             show the N costliest routines (default 25, 0 = all);\n"
        "                      text and the HTML plots leave out wrappers (routines\n"
        "                      called once with under 10% of their cost in their own\n"
        "                      code: <root>, libc start-up, main), which --top 0 lists\n"
        "  --sort cum|self     rank by cost with descendants (cum, default) or by\n"
        "                      self cost, in their own code\n"
        "  --routine PATTERN   only routines whose name matches PATTERN (a shell\n"
        "                      pattern, or a routine's 0x address), repeatable; text\n"
        "                      also prints their performance tuples and fits\n"
        "  --thread TID        only thread TID, repeatable\n"
        "  --aggregate-threads one row per routine, all threads' calls together\n"
        "  --contexts          one row per calling context (needs `trms analyze\n"
        "                      --contexts`; without it, contexts are added up by routine)\n"
        "  --metric rms|trms   text: the input metric of the growth column (default rms,\n"
        "                      or trms for a result without rms)\n"
        "  --analyses LIST     the result of these analyses (rms, trms, reuse; comma-\n"
        "                      separated), the latest such one without --cell-size\n"
        "  -o, --output F      write to F instead of stdout (aprof: a directory)\n",
    .run = run,
};
