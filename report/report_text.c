/* The text report: what a person reads first. Routines ranked by cost, with
 * how many input sizes each was seen with, how its cost grows with them,
 * and how much of its input came from other threads or the kernel; then
 * how the program reuses memory. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/oom.h"
#include "common/plural.h"
#include "report/report.h"
#include "report/report_fold.h"
#include "report/report_model.h"

static void thread_cell(const struct report_row *row, char *buf, size_t len)
{
    if (row->all_threads)
        snprintf(buf, len, "all");
    else
        snprintf(buf, len, "%" PRIu32, row->tid);
}

/* "2.01±0.03" (the range's wider side), or how many sizes there were. */
static void exponent_cell(const struct growth_fit *fit, char *buf, size_t len)
{
    double side = fmax(fit->exponent - fit->exponent_low, fit->exponent_high - fit->exponent);
    if (!fit->verdict)
        snprintf(buf, len, "(%zu size%s)", fit->sizes, fit->sizes == 1 ? "" : "s");
    else
        snprintf(buf, len, "%.2f±%.2f", fit->exponent, side);
}

/* Characters TEXT shows on a terminal: UTF-8's continuation bytes take no
 * column of their own ("±" is two bytes, one column). */
static size_t display_width(const char *text)
{
    size_t width = 0;
    for (const unsigned char *p = (const unsigned char *)text; *p; p++)
        width += (*p & 0xc0) != 0x80;
    return width;
}

/* TEXT, then spaces up to WIDTH columns: printf pads to bytes. */
static void put_left(FILE *out, const char *text, size_t width)
{
    fputs(text, out);
    for (size_t w = display_width(text); w < width; w++)
        fputc(' ', out);
}

/* Up to a line's worth of the wrappers' names, each once (wrapper chains
 * repeat in every thread). */
static void wrapper_names(FILE *out, const struct report_model *m)
{
    size_t used = 0;
    for (size_t i = 0; i < m->n_rows; i++) {
        const struct report_row *r = &m->rows[i];
        if (!r->wrapper || r->passes_to >= 0)
            continue;
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++)
            seen = m->rows[j].wrapper && m->rows[j].passes_to < 0 &&
                   strcmp(m->rows[j].name, r->name) == 0;
        if (seen)
            continue;
        if (used > 120) {
            fputs(", ...", out);
            return;
        }
        char name[64];
        report_row_label_fit(r, 40, name, sizeof name);
        fprintf(out, "%s %s", used ? "," : "", name);
        used += strlen(name) + 2;
    }
}

/* Up to a line's worth of the folded chains, "a > b > the frame they end
 * in", in the order of the frames they end in. */
static void chain_names(FILE *out, const struct report_model *m)
{
    size_t used = 0;
    for (size_t t = 0; t < m->n_rows; t++) {
        int ends_here = 0;
        for (size_t i = 0; i < m->n_rows && !ends_here; i++)
            ends_here = m->rows[i].passes_to == (long)t;
        if (!ends_here)
            continue;
        if (used > 120) {
            fputs("; ...", out);
            return;
        }
        char name[64];
        fputs(used ? ";" : "", out);
        for (size_t i = 0; i < m->n_rows; i++)
            if (m->rows[i].passes_to == (long)t) {
                report_row_label_fit(&m->rows[i], 40, name, sizeof name);
                fprintf(out, " %s >", name);
                used += strlen(name) + 3;
            }
        report_row_label_fit(&m->rows[t], 40, name, sizeof name);
        fprintf(out, " %s", name);
        used += strlen(name) + 2;
    }
}

/* The rows folded out of the top: frames that pass their cost to one
 * callee, and wrappers. */
static void folded_lines(FILE *out, const struct report_model *m)
{
    size_t chains = 0, wrappers = 0;
    for (size_t i = 0; i < m->n_rows; i++) {
        chains += m->rows[i].passes_to >= 0;
        wrappers += m->rows[i].wrapper && m->rows[i].passes_to < 0;
    }
    if (chains) {
        fprintf(out, "  folded: %zu frame%s passing %s cost to one callee (under %.0f%% in "
                     "their own code):",
                chains, chains == 1 ? "" : "s", chains == 1 ? "its" : "their",
                100 * REPORT_PASS_SELF_SHARE);
        chain_names(out, m);
        fputs(wrappers ? "\n" : "; --top 0 lists them\n", out);
    }
    if (wrappers) {
        fprintf(out, "  folded: %zu wrapper%s (called once, under %.0f%% of the cost in their "
                     "own code):",
                wrappers, wrappers == 1 ? "" : "s", 100 * REPORT_WRAPPER_SELF_SHARE);
        wrapper_names(out, m);
        fputs("; --top 0 lists them\n", out);
    }
}

static void routines_table(FILE *out, const struct report_model *m, const struct report_options *o)
{
    size_t *index = xcalloc(m->n_rows ? m->n_rows : 1, sizeof *index), folded;
    size_t shown = report_top_rows(m, o->top, index, &folded);
    size_t width = 7;
    char buf[REPORT_LABEL_MAX];
    for (size_t k = 0; k < shown; k++) {
        size_t len = strlen(report_row_label(&m->rows[index[k]], buf, sizeof buf));
        if (len > width)
            width = len < 48 ? len : 48;
    }
    /* The growth and exponent columns as wide as their widest cell ("n or n
     * log n?", "~n^-0.26", "(35 sizes)"), so that no row shifts. */
    size_t growth_width = strlen("growth"), exponent_width = strlen("exponent");
    for (size_t k = 0; k < shown; k++) {
        const struct growth_fit *fit = &m->rows[index[k]].fit[o->metric][COST_WORST];
        char exponent[32], verdict[32];
        exponent_cell(fit, exponent, sizeof exponent);
        growth_width = fmax(growth_width,
                            display_width(growth_verdict_text(fit, verdict, sizeof verdict)));
        exponent_width = fmax(exponent_width, display_width(exponent));
    }
    const char *metric = o->metric == METRIC_TRMS ? "TRMS" : "RMS";
    fprintf(out, "%s by %s (instructions%s):\n", m->contexts ? "calling contexts" : "routines",
            m->by_self ? "self cost" : "cost", m->by_self ? ", in their own code" :
                                                         ", descendants included");
    fprintf(out, "  %-*s %7s %8s %12s %12s %5s %5s ", (int)width,
            m->contexts ? "context" : "routine", "thread", "calls", "cost", "self", "#rms",
            "#trms");
    put_left(out, "growth", growth_width + 1);
    put_left(out, "exponent", exponent_width + 1);
    fprintf(out, "%6s %6s\n", "thr-in", "ext-in");
    for (size_t k = 0; k < shown; k++) {
        const struct report_row *r = &m->rows[index[k]];
        const struct growth_fit *fit = &r->fit[o->metric][COST_WORST];
        char thread[16], exponent[32], verdict[32];
        thread_cell(r, thread, sizeof thread);
        exponent_cell(fit, exponent, sizeof exponent);
        const char *label = report_row_label_fit(r, width, buf, sizeof buf);
        fprintf(out, "  %-*s %7s %8" PRIu64 " %12" PRIu64 " %12" PRIu64 " %5zu %5zu ",
                (int)width, label, thread, r->calls, r->cost, r->self_cost,
                r->n_points[METRIC_RMS], r->n_points[METRIC_TRMS]);
        put_left(out, growth_verdict_text(fit, verdict, sizeof verdict), growth_width + 1);
        put_left(out, exponent, exponent_width + 1);
        fprintf(out, "%5.1f%% %5.1f%%\n", report_row_share(r, 0), report_row_share(r, 1));
    }
    if (folded)
        folded_lines(out, m);
    if (shown + folded < m->n_rows)
        fprintf(out, "  ... %zu more (--top 0 shows all)\n", m->n_rows - shown - folded);
    if (report_model_has_process_input(m)) {
        /* The third share: kernel input another recorded process produced. */
        fprintf(out, "  input from other processes (of ext-in: cells whose bytes another "
                     "recorded process wrote into a pipe, FIFO or socket):\n");
        for (size_t k = 0; k < shown; k++) {
            const struct report_row *r = &m->rows[index[k]];
            if (!r->induced_process)
                continue;
            fprintf(out, "    %-*s %" PRIu64 " of %" PRIu64 " from process %d (%s), %" PRIu64
                         " external\n",
                    (int)width, report_row_label_fit(r, width, buf, sizeof buf),
                    r->induced_process, r->induced_external, r->from_pid,
                    r->from_command ? r->from_command : "?",
                    r->induced_external - r->induced_process);
        }
    }
    free(index);
    fprintf(out,
            "  #rms/#trms: distinct input sizes seen. growth: how worst-case cost grows with\n"
            "  %s at the large end of the sizes, fitted as a + b f(n): a model among 1, log n,\n"
            "  n, n log n, n^2, n^3 (two neighbours, 'n or n log n', where both fit), or ~n^k\n"
            "  between them; '?': a guess (a poor fit, models the data cannot tell apart, or\n"
            "  a verdict resting on few calls); 'varies': cost depends on more than input\n"
            "  size (--contexts may tell its callers apart); '-': fewer than %d sizes in %d\n"
            "  classes spanning %.0fx. exponent: k of the growing term, and the range of k\n"
            "  that fits as well (--routine NAME says more).\n"
            "  thr-in/ext-in: share of the TRMS input that another thread / the kernel wrote\n"
            "  since the reading thread last touched the cell\n",
            metric, GROWTH_MIN_SIZES, GROWTH_MIN_CLASSES, GROWTH_MIN_SPAN);
}

/* Share of accesses a fully associative LRU cache of LINES lines would hit. */
static double hit_ratio(const struct reuse_histogram *h, uint64_t lines)
{
    uint64_t hits = 0;
    for (size_t i = 0; i < h->n_bins && h->bins[i].distance < lines; i++)
        hits += h->bins[i].count;
    return h->accesses ? 100.0 * (double)hits / (double)h->accesses : 0.0;
}

static void reuse_line(FILE *out, const char *label, const struct reuse_histogram *h,
                       uint64_t line_size)
{
    fprintf(out, "  %-12s %10" PRIu64 " accesses, %8" PRIu64 " cold;", label, h->accesses,
            h->cold);
    static const struct {
        const char *name;
        uint64_t bytes;
    } caches[] = {{"32K", 32u << 10}, {"1M", 1u << 20}, {"32M", 32u << 20}};
    fprintf(out, " LRU hits");
    for (size_t c = 0; c < sizeof caches / sizeof *caches; c++) {
        uint64_t lines = caches[c].bytes / line_size;
        fprintf(out, " %s %.1f%%", caches[c].name, hit_ratio(h, lines ? lines : 1));
    }
    fputc('\n', out);
    /* Log2 buckets: 0, 1, 2-3, 4-7, ... */
    fprintf(out, "  %-12s", "");
    size_t i = 0;
    for (unsigned k = 0; i < h->n_bins; k++) {
        uint64_t lo = k ? 1ull << (k - 1) : 0, hi = k ? (1ull << k) - 1 : 0;
        uint64_t count = 0;
        while (i < h->n_bins && h->bins[i].distance <= hi)
            count += h->bins[i++].count;
        if (!count)
            continue;
        if (lo == hi)
            fprintf(out, " [%" PRIu64 "]:%" PRIu64, lo, count);
        else
            fprintf(out, " [%" PRIu64 "-%" PRIu64 "]:%" PRIu64, lo, hi, count);
    }
    fputc('\n', out);
}

static void points_table(FILE *out, const char *metric, const struct profile_point *pts, size_t n)
{
    fprintf(out, "    %-5s %10s %8s %12s %12s %14s\n", metric, "n", "calls", "min cost", "max cost",
            "mean cost");
    for (size_t i = 0; i < n; i++)
        fprintf(out, "          %10" PRIu64 " %8" PRIu64 " %12" PRIu64 " %12" PRIu64 " %14.1f\n",
                pts[i].n, pts[i].calls, pts[i].min, pts[i].max,
                (double)pts[i].sum / (double)pts[i].calls);
}

static void fit_lines(FILE *out, const char *metric, const char *kind,
                      const struct growth_fit *fit)
{
    char text[1024];
    fprintf(out, "    %s cost by %s: %s\n", kind, metric,
            growth_fit_describe(fit, text, sizeof text));
}

/* A row's performance tuples and fits: the raw material of a cost plot. */
static void row_details(FILE *out, const struct report_row *r)
{
    char buf[REPORT_LABEL_MAX];
    report_row_label(r, buf, sizeof buf);
    if (r->all_threads) {
        fprintf(out, "\n%s in all threads (", buf);
        for (size_t i = 0; i < r->n_tids; i++)
            fprintf(out, "%s%" PRIu32, i ? ", " : "", r->tids[i]);
        fprintf(out, ")");
    } else {
        fprintf(out, "\n%s in thread %" PRIu32, buf, r->tid);
    }
    fprintf(out, ": %" PRIu64 " calls; cost by input size (cells)\n", r->calls);
    points_table(out, "RMS", r->points[METRIC_RMS], r->n_points[METRIC_RMS]);
    points_table(out, "TRMS", r->points[METRIC_TRMS], r->n_points[METRIC_TRMS]);
    fit_lines(out, "RMS", "worst-case", &r->fit[METRIC_RMS][COST_WORST]);
    fit_lines(out, "RMS", "average", &r->fit[METRIC_RMS][COST_AVERAGE]);
    fit_lines(out, "TRMS", "worst-case", &r->fit[METRIC_TRMS][COST_WORST]);
    fit_lines(out, "TRMS", "average", &r->fit[METRIC_TRMS][COST_AVERAGE]);
}

int report_text(FILE *out, const struct report_model *m, const struct report_options *o)
{
    uint64_t accesses = 0;
    for (int t = EVENT_READ; t <= EVENT_KWRITE; t++)
        accesses += m->events[t];
    fprintf(out, "recording%s", m->n_recordings > 1 ? "s" : "");
    for (size_t i = 0; i < m->n_recordings; i++)
        fprintf(out, "%s%s", i ? ", " : " ", m->recordings[i]);
    fprintf(out, ": cell size %" PRIu64 " B, line size %" PRIu64 " B\n", m->cell_size,
            m->line_size);
    for (size_t i = 0; i < m->n_recordings; i++)
        if (m->windows[i])
            fprintf(out, "window of %s: kept %s\n", m->recordings[i], m->windows[i]);
    if (m->threads_by_order)
        fprintf(out, "threads numbered by order of appearance (1 = the first), not by id\n");
    char not_computed[REPORT_NOTE_MAX], no_trace[REPORT_NOTE_MAX];
    report_model_notes(m, not_computed, no_trace);
    if (not_computed[0])
        fprintf(out, "%s\n", not_computed);
    if (no_trace[0])
        fprintf(out, "%s\n", no_trace);
    /* The growth column's metric, when the result has only the other. */
    struct report_options with_metric = *o;
    if (!(m->analyses & report_metric_parts[o->metric]))
        with_metric.metric = o->metric == METRIC_RMS ? METRIC_TRMS : METRIC_RMS;
    o = &with_metric;
    fprintf(out, "%zu thread%s, %" PRIu64 " activations, %" PRIu64 " memory accesses (%" PRIu64
                 " reads, %" PRIu64 " writes, %" PRIu64 " kernel reads, %" PRIu64
                 " kernel writes)\n\n",
            m->n_threads, plural(m->n_threads), m->activations, accesses, m->events[EVENT_READ],
            m->events[EVENT_WRITE],
            m->events[EVENT_KREAD], m->events[EVENT_KWRITE]);
    if (m->analyses & (ANALYSIS_RMS | ANALYSIS_TRMS))
        routines_table(out, m, o);
    if (!(m->analyses & ANALYSIS_REUSE))
        goto details;
    fprintf(out, "\nreuse distance (exact LRU stack distance, %" PRIu64 "-byte lines; loads and "
                 "stores, not the kernel's):\n",
            m->line_size);
    reuse_line(out, "all threads", &m->reuse_global, m->line_size);
    for (size_t i = 0; i < m->n_threads; i++) {
        char label[32];
        snprintf(label, sizeof label, "thread %" PRIu32, m->reuse_threads[i].tid);
        reuse_line(out, label, &m->reuse_threads[i].histogram, m->line_size);
    }
details:
    if (o->details && (m->analyses & (ANALYSIS_RMS | ANALYSIS_TRMS))) {
        size_t *index = xcalloc(m->n_rows ? m->n_rows : 1, sizeof *index), folded;
        size_t shown = report_top_rows(m, o->top, index, &folded);
        for (size_t k = 0; k < shown; k++)
            row_details(out, &m->rows[index[k]]);
        free(index);
    }
    return 0;
}
