/* growth_window: the sizes a growth verdict judges (growth_fit.h, 1, 3
 * and 4): a routine's points as size classes of equal weight, the large
 * end of their range, and the sizes there far off a robust trend, set
 * aside. */
#ifndef TRMS_GROWTH_WINDOW_H
#define TRMS_GROWTH_WINDOW_H

#include <stddef.h>

#include "report/growth_fit.h"

/* A size, with its weight in the fits: each size class (a quarter of an
 * octave) weighs 1 in all, shared by its sizes. */
struct sized {
    double n, cost, calls, w;
    double spread, low, high; /* as in struct growth_point */
    int set_aside;
};

long growth_class_of(double n);

/* The points with n > 0 into OUT, smallest first, weighted; returns how
 * many and the number of classes through *CLASSES. A cost under 1 counts
 * as 1 (a routine that ran no instruction). */
size_t growth_sized(const struct growth_point *pts, size_t n, struct sized *out,
                    size_t *classes);

/* Classes among C[LO..HI). */
size_t growth_classes_in(const struct sized *c, size_t lo, size_t hi);

/* The first of the N points at the large end: the upper half of the
 * logarithmic range, widened to GROWTH_WINDOW_CLASSES classes spanning
 * GROWTH_MIN_SPAN, whole classes. */
size_t growth_window_start(const struct sized *c, size_t n);

/* Marks the points of C[LO..HI) far off the robust trend as set aside (see
 * growth_fit.h, 4), recording them in OUT. X0 is log n at the top. */
void growth_set_aside(struct sized *c, size_t lo, size_t hi, double x0, struct growth_fit *out);

/* R^2 of the weighted least-squares line of log cost against log n over
 * C[LO..HI), the points set aside left out. */
double growth_loglog_r2(const struct sized *c, size_t lo, size_t hi, double x0);

#endif
