/* The HTML report: one self-contained page (no network: styles, script and
 * SVG plots inline) that a person opens in a browser. A table of every
 * routine that sorts (click a heading) and filters (type in the box); the
 * thread-induced vs external input of each routine with induced input,
 * sorted as the TRMS paper's Figure 9; reuse distance histograms in log2
 * buckets, global and per thread; and for the costliest routines (--top),
 * cost against RMS and TRMS (worst case and average, with the fitted
 * curves), the workload (calls per input size) and the input's origin.
 *
 * The page's state can be set from its address, for links and tests:
 * page.html#sort=COLUMN&desc=1&filter=TEXT. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/activation.h"
#include "common/oom.h"
#include "report/report.h"
#include "report/report_model.h"
#include "report/svg_plot.h"

/* Routine names on the page: shortened readably past this many
 * characters (in the table, so that it fits a 1100-pixel window); the full
 * name is in the hover text and the filter. */
#define HTML_LABEL_WIDTH 80
#define HTML_TABLE_LABEL_WIDTH 36

static const char style[] =
    "body{font:14px/1.4 system-ui,sans-serif;margin:16px 24px;color:#222}"
    "h1{font-size:20px}h2{font-size:17px;margin-top:28px}h3{font-size:15px;margin:20px 0 4px}"
    "table{border-collapse:collapse;font-size:12px}"
    "th,td{padding:2px 5px;border-bottom:1px solid #ddd;text-align:right;white-space:nowrap}"
    "th{cursor:pointer;background:#f3f3f3;position:sticky;top:0}"
    "th[data-sorted=asc]:after{content:' \\25B2'}th[data-sorted=desc]:after{content:' \\25BC'}"
    "td.name,th.name{text-align:left}"
    ".note{color:#666;font-size:12px}.fit{font-size:12px;color:#444;margin:2px 0}"
    "#filter{font-size:14px;padding:3px 6px;width:24em;margin:8px 0}"
    ".table-wrap{max-height:32em;max-width:100%;overflow:auto;border:1px solid #ddd;"
    "width:max-content}"
    "tr.wrapper td,tr.pass td{color:#777}tr.wrapper,tr.pass{display:none}"
    "body.show-folded tr.wrapper,body.show-folded tr.pass{display:table-row}"
    ".plots{display:flex;flex-wrap:wrap;gap:8px}"
    "svg.plot{background:#fff;border:1px solid #eee}"
    "svg .title{font-size:12px;font-weight:600}svg .label,svg .tick{font-size:10px;fill:#555}"
    "svg .grid{stroke:#eee}svg .frame{fill:none;stroke:#999}"
    ".pt.worst{fill:none;stroke:#d62728;stroke-width:1.3}.key.worst{fill:#d62728}"
    ".pt.average,.key.average{fill:#1f77b4}"
    ".pt.calls,.key.calls{fill:#2ca02c}"
    ".curve{fill:none;stroke-width:1.5}.curve.fit-worst{stroke:#d62728;stroke-dasharray:4 2}"
    ".curve.fit-average{stroke:#1f77b4;stroke-dasharray:4 2}"
    ".key.fit-worst{fill:#d62728}.key.fit-average{fill:#1f77b4}"
    ".bar.thread,.key.thread{fill:#ff7f0e}.bar.external,.key.external{fill:#9467bd}"
    ".bar.own,.key.own{fill:#c7c7c7}.bar.accesses,.key.accesses{fill:#17becf}";

static const char script[] =
    "(function(){\n"
    "var errors=[];\n"
    "window.addEventListener('error',function(e){errors.push(String(e.message));"
    "document.body.setAttribute('data-errors',errors.join('; '));});\n"
    "var table=document.getElementById('routines'),body=table.tBodies[0],"
    "heads=table.tHead.rows[0].cells;\n"
    "function sortBy(col,desc){var num=heads[col].getAttribute('data-type')==='num';"
    "var rows=Array.prototype.slice.call(body.rows);"
    "rows.sort(function(a,b){var x=a.cells[col].getAttribute('data-v'),"
    "y=b.cells[col].getAttribute('data-v');"
    "var c=num?parseFloat(x)-parseFloat(y):x.localeCompare(y);return desc?-c:c;});"
    "rows.forEach(function(r){body.appendChild(r);});"
    "for(var i=0;i<heads.length;i++)heads[i].removeAttribute('data-sorted');"
    "heads[col].setAttribute('data-sorted',desc?'desc':'asc');}\n"
    "Array.prototype.forEach.call(heads,function(h,i){h.addEventListener('click',function(){"
    "sortBy(i,h.getAttribute('data-sorted')!=='desc');});});\n"
    "var filter=document.getElementById('filter');\n"
    "var folded=document.getElementById('show-folded');\n"
    "function applyFilter(text){text=text.toLowerCase();var shown=0;"
    "var all=folded&&folded.checked;"
    "document.body.classList.toggle('show-folded',!!all);"
    "Array.prototype.forEach.call(body.rows,function(r){"
    "var hit=r.getAttribute('data-name').toLowerCase().indexOf(text)>=0;"
    "r.style.display=hit?'':'none';"
    "if(hit&&(all||!/\\b(wrapper|pass)\\b/.test(r.className)))shown++;});"
    "document.getElementById('shown').textContent=String(shown);}\n"
    "filter.addEventListener('input',function(){applyFilter(filter.value);});\n"
    "if(folded)folded.addEventListener('change',function(){applyFilter(filter.value);});\n"
    "location.hash.slice(1).split('&').forEach(function(kv){"
    "var i=kv.indexOf('='),k=kv.slice(0,i),v=decodeURIComponent(kv.slice(i+1));"
    "if(k==='folded'&&folded){folded.checked=v==='1';applyFilter(filter.value);}"
    "if(k==='filter'){filter.value=v;applyFilter(v);}"
    "if(k==='sort')Array.prototype.forEach.call(heads,function(h,c){"
    "if(h.getAttribute('data-key')===v)sortBy(c,location.hash.indexOf('desc=1')>=0);});});\n"
    "document.body.setAttribute('data-ready','1');\n"
    "})();\n";

/* ---- the routine table ---- */

struct column {
    const char *key, *title;
    int numeric;
};

static const struct column columns[] = {
    {"routine", "routine", 0}, {"thread", "thread", 1},     {"calls", "calls", 1},
    {"cost", "cost", 1},       {"self", "self", 1},         {"rms-sizes", "#rms", 1},
    {"trms-sizes", "#trms", 1}, {"growth-rms", "growth RMS", 0},
    {"k-rms", "k", 1},         {"growth-trms", "growth TRMS", 0},
    {"k-trms", "k", 1},        {"thr-in", "thr-in%", 1},    {"ext-in", "ext-in%", 1},
};

static void cell_u64(FILE *out, uint64_t v)
{
    fprintf(out, "<td data-v=\"%" PRIu64 "\">%" PRIu64 "</td>", v, v);
}

static void cell_growth(FILE *out, const struct growth_fit *fit)
{
    if (!fit->verdict) {
        fprintf(out, "<td data-v=\"\" title=\"");
        html_text(out, fit->why);
        fprintf(out, "\">%s</td><td data-v=\"-1\">-</td>", fit->varies ? "varies" : "-");
        return;
    }
    char verdict[32];
    fprintf(out, "<td data-v=\"%.6g %s\">%s</td>", fit->exponent,
            growth_verdict_text(fit, verdict, sizeof verdict), verdict);
    fprintf(out, "<td data-v=\"%.6g\" title=\"exponents that fit as well: %.3f to %.3f\">%.2f</td>",
            fit->exponent, fit->exponent_low, fit->exponent_high, fit->exponent);
}

static void routine_table(FILE *out, const struct report_model *m, const unsigned char *plotted)
{
    size_t folded = 0;
    for (size_t i = 0; i < m->n_rows; i++)
        folded += report_row_folded(&m->rows[i]);
    fprintf(out, "<input id=\"filter\" type=\"search\" placeholder=\"filter routines\"> "
                 "<span class=\"note\"><span id=\"shown\">%zu</span> of %zu shown; click a "
                 "heading to sort</span>",
            m->n_rows - folded, m->n_rows);
    if (folded)
        fprintf(out, " <label class=\"note\"><input type=\"checkbox\" id=\"show-folded\"> "
                     "show the %zu folded rows (wrappers, and frames that pass their cost to one "
                     "callee)</label>",
                folded);
    fputs("\n<div class=\"table-wrap\"><table id=\"routines\"><thead><tr>", out);
    for (size_t c = 0; c < sizeof columns / sizeof *columns; c++)
        fprintf(out, "<th data-key=\"%s\" data-type=\"%s\"%s%s>%s</th>", columns[c].key,
                columns[c].numeric ? "num" : "text", c == 0 ? " class=\"name\"" : "",
                c == (m->by_self ? 4u : 3u) ? " data-sorted=\"desc\"" : "", columns[c].title);
    fputs("</tr></thead><tbody>\n", out);
    for (size_t i = 0; i < m->n_rows; i++) {
        const struct report_row *r = &m->rows[i];
        char label[REPORT_LABEL_MAX], shown[REPORT_LABEL_MAX];
        report_row_label(r, label, sizeof label);
        report_row_label_fit(r, HTML_TABLE_LABEL_WIDTH, shown, sizeof shown);
        fputs(r->wrapper           ? "<tr class=\"wrapper\" data-name=\""
              : r->passes_to >= 0 ? "<tr class=\"pass\" data-name=\""
                                  : "<tr data-name=\"",
              out);
        html_text(out, label);
        fputs("\"><td class=\"name\" data-v=\"", out);
        html_text(out, label);
        fputs("\" title=\"", out);
        html_text(out, label);
        if (r->wrapper)
            fputs(" (a wrapper: called once, its cost mostly its callees&#39;)", out);
        if (r->passes_to >= 0) {
            char into[REPORT_LABEL_MAX];
            fputs(" (passes its cost to one callee; the chain ends in ", out);
            html_text(out, report_row_label(&m->rows[r->passes_to], into, sizeof into));
            fputs(")", out);
        }
        fputs("\">", out);
        if (plotted[i])
            fprintf(out, "<a href=\"#r-%zu\">", i);
        html_text(out, shown);
        fputs(plotted[i] ? "</a></td>" : "</td>", out);
        if (r->all_threads)
            fputs("<td data-v=\"-1\">all</td>", out);
        else
            cell_u64(out, r->tid);
        cell_u64(out, r->calls);
        cell_u64(out, r->cost);
        cell_u64(out, r->self_cost);
        cell_u64(out, r->n_points[METRIC_RMS]);
        cell_u64(out, r->n_points[METRIC_TRMS]);
        cell_growth(out, &r->fit[METRIC_RMS][COST_WORST]);
        cell_growth(out, &r->fit[METRIC_TRMS][COST_WORST]);
        fprintf(out, "<td data-v=\"%.4f\">%.1f</td><td data-v=\"%.4f\">%.1f</td></tr>\n",
                report_row_share(r, 0), report_row_share(r, 0), report_row_share(r, 1),
                report_row_share(r, 1));
    }
    fputs("</tbody></table></div>\n", out);
}

/* ---- Figure 9: thread-induced vs external input per routine ---- */

/* Routines the chart shows one bar each; the others share one. */
#define INDUCED_BARS 30
#define INDUCED_LABEL_WIDTH 340

struct induced_share {
    const struct report_row *row;
    uint64_t induced;   /* thread-induced and external first accesses */
    double thread;      /* percent of them thread-induced */
};

static int by_induced(const void *x, const void *y)
{
    const struct induced_share *a = x, *b = y;
    if (a->induced != b->induced)
        return a->induced < b->induced ? 1 : -1;
    return strcmp(a->row->name, b->row->name);
}

static int by_thread_share(const void *x, const void *y)
{
    const struct induced_share *a = x, *b = y;
    if (a->thread != b->thread)
        return a->thread < b->thread ? 1 : -1;
    return by_induced(x, y);
}

/* "12.3k reads" */
static void count_note(char *buf, size_t len, uint64_t count)
{
    if (count < 10000)
        snprintf(buf, len, "%" PRIu64 " reads", count);
    else if (count < 10000000)
        snprintf(buf, len, "%.1fk reads", (double)count / 1e3);
    else
        snprintf(buf, len, "%.1fM reads", (double)count / 1e6);
}

static void induced_chart(FILE *out, const struct report_model *m)
{
    struct induced_share *shares = xcalloc(m->n_rows + 1, sizeof *shares);
    size_t n = 0;
    uint64_t all_thread = 0, all_external = 0;
    for (size_t i = 0; i < m->n_rows; i++) {
        const struct report_row *r = &m->rows[i];
        uint64_t induced = r->induced_thread + r->induced_external;
        /* The roots' input is the whole program's (induced input counts
         * over an activation's subtree). */
        if (strcmp(r->name, ROUTINE_ROOT_LABEL) == 0 && (!r->context || r->context_depth == 0)) {
            all_thread += r->induced_thread;
            all_external += r->induced_external;
        }
        /* A wrapper's input is its callees': they have bars of their own. */
        if (induced && !r->wrapper)
            shares[n++] = (struct induced_share){r, induced, 100.0 * (double)r->induced_thread /
                                                                 (double)induced};
    }
    fputs("<h2>Thread-induced vs external input</h2>\n", out);
    size_t whole = all_thread + all_external > 0;
    if (!whole && n == 0) {
        fputs("<p>No routine read input induced by other threads or the kernel.</p>\n", out);
        free(shares);
        return;
    }
    /* Without input from other threads every bar would be all external:
     * no chart, the count. */
    uint64_t any_thread = all_thread;
    for (size_t i = 0; i < n; i++)
        any_thread += shares[i].row->induced_thread;
    if (any_thread == 0) {
        fprintf(out, "<p>No routine read input another thread wrote%s; the kernel wrote what "
                     "they read as induced input (%" PRIu64 " first reads in the whole program): "
                     "each routine's share is its ext-in column.</p>\n",
                m->n_threads <= 1 ? " (one thread)" : "", all_external);
        free(shares);
        return;
    }
    /* The routines with the most induced input, sorted by their
     * thread-induced share as Figure 9 of the TRMS paper; the whole
     * program first, the rest together last. */
    qsort(shares, n, sizeof *shares, by_induced);
    size_t shown = n < INDUCED_BARS ? n : INDUCED_BARS;
    qsort(shares, shown, sizeof *shares, by_thread_share);
    uint64_t rest_thread = 0, rest_external = 0;
    for (size_t i = shown; i < n; i++) {
        rest_thread += shares[i].row->induced_thread;
        rest_external += shares[i].row->induced_external;
    }
    fprintf(out, "<p class=\"note\">Induced first accesses: reads of values another thread or "
                 "the kernel wrote since the reading thread last touched the cell, split between "
                 "the two. %s%zu routines with the most induced input "
                 "sorted by their thread-induced share (as Figure 9 of the TRMS paper)%s. "
                 "A routine's count includes its callees'; wrappers are left out.</p>\n",
            whole ? "The whole program, then the " : "The ", shown,
            n > shown ? ", then the others together" : "");
    /* Bars: the whole program (when its roots are in the report), the
     * routines shown, the rest. */
    size_t bars_n = whole + shown + (n > shown);
    struct svg_bar *bars = xcalloc(bars_n, sizeof *bars);
    double *parts = xcalloc(2 * bars_n, sizeof *parts);
    char **labels = xcalloc(bars_n, sizeof *labels), **notes = xcalloc(bars_n, sizeof *notes);
    for (size_t i = 0; i < bars_n; i++) {
        char label[REPORT_LABEL_MAX], note[64];
        uint64_t thread, external;
        size_t b = i + !whole; /* 0: the whole program, then the routines */
        if (b == 0) {
            snprintf(label, sizeof label, "whole program");
            thread = all_thread;
            external = all_external;
        } else if (b <= shown) {
            const struct report_row *r = shares[b - 1].row;
            report_row_label_fit(r, 48, label, sizeof label);
            if (!r->all_threads)
                snprintf(label + strlen(label), sizeof label - strlen(label),
                         " [thread %" PRIu32 "]", r->tid);
            thread = r->induced_thread;
            external = r->induced_external;
        } else {
            snprintf(label, sizeof label, "%zu other routines", n - shown);
            thread = rest_thread;
            external = rest_external;
        }
        uint64_t total = thread + external;
        parts[2 * i] = total ? 100.0 * (double)thread / (double)total : 0;
        parts[2 * i + 1] = total ? 100.0 - parts[2 * i] : 0;
        count_note(note, sizeof note, total);
        labels[i] = xstrdup(label);
        notes[i] = xstrdup(note);
        bars[i] = (struct svg_bar){.label = labels[i], .parts = &parts[2 * i]};
    }
    static const char *const names[] = {"thread", "external"};
    struct svg_frame f = {.cls = "induced", .title = "induced first accesses: thread vs external",
                          .x_label = "% of the routine's induced first accesses", .width = 1000};
    svg_hbar_chart(out, &f, bars, (const char *const *)notes, bars_n, names, 2, 100,
                   INDUCED_LABEL_WIDTH);
    for (size_t b = 0; b < bars_n; b++) {
        free(labels[b]);
        free(notes[b]);
    }
    free(labels);
    free(notes);
    free(parts);
    free(bars);
    free(shares);
}

/* ---- reuse distance ---- */

static void reuse_chart(FILE *out, const char *cls, const char *title,
                        const struct reuse_histogram *h)
{
    /* Log2 buckets: 0, 1, 2-3, 4-7, ... */
    size_t n = 0;
    if (h->n_bins) {
        uint64_t top = h->bins[h->n_bins - 1].distance;
        n = 1;
        while (n < 65 && (n == 1 ? 0 : (1ull << (n - 1)) - 1) < top)
            n++;
    }
    struct svg_bar *bars = xcalloc(n + 1, sizeof *bars);
    double *counts = xcalloc(n + 1, sizeof *counts);
    char (*labels)[16] = xcalloc(n + 1, sizeof *labels);
    char (*tips)[64] = xcalloc(n + 1, sizeof *tips);
    size_t i = 0;
    for (size_t k = 0; k < n; k++) {
        uint64_t lo = k ? 1ull << (k - 1) : 0, hi = k ? (1ull << k) - 1 : 0;
        while (i < h->n_bins && h->bins[i].distance <= hi)
            counts[k] += (double)h->bins[i++].count;
        /* Under the bar its lower bound, short (1K is 1024 lines); the
         * range in the hover text. */
        static const char units[] = " KMGTPE";
        unsigned shift = 0;
        while (shift < 60 && lo >= (1ull << (shift + 10)))
            shift += 10;
        snprintf(labels[k], sizeof labels[k], "%" PRIu64 "%.*s", lo >> shift, shift ? 1 : 0,
                 &units[shift / 10]);
        if (lo == hi)
            snprintf(tips[k], sizeof tips[k], "distance %" PRIu64, lo);
        else
            snprintf(tips[k], sizeof tips[k], "distance %" PRIu64 "-%" PRIu64, lo, hi);
        bars[k] = (struct svg_bar){.label = labels[k], .parts = &counts[k], .tip = tips[k]};
    }
    static const char *const names[] = {"accesses"};
    char full[160];
    snprintf(full, sizeof full, "%s: %" PRIu64 " accesses, %" PRIu64 " cold", title, h->accesses,
             h->cold);
    struct svg_frame f = {.cls = cls, .title = full,
                          .x_label = "reuse distance (lines; log2 buckets from the value shown)",
                          .y_label = "accesses (log scale)", .width = 560, .height = 240,
                          .log_y = 1};
    svg_bar_chart(out, &f, bars, n, names, 1, 0);
    free(tips);
    free(labels);
    free(counts);
    free(bars);
}

static int same_histogram(const struct reuse_histogram *a, const struct reuse_histogram *b)
{
    if (a->accesses != b->accesses || a->cold != b->cold || a->n_bins != b->n_bins)
        return 0;
    for (size_t i = 0; i < a->n_bins; i++)
        if (a->bins[i].distance != b->bins[i].distance || a->bins[i].count != b->bins[i].count)
            return 0;
    return 1;
}

/* Threads given a reuse chart of their own: the busiest. */
#define REUSE_THREAD_CHARTS 16

static void reuse_section(FILE *out, const struct report_model *m)
{
    /* The threads with the most accesses, in thread order. */
    unsigned char *charted = xcalloc(m->n_threads + 1, 1);
    size_t n_charted = m->n_threads < REUSE_THREAD_CHARTS ? m->n_threads : REUSE_THREAD_CHARTS;
    if (m->n_threads == 1 && same_histogram(&m->reuse_threads[0].histogram, &m->reuse_global))
        n_charted = 0; /* one thread: its chart would be the global one */
    for (size_t k = 0; k < n_charted; k++) {
        size_t best = m->n_threads;
        for (size_t i = 0; i < m->n_threads; i++)
            if (!charted[i] && (best == m->n_threads ||
                                m->reuse_threads[i].histogram.accesses >
                                    m->reuse_threads[best].histogram.accesses))
                best = i;
        charted[best] = 1;
    }
    fprintf(out, "<h2>Reuse distance</h2>\n<p class=\"note\">Exact LRU stack distance in %" PRIu64
                 "-byte lines, loads and stores (not the kernel's); first accesses are cold.",
            m->line_size);
    if (n_charted == 0)
        fputs(" One thread: its histogram is the program's.", out);
    else if (n_charted < m->n_threads)
        fprintf(out, " All threads, then the %zu of %zu threads with the most accesses (the "
                     "text and JSON reports have every thread's).",
                n_charted, m->n_threads);
    fputs("</p>\n<div class=\"plots\">", out);
    reuse_chart(out, "reuse global", "all threads", &m->reuse_global);
    for (size_t i = 0; i < m->n_threads; i++) {
        if (!charted[i])
            continue;
        char title[32];
        snprintf(title, sizeof title, "thread %" PRIu32, m->reuse_threads[i].tid);
        reuse_chart(out, "reuse thread", title, &m->reuse_threads[i].histogram);
    }
    fputs("</div>\n", out);
    free(charted);
}

/* ---- one routine ---- */

#define CURVE_SAMPLES 64

static void cost_plot(FILE *out, const struct report_row *r, int metric)
{
    size_t n = r->n_points[metric];
    const struct profile_point *pts = r->points[metric];
    double *x = xcalloc(n + 1, sizeof *x), *worst = xcalloc(n + 1, sizeof *worst),
           *average = xcalloc(n + 1, sizeof *average);
    for (size_t i = 0; i < n; i++) {
        x[i] = (double)pts[i].n;
        worst[i] = (double)pts[i].max;
        average[i] = (double)pts[i].sum / (double)pts[i].calls;
    }
    /* Average cost as dots, worst-case as rings drawn over them: both show
     * where they coincide. */
    struct svg_series series[4] = {{.name = "average", .x = x, .y = average, .n = n},
                                   {.name = "worst", .x = x, .y = worst, .n = n, .ring = 1}};
    size_t n_series = 2;
    double cy[2][CURVE_SAMPLES];
    const struct growth_fit *fits[2] = {&r->fit[metric][COST_WORST], &r->fit[metric][COST_AVERAGE]};
    static const char *const curve_names[2] = {"fit-worst", "fit-average"};
    /* The verdict's curve over the sizes it judged: the large end. */
    double cx[2][CURVE_SAMPLES];
    for (int k = 0; k < 2; k++) {
        if (!fits[k]->verdict || n == 0)
            continue;
        double lo = fits[k]->window_lo, hi = fits[k]->window_hi;
        for (int s = 0; s < CURVE_SAMPLES; s++) {
            cx[k][s] = lo + (hi - lo) * s / (CURVE_SAMPLES - 1);
            cy[k][s] = growth_fit_eval(fits[k], cx[k][s]);
        }
        series[n_series++] = (struct svg_series){.name = curve_names[k], .x = cx[k],
                                                 .y = cy[k], .n = CURVE_SAMPLES, .curve = 1};
    }
    const char *name = metric == METRIC_RMS ? "RMS" : "TRMS";
    char title[64], xl[64];
    snprintf(title, sizeof title, "cost by %s", name);
    snprintf(xl, sizeof xl, "input size: %s (cells)", name);
    struct svg_frame f = {.cls = metric == METRIC_RMS ? "cost rms" : "cost trms", .title = title,
                          .x_label = xl, .y_label = "cost (instructions)", .width = 370,
                          .height = 280};
    svg_xy_plot(out, &f, series, n_series);
    free(x);
    free(worst);
    free(average);
}

static void workload_plot(FILE *out, const struct report_row *r)
{
    size_t n = r->n_points[METRIC_RMS];
    double *x = xcalloc(n + 1, sizeof *x), *calls = xcalloc(n + 1, sizeof *calls);
    for (size_t i = 0; i < n; i++) {
        x[i] = (double)r->points[METRIC_RMS][i].n;
        calls[i] = (double)r->points[METRIC_RMS][i].calls;
    }
    struct svg_series s = {.name = "calls", .x = x, .y = calls, .n = n};
    struct svg_frame f = {.cls = "workload", .title = "workload: calls by RMS",
                          .x_label = "input size: RMS (cells)", .y_label = "calls", .width = 370,
                          .height = 280};
    svg_xy_plot(out, &f, &s, 1);
    free(x);
    free(calls);
}

static void input_plot(FILE *out, const struct report_row *r)
{
    double total = (double)r->input[METRIC_TRMS];
    double parts[3] = {0, 0, 0};
    if (total > 0) {
        parts[1] = 100.0 * (double)r->induced_thread / total;
        parts[2] = 100.0 * (double)r->induced_external / total;
        parts[0] = 100.0 - parts[1] - parts[2];
    }
    struct svg_bar bar = {.label = "", .parts = parts};
    static const char *const names[] = {"own", "thread", "external"};
    struct svg_frame f = {.cls = "input", .title = "input origin", .x_label = "% of TRMS input",
                          .y_label = "%", .width = 190, .height = 280};
    svg_bar_chart(out, &f, &bar, 1, names, 3, 100);
}

static void fit_note(FILE *out, const char *what, const struct growth_fit *fit)
{
    char text[1024];
    fprintf(out, "<p class=\"fit\">%s: ", what);
    html_text(out, growth_fit_describe(fit, text, sizeof text));
    fputs("</p>", out);
}

static int same_points(const struct profile_point *a, const struct profile_point *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (a[i].n != b[i].n || a[i].calls != b[i].calls || a[i].max != b[i].max ||
            a[i].sum != b[i].sum)
            return 0;
    return 1;
}

/* Whether the row's TRMS tuples are its RMS tuples (no input from other
 * threads or the kernel): one set of plots and verdicts says it all. */
static int trms_as_rms(const struct report_row *r)
{
    return r->n_points[METRIC_RMS] == r->n_points[METRIC_TRMS] &&
           same_points(r->points[METRIC_RMS], r->points[METRIC_TRMS], r->n_points[METRIC_RMS]);
}

/* The verdicts of a metric: one line when worst-case and average cost
 * say the same, else one each. */
static void verdict_notes(FILE *out, const struct report_row *r, int metric, int both_metrics)
{
    const struct growth_fit *worst = &r->fit[metric][COST_WORST];
    const struct growth_fit *average = &r->fit[metric][COST_AVERAGE];
    char a[32], b[32], what[96];
    const char *name = both_metrics ? "RMS and TRMS" : metric == METRIC_RMS ? "RMS" : "TRMS";
    if (strcmp(growth_verdict_text(worst, a, sizeof a),
               growth_verdict_text(average, b, sizeof b)) == 0) {
        snprintf(what, sizeof what, "cost by %s (worst-case and average alike)", name);
        fit_note(out, what, worst);
        return;
    }
    snprintf(what, sizeof what, "worst-case cost by %s", name);
    fit_note(out, what, worst);
    snprintf(what, sizeof what, "average cost by %s", name);
    fit_note(out, what, average);
}

static void routine_section(FILE *out, const struct report_row *r, size_t index)
{
    char label[REPORT_LABEL_MAX], shown[REPORT_LABEL_MAX];
    report_row_label(r, label, sizeof label);
    report_row_label_fit(r, HTML_LABEL_WIDTH, shown, sizeof shown);
    int as_rms = trms_as_rms(r);
    fprintf(out, "<section class=\"routine\" id=\"r-%zu\" data-rms-points=\"%zu\" "
                 "data-trms-points=\"%zu\" data-trms-as-rms=\"%d\"><h3 title=\"",
            index, r->n_points[METRIC_RMS], r->n_points[METRIC_TRMS], as_rms);
    html_text(out, label);
    fputs("\">", out);
    html_text(out, shown);
    if (r->all_threads)
        fputs(" &mdash; all threads", out);
    else
        fprintf(out, " &mdash; thread %" PRIu32, r->tid);
    fprintf(out, "</h3><p class=\"note\">%" PRIu64 " calls, cost %" PRIu64 " (self %" PRIu64
                 "), %" PRIu64 " thread-induced and %" PRIu64 " external input reads",
            r->calls, r->cost, r->self_cost, r->induced_thread, r->induced_external);
    if (r->induced_process) { /* the third share: of the external, another process's */
        fprintf(out, " (%" PRIu64 " of them from process %d, ", r->induced_process, r->from_pid);
        html_text(out, r->from_command ? r->from_command : "?");
        fputc(')', out);
    }
    fprintf(out, "%s</p>", as_rms ? "; its TRMS is its RMS at every call" : "");
    verdict_notes(out, r, METRIC_RMS, as_rms);
    if (!as_rms)
        verdict_notes(out, r, METRIC_TRMS, 0);
    fputs("<div class=\"plots\">", out);
    cost_plot(out, r, METRIC_RMS);
    if (!as_rms)
        cost_plot(out, r, METRIC_TRMS);
    workload_plot(out, r);
    if (r->induced_thread + r->induced_external > 0)
        input_plot(out, r);
    fputs("</div></section>\n", out);
}

int report_html(FILE *out, const struct report_model *m, const struct report_options *o)
{
    /* The plots: the top rows but the wrappers. */
    size_t *index = xcalloc(m->n_rows + 1, sizeof *index), folded;
    size_t plotted = report_top_rows(m, o->top, index, &folded);
    unsigned char *is_plotted = xcalloc(m->n_rows + 1, 1);
    for (size_t k = 0; k < plotted; k++)
        is_plotted[index[k]] = 1;
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
          "<meta name=\"viewport\" content=\"width=device-width\"><title>trms report: ", out);
    html_text(out, m->recordings[0]);
    fprintf(out, "</title><style>%s</style></head>\n<body>\n<h1>trms report</h1>\n<p>", style);
    fputs(m->n_recordings > 1 ? "Recordings " : "Recording ", out);
    for (size_t i = 0; i < m->n_recordings; i++) {
        fputs(i ? ", <code>" : "<code>", out);
        html_text(out, m->recordings[i]);
        fputs("</code>", out);
    }
    uint64_t accesses = 0;
    for (int t = EVENT_READ; t <= EVENT_KWRITE; t++)
        accesses += m->events[t];
    fprintf(out, ": %zu thread%s, %" PRIu64 " activations, %" PRIu64 " memory accesses; cell size "
                 "%" PRIu64 " B, line size %" PRIu64 " B; trms %s.</p>\n",
            m->n_threads, m->n_threads == 1 ? "" : "s", m->activations, accesses, m->cell_size,
            m->line_size, TRMS_VERSION);
    char not_computed[REPORT_NOTE_MAX], no_trace[REPORT_NOTE_MAX];
    report_model_notes(m, not_computed, no_trace);
    const char *notes[] = {not_computed, no_trace};
    for (size_t i = 0; i < 2; i++)
        if (notes[i][0]) {
            fputs("<p class=\"note\">", out);
            html_text(out, notes[i]);
            fputs(".</p>\n", out);
        }
    fprintf(out, "<h2>%s by %s</h2>\n<p class=\"note\">cost: instructions, descendants "
                 "included. #rms/#trms: distinct input sizes. growth: how worst-case cost grows "
                 "at the large end of the input sizes, fitted as a + b f(n): a model among 1, "
                 "log n, n, n log n, n^2, n^3 (two neighbours where both fit), or "
                 "~n<sup>k</sup> between them; '?': a guess; 'varies': cost depends on more "
                 "than input size; '-': fewer than %d input sizes spanning %.0fx. k: the "
                 "exponent of the growing term (hover for the range that fits as well). "
                 "thr-in/ext-in: share of the TRMS input written by another thread / the "
                 "kernel. As in the text report, frames that pass their cost to one callee and "
                 "wrappers are folded (the switch shows them).</p>\n",
            m->contexts ? "Calling contexts" : "Routines", m->by_self ? "self cost" : "cost",
            GROWTH_MIN_SIZES, GROWTH_MIN_SPAN);
    routine_table(out, m, is_plotted);
    induced_chart(out, m);
    if (m->analyses & ANALYSIS_REUSE)
        reuse_section(out, m);
    fprintf(out, "<h2>Cost plots</h2>\n<p class=\"note\">The %zu %s %s. Points: "
                 "worst-case (red rings) and average (blue dots) cost per input size; dashed: "
                 "the verdict's curve over the sizes it judged, the large end. A TRMS plot "
                 "only where TRMS is not RMS.",
            plotted, m->by_self ? "routines with the most self cost," : "costliest",
            m->contexts ? "contexts" : "routines");
    if (folded)
        fprintf(out, " Left out: %zu folded row%s (wrappers, called once with under %.0f%% of "
                     "their cost in their own code, and frames passing their cost to one "
                     "callee), in the table behind its switch.",
                folded, folded == 1 ? "" : "s", 100 * REPORT_WRAPPER_SELF_SHARE);
    fputs("</p>\n", out);
    for (size_t k = 0; k < plotted; k++)
        routine_section(out, &m->rows[index[k]], index[k]);
    free(index);
    free(is_plotted);
    fprintf(out, "<script>%s</script>\n</body></html>\n", script);
    return 0;
}
