/* trms report: prints a stored result. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "common/parse_number.h"
#include "store/result_store.h"
#include "store/symbol_store.h"
#include "tools/cli.h"
#include "tools/report.h"
#include "trace/recording.h"

static const struct {
    const char *name;
    int (*print)(FILE *, const struct analysis_result *, const struct report_options *);
} formats[] = {{"text", report_text}, {"json", report_json}, {"csv", report_csv}};

static int run(int argc, char **argv)
{
    static const struct option options[] = {{"format", required_argument, NULL, 'f'},
                                            {"cell-size", required_argument, NULL, 'c'},
                                            {"line-size", required_argument, NULL, 'l'},
                                            {"top", required_argument, NULL, 't'},
                                            {"routine", required_argument, NULL, 'r'},
                                            {"output", required_argument, NULL, 'o'},
                                            {NULL, 0, NULL, 0}};
    size_t format = 0;
    uint64_t cell = 0, line = 0, top = 25;
    const char *output = NULL, *routine = NULL;
    int c;
    while ((c = getopt_long(argc, argv, "o:", options, NULL)) != -1) {
        switch (c) {
        case 'f':
            for (format = 0; format < sizeof formats / sizeof *formats; format++)
                if (strcmp(formats[format].name, optarg) == 0)
                    break;
            if (format == sizeof formats / sizeof *formats)
                return cli_usage_error(&cmd_report, "unknown format '%s' (text, json or csv)",
                                       optarg);
            break;
        case 'c':
            if (cli_parse_power_of_two(&cmd_report, "--cell-size", optarg, &cell))
                return EXIT_USAGE;
            break;
        case 'l':
            if (cli_parse_power_of_two(&cmd_report, "--line-size", optarg, &line))
                return EXIT_USAGE;
            break;
        case 't':
            if (parse_u64_cstr(optarg, &top) != PARSE_NUMBER_OK)
                return cli_usage_error(&cmd_report, "--top needs a number, not '%s'", optarg);
            break;
        case 'o':
            output = optarg;
            break;
        case 'r':
            routine = optarg;
            break;
        default:
            return cli_usage_error(&cmd_report, "unknown option");
        }
    }
    if (optind != argc - 1)
        return cli_usage_error(&cmd_report, "expects one recording");
    if ((cell == 0) != (line == 0))
        return cli_usage_error(&cmd_report, "--cell-size and --line-size go together");
    const char *rec_path = argv[optind];

    struct trms_error err;
    struct recording rec;
    if (recording_open(rec_path, &rec, &err) != 0)
        return cli_fail(&err);
    recording_close(&rec);
    struct result_store *store;
    if (result_store_open(rec_path, 0, &store, &err) != 0)
        return cli_fail(&err);
    struct analysis_result *result;
    int rc = result_store_load(store, cell, line, &result, &err);
    result_store_close(store);
    if (rc != 0)
        return cli_fail(&err);
    /* Names of address-only routines, resolved when recorded. (After the
     * close: LMDB allows one open of an environment per process.) */
    struct symbol_names symbols;
    if (symbol_store_load(rec_path, &symbols, &err) != 0) {
        analysis_result_free(result);
        return cli_fail(&err);
    }
    FILE *out = output ? fopen(output, "w") : stdout;
    if (!out) {
        analysis_result_free(result);
        symbol_names_free(&symbols);
        error_set(&err, "%s: cannot create: %s", output, strerror(errno));
        return cli_fail(&err);
    }
    struct report_options ro = {.recording = rec_path, .top = (size_t)top, .routine = routine,
                                .symbols = &symbols};
    int missing = formats[format].print(out, result, &ro);
    analysis_result_free(result);
    symbol_names_free(&symbols);
    rc = fflush(out) != 0 || ferror(out);
    if (out != stdout)
        rc |= fclose(out) != 0;
    if (missing) {
        if (output)
            remove(output);
        error_set(&err, "%s: no routine named '%s'", rec_path, routine);
        return cli_fail(&err);
    }
    if (rc) {
        error_set(&err, "%s: cannot write the report: %s", output ? output : "<stdout>",
                  strerror(errno));
        return cli_fail(&err);
    }
    return 0;
}

const struct command cmd_report = {
    .name = "report",
    .summary = "print the stored analysis of a recording (text, json or csv)",
    .usage =
        "usage: trms report REC [--format text|json|csv] [--top N] [--routine NAME]\n"
        "                       [-o FILE] [--cell-size N --line-size N]\n\n"
        "Prints the latest analysis stored in REC, or the one computed with the\n"
        "given cell and line sizes.\n\n"
        "formats:\n"
        "  text   routines ranked by cost with their input sizes and induced input,\n"
        "         then reuse distance histograms (log2 buckets) and LRU hit ratios\n"
        "  json   everything, exact: per routine and thread the RMS and TRMS\n"
        "         performance tuples (n, calls, min, max, sum, sumsq of cost, and the\n"
        "         same of self cost), induced input totals, and the exact reuse\n"
        "         distance histograms, global and per thread\n"
        "  csv    one row per performance tuple\n\n"
        "options:\n"
        "  --top N          text: show the N costliest routines (default 25, 0 = all)\n"
        "  --routine NAME   text: also print NAME's performance tuples (cost by RMS\n"
        "                   and by TRMS input size), per thread; NAME is a symbol\n"
        "                   name or a routine's 0x address\n"
        "  -o, --output F   write to F instead of stdout\n",
    .run = run,
};
