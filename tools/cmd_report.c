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
#include "common/u64map.h"
#include "common/parse_number.h"
#include "tools/cli.h"
#include "tools/output_file.h"
#include "tools/process_tree.h"
#include "trace/recording.h"
#include "report/json.h"
#include "report/report.h"
#include "report/report_aprof.h"
#include "report/report_load.h"
#include "report/report_model.h"
#include "report/svg_plot.h"

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
    const char **processes;     /* --process */
    size_t n_processes;
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
                                            {"process", required_argument, NULL, 'P'},
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
        case 'P':
            a->processes = xrealloc(a->processes, (a->n_processes + 1) * sizeof *a->processes);
            a->processes[a->n_processes++] = optarg;
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

/* ---- a recording of a process tree ---- */

/* One process's report, loaded and built. */
struct process_report {
    const struct tree_process *p;
    struct loaded_reports loaded;
    struct report_model model;
    uint64_t cost;              /* its instructions: the self costs add up to them */
    int ok;
    char *path;                 /* its recording (the model names it) */
};

static int by_cost(const void *x, const void *y)
{
    const struct process_report *a = *(struct process_report *const *)x;
    const struct process_report *b = *(struct process_report *const *)y;
    if (a->cost != b->cost)
        return a->cost < b->cost ? 1 : -1;
    return (a->p->number > b->p->number) - (a->p->number < b->p->number);
}

/* "name 60%, other 20%": the routines doing most of PR's work. */
/* PR's three routines of highest self cost (in one pass: a process may
 * have thousands), the earlier row first among equals. */
static void top_routines(const struct process_report *pr, char *buf, size_t size)
{
    enum { SHOWN = 3 };
    size_t best[SHOWN], n_best = 0;
    const struct report_row *rows = pr->model.rows;
    for (size_t i = 0; i < pr->model.n_rows; i++) {
        uint64_t cost = rows[i].self_cost;
        size_t at = n_best;
        while (at > 0 && rows[best[at - 1]].self_cost < cost)
            at--;
        if (cost == 0 || at == SHOWN)
            continue;
        if (n_best < SHOWN)
            n_best++;
        memmove(best + at + 1, best + at, (n_best - 1 - at) * sizeof *best);
        best[at] = i;
    }
    size_t used = 0;
    buf[0] = '\0';
    for (size_t k = 0; k < n_best && used < size; k++) {
        char label[64];
        report_row_label(&rows[best[k]], label, 40);
        used += (size_t)snprintf(buf + used, size - used, "%s%s %.0f%%", k ? ", " : "", label,
                                 pr->cost ? 100.0 * (double)rows[best[k]].self_cost /
                                                (double)pr->cost : 0.0);
    }
}

/* The top-routines cell of PR's row in the ranking of processes. */
static void top_cell(const struct process_report *pr, char *buf, size_t size)
{
    if (pr->ok)
        top_routines(pr, buf, size);
    else
        snprintf(buf, size, "%s", strcmp(pr->p->end, "failed") == 0 ? "(its recording failed)"
                                                                     : "(nothing selected)");
}

static void csv_field(FILE *out, const char *text)
{
    fputc('"', out);
    for (const char *c = text; *c; c++) {
        if (*c == '"')
            fputc('"', out);
        fputc(*c, out);
    }
    fputc('"', out);
}

/* CSV: each process's rows with its pid and command in front; one header. */
static void print_tree_csv(FILE *out, struct process_report **order, size_t n,
                           const struct report_options *opt)
{
    int header = 0;
    for (size_t i = 0; i < n; i++) {
        if (!order[i]->ok)
            continue;
        char *text = NULL;
        size_t len = 0;
        FILE *mem = open_memstream(&text, &len);
        if (!mem)
            continue;
        report_csv(mem, &order[i]->model, opt);
        fclose(mem);
        char *save = NULL;
        int first = 1;
        for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
            if (first && header) {
                first = 0;
                continue;
            }
            if (first) {
                fprintf(out, "pid,command,%s\n", line);
                header = 1;
                first = 0;
                continue;
            }
            fprintf(out, "%d,", order[i]->p->pid);
            csv_field(out, order[i]->p->command);
            fprintf(out, ",%s\n", line);
        }
        free(text);
    }
}

static void print_tree_json(FILE *out, const char *rec_path, const struct process_tree *tree,
                            struct process_report **order, size_t n,
                            const struct report_options *opt)
{
    fputs("{\"recording\": ", out);
    json_string(out, rec_path);
    fputs(", \"processes\": [", out);
    for (size_t i = 0, k = 0; i < n; i++) {
        const struct process_report *pr = order[i];
        if (!pr->ok)
            continue;
        fprintf(out, "%s{\"number\": %u, \"pid\": %d, \"ppid\": %d, \"parent\": %u, "
                     "\"via\": \"%s\", \"cost\": %" PRIu64 ", \"command\": ",
                k++ ? ", " : "", pr->p->number, pr->p->pid, pr->p->ppid, pr->p->parent,
                pr->p->via, pr->cost);
        json_string(out, pr->p->command);
        fputs(", \"dir\": ", out);
        json_string(out, pr->p->dir);
        fputs(", \"report\": ", out);
        report_json(out, &pr->model, opt);
        fputc('}', out);
    }
    fputs("], \"left_out\": [", out);
    for (size_t i = 0; i < tree->n_left_out; i++) {
        fprintf(out, "%s{\"pid\": %d, \"reason\": ", i ? ", " : "", tree->left_out[i].pid);
        json_string(out, tree->left_out[i].reason);
        fputs(", \"command\": ", out);
        json_string(out, tree->left_out[i].command);
        fputc('}', out);
    }
    fprintf(out, "], \"over_limit\": %" PRIu64 "}\n", tree->over_limit);
}

static void print_tree_text(FILE *out, const char *rec_path, const struct process_tree *tree,
                            struct process_report **order, size_t n,
                            const struct report_options *opt)
{
    fprintf(out, "recording %s: %zu process%s recorded, %zu reported\n\n", rec_path, tree->n,
            tree->n == 1 ? "" : "es", n);
    fprintf(out, "processes by cost (instructions), each with its top routines (self cost):\n");
    fprintf(out, "  %4s %8s %14s  %-28s %s\n", "#", "pid", "cost", "process", "top routines");
    for (size_t i = 0; i < n; i++) {
        const struct process_report *pr = order[i];
        char name[64], top[512];
        process_tree_name(pr->p, name, sizeof name);
        top_cell(pr, top, sizeof top);
        fprintf(out, "  %4u %8d %14" PRIu64 "  %-28s %s\n", pr->p->number, pr->p->pid,
                pr->cost, name, top);
    }
    for (size_t i = 0; i < tree->n_left_out; i++)
        fprintf(out, "  not recorded: %s (pid %d): %s\n", tree->left_out[i].command,
                tree->left_out[i].pid, tree->left_out[i].reason);
    if (tree->over_limit)
        fprintf(out, "  not recorded: %" PRIu64 " process%s beyond --max-processes\n",
                tree->over_limit, tree->over_limit == 1 ? "" : "es");
    for (size_t i = 0; i < n; i++) {
        const struct process_report *pr = order[i];
        char how[64];
        if (strcmp(pr->p->via, "fork") == 0)
            snprintf(how, sizeof how, "forked by pid %d", pr->p->ppid);
        else if (strcmp(pr->p->via, "exec") == 0)
            snprintf(how, sizeof how, "exec'd by #%u", pr->p->parent);
        else
            snprintf(how, sizeof how, "the first");
        fprintf(out, "\n== process #%u, pid %d (%s): %s ==\n", pr->p->number, pr->p->pid, how,
                pr->p->command);
        if (pr->ok)
            report_text(out, &pr->model, opt);
        else if (strcmp(pr->p->end, "failed") == 0)
            fprintf(out, "not analyzed: its recording failed (`trms info %s`)\n", rec_path);
        else
            fprintf(out, "nothing of it selected (--routine, --thread)\n");
    }
}

/* HTML: one page for the tree. The processes ranked by cost, each a link;
 * a selector that shows one process's section at a time (all of them show
 * without script); each section the process's own report, whole, in a
 * frame (srcdoc), so that its ids, style and script stay its own. */
static const char tree_style[] =
    "body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}"
    "table{border-collapse:collapse}td,th{padding:2px 10px;text-align:left;"
    "border-bottom:1px solid #ddd}th{background:#f3f3f3}.num{text-align:right}"
    ".note{color:#666}section.process{margin-top:1.5em;border-top:2px solid #888}"
    "iframe{width:100%;height:80vh;border:1px solid #ccc}select{font:inherit}";
static const char tree_script[] =
    "var sel=document.getElementById('process');"
    "function show(){var v=sel.value,s=document.querySelectorAll('section.process');"
    "for(var i=0;i<s.length;i++)s[i].style.display=(v==='all'||s[i].id===v)?'':'none';}"
    "sel.addEventListener('change',show);"
    "if(location.hash&&document.getElementById(location.hash.slice(1)))"
    "sel.value=location.hash.slice(1);show();"
    "window.addEventListener('hashchange',function(){sel.value=location.hash.slice(1);show();});";

/* TEXT escaped for a double-quoted attribute. */
static void html_attribute(FILE *out, const char *text, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        if (c == '&')
            fputs("&amp;", out);
        else if (c == '"')
            fputs("&quot;", out);
        else if (c == '<')
            fputs("&lt;", out);
        else
            fputc(c, out);
    }
}

static void print_tree_html(FILE *out, const char *rec_path, const struct process_tree *tree,
                            struct process_report **order, size_t n,
                            const struct report_options *opt)
{
    fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                 "<title>trms report: ");
    html_text(out, rec_path);
    fprintf(out, "</title><style>%s</style></head>\n<body>\n<h1>trms report: a process "
                 "tree</h1>\n<p>", tree_style);
    html_text(out, rec_path);
    fprintf(out, ": %zu process%s recorded, %zu reported</p>\n", tree->n,
            tree->n == 1 ? "" : "es", n);
    fputs("<h2>Processes by cost</h2>\n<p class=\"note\">cost: instructions; top routines "
          "by self cost</p>\n<table><tr><th>#</th><th>pid</th><th class=\"num\">cost</th>"
          "<th>process</th><th>top routines</th></tr>\n", out);
    for (size_t i = 0; i < n; i++) {
        const struct process_report *pr = order[i];
        char name[64], top[512];
        process_tree_name(pr->p, name, sizeof name);
        top_cell(pr, top, sizeof top);
        fprintf(out, "<tr><td>%u</td><td><a href=\"#p-%u\">%d</a></td><td class=\"num\">%"
                     PRIu64 "</td><td>", pr->p->number, pr->p->number, pr->p->pid, pr->cost);
        html_text(out, name);
        fputs("</td><td>", out);
        html_text(out, top);
        fputs("</td></tr>\n", out);
    }
    fputs("</table>\n", out);
    for (size_t i = 0; i < tree->n_left_out; i++) {
        fputs("<p class=\"note\">not recorded: ", out);
        html_text(out, tree->left_out[i].command);
        fprintf(out, " (pid %d): ", tree->left_out[i].pid);
        html_text(out, tree->left_out[i].reason);
        fputs("</p>\n", out);
    }
    if (tree->over_limit)
        fprintf(out, "<p class=\"note\">not recorded: %" PRIu64 " process%s beyond "
                     "--max-processes</p>\n", tree->over_limit,
                tree->over_limit == 1 ? "" : "es");
    fputs("<p><label>process: <select id=\"process\"><option value=\"all\">all</option>", out);
    for (size_t i = 0; i < n; i++) {
        char name[64];
        fprintf(out, "<option value=\"p-%u\"%s>#%u pid %d ", order[i]->p->number,
                i == 0 ? " selected" : "", order[i]->p->number, order[i]->p->pid);
        html_text(out, process_tree_name(order[i]->p, name, sizeof name));
        fputs("</option>", out);
    }
    fputs("</select></label></p>\n", out);
    for (size_t i = 0; i < n; i++) {
        const struct process_report *pr = order[i];
        fprintf(out, "<section class=\"process\" id=\"p-%u\" data-pid=\"%d\">\n<h2>"
                     "process #%u, pid %d: ", pr->p->number, pr->p->pid, pr->p->number,
                pr->p->pid);
        html_text(out, pr->p->command);
        fputs("</h2>\n", out);
        if (!pr->ok) {
            fprintf(out, "<p class=\"note\">%s</p>\n</section>\n",
                    strcmp(pr->p->end, "failed") == 0 ? "not analyzed: its recording failed"
                                                      : "nothing of it selected");
            continue;
        }
        char *page = NULL;
        size_t len = 0;
        FILE *mem = open_memstream(&page, &len);
        if (mem) {
            report_html(mem, &pr->model, opt);
            fclose(mem);
        }
        fputs("<iframe title=\"its report\" srcdoc=\"", out);
        html_attribute(out, page ? page : "", page ? len : 0);
        fputs("\"></iframe>\n</section>\n", out);
        free(page);
    }
    fprintf(out, "<script>%s</script>\n</body></html>\n", tree_script);
}

/* Which process of the tree wrote each channel (pipe, FIFO or socket
 * inode), from each process's meta: channel -> tree index + 1, or
 * WRITERS_SEVERAL when processes of different pids wrote it. */
#define WRITERS_SEVERAL UINT64_MAX

struct channel_writers {
    struct u64map by_channel;
    const struct process_tree *tree;
    int reader;                 /* the pid whose rows are attributed */
};

static void gather_channel_writers(const char *rec_path, const struct process_tree *tree,
                                   struct channel_writers *w)
{
    u64map_init(&w->by_channel);
    w->tree = tree;
    for (size_t i = 0; i < tree->n; i++) {
        struct trms_error err;
        char *path = process_tree_path(rec_path, &tree->items[i], &err);
        struct recording rec;
        if (!path || recording_open(path, &rec, &err) != 0) {
            free(path);
            continue;  /* its own report says why */
        }
        const char *list = recording_meta(&rec, "channels-written");
        for (const char *p = list; p && *p && *p != '-';) {
            char *end;
            unsigned long long inode = strtoull(p, &end, 10);
            if (end == p)
                break;
            int inserted;
            uint64_t *writer = u64map_upsert(&w->by_channel, inode, &inserted);
            if (inserted)
                *writer = i + 1;
            else if (*writer != WRITERS_SEVERAL && tree->items[*writer - 1].pid != tree->items[i].pid)
                *writer = WRITERS_SEVERAL;
            p = *end == ',' ? end + 1 : end;
        }
        recording_close(&rec);
        free(path);
    }
}

static int channel_writer_of(void *ctx, uint32_t channel, const char **command)
{
    const struct channel_writers *w = ctx;
    const uint64_t *writer = u64map_find(&w->by_channel, channel);
    if (!writer || *writer == WRITERS_SEVERAL)
        return 0;
    const struct tree_process *p = &w->tree->items[*writer - 1];
    if (p->pid == w->reader)
        return 0;  /* its own bytes: not another process's */
    *command = p->command;
    return p->pid;
}

/* REC is a tree (or --process was given): a report per process. */
static int report_tree(struct report_args *a, const char *rec_path, struct trms_error *err)
{
    struct process_tree tree;
    if (process_tree_load(rec_path, a->processes, a->n_processes, &tree, err) != 0)
        return -1;
    int rc = 0;
    struct process_report *reports = xcalloc(tree.n + 1, sizeof *reports);
    struct process_report **order = xcalloc(tree.n + 1, sizeof *order);
    size_t n = 0, unmatched = 0;
    struct channel_writers writers;
    gather_channel_writers(rec_path, &tree, &writers);
    for (size_t i = 0; i < tree.n && rc == 0; i++) {
        if (!process_tree_chosen(&tree.items[i], a->processes, a->n_processes))
            continue;
        struct process_report *pr = &reports[n];
        order[n++] = pr;
        pr->p = &tree.items[i];
        if (strcmp(pr->p->end, "failed") == 0)
            continue;  /* said in its section */
        pr->path = process_tree_path(rec_path, pr->p, err);
        if (!pr->path || report_load(&pr->path, 1, &a->want, &pr->loaded, err) != 0)
            rc = -1;
        else if (report_model_build(pr->loaded.sources, pr->loaded.n, &a->sel, &pr->model,
                                    err) != 0) {
            /* --routine or --thread naming what only other processes have. */
            if (!a->n_routines && !a->n_threads)
                rc = -1;
            else
                unmatched++;
            continue;
        }
        pr->ok = rc == 0;
        writers.reader = pr->p->pid;
        if (pr->ok && writers.by_channel.count)
            report_model_attribute_channels(&pr->model, channel_writer_of, &writers);
        for (size_t r = 0; pr->ok && r < pr->model.n_rows; r++)
            pr->cost += pr->model.rows[r].self_cost;
    }
    if (rc == 0 && n > 0 && unmatched == n)
        rc = -1;  /* ERR says why, of the last one */
    if (rc == 0) {
        qsort(order, n, sizeof *order, by_cost);
        const char *format = formats[a->format].name;
        if (formats[a->format].print == NULL) {
            /* One process per aprof directory: the costliest selected. */
            size_t first = 0;
            while (first < n && !order[first]->ok)
                first++;
            if (first == n)
                rc = error_set(err, "%s: no process selected has a report", rec_path);
            else if (n > 1)
                fprintf(stderr, "trms: report: --format %s shows one process: the costliest, "
                                "pid %d (choose with --process)\n", format,
                        order[first]->p->pid);
            if (rc == 0)
                rc = write_report(a, &order[first]->model, &order[first]->loaded, err);
        } else {
            struct output_file out;
            rc = output_file_open(&out, a->output, formats[a->format].text, err);
            if (rc == 0) {
                if (strcmp(format, "json") == 0)
                    print_tree_json(out.fp, rec_path, &tree, order, n, &a->opt);
                else if (strcmp(format, "html") == 0)
                    print_tree_html(out.fp, rec_path, &tree, order, n, &a->opt);
                else if (strcmp(format, "csv") == 0)
                    print_tree_csv(out.fp, order, n, &a->opt);
                else
                    print_tree_text(out.fp, rec_path, &tree, order, n, &a->opt);
                rc = output_file_close(&out, 0, err);
            }
        }
    }
    for (size_t i = 0; i < n; i++) {
        report_model_free(&reports[i].model);
        report_unload(&reports[i].loaded);
        free(reports[i].path);
    }
    free(reports);
    free(order);
    u64map_free(&writers.by_channel);
    process_tree_free(&tree);
    return rc;
}

/* Whether the one recording named is a tree of several processes. */
static int is_tree(const char *rec_path)
{
    struct recording rec;
    struct trms_error err;
    if (recording_open(rec_path, &rec, &err) != 0)
        return 0;  /* report_load says why */
    const char *count = recording_meta(&rec, "processes");
    int tree = count && strcmp(count, "1") != 0;
    recording_close(&rec);
    return tree;
}

static int run(int argc, char **argv)
{
    struct report_args a = {0};
    int usage = parse(argc, argv, &a);
    struct trms_error err;
    int rc = usage ? usage : 0;
    struct loaded_reports loaded = {0};
    struct report_model model = {0};
    if (!usage && argc - optind == 1 && (a.n_processes || is_tree(argv[optind]))) {
        rc = report_tree(&a, argv[optind], &err) != 0 ? cli_fail(&err) : 0;
        free(a.routines);
        free(a.threads);
        free(a.processes);
        return rc;
    }
    if (!usage && a.n_processes)
        rc = cli_usage_error(&cmd_report, "--process selects among the processes of one "
                                          "recording");
    if (!usage && rc == 0 && report_load(argv + optind, (size_t)(argc - optind), &a.want, &loaded, &err) != 0)
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
    free(a.processes);
    return rc;
}

const struct command cmd_report = {
    .name = "report",
    .summary = "report the stored analysis of recordings (text, json, csv, html, aprof)",
    .usage =
        "usage: trms report REC [REC...] [--format text|json|csv|html|aprof] [-o FILE]\n"
        "                   [--top N] [--routine PATTERN]... [--thread TID]...\n"
        "                   [--aggregate-threads] [--contexts] [--metric rms|trms]\n"
        "                   [--sort cum|self] [--process PID|NAME]...\n"
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
        "  --process PID|NAME  of a process tree: only this process (its pid, its\n"
        "                      program's name, or #N, its number in the tree), repeatable\n"
        "  --analyses LIST     the result of these analyses (rms, trms, reuse; comma-\n"
        "                      separated), the latest such one without --cell-size\n"
        "  -o, --output F      write to F instead of stdout (aprof: a directory)\n\n"
        "A recording of a process tree (`trms record` follows forks and execs) is\n"
        "reported per process: text first ranks the processes by cost, each with its\n"
        "top routines, and names those left out, then gives each process's report;\n"
        "json holds one report per process with its pid and command; csv rows\n"
        "begin with the pid and command; html is one page with the processes\n"
        "ranked, a process selector and each process's report in a section of its\n"
        "own; aprof shows one process (the costliest, or --process).\n",
    .run = run,
};
