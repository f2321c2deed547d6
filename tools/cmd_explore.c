/* trms explore: many recordings of one program under different schedules,
 * and how much its TRMS and reuse distances depend on the interleaving. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/oom.h"
#include "common/parse_number.h"
#include "explore/explore_format.h"
#include "explore/explore_runs.h"
#include "recorder/step_schedule.h"
#include "tools/cli.h"
#include "tools/output_file.h"
#include "tools/program_path.h"

#define DEFAULT_RANDOM_QUANTUM 100
#define DEFAULT_UNIT 64

static const struct {
    const char *name;
    int with_top;
} formats[] = {{"text", 1}, {"json", 0}, {"html", 1}};
#define N_FORMATS (sizeof formats / sizeof *formats)

struct explore_args {
    struct explore_plan plan;
    int runs_given, depth_given, quantum_given;
    const char *engine;
    size_t format;
    const char *output;
    uint64_t top;
    const char **patterns;
    size_t n_patterns;
};

static int parse_number(const char *option, const char *text, uint64_t min, uint64_t max,
                        uint64_t *out)
{
    if (parse_u64_cstr(text, out) != PARSE_NUMBER_OK || *out < min || *out > max)
        return cli_usage_error(&cmd_explore, "%s expects a number from %" PRIu64 " to %" PRIu64
                                             ", not '%s'",
                               option, min, max, text);
    return 0;
}

static int parse(int argc, char **argv, struct explore_args *a)
{
    static const struct option options[] = {{"runs", required_argument, NULL, 'n'},
                                            {"depth", required_argument, NULL, 'd'},
                                            {"schedule", required_argument, NULL, 's'},
                                            {"quantum", required_argument, NULL, 'q'},
                                            {"engine", required_argument, NULL, 'e'},
                                            {"first-seed", required_argument, NULL, 'S'},
                                            {"objects", required_argument, NULL, 'O'},
                                            {"object", required_argument, NULL, 'b'},
                                            {"unit", required_argument, NULL, 'u'},
                                            {"cell-size", required_argument, NULL, 'c'},
                                            {"keep", required_argument, NULL, 'k'},
                                            {"directory", required_argument, NULL, 'D'},
                                            {"format", required_argument, NULL, 'f'},
                                            {"output", required_argument, NULL, 'o'},
                                            {"top", required_argument, NULL, 't'},
                                            {NULL, 0, NULL, 0}};
    struct explore_plan *p = &a->plan;
    *p = (struct explore_plan){.schedule = EXPLORE_PCT, .depth = STEP_PCT_DEFAULT_DEPTH,
                               .quantum = DEFAULT_RANDOM_QUANTUM, .first_seed = 1,
                               .analysis = {.unit = DEFAULT_UNIT, .cell_size = 4}};
    a->engine = "step";
    a->top = 25;
    int c;
    uint64_t v;
    /* Options may follow recordings; a program's own options follow --. */
    while ((c = cli_getopt(&cmd_explore, argc, argv, "n:o:", options)) != -1) {
        switch (c) {
        case 'n':
            if (parse_number("-n", optarg, 1, 1000000, &v))
                return EXIT_USAGE;
            p->runs = (uint32_t)v;
            a->runs_given = 1;
            break;
        case 'd':
            if (parse_number("--depth", optarg, 1, STEP_PCT_MAX_DEPTH, &v))
                return EXIT_USAGE;
            p->depth = (uint32_t)v;
            a->depth_given = 1;
            break;
        case 's':
            if (strcmp(optarg, "pct") == 0)
                p->schedule = EXPLORE_PCT;
            else if (strcmp(optarg, "random") == 0)
                p->schedule = EXPLORE_RANDOM;
            else
                return cli_usage_error(&cmd_explore, "--schedule is pct or random, not '%s'",
                                       optarg);
            break;
        case 'q':
            if (parse_number("--quantum", optarg, 1, UINT32_MAX, &v))
                return EXIT_USAGE;
            p->quantum = (uint32_t)v;
            a->quantum_given = 1;
            break;
        case 'e':
            if (strcmp(optarg, "step") != 0 && strcmp(optarg, "rr") != 0)
                return cli_usage_error(&cmd_explore, "--engine is step or rr, not '%s'", optarg);
            a->engine = optarg;
            break;
        case 'S':
            if (parse_number("--first-seed", optarg, 1, UINT64_MAX / 2, &p->first_seed))
                return EXIT_USAGE;
            break;
        case 'O':
            if (strcmp(optarg, "all") == 0)
                p->analysis.all_memory = 1;
            else if (strcmp(optarg, "globals") == 0)
                p->analysis.all_memory = 0;
            else
                return cli_usage_error(&cmd_explore, "--objects is globals or all, not '%s'",
                                       optarg);
            break;
        case 'b':
            a->patterns = xrealloc(a->patterns, (a->n_patterns + 1) * sizeof *a->patterns);
            a->patterns[a->n_patterns++] = optarg;
            break;
        case 'u':
            if (cli_parse_power_of_two(&cmd_explore, "--unit", optarg, &p->analysis.unit))
                return EXIT_USAGE;
            break;
        case 'c':
            if (cli_parse_power_of_two(&cmd_explore, "--cell-size", optarg,
                                       &p->analysis.cell_size))
                return EXIT_USAGE;
            break;
        case 'k':
            if (strcmp(optarg, "all") == 0)
                p->keep_named_only = 0;
            else if (strcmp(optarg, "extremes") == 0)
                p->keep_named_only = 1;
            else
                return cli_usage_error(&cmd_explore, "--keep is all or extremes, not '%s'",
                                       optarg);
            break;
        case 'D':
            p->directory = optarg;
            break;
        case 'f':
            for (a->format = 0; a->format < N_FORMATS; a->format++)
                if (strcmp(formats[a->format].name, optarg) == 0)
                    break;
            if (a->format == N_FORMATS)
                return cli_usage_error(&cmd_explore, "unknown format '%s' (text, json or html)",
                                       optarg);
            break;
        case 'o':
            a->output = optarg;
            break;
        case 't':
            if (parse_number("--top", optarg, 0, UINT32_MAX, &a->top))
                return EXIT_USAGE;
            break;
        default:
            return EXIT_USAGE;  /* cli_getopt said why */
        }
    }
    p->analysis.patterns = a->patterns;
    p->analysis.n_patterns = a->n_patterns;
    if (strcmp(a->engine, "rr") == 0) {
        if (p->schedule == EXPLORE_RANDOM || a->depth_given || a->quantum_given)
            return cli_usage_error(&cmd_explore, "--engine rr explores with rr's chaos mode: "
                                                 "--schedule, --depth and --quantum are the "
                                                 "step engine's");
        p->schedule = EXPLORE_CHAOS;
    }
    if (p->schedule == EXPLORE_RANDOM && a->depth_given)
        return cli_usage_error(&cmd_explore, "--depth is for --schedule pct");
    if (p->schedule == EXPLORE_PCT && a->quantum_given)
        return cli_usage_error(&cmd_explore, "--quantum is for --schedule random");
    return 0;
}

/* PROG.explore, or PROG.explore.2 and so on when taken. */
static char *default_directory(const char *program)
{
    const char *base = strrchr(program, '/') ? strrchr(program, '/') + 1 : program;
    size_t size = strlen(base) + 32;
    char *out = xmalloc(size);
    for (unsigned n = 1;; n++) {
        if (n == 1)
            snprintf(out, size, "%s.explore", base);
        else
            snprintf(out, size, "%s.explore.%u", base, n);
        if (access(out, F_OK) != 0)
            return out;
    }
}

static int write_report(const struct explore_args *a, const struct explore *x, const char *path,
                        size_t format, struct trms_error *err)
{
    struct output_file out;
    /* The text report is read on a terminal: escaped wherever it goes. */
    if (output_file_open(&out, path, format == 0, err) != 0)
        return -1;
    size_t top = (size_t)a->top;
    if (format == 0)
        explore_text(out.fp, x, top);
    else if (format == 1)
        explore_json(out.fp, x);
    else
        explore_html(out.fp, x, top);
    return output_file_close(&out, 0, err);
}

static int run(int argc, char **argv)
{
    struct explore_args a = {0};
    int usage = parse(argc, argv, &a);
    if (usage) {
        free(a.patterns);
        return usage;
    }
    struct trms_error err;
    struct explore x;
    explore_init(&x);
    char *directory = NULL, self[PATH_MAX];
    int rc = 0;
    if (a.runs_given) {
        if (optind >= argc) {
            free(a.patterns);
            return cli_usage_error(&cmd_explore, "expects the program to explore: -n N -- PROG "
                                                 "ARGS...");
        }
        int missing;
        char *program = program_path(argv[optind], &missing);
        if (!program) {
            free(a.patterns);
            fprintf(stderr, "trms explore: %s: %s\n", argv[optind],
                    program_path_problem(missing));
            return missing;
        }
        free(program);
        ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
        if (len <= 0) {
            free(a.patterns);
            return cli_fail(&(struct trms_error){"cannot find the trms binary (/proc/self/exe)"});
        }
        self[len] = '\0';
        a.plan.trms = self;
        a.plan.argv = argv + optind;
        if (!a.plan.directory)
            a.plan.directory = directory = default_directory(argv[optind]);
        rc = explore_runs(&a.plan, &x, &err);
        /* The whole exploration beside its recordings, whatever is printed. */
        if (rc == 0) {
            char *json = xmalloc(strlen(a.plan.directory) + 16);
            sprintf(json, "%s/explore.json", a.plan.directory);
            rc = write_report(&a, &x, json, 1, &err);
            free(json);
        }
    } else {
        if (optind >= argc) {
            free(a.patterns);
            return cli_usage_error(&cmd_explore, "expects -n N -- PROG ARGS..., or recordings");
        }
        rc = explore_recordings(argv + optind, (size_t)(argc - optind), &a.plan.analysis, &x,
                                &err);
    }
    if (rc == 0)
        rc = write_report(&a, &x, a.output, a.format, &err);
    if (rc != 0)
        rc = cli_fail(&err);
    else if (x.interrupted)
        rc = 128 + 2;  /* as the shell says of ^C */
    explore_free(&x);
    free(directory);
    free(a.patterns);
    return rc;
}

const struct command cmd_explore = {
    .name = "explore",
    .summary = "record a program under many schedules: how TRMS and reuse depend on them",
    .usage =
        "usage: trms explore -n N [--schedule pct|random] [--depth D] [--quantum Q]\n"
        "                    [--engine step|rr] [--objects globals|all] [--object NAME]...\n"
        "                    [--unit BYTES] [--keep all|extremes] [--directory DIR]\n"
        "                    [--format text|json|html] [-o FILE] [--top N] -- PROG ARGS...\n"
        "       trms explore REC... [--objects ...] [--object NAME]... [--format ...]\n\n"
        "Records PROG N + 1 times under different interleavings of its threads and\n"
        "analyzes each recording, then reports across the runs:\n"
        "  - per routine and RMS, the range of TRMS and of thread-induced input over\n"
        "    every activation, and how many runs had each extreme;\n"
        "  - per tracked object (global and static variables, named from the\n"
        "    program's symbols), the range of its reuse distances, counted over the\n"
        "    accesses to the tracked objects only (as the memory-distance paper of\n"
        "    Li, Chang, Yang and Carr does), the distances seen, and each run's range.\n"
        "Every extreme names the recording of the first run that produced it: `trms\n"
        "report REC` and `trms explore REC` replay exactly that interleaving. The\n"
        "recordings, their logs and explore.json are kept in DIR.\n\n"
        "The first run (seed 0) measures what a run costs and says how long the\n"
        "others will take: the step engine single-steps every instruction (about\n"
        "20,000 a second), so keep programs small. Seeds 1..N follow (printed).\n\n"
        "schedules:\n"
        "  pct     (default) the step engine's PCT: random thread priorities, D-1\n"
        "          priority change points among the k events that can be reordered\n"
        "          (accesses to the tracked variables while another thread could run;\n"
        "          with --objects all, accesses outside the thread's stack and the\n"
        "          synchronizing system calls); the first run, at depth 1, counts k.\n"
        "          A result that needs D-1 preemptions at given events shows up in a\n"
        "          run with probability at least 1/(n k^(D-1)), n threads\n"
        "  random  the step engine's seeded quanta (random turns of mean Q)\n"
        "  --engine rr  rr record --chaos, where rr works (hardware counters)\n\n"
        "options:\n"
        "  -n N              runs after the first\n"
        "  --depth D         pct: the depth (default 3)\n"
        "  --quantum Q       random: mean instructions per turn (default 100)\n"
        "  --first-seed S    the seed of the first of the N runs (default 1)\n"
        "  --objects globals the program's global and static variables (default)\n"
        "  --objects all     all memory: every variable of every file, and the memory\n"
        "                    between them as regions named after their mapping\n"
        "  --object NAME     track only the variables NAME names (a shell pattern),\n"
        "                    repeatable\n"
        "  --unit BYTES      an object's locations, from its start (default 64): a\n"
        "                    scalar is one location, an array one per BYTES\n"
        "  --cell-size N     RMS and TRMS cells (default 4)\n"
        "  --keep extremes   keep only the recordings the report names (default all)\n"
        "  --directory DIR   where the recordings go (default PROG.explore)\n"
        "  --format F        text (default), json (everything, exact) or html\n"
        "  -o, --output F    write the report to F instead of stdout\n"
        "  --top N           text, html: routines shown (default 25, 0 = all)\n",
    .run = run,
    .program_operand = 0,
};
