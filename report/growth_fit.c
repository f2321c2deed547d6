#include "report/growth_fit.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const model_names[GROWTH_MODELS] = {"1", "log n", "n", "n log n", "n^2",
                                                        "n^3"};

const char *growth_model_name(enum growth_model m)
{
    return (unsigned)m < GROWTH_MODELS ? model_names[m] : "?";
}

double growth_model_f(enum growth_model m, double n)
{
    switch (m) {
    case GROWTH_CONSTANT:
        return 1;
    case GROWTH_LOG:
        return n > 1 ? log2(n) : 0;
    case GROWTH_LINEAR:
        return n;
    case GROWTH_NLOGN:
        return n > 1 ? n * log2(n) : 0;
    case GROWTH_QUADRATIC:
        return n * n;
    case GROWTH_CUBIC:
        return n * n * n;
    default:
        return 0;
    }
}

double growth_model_eval(const struct growth_fit *fit, enum growth_model m, double n)
{
    const struct model_fit *f = &fit->models[m];
    return f->a + f->b * growth_model_f(m, n - f->offset);
}

/* Two-sided 95% quantiles of Student's t for 1..30 degrees of freedom;
 * beyond, the Cornish-Fisher expansion around the normal quantile. */
double student_t95(size_t df)
{
    static const double table[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306,
                                   2.262,  2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120,
                                   2.110,  2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
                                   2.060,  2.056, 2.052, 2.048, 2.045, 2.042};
    if (df == 0)
        return INFINITY;
    if (df <= sizeof table / sizeof *table)
        return table[df - 1];
    double z = 1.959964, v = (double)df;
    return z + (z * z * z + z) / (4 * v) +
           (5 * pow(z, 5) + 16 * z * z * z + 3 * z) / (96 * v * v);
}

/* A cost of 0 (a routine that ran no instruction) weighs as 1. */
static double positive(double cost)
{
    return cost >= 1 ? cost : 1;
}

static double weight_of(const struct growth_point *p)
{
    return p->weight > 0 ? p->weight : 1;
}

/* Offsets tried: n_min * (1 - 2^-j); j = 0 is no offset. */
#define OFFSET_STEPS 13
/* An offset is kept when it cuts the error by this factor and by
 * OFFSET_MIN_GAIN at least. */
#define OFFSET_GAIN 0.98
#define OFFSET_MIN_GAIN 0.001

static double offset_candidate(double n_min, int j)
{
    return j == 0 ? 0 : n_min * (1 - ldexp(1, -j));
}

/* cost ~ a + b f(n - shift), b >= 0, weighted least squares on relative
 * residuals. f is scaled by its largest value so that n^3 stays well
 * conditioned. */
static void fit_model_at(const struct growth_point *pts, size_t n, enum growth_model m,
                         double shift, struct model_fit *out)
{
    double scale = 0;
    for (size_t i = 0; i < n; i++)
        if (pts[i].n > 0 && growth_model_f(m, pts[i].n - shift) > scale)
            scale = growth_model_f(m, pts[i].n - shift);
    if (scale <= 0)
        scale = 1;
    double w_sum = 0, f_sum = 0, y_sum = 0, ff_sum = 0, fy_sum = 0;
    for (size_t i = 0; i < n; i++) {
        if (pts[i].n <= 0)
            continue;
        double y = positive(pts[i].cost), w = weight_of(&pts[i]) / (y * y);
        double f = growth_model_f(m, pts[i].n - shift) / scale;
        w_sum += w;
        f_sum += w * f;
        y_sum += w * y;
        ff_sum += w * f * f;
        fy_sum += w * f * y;
    }
    double det = w_sum * ff_sum - f_sum * f_sum;
    double b = 0, a = w_sum > 0 ? y_sum / w_sum : 0;
    if (m != GROWTH_CONSTANT && det > 1e-12 * w_sum * ff_sum) {
        b = (w_sum * fy_sum - f_sum * y_sum) / det;
        if (b > 0)
            a = (y_sum - b * f_sum) / w_sum;
        else
            b = 0;
    }
    out->a = a;
    out->b = b / scale;
    out->offset = shift;
    double sq = 0, weights = 0;
    for (size_t i = 0; i < n; i++) {
        if (pts[i].n <= 0)
            continue;
        double y = positive(pts[i].cost);
        double r = (y - (out->a + out->b * growth_model_f(m, pts[i].n - shift))) / y;
        sq += weight_of(&pts[i]) * (r * r < 1 ? r * r : 1);
        weights += weight_of(&pts[i]);
    }
    out->error = weights > 0 ? sqrt(sq / weights) : 0;
}

static void fit_model(const struct growth_point *pts, size_t n, enum growth_model m,
                      double n_min, struct model_fit *out)
{
    fit_model_at(pts, n, m, 0, out);
    /* a + b (n - n0) is a + b n: only the curved models have an offset. */
    if (m == GROWTH_CONSTANT || m == GROWTH_LINEAR)
        return;
    struct model_fit best = *out;
    int best_j = 0;
    for (int j = 1; j < OFFSET_STEPS; j++) {
        struct model_fit shifted;
        fit_model_at(pts, n, m, offset_candidate(n_min, j), &shifted);
        if (shifted.error < best.error) {
            best = shifted;
            best_j = j;
        }
    }
    if (best_j == 0)
        return;
    /* Between the grid's neighbours of the best: a ternary search. */
    double lo = offset_candidate(n_min, best_j - 1);
    double hi = best_j + 1 < OFFSET_STEPS ? offset_candidate(n_min, best_j + 1)
                                          : n_min * (1 - ldexp(1, -OFFSET_STEPS));
    for (int i = 0; i < 40; i++) {
        struct model_fit x, y;
        double a = lo + (hi - lo) / 3, b = hi - (hi - lo) / 3;
        fit_model_at(pts, n, m, a, &x);
        fit_model_at(pts, n, m, b, &y);
        if (x.error < best.error)
            best = x;
        if (y.error < best.error)
            best = y;
        if (x.error < y.error)
            hi = b;
        else
            lo = a;
    }
    if (best.error < out->error * OFFSET_GAIN - OFFSET_MIN_GAIN)
        *out = best;
}

/* log cost = log c + k log (n - shift), weighted least squares; returns
 * the weighted residual sum of squares. */
static double fit_power_law_at(const struct growth_point *pts, size_t n, double shift,
                               struct growth_fit *out)
{
    double sx = 0, sz = 0, sw = 0;
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (pts[i].n > 0) {
            double w = weight_of(&pts[i]);
            sx += w * log(pts[i].n - shift);
            sz += w * log(positive(pts[i].cost));
            sw += w;
            m++;
        }
    double mx = sx / sw, mz = sz / sw, sxx = 0, sxz = 0, szz = 0;
    for (size_t i = 0; i < n; i++)
        if (pts[i].n > 0) {
            double w = weight_of(&pts[i]);
            double x = log(pts[i].n - shift) - mx, z = log(positive(pts[i].cost)) - mz;
            sxx += w * x * x;
            sxz += w * x * z;
            szz += w * z * z;
        }
    double k = sxz / sxx, ss_res = szz - k * sxz;
    if (ss_res < 0)
        ss_res = 0; /* rounding of an exact fit */
    /* Degrees of freedom: the points, less the line and the offset searched. */
    size_t params = shift > 0 ? 3 : 2;
    /* Weights are call counts: the variance per call, scaled to the points. */
    double per_point = ss_res / sw * (double)m;
    double se = m > params ? sqrt(per_point / (double)(m - params) / (sxx / sw * (double)m))
                           : INFINITY;
    double half = student_t95(m > params ? m - params : 0) * se;
    out->exponent = k;
    out->exponent_low = k - half;
    out->exponent_high = k + half;
    out->coefficient = exp(mz - k * mx);
    out->offset = shift;
    out->r2 = szz > 0 ? 1 - ss_res / szz : 1;
    return ss_res / sw;
}

static void fit_power_law(const struct growth_point *pts, size_t n, double n_min,
                          struct growth_fit *out)
{
    double best = fit_power_law_at(pts, n, 0, out);
    for (int j = 1; j < OFFSET_STEPS; j++) {
        struct growth_fit shifted = *out;
        double residual = fit_power_law_at(pts, n, offset_candidate(n_min, j), &shifted);
        if (residual < best * OFFSET_GAIN * OFFSET_GAIN - OFFSET_MIN_GAIN * OFFSET_MIN_GAIN) {
            best = residual;
            *out = shifted;
        }
    }
}

void growth_fit(const struct growth_point *pts, size_t n, struct growth_fit *out)
{
    memset(out, 0, sizeof *out);
    double lo = 0, hi = 0;
    for (size_t i = 0; i < n; i++) {
        if (pts[i].n <= 0)
            continue;
        if (out->sizes == 0 || pts[i].n < lo)
            lo = pts[i].n;
        if (out->sizes == 0 || pts[i].n > hi)
            hi = pts[i].n;
        out->sizes++;
    }
    if (out->sizes < GROWTH_MIN_SIZES) {
        snprintf(out->why, sizeof out->why, "%zu input size%s; a fit needs %d", out->sizes,
                 out->sizes == 1 ? "" : "s", GROWTH_MIN_SIZES);
        return;
    }
    if (hi < GROWTH_MIN_SPAN * lo) {
        snprintf(out->why, sizeof out->why, "input sizes span %.1fx; a fit needs %.0fx",
                 hi / lo, GROWTH_MIN_SPAN);
        return;
    }
    out->verdict = 1;
    fit_power_law(pts, n, lo, out);
    enum growth_model best = GROWTH_CONSTANT;
    for (int m = 0; m < GROWTH_MODELS; m++) {
        fit_model(pts, n, (enum growth_model)m, lo, &out->models[m]);
        if (out->models[m].error < out->models[best].error)
            best = (enum growth_model)m;
    }
    double good_enough = out->models[best].error * GROWTH_TIE_FACTOR + GROWTH_TIE_SLACK;
    for (int m = 0; m < (int)best; m++)
        if (out->models[m].error <= good_enough) {
            best = (enum growth_model)m;
            break;
        }
    out->best = best;
    out->poor = out->models[best].error > GROWTH_POOR_ERROR;
}
