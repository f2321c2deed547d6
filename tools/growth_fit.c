#include "tools/growth_fit.h"

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
    return fit->models[m].a + fit->models[m].b * growth_model_f(m, n);
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

/* cost ~ a + b f(n), b >= 0, least squares on relative residuals. f is
 * scaled by its largest value so that n^3 stays well conditioned. */
static void fit_model(const struct growth_point *pts, size_t n, enum growth_model m,
                      struct model_fit *out)
{
    double scale = 0;
    for (size_t i = 0; i < n; i++)
        if (pts[i].n > 0 && growth_model_f(m, pts[i].n) > scale)
            scale = growth_model_f(m, pts[i].n);
    if (scale <= 0)
        scale = 1;
    double w_sum = 0, f_sum = 0, y_sum = 0, ff_sum = 0, fy_sum = 0;
    for (size_t i = 0; i < n; i++) {
        if (pts[i].n <= 0)
            continue;
        double y = positive(pts[i].cost), w = 1 / (y * y), f = growth_model_f(m, pts[i].n) / scale;
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
    double sq = 0;
    size_t used = 0;
    for (size_t i = 0; i < n; i++) {
        if (pts[i].n <= 0)
            continue;
        double y = positive(pts[i].cost);
        double r = (y - (out->a + out->b * growth_model_f(m, pts[i].n))) / y;
        sq += r * r;
        used++;
    }
    out->error = used ? sqrt(sq / (double)used) : 0;
}

/* log cost = log c + k log n, ordinary least squares. */
static void fit_power_law(const struct growth_point *pts, size_t n, struct growth_fit *out)
{
    double sx = 0, sz = 0;
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (pts[i].n > 0) {
            sx += log(pts[i].n);
            sz += log(positive(pts[i].cost));
            m++;
        }
    double mx = sx / (double)m, mz = sz / (double)m, sxx = 0, sxz = 0, szz = 0;
    for (size_t i = 0; i < n; i++)
        if (pts[i].n > 0) {
            double x = log(pts[i].n) - mx, z = log(positive(pts[i].cost)) - mz;
            sxx += x * x;
            sxz += x * z;
            szz += z * z;
        }
    double k = sxz / sxx, ss_res = szz - k * sxz;
    if (ss_res < 0)
        ss_res = 0; /* rounding of an exact fit */
    double se = m > 2 ? sqrt(ss_res / (double)(m - 2) / sxx) : INFINITY;
    double half = student_t95(m - 2) * se;
    out->exponent = k;
    out->exponent_low = k - half;
    out->exponent_high = k + half;
    out->coefficient = exp(mz - k * mx);
    out->r2 = szz > 0 ? 1 - ss_res / szz : 1;
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
    fit_power_law(pts, n, out);
    enum growth_model best = GROWTH_CONSTANT;
    for (int m = 0; m < GROWTH_MODELS; m++) {
        fit_model(pts, n, (enum growth_model)m, &out->models[m]);
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
}
