#include "report/svg_plot.h"

#include <math.h>
#include <string.h>

#define MARGIN_LEFT 64
#define MARGIN_RIGHT 12
#define MARGIN_TOP 28
#define MARGIN_BOTTOM 44

void html_text(FILE *out, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '<':
            fputs("&lt;", out);
            break;
        case '>':
            fputs("&gt;", out);
            break;
        case '&':
            fputs("&amp;", out);
            break;
        case '"':
            fputs("&quot;", out);
            break;
        case '\'':
            fputs("&#39;", out);
            break;
        default:
            fputc(*s, out);
        }
    }
}

double svg_tick_step(double span, int target)
{
    if (!(span > 0))
        return 1;
    double raw = span / target, unit = pow(10, floor(log10(raw))), step = unit;
    static const double multiples[] = {1, 2, 5, 10};
    for (size_t i = 0; i < sizeof multiples / sizeof *multiples; i++)
        if (unit * multiples[i] >= raw) {
            step = unit * multiples[i];
            break;
        }
    return step;
}

/* 12, 1.5k, 2.3M: tick labels that fit. */
static void short_number(char *buf, size_t len, double v)
{
    static const char suffix[] = " kMGTPE";
    double a = fabs(v);
    int i = 0;
    while (a >= 1000 && suffix[i + 1]) {
        a /= 1000;
        v /= 1000;
        i++;
    }
    if (i == 0)
        snprintf(buf, len, "%g", v);
    else
        snprintf(buf, len, "%g%c", round(v * 100) / 100, suffix[i]);
}

struct axes {
    double x0, x1, y0, y1;   /* data range */
    int left, right, top, bottom;
};

static double px(const struct axes *a, double x)
{
    return a->left + (x - a->x0) / (a->x1 - a->x0) * (a->right - a->left);
}

static double py(const struct axes *a, double y)
{
    return a->bottom - (y - a->y0) / (a->y1 - a->y0) * (a->bottom - a->top);
}

static void open_svg(FILE *out, const struct svg_frame *f, size_t points)
{
    fprintf(out, "<svg class=\"plot %s\" width=\"%d\" "
                 "height=\"%d\" viewBox=\"0 0 %d %d\" data-points=\"%zu\">",
            f->cls, f->width, f->height, f->width, f->height, points);
    fprintf(out, "<text class=\"title\" x=\"%d\" y=\"16\">", MARGIN_LEFT);
    html_text(out, f->title);
    fputs("</text>", out);
}

static void axis_labels(FILE *out, const struct svg_frame *f)
{
    fprintf(out, "<text class=\"label\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">",
            (MARGIN_LEFT + f->width - MARGIN_RIGHT) / 2, f->height - 6);
    html_text(out, f->x_label);
    fprintf(out, "</text><text class=\"label\" x=\"12\" y=\"%d\" text-anchor=\"middle\" "
                 "transform=\"rotate(-90 12 %d)\">",
            (MARGIN_TOP + f->height - MARGIN_BOTTOM) / 2, (MARGIN_TOP + f->height - MARGIN_BOTTOM) / 2);
    html_text(out, f->y_label);
    fputs("</text>", out);
}

/* Ticks and grid of a linear axis; widens the range to whole ticks. */
static void nice_range(double *lo, double *hi)
{
    if (*hi <= *lo)
        *hi = *lo + 1;
    double step = svg_tick_step(*hi - *lo, 5);
    *lo = floor(*lo / step) * step;
    *hi = ceil(*hi / step) * step;
}

static void grid(FILE *out, const struct axes *a)
{
    char buf[32];
    double step = svg_tick_step(a->x1 - a->x0, 5);
    for (double x = a->x0; x <= a->x1 + step / 2; x += step) {
        short_number(buf, sizeof buf, fabs(x) < step / 2 ? 0 : x);
        fprintf(out, "<line class=\"grid\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>"
                     "<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>",
                px(a, x), a->top, px(a, x), a->bottom, px(a, x), a->bottom + 14, buf);
    }
    step = svg_tick_step(a->y1 - a->y0, 5);
    for (double y = a->y0; y <= a->y1 + step / 2; y += step) {
        short_number(buf, sizeof buf, fabs(y) < step / 2 ? 0 : y);
        fprintf(out, "<line class=\"grid\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>"
                     "<text class=\"tick\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>",
                a->left, py(a, y), a->right, py(a, y), a->left - 4, py(a, y) + 4, buf);
    }
    fprintf(out, "<rect class=\"frame\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>", a->left,
            a->top, a->right - a->left, a->bottom - a->top);
}

static void legend(FILE *out, const struct svg_frame *f, const char *const *names, size_t n)
{
    double x = f->width - MARGIN_RIGHT;
    for (size_t i = n; i-- > 0;) {
        x -= 8 + 7.0 * (double)strlen(names[i]);
        fprintf(out, "<rect class=\"key %s\" x=\"%.1f\" y=\"8\" width=\"8\" height=\"8\"/>"
                     "<text class=\"tick\" x=\"%.1f\" y=\"16\">%s</text>",
                names[i], x - 10, x, names[i]);
        x -= 14;
    }
}

void svg_xy_plot(FILE *out, const struct svg_frame *f, const struct svg_series *series, size_t n)
{
    struct axes a = {.left = MARGIN_LEFT, .right = f->width - MARGIN_RIGHT, .top = MARGIN_TOP,
                     .bottom = f->height - MARGIN_BOTTOM};
    int any = 0;
    size_t points = 0;
    for (size_t s = 0; s < n; s++)
        for (size_t i = 0; i < series[s].n; i++) {
            double x = series[s].x[i], y = series[s].y[i];
            if (!isfinite(x) || !isfinite(y))
                continue;
            if (!any || x < a.x0)
                a.x0 = x;
            if (!any || x > a.x1)
                a.x1 = x;
            if (!any || y < a.y0)
                a.y0 = y;
            if (!any || y > a.y1)
                a.y1 = y;
            any = 1;
            points += !series[s].curve;
        }
    if (a.y0 > 0)
        a.y0 = 0; /* cost from 0: growth reads at a glance */
    if (a.x0 > 0)
        a.x0 = 0;
    nice_range(&a.x0, &a.x1);
    nice_range(&a.y0, &a.y1);
    open_svg(out, f, points);
    grid(out, &a);
    axis_labels(out, f);
    const char *names[8];
    size_t n_names = 0;
    for (size_t s = 0; s < n; s++) {
        if (n_names < 8)
            names[n_names++] = series[s].name;
        if (series[s].curve) {
            fprintf(out, "<path class=\"curve %s\" d=\"", series[s].name);
            for (size_t i = 0; i < series[s].n; i++)
                if (isfinite(series[s].y[i]))
                    fprintf(out, "%c%.1f %.1f", i ? 'L' : 'M', px(&a, series[s].x[i]),
                            py(&a, series[s].y[i]));
            fputs("\"/>", out);
            continue;
        }
        for (size_t i = 0; i < series[s].n; i++) {
            if (!isfinite(series[s].x[i]) || !isfinite(series[s].y[i]))
                continue;
            fprintf(out, "<circle class=\"pt %s\" cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\"><title>n %.0f, "
                         "%s %.6g</title></circle>",
                    series[s].name, px(&a, series[s].x[i]), py(&a, series[s].y[i]),
                    series[s].x[i], series[s].name, series[s].y[i]);
        }
    }
    legend(out, f, names, n_names);
    fputs("</svg>", out);
}

void svg_bar_chart(FILE *out, const struct svg_frame *f, const struct svg_bar *bars, size_t n,
                   const char *const *part_names, size_t n_parts, double y_max)
{
    struct axes a = {.left = MARGIN_LEFT, .right = f->width - MARGIN_RIGHT, .top = MARGIN_TOP,
                     .bottom = f->height - MARGIN_BOTTOM, .x0 = 0, .x1 = n ? (double)n : 1};
    for (size_t i = 0; i < n && y_max <= 0; i++) {
        double total = 0;
        for (size_t p = 0; p < n_parts; p++)
            total += bars[i].parts[p];
        if (total > a.y1)
            a.y1 = total;
    }
    if (y_max > 0)
        a.y1 = y_max;
    nice_range(&a.y0, &a.y1);
    open_svg(out, f, n);
    char buf[32];
    double step = svg_tick_step(a.y1 - a.y0, 5);
    for (double y = a.y0; y <= a.y1 + step / 2; y += step) {
        short_number(buf, sizeof buf, y);
        fprintf(out, "<line class=\"grid\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>"
                     "<text class=\"tick\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>",
                a.left, py(&a, y), a.right, py(&a, y), a.left - 4, py(&a, y) + 4, buf);
    }
    axis_labels(out, f);
    double width = (a.right - a.left) / (n ? (double)n : 1);
    int labelled = width >= 18; /* room for labels under the bars */
    for (size_t i = 0; i < n; i++) {
        double base = 0, x = a.left + width * (double)i;
        fprintf(out, "<g class=\"bars\"><title>");
        html_text(out, bars[i].label);
        for (size_t p = 0; p < n_parts; p++)
            fprintf(out, "%s %s %.6g", p ? "," : ":", part_names[p], bars[i].parts[p]);
        fputs("</title>", out);
        for (size_t p = 0; p < n_parts; p++) {
            double v = bars[i].parts[p];
            if (v > 0)
                fprintf(out, "<rect class=\"bar %s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                             "height=\"%.1f\"/>",
                        part_names[p], x + width * 0.1, py(&a, base + v), width * 0.8,
                        py(&a, base) - py(&a, base + v));
            base += v;
        }
        if (labelled) {
            fprintf(out, "<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">",
                    x + width / 2, a.bottom + 14);
            html_text(out, bars[i].label);
            fputs("</text>", out);
        }
        fputs("</g>", out);
    }
    fprintf(out, "<rect class=\"frame\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>", a.left,
            a.top, a.right - a.left, a.bottom - a.top);
    legend(out, f, part_names, n_parts);
    fputs("</svg>", out);
}
