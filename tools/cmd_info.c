/* trms info: what a recording holds, whatever engine made it: the program,
 * the engine and its version, threads and events, its size on disk, and
 * which analyses are stored with which options. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analyses/analysis_parts.h"
#include "common/oom.h"
#include "store/checkpoint_store.h"
#include "store/result_store.h"
#include "store/symbol_file.h"
#include "tools/cli.h"
#include "tools/process_tree.h"
#include "tools/recording_health.h"
#include "report/json.h"
#include "trace/recording.h"
#include "trace/staging.h"

/* Meta keys shown under their own label, in this order; the rest follow
 * as they are. A recording made by another engine lacks some. */
static const struct {
    const char *key, *label;
} shown[] = {
    {"program", "program"},    {"source", "imported from"}, {"command", "command"},
    {"cwd", "directory"},      {"engine", "engine"},        {"engine-version", "engine version"},
    {"created", "created"},    {"trms-version", "trms version"}, {"outcome", "outcome"},
    {"complete", "complete"},  {"threads", "threads"},      {"events", "events"},
    {"routines", "routines"},
};
#define N_SHOWN (sizeof shown / sizeof *shown)

static int is_shown(const char *key)
{
    for (size_t i = 0; i < N_SHOWN; i++)
        if (strcmp(shown[i].key, key) == 0)
            return 1;
    return 0;
}

struct sizes {
    uint64_t total, events, results;
};

static void measure(const char *rec_path, struct sizes *s)
{
    char *events = recording_file(rec_path, RECORDING_EVENTS);
    char *results = recording_file(rec_path, RECORDING_RESULTS);
    char *names = recording_file(rec_path, SYMBOL_FILE_NAME);
    s->total = staging_disk_usage(rec_path);
    s->events = staging_disk_usage(events);
    s->results = staging_disk_usage(results) + staging_disk_usage(names);
    free(events);
    free(results);
    free(names);
}

/* The stored analyses, gathered from the store. */
struct analyses {
    struct stored_result_info *items;
    size_t n;
    struct checkpoint_info *checkpoints;  /* of analyses killed before the end */
    size_t n_checkpoints;
};

static int keep_checkpoint(void *ctx, const struct checkpoint_info *info)
{
    struct analyses *a = ctx;
    a->checkpoints = xrealloc(a->checkpoints, (a->n_checkpoints + 1) * sizeof *a->checkpoints);
    a->checkpoints[a->n_checkpoints++] = *info;
    return 0;
}

static int keep_info(void *ctx, const struct stored_result_info *info)
{
    struct analyses *a = ctx;
    a->items = xrealloc(a->items, (a->n + 1) * sizeof *a->items);
    a->items[a->n++] = *info;
    return 0;
}

/* 0 with A filled (empty when never analyzed), or -1 with ERR. */
static int load_analyses(const char *rec_path, struct analyses *a, struct trms_error *err)
{
    struct result_store *store;
    int rc = result_store_open(rec_path, 0, &store, err);
    if (rc == RESULT_STORE_NONE)
        return 0;
    if (rc != 0)
        return -1;
    rc = result_store_list(store, keep_info, a, err);
    if (rc == 0)
        rc = checkpoint_list(store, keep_checkpoint, a, err);
    result_store_close(store);
    return rc;
}

static void print_text(FILE *out, const char *rec_path, const struct recording *rec,
                       const struct sizes *sz, const struct analyses *a,
                       const struct recording_health *h, const struct process_tree *tree)
{
    fprintf(out, "%-16s %s\n", "recording", rec_path);
    for (size_t i = 0; i < N_SHOWN; i++) {
        const char *v = recording_meta(rec, shown[i].key);
        if (strcmp(shown[i].key, "complete") == 0)
            v = h->complete_text;  /* what the trace bears out */
        if (v)
            cli_print_field(out, shown[i].label, v);
    }
    for (size_t i = 0; i < rec->n_meta; i++)
        if (!is_shown(rec->meta[i].key) && !process_tree_key(rec->meta[i].key))
            cli_print_field(out, rec->meta[i].key, rec->meta[i].value);
    if (tree)
        process_tree_print(out, tree);
    char total[32], events[32], results[32];
    fprintf(out, "%-16s %s (events %s, results and names %s)\n", "size on disk",
            cli_human_bytes(sz->total, total), cli_human_bytes(sz->events, events),
            cli_human_bytes(sz->results, results));
    if (h->store.file_bytes) {
        char file[32], used[32], room[32];
        int worth = h->store.free_bytes >= (1u << 20);
        fprintf(out, "%-16s %s: %s in use, %s free%s%s%s\n", "result store",
                cli_human_bytes(h->store.file_bytes, file),
                cli_human_bytes(h->store.used_bytes, used),
                cli_human_bytes(h->store.free_bytes, room), worth ? " (`trms gc " : "",
                worth ? rec_path : "", worth ? "` gives it back)" : "");
    }
    if (a->n == 0)
        fprintf(out, "%-16s none yet: `trms analyze %s`\n", "analyses", rec_path);
    for (size_t i = 0; i < a->n; i++) {
        const struct result_key *k = &a->items[i].key;
        fprintf(out, "%-16s cell size %" PRIu64 ", line size %" PRIu64, i == 0 ? "analyses" : "",
                k->cell_size, k->line_size);
        if (k->to)
            fprintf(out, ", events %" PRIu64 " to %" PRIu64, k->from, k->to);
        else if (k->from)
            fprintf(out, ", events %" PRIu64 " to the end", k->from);
        if (k->contexts)
            fprintf(out, ", calling contexts");
        char parts[ANALYSIS_PARTS_TEXT_MAX], missing[ANALYSIS_PARTS_WORDS_MAX];
        if (result_key_analyses(k) != ANALYSIS_ALL)
            fprintf(out, ", analyses %s (not computed: %s)", analysis_parts_text(k->analyses, parts),
                    analysis_parts_missing(k->analyses, missing));
        fprintf(out, "%s%s%s\n", a->items[i].analyzed[0] ? ", stored " : "",
                a->items[i].analyzed,
                a->items[i].latest ? " (latest: what `trms report` shows)" : "");
    }
    for (size_t i = 0; i < a->n_checkpoints; i++) {
        const struct checkpoint_info *c = &a->checkpoints[i];
        char bytes[32];
        fprintf(out, "%-16s cell size %" PRIu64 ", line size %" PRIu64 "%s, %s, saved %s: "
                     "`trms analyze --resume` continues it\n",
                i == 0 ? "checkpoints" : "", c->key.cell_size, c->key.line_size,
                c->key.contexts ? ", calling contexts" : "", cli_human_bytes(c->bytes, bytes),
                c->saved);
    }
}

/* A meta value as JSON: a whole number (up to 2^53, which every reader's
 * doubles hold exactly) as a number, yes and no as booleans, "-" (the meta's
 * word for none) as null, anything else as the string it is. */
static void json_typed_value(FILE *out, const char *v)
{
    size_t digits = strspn(v, "0123456789");
    if (digits && !v[digits] && digits <= 16 && (v[0] != '0' || digits == 1) &&
        strtoull(v, NULL, 10) <= (UINT64_C(1) << 53))
        fputs(v, out);
    else if (strcmp(v, "yes") == 0 || strcmp(v, "no") == 0)
        fputs(v[0] == 'y' ? "true" : "false", out);
    else if (strcmp(v, "-") == 0)
        fputs("null", out);
    else
        json_string(out, v);
}

static void print_tree_json(FILE *out, const struct process_tree *t)
{
    fputs(", \"processes\": [", out);
    for (size_t i = 0; t && i < t->n; i++) {
        const struct tree_process *p = &t->items[i];
        fprintf(out, "%s{\"number\": %u, \"pid\": %d, \"ppid\": %d, \"parent\": %u, \"via\": ",
                i ? ", " : "", p->number, p->pid, p->ppid, p->parent);
        json_string(out, p->via);
        fputs(", \"dir\": ", out);
        json_string(out, p->dir);
        fprintf(out, ", \"events\": %" PRIu64 ", \"end\": ", p->events);
        json_string(out, p->end);
        fputs(", \"command\": ", out);
        json_string(out, p->command);
        fputc('}', out);
    }
    fputs("], \"left_out\": [", out);
    for (size_t i = 0; t && i < t->n_left_out; i++) {
        fprintf(out, "%s{\"pid\": %d, \"reason\": ", i ? ", " : "", t->left_out[i].pid);
        json_string(out, t->left_out[i].reason);
        fputs(", \"command\": ", out);
        json_string(out, t->left_out[i].command);
        fputc('}', out);
    }
    fprintf(out, "], \"over_limit\": %" PRIu64, t ? t->over_limit : 0);
}

static void print_json(FILE *out, const char *rec_path, const struct recording *rec,
                       const struct sizes *sz, const struct analyses *a,
                       const struct recording_health *h, const struct process_tree *tree)
{
    fputs("{\"recording\": ", out);
    json_string(out, rec_path);
    fputs(", \"meta\": {", out);
    for (size_t i = 0; i < rec->n_meta; i++) {
        fputs(i ? ", " : "", out);
        json_string(out, rec->meta[i].key);
        fputs(": ", out);
        json_string(out, rec->meta[i].value);
    }
    /* The meta file's values are text, and "meta" keeps them so (readers
     * rely on it); "meta_typed" says the same with JSON's types. */
    fputs("}, \"meta_typed\": {", out);
    for (size_t i = 0; i < rec->n_meta; i++) {
        fputs(i ? ", " : "", out);
        json_string(out, rec->meta[i].key);
        fputs(": ", out);
        json_typed_value(out, rec->meta[i].value);
    }
    fprintf(out,
            "}, \"size_bytes\": %" PRIu64 ", \"events_bytes\": %" PRIu64
            ", \"results_bytes\": %" PRIu64,
            sz->total, sz->events, sz->results);
    print_tree_json(out, tree);
    fprintf(out, ", \"complete\": %s, \"trace_check\": \"%s\", \"trace_bytes\": %" PRIu64
                 ", \"trace_cut_at\": ",
            h->complete ? "true" : "false", h->trace_state, h->trace.bytes);
    if (h->trace.status == TRACE_CHECK_CUT)
        fprintf(out, "%" PRIu64, h->trace.cut_at);
    else
        fputs("null", out);
    fputs(", \"problem\": ", out);
    if (h->problem[0])
        json_string(out, h->problem);
    else
        fputs("null", out);
    fprintf(out, ", \"store_bytes\": %" PRIu64 ", \"store_used_bytes\": %" PRIu64
                 ", \"store_free_bytes\": %" PRIu64 ", \"analyses\": [",
            h->store.file_bytes, h->store.used_bytes, h->store.free_bytes);
    for (size_t i = 0; i < a->n; i++) {
        const struct result_key *k = &a->items[i].key;
        char parts[ANALYSIS_PARTS_TEXT_MAX];
        fprintf(out, "%s{\"cell_size\": %" PRIu64 ", \"line_size\": %" PRIu64
                     ", \"from\": %" PRIu64 ", \"to\": %" PRIu64 ", \"contexts\": %s"
                     ", \"latest\": %s, \"analyses\": \"%s\", \"analyzed\": ",
                i ? ", " : "", k->cell_size, k->line_size, k->from, k->to,
                k->contexts ? "true" : "false", a->items[i].latest ? "true" : "false",
                analysis_parts_text(result_key_analyses(k), parts));
        json_string(out, a->items[i].analyzed);
        fputc('}', out);
    }
    fputs("], \"checkpoints\": [", out);
    for (size_t i = 0; i < a->n_checkpoints; i++) {
        const struct checkpoint_info *c = &a->checkpoints[i];
        fprintf(out, "%s{\"cell_size\": %" PRIu64 ", \"line_size\": %" PRIu64
                     ", \"from\": %" PRIu64 ", \"to\": %" PRIu64 ", \"contexts\": %s"
                     ", \"bytes\": %" PRIu64 ", \"saved\": ",
                i ? ", " : "", c->key.cell_size, c->key.line_size, c->key.from, c->key.to,
                c->key.contexts ? "true" : "false", c->bytes);
        json_string(out, c->saved);
        fputc('}', out);
    }
    fputs("]}\n", out);
}

static int run(int argc, char **argv)
{
    static const struct option options[] = {{"format", required_argument, NULL, 'f'},
                                            {NULL, 0, NULL, 0}};
    int json = 0, c;
    while ((c = cli_getopt(&cmd_info, argc, argv, "", options)) != -1) {
        if (c == 'f' && (strcmp(optarg, "text") == 0 || strcmp(optarg, "json") == 0))
            json = strcmp(optarg, "json") == 0;
        else if (c == 'f')
            return cli_usage_error(&cmd_info, "unknown format '%s' (text or json)", optarg);
        else
            return EXIT_USAGE;  /* cli_getopt said why */
    }
    if (optind != argc - 1)
        return cli_usage_error(&cmd_info, "expects one recording");
    const char *rec_path = argv[optind];

    struct trms_error err = {{0}};
    struct recording rec;
    if (recording_open(rec_path, &rec, &err) != 0)
        return cli_fail(&err);
    /* Staging directories a trms that died left beside it. */
    char *folder = staging_parent_dir(rec_path);
    cli_note_leftovers(folder);
    free(folder);
    struct sizes sz;
    measure(rec_path, &sz);
    struct recording_health health;
    recording_health_check(&rec, &health);
    struct analyses a = {0};
    /* A store that cannot be read is reported after what is known. */
    int store_rc = load_analyses(rec_path, &a, &err);
    /* The processes: a tree of one for a single-process recording. */
    struct process_tree tree;
    int tree_rc = process_tree_read(&rec, &tree, &err);
    if (tree_rc != 0 && store_rc == 0)
        store_rc = -1;  /* said after the rest */
    if (json)
        print_json(stdout, rec_path, &rec, &sz, &a, &health, tree_rc == 0 ? &tree : NULL);
    else
        print_text(stdout, rec_path, &rec, &sz, &a, &health, tree_rc == 0 ? &tree : NULL);
    if (tree_rc == 0)
        process_tree_free(&tree);
    free(a.items);
    free(a.checkpoints);
    recording_close(&rec);
    if (fflush(stdout) != 0) {
        error_set(&err, "cannot write the output");
        return cli_fail(&err);
    }
    return store_rc != 0 ? cli_fail(&err) : 0;
}

const struct command cmd_info = {
    .name = "info",
    .summary = "describe a recording and the analyses stored in it",
    .usage = "usage: trms info REC [--format text|json]\n\n"
             "Prints what the recording REC holds: the program and its command line,\n"
             "the engine that recorded it and its version, when, how the program ended,\n"
             "its threads, events and routines, the processes recorded (each program\n"
             "image under the one it came from, with its events and how it ended) and\n"
             "those left out and why, its size on disk, and which analyses\n"
             "are stored (cell and line size, when), marking the one `trms report`\n"
             "shows by default, and the checkpoints of analyses that were stopped\n"
             "before their end (`trms analyze --resume`). A result store that cannot be read is reported on\n"
             "stderr after the rest, with exit status 1.\n\n"
             "`complete` says what the event trace bears out: its end block is read and\n"
             "its totals compared with the meta (`no (trace cut at byte N ...)` for a\n"
             "trace cut short; `trms verify REC` reads every block). `result store`\n"
             "gives the store's size and how much of it is free (`trms gc REC` gives\n"
             "that back). Staging directories left beside the recording by a trms that\n"
             "died are named on stderr.\n\n"
             "options:\n"
             "  --format F   text (default) or json\n",
    .run = run,
};
