/* growth_curves: a cost curve a + b g(n - n0) [+ c n] fitted to a
 * routine's sizes, where g is one of the models' terms or a power n^k, and
 * n0 a fixed part of the input (a table the routine reads whatever its
 * data: it adds to every size and costs nothing per se) given by the
 * caller.
 *
 * Least squares on relative residuals (each size weighted by its class's
 * share, divided by its cost squared: a 10% miss weighs the same at every
 * size), every coefficient non-negative: a negative constant would let
 * a + b n pass for n log n, a negative b would call shrinking cost growth.
 * A fit may also require its growing term to carry at least a share S of
 * the cost at the largest size (b g(n_max) >= S (a + b g(n_max) + c n_max)):
 * a curve whose growing term is negligible there is no evidence for g. */
#ifndef TRMS_GROWTH_CURVES_H
#define TRMS_GROWTH_CURVES_H

#include <stddef.h>

struct curve_point {
    double n, cost, w; /* size, cost, weight (its class's share) */
};

struct curve {
    double a, b, c; /* cost ~ a + b g(n - offset) + c n */
    double offset;
    double error;   /* RMS of (cost - curve) / cost, each at most 1 */
    double share;   /* b g(n_max) / curve(n_max): the growing term's part at the top */
};

/* g(n) is N^K, or MODEL_TERM(n) when TERM is given. */
typedef double (*curve_term)(double n);

/* Fits a + b TERM(n - OFFSET) (+ c n when LINEAR) to the M points, TERM
 * being n^K when TERM is NULL, with the growing term's share at the top at
 * least MIN_SHARE (0: no such bound). OFFSET is below every n. OUT->error
 * is 1 when nothing fits. */
void curve_fit(const struct curve_point *p, size_t m, curve_term term, double k, int linear,
               double offset, double min_share, struct curve *out);

/* The curve's value at N. */
double curve_eval(const struct curve *c, curve_term term, double k, double n);

#endif
