#include "report/svg_plot.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/oom.h"

#define MARGIN_LEFT 64
#define MARGIN_RIGHT 24
#define MARGIN_BOTTOM 44
#define TITLE_SIZE 12
#define TICK_SIZE 10
#define TITLE_Y 15
/* The legend's rows start under the title; the plot under the legend. */
#define LEGEND_Y 24
#define LEGEND_ROW 14
#define LEGEND_GAP 14

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

double svg_text_width(const char *text, double size, int bold)
{
    /* Advance widths in em, rounded up, of DejaVu Sans by kind of
     * character; bold runs about a tenth wider. */
    double em = 0;
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        if ((*p & 0xc0) == 0x80)
            continue; /* UTF-8 continuation: counted with its lead byte */
        if (strchr("iljI.,:;'|!", *p))
            em += 0.32;
        else if (*p == ' ')
            em += 0.33;
        else if (*p >= '0' && *p <= '9')
            em += 0.64;
        else if (strchr("mwMW@%", *p))
            em += 1.0;
        else if (*p >= 'A' && *p <= 'Z')
            em += 0.78;
        else if (*p >= 'a' && *p <= 'z')
            em += 0.64;
        else
            em += 0.72;
    }
    return em * size * (bold ? 1.12 : 1.0);
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

/* Rows the legend of NAMES takes in a plot WIDTH wide. */
static int legend_rows(const struct svg_frame *f, const char *const *names, size_t n)
{
    int rows = n ? 1 : 0;
    double x = MARGIN_LEFT;
    for (size_t i = 0; i < n; i++) {
        double w = 12 + svg_text_width(names[i], TICK_SIZE, 0);
        if (x + w > f->width - MARGIN_RIGHT && x > MARGIN_LEFT) {
            rows++;
            x = MARGIN_LEFT;
        }
        x += w + LEGEND_GAP;
    }
    return rows;
}

/* Where the plot area starts: under the title and the legend's rows. */
static int plot_top(const struct svg_frame *f, const char *const *names, size_t n)
{
    return LEGEND_Y + LEGEND_ROW * legend_rows(f, names, n) + 8;
}

/* The legend under the title: a swatch and a name per entry, left to
 * right, wrapping to another row where the plot is too narrow. */
static void legend(FILE *out, const struct svg_frame *f, const char *const *names, size_t n)
{
    double x = MARGIN_LEFT, y = LEGEND_Y;
    for (size_t i = 0; i < n; i++) {
        double w = 12 + svg_text_width(names[i], TICK_SIZE, 0);
        if (x + w > f->width - MARGIN_RIGHT && x > MARGIN_LEFT) {
            x = MARGIN_LEFT;
            y += LEGEND_ROW;
        }
        fprintf(out, "<rect class=\"key %s\" x=\"%.1f\" y=\"%.1f\" width=\"8\" height=\"8\"/>"
                     "<text class=\"tick legend\" x=\"%.1f\" y=\"%.1f\">",
                names[i], x, y + 1, x + 12, y + 9);
        html_text(out, names[i]);
        fputs("</text>", out);
        x += w + LEGEND_GAP;
    }
}

/* The title, cut (with an ellipsis, the whole in a <title>) to the width. */
static void open_svg(FILE *out, const struct svg_frame *f, int height, size_t points)
{
    fprintf(out, "<svg class=\"plot %s\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
                 "data-points=\"%zu\"%s>",
            f->cls, f->width, height, f->width, height, points,
            f->log_y ? " data-log-y=\"1\"" : "");
    double room = f->width - MARGIN_LEFT - MARGIN_RIGHT;
    size_t len = strlen(f->title);
    char *shown = xmalloc(len + 4);
    memcpy(shown, f->title, len + 1);
    while (len > 0 && svg_text_width(shown, TITLE_SIZE, 1) > room) {
        while (len > 0 && ((unsigned char)shown[len - 1] & 0xc0) == 0x80)
            len--; /* a whole UTF-8 character */
        if (len > 0)
            len--;
        memcpy(shown + len, "...", 4);
    }
    fprintf(out, "<text class=\"title\" x=\"%d\" y=\"%d\"><title>", MARGIN_LEFT, TITLE_Y);
    html_text(out, f->title);
    fputs("</title>", out);
    html_text(out, shown);
    fputs("</text>", out);
    free(shown);
}

static void axis_labels(FILE *out, const struct svg_frame *f, int top, int height)
{
    fprintf(out, "<text class=\"label\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">",
            (MARGIN_LEFT + f->width - MARGIN_RIGHT) / 2, height - 6);
    html_text(out, f->x_label);
    int middle = (top + height - MARGIN_BOTTOM) / 2;
    fprintf(out, "</text><text class=\"label\" x=\"12\" y=\"%d\" text-anchor=\"middle\" "
                 "transform=\"rotate(-90 12 %d)\">",
            middle, middle);
    html_text(out, f->y_label);
    fputs("</text>", out);
}

/* Widens the range to whole ticks. */
static void nice_range(double *lo, double *hi)
{
    if (*hi <= *lo)
        *hi = *lo + 1;
    double step = svg_tick_step(*hi - *lo, 5);
    *lo = floor(*lo / step) * step;
    *hi = ceil(*hi / step) * step;
}

static void y_grid(FILE *out, const struct axes *a)
{
    char buf[32];
    double step = svg_tick_step(a->y1 - a->y0, 5);
    for (double y = a->y0; y <= a->y1 + step / 2; y += step) {
        short_number(buf, sizeof buf, fabs(y) < step / 2 ? 0 : y);
        fprintf(out, "<line class=\"grid\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>"
                     "<text class=\"tick\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>",
                a->left, py(a, y), a->right, py(a, y), a->left - 4, py(a, y) + 4, buf);
    }
}

/* Decades of a logarithmic axis holding log10(1 + v). */
static void log_y_grid(FILE *out, const struct axes *a)
{
    char buf[32];
    for (int k = 0; k <= (int)a->y1; k++) {
        double y = k;
        short_number(buf, sizeof buf, k ? pow(10, k) : 0);
        fprintf(out, "<line class=\"grid\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>"
                     "<text class=\"tick\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>",
                a->left, py(a, y), a->right, py(a, y), a->left - 4, py(a, y) + 4, buf);
    }
}

static void x_grid(FILE *out, const struct axes *a)
{
    char buf[32];
    double step = svg_tick_step(a->x1 - a->x0, 5);
    for (double x = a->x0; x <= a->x1 + step / 2; x += step) {
        short_number(buf, sizeof buf, fabs(x) < step / 2 ? 0 : x);
        fprintf(out, "<line class=\"grid\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>"
                     "<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>",
                px(a, x), a->top, px(a, x), a->bottom, px(a, x), a->bottom + 14, buf);
    }
}

static void frame(FILE *out, const struct axes *a)
{
    fprintf(out, "<rect class=\"frame\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>", a->left,
            a->top, a->right - a->left, a->bottom - a->top);
}

void svg_xy_plot(FILE *out, const struct svg_frame *f, const struct svg_series *series, size_t n)
{
    const char *names[8];
    size_t n_names = 0;
    for (size_t s = 0; s < n && n_names < 8; s++) {
        /* A series drawn twice (dots, then their line) is one entry. */
        size_t k = 0;
        while (k < n_names && strcmp(names[k], series[s].name) != 0)
            k++;
        if (k == n_names)
            names[n_names++] = series[s].name;
    }
    struct axes a = {.left = MARGIN_LEFT, .right = f->width - MARGIN_RIGHT,
                     .top = plot_top(f, names, n_names), .bottom = f->height - MARGIN_BOTTOM};
    int any = 0;
    size_t points = 0;
    for (size_t s = 0; s < n; s++)
        for (size_t i = 0; i < series[s].n && !series[s].curve; i++) {
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
            points++;
        }
    if (a.y0 > 0)
        a.y0 = 0; /* cost from 0: growth reads at a glance */
    if (a.x0 > 0)
        a.x0 = 0;
    nice_range(&a.x0, &a.x1);
    nice_range(&a.y0, &a.y1);
    open_svg(out, f, f->height, points);
    x_grid(out, &a);
    y_grid(out, &a);
    frame(out, &a);
    axis_labels(out, f, a.top, f->height);
    for (size_t s = 0; s < n; s++) {
        if (series[s].curve) {
            /* An inner <svg> clips the curve to the plot area. */
            fprintf(out, "<svg x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
                         "viewBox=\"%d %d %d %d\"><path class=\"curve %s\" d=\"",
                    a.left, a.top, a.right - a.left, a.bottom - a.top, a.left, a.top,
                    a.right - a.left, a.bottom - a.top, series[s].name);
            int pen = 0;
            for (size_t i = 0; i < series[s].n; i++) {
                if (!isfinite(series[s].x[i]) || !isfinite(series[s].y[i])) {
                    pen = 0;
                    continue;
                }
                fprintf(out, "%c%.1f %.1f", pen ? 'L' : 'M', px(&a, series[s].x[i]),
                        py(&a, series[s].y[i]));
                pen = 1;
            }
            fputs("\"/></svg>", out);
            continue;
        }
        for (size_t i = 0; i < series[s].n; i++) {
            if (!isfinite(series[s].x[i]) || !isfinite(series[s].y[i]))
                continue;
            fprintf(out, "<circle class=\"pt %s%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"%s\"><title>n "
                         "%.0f, %s %.6g</title></circle>",
                    series[s].name, series[s].ring ? " ring" : "", px(&a, series[s].x[i]),
                    py(&a, series[s].y[i]), series[s].ring ? "3.5" : "2", series[s].x[i],
                    series[s].name, series[s].y[i]);
        }
    }
    legend(out, f, names, n_names);
    fputs("</svg>", out);
}

void svg_bar_chart(FILE *out, const struct svg_frame *f, const struct svg_bar *bars, size_t n,
                   const char *const *part_names, size_t n_parts, double y_max)
{
    struct axes a = {.left = MARGIN_LEFT, .right = f->width - MARGIN_RIGHT,
                     .top = plot_top(f, part_names, n_parts), .bottom = f->height - MARGIN_BOTTOM,
                     .x0 = 0, .x1 = n ? (double)n : 1};
    for (size_t i = 0; i < n && y_max <= 0; i++) {
        double total = 0;
        for (size_t p = 0; p < n_parts; p++)
            total += bars[i].parts[p];
        if (total > a.y1)
            a.y1 = total;
    }
    if (y_max > 0)
        a.y1 = y_max;
    /* A logarithmic axis plots log10(1 + v): whole decades. */
    if (f->log_y)
        a.y1 = fmax(1, ceil(log10(1 + a.y1)));
    else
        nice_range(&a.y0, &a.y1);
    open_svg(out, f, f->height, n);
    if (f->log_y)
        log_y_grid(out, &a);
    else
        y_grid(out, &a);
    axis_labels(out, f, a.top, f->height);
    double width = (a.right - a.left) / (n ? (double)n : 1);
    /* A bar's label is drawn where it clears the last one drawn. */
    double free_from = a.left - 100;
    for (size_t i = 0; i < n; i++) {
        double base = 0, x = a.left + width * (double)i;
        fprintf(out, "<g class=\"bars\"><title>");
        html_text(out, bars[i].tip ? bars[i].tip : bars[i].label);
        for (size_t p = 0; p < n_parts; p++)
            fprintf(out, "%s %s %.6g", p ? "," : ":", part_names[p], bars[i].parts[p]);
        fputs("</title>", out);
        for (size_t p = 0; p < n_parts; p++) {
            double v = bars[i].parts[p];
            double from = f->log_y ? log10(1 + base) : base;
            double to = f->log_y ? log10(1 + base + v) : base + v;
            if (v > 0)
                fprintf(out, "<rect class=\"bar %s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                             "height=\"%.1f\"/>",
                        part_names[p], x + width * 0.1, py(&a, to), width * 0.8,
                        py(&a, from) - py(&a, to));
            base += v;
        }
        double half = svg_text_width(bars[i].label, TICK_SIZE, 0) / 2, middle = x + width / 2;
        if (*bars[i].label && middle - half >= free_from && middle + half <= f->width - 2) {
            fprintf(out, "<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">",
                    middle, a.bottom + 14);
            html_text(out, bars[i].label);
            fputs("</text>", out);
            free_from = middle + half + 4;
        }
        fputs("</g>", out);
    }
    frame(out, &a);
    legend(out, f, part_names, n_parts);
    fputs("</svg>", out);
}

#define HBAR_ROW 18
#define HBAR_NOTE_ROOM 84

void svg_hbar_chart(FILE *out, const struct svg_frame *f, const struct svg_bar *bars,
                    const char *const *notes, size_t n, const char *const *part_names,
                    size_t n_parts, double x_max, int label_width)
{
    int top = plot_top(f, part_names, n_parts);
    int height = top + HBAR_ROW * (int)(n ? n : 1) + MARGIN_BOTTOM;
    struct axes a = {.left = label_width + 12, .right = f->width - HBAR_NOTE_ROOM, .top = top,
                     .bottom = top + HBAR_ROW * (int)(n ? n : 1), .x1 = x_max > 0 ? x_max : 1};
    open_svg(out, f, height, n);
    x_grid(out, &a);
    fprintf(out, "<text class=\"label\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">",
            (a.left + a.right) / 2, height - 6);
    html_text(out, f->x_label);
    fputs("</text>", out);
    for (size_t i = 0; i < n; i++) {
        double y = a.top + HBAR_ROW * (double)i, base = 0;
        fputs("<g class=\"bars\"><title>", out);
        html_text(out, bars[i].tip ? bars[i].tip : bars[i].label);
        for (size_t p = 0; p < n_parts; p++)
            fprintf(out, "%s %s %.3g", p ? "," : ":", part_names[p], bars[i].parts[p]);
        if (notes && notes[i]) {
            fputs("; ", out);
            html_text(out, notes[i]);
        }
        fputs("</title>", out);
        for (size_t p = 0; p < n_parts; p++) {
            double v = bars[i].parts[p];
            if (v > 0)
                fprintf(out, "<rect class=\"bar %s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                             "height=\"%d\"/>",
                        part_names[p], px(&a, base), y + 3, px(&a, base + v) - px(&a, base),
                        HBAR_ROW - 6);
            base += v;
        }
        /* The label, cut in the middle to its column. */
        size_t len = strlen(bars[i].label), keep = len;
        char *shown = xmalloc(len + 4);
        memcpy(shown, bars[i].label, len + 1);
        while (keep > 8 && svg_text_width(shown, TICK_SIZE, 0) > label_width) {
            keep--;
            size_t head = keep / 2, tail = keep - head;
            memcpy(shown, bars[i].label, head);
            memcpy(shown + head, "...", 3);
            memcpy(shown + head + 3, bars[i].label + len - tail, tail + 1);
        }
        fprintf(out, "<text class=\"tick\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">",
                a.left - 6, y + HBAR_ROW / 2.0 + 3.5);
        html_text(out, shown);
        fputs("</text>", out);
        free(shown);
        if (notes && notes[i]) {
            fprintf(out, "<text class=\"tick note\" x=\"%d\" y=\"%.1f\">", a.right + 6,
                    y + HBAR_ROW / 2.0 + 3.5);
            html_text(out, notes[i]);
            fputs("</text>", out);
        }
        fputs("</g>", out);
    }
    frame(out, &a);
    legend(out, f, part_names, n_parts);
    fputs("</svg>", out);
}
