/* explore_html: an exploration as one self-contained page (explore_format.h):
 * the summary, each object's reuse distance range across the runs drawn as
 * the memory-distance paper's Figures 2 and 3 draw them (a bar from the
 * smallest to the largest distance, a dot at each distance seen, larger
 * when more runs saw it), the objects' table, and the routines' table of
 * TRMS and thread-induced ranges per RMS, which sorts by a click on a
 * heading. Every extreme links its recording's name. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "explore/explore_format.h"
#include "report/report.h"
#include "report/svg_plot.h"

static const char style[] =
    "body{font:14px/1.4 system-ui,sans-serif;margin:16px 24px;color:#222}"
    "h1{font-size:20px}h2{font-size:17px;margin-top:28px}"
    "table{border-collapse:collapse;font-size:13px}"
    "th,td{padding:2px 8px;border-bottom:1px solid #ddd;text-align:right;white-space:nowrap}"
    "th{cursor:pointer;background:#f3f3f3}td.name,th.name{text-align:left}"
    ".note{color:#666;font-size:12px}.varies{background:#fff4e0}"
    "svg.ranges{background:#fff;border:1px solid #eee}svg .label,svg .tick{font-size:11px;"
    "fill:#444}svg .grid{stroke:#eee}svg .range{stroke:#1f77b4;stroke-width:6;"
    "stroke-linecap:round;opacity:.35}svg .seen{fill:#1f77b4}";

static const char script[] =
    "(function(){var t=document.getElementById('routines');if(!t)return;"
    "var b=t.tBodies[0],h=t.tHead.rows[0].cells;"
    "Array.prototype.forEach.call(h,function(c,i){c.addEventListener('click',function(){"
    "var desc=c.getAttribute('data-sorted')!=='desc',num=c.getAttribute('data-type')==='num';"
    "var rows=Array.prototype.slice.call(b.rows);rows.sort(function(x,y){"
    "var p=x.cells[i].getAttribute('data-v'),q=y.cells[i].getAttribute('data-v');"
    "var r=num?parseFloat(p)-parseFloat(q):p.localeCompare(q);return desc?-r:r;});"
    "rows.forEach(function(r){b.appendChild(r);});"
    "Array.prototype.forEach.call(h,function(o){o.removeAttribute('data-sorted');});"
    "c.setAttribute('data-sorted',desc?'desc':'asc');});});"
    "document.body.setAttribute('data-ready','1');})();";

static void extreme_cell(FILE *out, const struct explore *x, const struct explore_extreme *e)
{
    fprintf(out, "<td data-v=\"%" PRIu64 "\">%" PRIu64 " <span class=\"note\">", e->value,
            e->value);
    html_text(out, explore_run_name(x, e->run));
    if (e->runs > 1)
        fprintf(out, " +%" PRIu32, e->runs - 1);
    fputs("</span></td>", out);
}

/* The ranges: one row per object, distances along x. */
static void range_plot(FILE *out, const struct explore *x)
{
    uint64_t top = 1;
    size_t rows = 0;
    for (size_t i = 0; i < x->n_objects; i++)
        if (x->objects_seen[i].reused) {
            rows++;
            if (x->objects_seen[i].max.value > top)
                top = x->objects_seen[i].max.value;
        }
    if (rows == 0)
        return;
    const int left = 180, right = 20, row = 22, width = 760;
    int height = (int)rows * row + 40;
    double scale = (double)(width - left - right) / (double)top;
    fprintf(out, "<svg class=\"ranges\" width=\"%d\" height=\"%d\" data-rows=\"%zu\">", width,
            height, rows);
    double step = svg_tick_step((double)top, 8);
    if (step < 1)
        step = 1;
    for (double t = 0; t <= (double)top + 1e-9; t += step) {
        double gx = left + t * scale;
        fprintf(out, "<line class=\"grid\" x1=\"%.1f\" y1=\"10\" x2=\"%.1f\" y2=\"%d\"/>"
                     "<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%.0f</text>",
                gx, gx, height - 24, gx, height - 10, t);
    }
    size_t r = 0;
    for (size_t i = 0; i < x->n_objects; i++) {
        const struct explore_object *o = &x->objects_seen[i];
        if (!o->reused)
            continue;
        double y = 20 + (double)r++ * row;
        fprintf(out, "<text class=\"label\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">", left - 8,
                y + 4);
        html_text(out, o->name);
        fprintf(out, "</text><line class=\"range\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                     "y2=\"%.1f\"><title>",
                left + (double)o->min.value * scale, y, left + (double)o->max.value * scale, y);
        html_text(out, o->name);
        fprintf(out, ": %" PRIu64 " to %" PRIu64 "</title></line>", o->min.value, o->max.value);
        for (size_t d = 0; d < o->n_distances; d++) {
            double radius = 2 + 4 * sqrt((double)o->distances[d].runs / (double)x->n_runs);
            fprintf(out, "<circle class=\"seen\" cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\"><title>"
                         "%" PRIu64 ": %" PRIu32 " runs</title></circle>",
                    left + (double)o->distances[d].min * scale, y, radius, o->distances[d].min,
                    o->distances[d].runs);
        }
    }
    fputs("</svg>\n", out);
}

static void object_table(FILE *out, const struct explore *x)
{
    fputs("<table id=\"objects\"><thead><tr><th class=\"name\">object</th><th>module</th>"
          "<th>accesses (all runs)</th><th>runs</th><th>min</th><th>max</th>"
          "<th class=\"name\">distances seen (runs)</th>"
          "<th class=\"name\">ranges of one run (runs)</th></tr></thead><tbody>\n",
          out);
    for (size_t i = 0; i < x->n_objects; i++) {
        const struct explore_object *o = &x->objects_seen[i];
        fprintf(out, "<tr%s><td class=\"name\">", explore_object_varies(o) ? " class=\"varies\""
                                                                          : "");
        html_text(out, o->name);
        fputs("</td><td class=\"name\">", out);
        const char *slash = strrchr(o->module, '/');
        html_text(out, slash ? slash + 1 : o->module);
        fprintf(out, "</td><td>%" PRIu64 "</td><td>%" PRIu32 "</td>", o->accesses, o->runs);
        if (o->reused) {
            extreme_cell(out, x, &o->min);
            extreme_cell(out, x, &o->max);
        } else {
            fputs("<td>-</td><td>-</td>", out);
        }
        fputs("<td class=\"name\">", out);
        for (size_t d = 0; d < o->n_distances; d++)
            fprintf(out, "%s%" PRIu64 " (%" PRIu32 ")", d ? ", " : "", o->distances[d].min,
                    o->distances[d].runs);
        fputs("</td><td class=\"name\">", out);
        for (size_t r = 0; r < o->n_ranges; r++)
            fprintf(out, "%s[%" PRIu64 ", %" PRIu64 "] (%" PRIu32 ")", r ? ", " : "",
                    o->ranges[r].min, o->ranges[r].max, o->ranges[r].runs);
        fputs("</td></tr>\n", out);
    }
    fputs("</tbody></table>\n", out);
}

static void routine_table(FILE *out, const struct explore *x, size_t top)
{
    fputs("<table id=\"routines\"><thead><tr><th class=\"name\" data-type=\"text\">routine</th>"
          "<th data-type=\"num\">RMS</th><th data-type=\"num\">calls</th>"
          "<th data-type=\"num\">runs</th><th data-type=\"num\">TRMS min</th>"
          "<th data-type=\"num\">TRMS max</th><th data-type=\"num\">thread-induced min</th>"
          "<th data-type=\"num\">thread-induced max</th></tr></thead><tbody>\n",
          out);
    size_t *order = explore_routine_order(x);
    size_t shown = 0;
    for (size_t k = 0; k < x->n_routines && (!top || shown < top); k++, shown++) {
        const struct explore_routine *r = &x->routines[order[k]];
        for (size_t j = 0; j < r->n_points; j++) {
            const struct explore_point *p = &r->points[j];
            fprintf(out, "<tr%s><td class=\"name\" data-v=\"", explore_point_depends(p)
                                                                  ? " class=\"varies\""
                                                                  : "");
            html_text(out, r->name);
            fputs("\">", out);
            html_text(out, r->name);
            fprintf(out, "</td><td data-v=\"%" PRIu64 "\">%" PRIu64 "</td><td data-v=\"%" PRIu64
                         "\">%" PRIu64 "</td><td data-v=\"%" PRIu32 "\">%" PRIu32 "</td>",
                    p->rms, p->rms, p->activations, p->activations, p->runs, p->runs);
            extreme_cell(out, x, &p->trms_min);
            extreme_cell(out, x, &p->trms_max);
            extreme_cell(out, x, &p->induced_min);
            extreme_cell(out, x, &p->induced_max);
            fputs("</tr>\n", out);
        }
    }
    free(order);
    fputs("</tbody></table>\n", out);
    if (top && x->n_routines > top)
        fprintf(out, "<p class=\"note\">%zu more routines: --top 0 shows all.</p>\n",
                x->n_routines - top);
}

int explore_html(FILE *out, const struct explore *x, size_t top)
{
    char schedule[96];
    explore_schedule_name(x, schedule, sizeof schedule);
    fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>trms explore: ", out);
    html_text(out, x->command);
    fprintf(out, "</title><style>%s</style></head><body>\n<h1>trms explore: ", style);
    html_text(out, x->command);
    fprintf(out, "</h1>\n<p>%zu runs, ", x->n_runs);
    html_text(out, schedule);
    if (x->schedule == EXPLORE_PCT) {
        uint64_t n = explore_max_threads(x);
        fprintf(out, "; k = %" PRIu64 " events that can be reordered, n = %" PRIu64
                     " threads: a result of depth %" PRIu32
                     " shows up in a run with probability at least 1/%.0f",
                x->k, n, x->depth, explore_pct_runs(n, x->k, x->depth));
    }
    fputs(".<br>Recordings: ", out);
    html_text(out, x->directory[0] ? x->directory : "as given");
    fputs(" (each extreme names the first run that produced it, +N more runs did; "
          "<code>trms report REC</code> replays it exactly).<br>Tracked: ", out);
    html_text(out, x->objects);
    fprintf(out, ", locations of %" PRIu64 " bytes.</p>\n", x->unit);
    fputs("<h2>Reuse distance per object, over the accesses to the tracked objects</h2>\n", out);
    range_plot(out, x);
    object_table(out, x);
    fputs("<h2>TRMS and thread-induced input per routine and RMS</h2>\n"
          "<p class=\"note\">Over every activation of every run; rows whose input depends on "
          "the interleaving (some runs did not reach the extremes) are shaded.</p>\n",
          out);
    routine_table(out, x, top);
    fprintf(out, "<script>%s</script>\n</body></html>\n", script);
    return ferror(out) ? -1 : 0;
}
