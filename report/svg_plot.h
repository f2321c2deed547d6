/* svg_plot: the plots of the HTML report, as inline SVG written directly.
 *
 * An x-y plot draws series of points (circles, class "pt NAME") and curves
 * (a path, class "curve NAME") on linear axes with round-number ticks; a
 * bar chart draws labelled bars, each of one or more stacked parts (class
 * "bar NAME"); a horizontal bar chart draws one labelled row per item,
 * its parts stacked from the left (Figure 9 of the TRMS paper, for many
 * routines with long names). Every mark has a <title>, which browsers show
 * on hover. The SVG element carries data-points (points or bars drawn) so
 * that tests can count them; colours come from the page's style sheet.
 *
 * Layout is computed here, without a browser to measure text, from
 * character widths of a wide sans-serif font (DejaVu Sans, the common
 * default on Linux): the title is cut to the plot's width, the legend
 * has a row of its own under it (wrapping when it must), and a bar's
 * label is drawn only where it does not run into its neighbour's. The
 * report's layout test checks the result in Chromium. */
#ifndef TRMS_SVG_PLOT_H
#define TRMS_SVG_PLOT_H

#include <stddef.h>
#include <stdio.h>

struct svg_frame {
    const char *cls;       /* class of the <svg> element */
    const char *title;
    const char *x_label, *y_label;
    int width, height;
    int log_y;             /* bar charts: a logarithmic count axis (1, 10, 100, ...),
                              so that a long tail of small bars shows */
};

struct svg_series {
    const char *name;      /* class and legend entry */
    const double *x, *y;
    size_t n;
    int curve;             /* a line through the points, not points */
    int ring;              /* points as rings, drawn over the others' dots */
};

/* Writes an x-y plot of the N series. The axes span the points (not the
 * curves, which are clipped to the plot area) and start at 0 where the
 * points are not negative. */
void svg_xy_plot(FILE *out, const struct svg_frame *f, const struct svg_series *series, size_t n);

struct svg_bar {
    const char *label;     /* under the bar (may be "") and in its title */
    const double *parts;   /* stacked from the axis up, one per part name */
    const char *tip;       /* the title's text instead of the label, or NULL */
};

/* Writes a bar chart of N bars of N_PARTS stacked parts each, named
 * PART_NAMES (classes and legend); Y_MAX 0 takes the tallest bar. */
void svg_bar_chart(FILE *out, const struct svg_frame *f, const struct svg_bar *bars, size_t n,
                   const char *const *part_names, size_t n_parts, double y_max);

/* Writes a horizontal bar chart: one row per bar, its label on the left
 * (cut to LABEL_WIDTH pixels), its parts stacked from 0 towards X_MAX,
 * and NOTES[i] (may be NULL) right of the bar. F->height is computed. */
void svg_hbar_chart(FILE *out, const struct svg_frame *f, const struct svg_bar *bars,
                    const char *const *notes, size_t n, const char *const *part_names,
                    size_t n_parts, double x_max, int label_width);

/* Text with <, >, & and quotes escaped for HTML and SVG. */
void html_text(FILE *out, const char *s);

/* Round-number tick step for a span, about TARGET ticks (1, 2 or 5 x 10^k). */
double svg_tick_step(double span, int target);

/* The width in pixels of TEXT in the plots' font at SIZE pixels (BOLD for
 * titles): an upper estimate, from the widths of DejaVu Sans. */
double svg_text_width(const char *text, double size, int bold);

#endif
