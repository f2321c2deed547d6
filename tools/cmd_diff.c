/* trms diff: which routines' growth or cost changed between two
 * recordings of the same program. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/parse_number.h"
#include "tools/cli.h"
#include "tools/output_file.h"
#include "report/report_diff.h"
#include "report/report_load.h"
#include "report/report_model.h"

static int run(int argc, char **argv)
{
    static const struct option options[] = {{"format", required_argument, NULL, 'f'},
                                            {"cell-size", required_argument, NULL, 'c'},
                                            {"line-size", required_argument, NULL, 'l'},
                                            {"metric", required_argument, NULL, 'm'},
                                            {"average", no_argument, NULL, 'v'},
                                            {"threshold", required_argument, NULL, 'h'},
                                            {"aggregate-threads", no_argument, NULL, 'A'},
                                            {"contexts", no_argument, NULL, 'C'},
                                            {"all", no_argument, NULL, 'a'},
                                            {"output", required_argument, NULL, 'o'},
                                            {NULL, 0, NULL, 0}};
    struct diff_options o = {.metric = METRIC_RMS, .cost = COST_WORST, .threshold = 0.10};
    struct report_selection sel = {.threads_by_order = 1};
    struct result_key want = {0};
    int json = 0, c;
    const char *output = NULL;
    while ((c = cli_getopt(&cmd_diff, argc, argv, "o:", options)) != -1) {
        switch (c) {
        case 'f':
            if (strcmp(optarg, "json") != 0 && strcmp(optarg, "text") != 0)
                return cli_usage_error(&cmd_diff, "unknown format '%s' (text or json)", optarg);
            json = strcmp(optarg, "json") == 0;
            break;
        case 'c':
            if (cli_parse_power_of_two(&cmd_diff, "--cell-size", optarg, &want.cell_size))
                return EXIT_USAGE;
            break;
        case 'l':
            if (cli_parse_power_of_two(&cmd_diff, "--line-size", optarg, &want.line_size))
                return EXIT_USAGE;
            break;
        case 'm':
            if (strcmp(optarg, "rms") != 0 && strcmp(optarg, "trms") != 0)
                return cli_usage_error(&cmd_diff, "--metric is rms or trms, not '%s'", optarg);
            o.metric = strcmp(optarg, "trms") == 0 ? METRIC_TRMS : METRIC_RMS;
            break;
        case 'v':
            o.cost = COST_AVERAGE;
            break;
        case 'h': {
            char *end;
            errno = 0;
            double pct = strtod(optarg, &end);
            if (errno || end == optarg || *end || pct < 0)
                return cli_usage_error(&cmd_diff, "--threshold needs a percentage, not '%s'",
                                       optarg);
            o.threshold = pct / 100;
            break;
        }
        case 'A':
            sel.aggregate_threads = 1;
            break;
        case 'C':
            sel.contexts = want.contexts = 1;
            break;
        case 'a':
            o.all = 1;
            break;
        case 'o':
            output = optarg;
            break;
        default:
            return EXIT_USAGE;  /* cli_getopt said why */
        }
    }
    if (argc - optind != 2)
        return cli_usage_error(&cmd_diff, "expects two recordings");
    if ((want.cell_size == 0) != (want.line_size == 0))
        return cli_usage_error(&cmd_diff, "--cell-size and --line-size go together");
    struct trms_error err;
    struct loaded_reports loaded = {0};
    struct report_model a = {0}, b = {0};
    int rc = report_load(argv + optind, 2, &want, &loaded, &err);
    if (rc == 0)
        rc = report_model_build(&loaded.sources[0], 1, &sel, &a, &err);
    if (rc == 0)
        rc = report_model_build(&loaded.sources[1], 1, &sel, &b, &err);
    if (rc == 0 && a.cell_size != b.cell_size)
        rc = error_set(&err, "%s was analyzed with cell size %llu, %s with %llu; give "
                             "--cell-size and --line-size", argv[optind],
                       (unsigned long long)a.cell_size, argv[optind + 1],
                       (unsigned long long)b.cell_size);
    /* Growth against a metric a result did not compute is no growth. */
    for (int i = 0; rc == 0 && i < 2; i++) {
        const struct report_model *m = i ? &b : &a;
        if (!(m->analyses & report_metric_parts[o.metric]))
            rc = error_set(&err, "%s: its result has no %s (analyzed with --analyses without it); "
                                 "give --metric %s, or analyze it with %s",
                           argv[optind + i], report_metric_names[o.metric],
                           report_metric_names[1 - o.metric], report_metric_names[o.metric]);
    }
    struct output_file out;
    /* The text diff is read on a terminal: escaped wherever it goes. */
    if (rc == 0 && (rc = output_file_open(&out, output, !json, &err)) == 0) {
        struct report_diff d;
        report_diff_build(&a, &b, &o, &d);
        (json ? report_diff_json : report_diff_text)(out.fp, &a, &b, &d, &o);
        report_diff_free(&d);
        rc = output_file_close(&out, 0, &err);
    }
    report_model_free(&a);
    report_model_free(&b);
    report_unload(&loaded);
    return rc ? cli_fail(&err) : 0;
}

const struct command cmd_diff = {
    .name = "diff",
    .summary = "show which routines' growth or cost changed between two recordings",
    .usage =
        "usage: trms diff REC_A REC_B [--format text|json] [-o FILE] [--metric rms|trms]\n"
        "                 [--average] [--threshold PCT] [--aggregate-threads] [--contexts]\n"
        "                 [--all] [--cell-size N --line-size N]\n\n"
        "Compares the stored analyses of two recordings of the same program,\n"
        "routine by routine (threads numbered by order of appearance): a routine's\n"
        "growth changed when both runs fit its cost well (within 10%), the chosen\n"
        "models differ and the exponents' 95% intervals do not overlap (GROWTH); its cost changed\n"
        "when it moved by more than the threshold and by at least 0.1% of the\n"
        "program's cost. Routines seen in one run only are listed too. Changed\n"
        "routines first.\n\n"
        "options:\n"
        "  --metric rms|trms   the input metric of the fits compared (default rms)\n"
        "  --average           compare the fits of average cost, not worst-case\n"
        "  --threshold PCT     a cost change that counts, in percent (default 10)\n"
        "  --aggregate-threads compare routines over all threads\n"
        "  --contexts          compare calling contexts (analyses with --contexts)\n"
        "  --all               text: list unchanged routines too\n"
        "  -o, --output F      write to F instead of stdout\n",
    .run = run,
};
