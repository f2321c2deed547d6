/* svg_plot: the plots of the HTML report, as inline SVG written directly.
 *
 * An x-y plot draws series of points (circles, class "pt NAME") and curves
 * (a path, class "curve NAME") on linear axes with round-number ticks; a
 * bar chart draws labelled bars, each of one or more stacked parts (class
 * "bar NAME"). Every mark has a <title>, which browsers show on hover.
 * The SVG element carries data-points (points drawn) so that tests can
 * count them; colours come from the page's style sheet. */
#ifndef TRMS_SVG_PLOT_H
#define TRMS_SVG_PLOT_H

#include <stddef.h>
#include <stdio.h>

struct svg_frame {
    const char *cls;       /* class of the <svg> element */
    const char *title;
    const char *x_label, *y_label;
    int width, height;
};

struct svg_series {
    const char *name;      /* class and legend entry */
    const double *x, *y;
    size_t n;
    int curve;             /* a line through the points, not points */
};

/* Writes an x-y plot of the N series; the axes span every series. */
void svg_xy_plot(FILE *out, const struct svg_frame *f, const struct svg_series *series, size_t n);

struct svg_bar {
    const char *label;     /* under the bar (may be "") and in its title */
    const double *parts;   /* stacked from the axis up, one per part name */
};

/* Writes a bar chart of N bars of N_PARTS stacked parts each, named
 * PART_NAMES (classes and legend); Y_MAX 0 takes the tallest bar. */
void svg_bar_chart(FILE *out, const struct svg_frame *f, const struct svg_bar *bars, size_t n,
                   const char *const *part_names, size_t n_parts, double y_max);

/* Text with <, >, & and quotes escaped for HTML and SVG. */
void html_text(FILE *out, const char *s);

/* Round-number tick step for a span, about TARGET ticks (1, 2 or 5 x 10^k). */
double svg_tick_step(double span, int target);

#endif
