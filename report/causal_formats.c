/* causal_formats: Coz's profile format and the HTML page (see the header). */
#include "report/causal_formats.h"

#include <inttypes.h>
#include <math.h>

#include "common/oom.h"
#include "report/svg_plot.h"

/* Coz's lines are tab-separated key=value fields: a name keeps neither
 * tabs nor line breaks. */
static void coz_name(FILE *out, const char *s)
{
    for (; *s; s++)
        fputc(*s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s, out);
}

static uint64_t ns(double instructions)
{
    return instructions > 0 ? (uint64_t)llround(instructions) : 0;
}

static void coz_point(FILE *out, const struct causal_profile *p)
{
    if (p->end) {
        /* One request in flight at a time (difference 1), PAIRS of them
         * over DURATION: Little's law gives the latency back. */
        fputs("latency-point\tname=", out);
        coz_name(out, p->progress);
        fputs("..", out);
        coz_name(out, p->end);
        fprintf(out, "\tarrivals=%" PRIu64 "\tdepartures=%" PRIu64 "\tdifference=1\n",
                p->completions, p->completions);
        return;
    }
    fputs("throughput-point\tname=", out);
    coz_name(out, p->progress ? p->progress : "end-to-end");
    fprintf(out, "\tdelta=%" PRIu64 "\n", p->progress ? p->completions - 1 : 1);
}

/* The experiment's duration: what Coz's viewer divides by the point's
 * delta (or multiplies into Little's law) to get the measured value. */
static uint64_t coz_duration(const struct causal_profile *p, double measured)
{
    if (p->end)
        return ns(measured * (double)p->completions);
    return ns(p->progress ? measured * (double)(p->completions - 1) : measured);
}

void causal_write_coz(FILE *out, const struct causal_profile *p)
{
    fputs("startup\ttime=0\n", out);
    for (size_t i = 0; i < p->n; i++) {
        const struct causal_curve *c = &p->curves[i];
        for (int s = 0; s < CAUSAL_STEPS; s++) {
            fputs("experiment\tselected=", out);
            coz_name(out, c->name);
            fprintf(out, "\tspeedup=%.2f\tduration=%" PRIu64 "\n", s * 0.05,
                    coz_duration(p, c->measured[s]));
            coz_point(out, p);
        }
    }
    fprintf(out, "runtime\ttime=%" PRIu64 "\n", ns(p->predicted_time));
    for (size_t i = 0; i < p->n; i++) {
        fputs("samples\tlocation=", out);
        coz_name(out, p->curves[i].name);
        fprintf(out, "\tcount=%" PRIu64 "\n", p->curves[i].instructions);
    }
}

static const char style[] =
    "body{font:14px/1.4 system-ui,sans-serif;margin:16px 24px;color:#222}"
    "h1{font-size:20px}h2{font-size:17px;margin-top:28px}"
    "table{border-collapse:collapse;font-size:12px}"
    "th,td{padding:2px 5px;border-bottom:1px solid #ddd;text-align:right;white-space:nowrap}"
    "th{background:#f3f3f3}td.name,th.name{text-align:left}"
    ".note{color:#666;font-size:12px}"
    ".plots{display:flex;flex-wrap:wrap;gap:8px}"
    "svg.plot{background:#fff;border:1px solid #eee}"
    "svg .title{font-size:12px;font-weight:600}svg .label,svg .tick{font-size:10px;fill:#555}"
    "svg .grid{stroke:#eee}svg .frame{fill:none;stroke:#999}"
    ".pt.predicted,.key.predicted{fill:#1f77b4}"
    ".curve{fill:none;stroke-width:1.5}.curve.predicted{stroke:#1f77b4}";

static void what(FILE *out, const struct causal_profile *p)
{
    if (p->end) {
        fputs("the mean latency from <code>", out);
        html_text(out, p->progress);
        fputs("</code> to <code>", out);
        html_text(out, p->end);
        fprintf(out, "</code> (%" PRIu64 " pairs)", p->completions);
    } else if (p->progress) {
        fputs("the throughput of progress point <code>", out);
        html_text(out, p->progress);
        fprintf(out, "</code> (%" PRIu64 " completions)", p->completions);
    } else {
        fputs("end-to-end time", out);
    }
}

static void plot(FILE *out, const struct causal_curve *c, size_t rank)
{
    double x[CAUSAL_STEPS], y[CAUSAL_STEPS];
    for (int s = 0; s < CAUSAL_STEPS; s++) {
        x[s] = 5.0 * s;
        y[s] = 100 * c->points[s];
    }
    struct svg_series series[2] = {
        {.name = "predicted", .x = x, .y = y, .n = CAUSAL_STEPS},
        {.name = "predicted", .x = x, .y = y, .n = CAUSAL_STEPS, .curve = 1}};
    char title[256];
    snprintf(title, sizeof title, "%zu. %s", rank + 1, c->name);
    struct svg_frame f = {.cls = "plot causal", .title = title,
                          .x_label = "routine speedup (%)", .y_label = "program speedup (%)",
                          .width = 300, .height = 230};
    fprintf(out, "<section class=\"routine\" id=\"c-%zu\">", rank);
    svg_xy_plot(out, &f, series, 2);
    fputs("</section>\n", out);
}

static void table(FILE *out, const struct causal_profile *p)
{
    fputs("<table class=\"causal\"><thead><tr><th>#</th><th class=\"name\">routine</th>"
          "<th class=\"name\">module</th><th>share</th><th>max</th>", out);
    for (int s = 5; s < CAUSAL_STEPS; s += 5)
        fprintf(out, "<th>at %d%%</th>", 5 * s);
    fputs("</tr></thead><tbody>\n", out);
    for (size_t i = 0; i < p->n; i++) {
        const struct causal_curve *c = &p->curves[i];
        double share = p->instructions ? (double)c->instructions / (double)p->instructions : 0;
        fprintf(out, "<tr><td>%zu</td><td class=\"name\">", i + 1);
        html_text(out, c->name);
        fputs("</td><td class=\"name\">", out);
        html_text(out, c->module);
        fprintf(out, "</td><td>%.2f%%</td><td>%.2f%%</td>", 100 * share, 100 * c->max);
        for (int s = 5; s < CAUSAL_STEPS; s += 5)
            fprintf(out, "<td>%.2f%%</td>", 100 * c->points[s]);
        fputs("</tr>\n", out);
    }
    fputs("</tbody></table>\n", out);
}

void causal_write_html(FILE *out, const struct causal_profile *p)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
          "<meta name=\"viewport\" content=\"width=device-width\"><title>trms causal: ", out);
    html_text(out, p->recording);
    fprintf(out, "</title><style>%s</style></head>\n<body>\n<h1>trms causal</h1>\n<p>", style);
    fputs("Causal profile of <code>", out);
    html_text(out, p->recording);
    fputs("</code>: ", out);
    what(out, p);
    fprintf(out, ". Model: %" PRIu64 " threads, %" PRIu64 " segments, %" PRIu64
                 " cross-thread edges, ", p->threads, p->segments, p->edges);
    if (p->cores)
        fprintf(out, "%u cores", p->cores);
    else
        fputs("a core per thread", out);
    fprintf(out, "; predicted time %.0f instructions (%" PRIu64 " executed).</p>\n",
            p->predicted_time, p->instructions);
    fputs("<p class=\"note\">For each routine (what it calls included), the predicted "
          "program speedup if the routine were 0, 5, ..., 100% faster, from a simulation of "
          "the recorded run (acquisitions keep their recorded order; time is instructions; "
          "docs/causal.md says what the model assumes). Ranked by the largest gain, as Coz "
          "ranks.", out);
    if (p->left_out)
        fprintf(out, " %zu routines with less than 0.1%% of the instructions are left out.",
                p->left_out);
    fputs("</p>\n<h2>Curves</h2>\n<div class=\"plots\">\n", out);
    for (size_t i = 0; i < p->n; i++)
        plot(out, &p->curves[i], i);
    fputs("</div>\n<h2>Values</h2>\n", out);
    table(out, p);
    fputs("</body></html>\n", out);
}
