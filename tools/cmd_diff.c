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
#include "tools/process_match.h"
#include "tools/process_tree.h"
#include "report/json.h"
#include "report/report_diff.h"
#include "report/report_load.h"
#include "report/report_model.h"

struct diff_run {
    struct result_key want;
    struct report_selection sel;
    struct diff_options o;
    int json;
};

/* The two recordings' stored analyses, compared: 0 with *A and *B built,
 * or -1. */
static int build_pair(const struct diff_run *d, const char *path_a, const char *path_b,
                      struct loaded_reports *loaded, struct report_model *a,
                      struct report_model *b, struct trms_error *err)
{
    char *paths[2] = {(char *)path_a, (char *)path_b};
    int rc = report_load(paths, 2, &d->want, loaded, err);
    if (rc == 0)
        rc = report_model_build(&loaded->sources[0], 1, &d->sel, a, err);
    if (rc == 0)
        rc = report_model_build(&loaded->sources[1], 1, &d->sel, b, err);
    if (rc == 0 && a->cell_size != b->cell_size)
        rc = error_set(err, "%s was analyzed with cell size %llu, %s with %llu; give "
                            "--cell-size and --line-size", path_a,
                       (unsigned long long)a->cell_size, path_b,
                       (unsigned long long)b->cell_size);
    /* Growth against a metric a result did not compute is no growth. */
    for (int i = 0; rc == 0 && i < 2; i++) {
        const struct report_model *m = i ? b : a;
        if (!(m->analyses & report_metric_parts[d->o.metric]))
            rc = error_set(err, "%s: its result has no %s (analyzed with --analyses without it); "
                                "give --metric %s, or analyze it with %s",
                           i ? path_b : path_a, report_metric_names[d->o.metric],
                           report_metric_names[1 - d->o.metric], report_metric_names[d->o.metric]);
    }
    return rc;
}

static void write_diff(const struct diff_run *d, const struct report_model *a,
                       const struct report_model *b, FILE *out)
{
    struct report_diff diff;
    report_diff_build(a, b, &d->o, &diff);
    (d->json ? report_diff_json : report_diff_text)(out, a, b, &diff, &d->o);
    report_diff_free(&diff);
}

/* The diff of two recordings into OUT. */
static int diff_pair(const struct diff_run *d, const char *path_a, const char *path_b,
                     FILE *out, struct trms_error *err)
{
    struct loaded_reports loaded = {0};
    struct report_model a = {0}, b = {0};
    int rc = build_pair(d, path_a, path_b, &loaded, &a, &b, err);
    if (rc == 0)
        write_diff(d, &a, &b, out);
    report_model_free(&a);
    report_model_free(&b);
    report_unload(&loaded);
    return rc;
}

/* The tree of the recording at PATH (a tree of one for a single process). */
static int read_tree(const char *path, struct process_tree *t, struct trms_error *err)
{
    struct recording rec;
    if (recording_open(path, &rec, err) != 0)
        return -1;
    int rc = process_tree_read(&rec, t, err);
    recording_close(&rec);
    return rc;
}

static void process_json(FILE *out, const struct tree_process *p)
{
    fprintf(out, "{\"number\": %u, \"pid\": %d, \"command\": ", p->number, p->pid);
    json_string(out, p->command);
    fputc('}', out);
}

/* Those of T that MATCH says have no partner, named (text) or listed. */
static void unmatched(FILE *out, const struct diff_run *d, const char *rec,
                      const struct process_tree *t, const long *match)
{
    int first = 1;
    for (size_t i = 0; i < t->n; i++) {
        if (match[i] >= 0)
            continue;
        const struct tree_process *p = &t->items[i];
        if (d->json) {
            fputs(first ? "" : ", ", out);
            process_json(out, p);
        } else {
            fprintf(out, "only in %s: process #%u (pid %d): %s\n", rec, p->number, p->pid,
                     p->command);
        }
        first = 0;
    }
}

/* Two recordings: as ever when both are of one process; else each matched
 * pair of processes diffed in turn (tools/process_match.h), and those of
 * one tree only named. */
static int run_trees(const struct diff_run *d, const char *rec_a, const char *rec_b,
                     const char *output, struct trms_error *err)
{
    struct process_tree ta = {0}, tb = {0};
    int rc = read_tree(rec_a, &ta, err);
    if (rc == 0)
        rc = read_tree(rec_b, &tb, err);
    long *a_to_b = NULL, *b_to_a = NULL;
    int tree = rc == 0 && (ta.n > 1 || tb.n > 1);
    struct output_file out;
    struct loaded_reports loaded = {0};
    struct report_model a = {0}, b = {0};
    /* One process each: built before the output opens (a failure leaves
     * no file), as ever. */
    if (rc == 0 && !tree)
        rc = build_pair(d, rec_a, rec_b, &loaded, &a, &b, err);
    if (rc == 0 && (rc = output_file_open(&out, output, !d->json, err)) == 0) {
        if (!tree) {
            write_diff(d, &a, &b, out.fp);
        } else {
            process_match(&ta, &tb, &a_to_b, &b_to_a);
            size_t matched = 0, only_a = 0, only_b = 0;
            for (size_t i = 0; i < ta.n; i++)
                matched += a_to_b[i] >= 0, only_a += a_to_b[i] < 0;
            for (size_t j = 0; j < tb.n; j++)
                only_b += b_to_a[j] < 0;
            if (d->json)
                fputs("{\"processes\": [", out.fp);
            else
                fprintf(out.fp, "trms diff of two process trees: %zu processes matched (by command "
                                "line, then by program), %zu only in %s, %zu only in %s\n",
                        matched, only_a, rec_a, only_b, rec_b);
            size_t shown = 0;
            for (size_t i = 0; rc == 0 && i < ta.n; i++) {
                if (a_to_b[i] < 0)
                    continue;
                const struct tree_process *pa = &ta.items[i], *pb = &tb.items[a_to_b[i]];
                char *path_a = process_tree_path(rec_a, pa, err), *path_b = NULL;
                if (!path_a || !(path_b = process_tree_path(rec_b, pb, err))) {
                    rc = -1;
                } else if (d->json) {
                    fputs(shown++ ? ", {\"a\": " : "{\"a\": ", out.fp);
                    process_json(out.fp, pa);
                    fputs(", \"b\": ", out.fp);
                    process_json(out.fp, pb);
                    fputs(", \"diff\": ", out.fp);
                    rc = diff_pair(d, path_a, path_b, out.fp, err);
                    fputs("}", out.fp);
                } else {
                    fprintf(out.fp, "\n== process #%u (pid %d) in A, #%u (pid %d) in B: %s\n",
                            pa->number, pa->pid, pb->number, pb->pid, pa->command);
                    rc = diff_pair(d, path_a, path_b, out.fp, err);
                }
                free(path_a);
                free(path_b);
            }
            if (d->json) {
                fputs("], \"only_in_a\": [", out.fp);
                unmatched(out.fp, d, rec_a, &ta, a_to_b);
                fputs("], \"only_in_b\": [", out.fp);
                unmatched(out.fp, d, rec_b, &tb, b_to_a);
                fputs("]}\n", out.fp);
            } else if (only_a || only_b) {
                fputc('\n', out.fp);
                unmatched(out.fp, d, rec_a, &ta, a_to_b);
                unmatched(out.fp, d, rec_b, &tb, b_to_a);
            }
        }
        rc = output_file_close(&out, rc != 0, err) != 0 || rc != 0 ? -1 : 0;
    }
    report_model_free(&a);
    report_model_free(&b);
    report_unload(&loaded);
    free(a_to_b);
    free(b_to_a);
    process_tree_free(&ta);
    process_tree_free(&tb);
    return rc;
}

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
    struct diff_run d = {.want = want, .sel = sel, .o = o, .json = json};
    struct trms_error err;
    int rc = run_trees(&d, argv[optind], argv[optind + 1], output, &err);
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
        "routines first. Of two process trees (`trms record` follows forks and\n"
        "execs), processes are matched by command line (the k-th of equal ones\n"
        "with the k-th), then by program name, each matched pair diffed in turn;\n"
        "the processes of one tree only are named (JSON: processes, only_in_a,\n"
        "only_in_b).\n\n"
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
