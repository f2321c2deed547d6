/* growth_fit: one verdict on how a routine's cost grows (see growth_fit.h). */
#include "report/growth_fit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/oom.h"

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
    return f->a + f->b * growth_model_f(m, n - f->offset) + f->c * n;
}

double growth_fit_eval(const struct growth_fit *fit, double n)
{
    if (!fit->power)
        return growth_model_eval(fit, fit->best, n);
    double x = log(n > 0 ? n : 1) - fit->loglog_x0;
    return exp(fit->loglog[0] + fit->loglog[1] * x);
}

const char *growth_verdict_text(const struct growth_fit *fit, char *buf, size_t len)
{
    if (!fit->verdict)
        snprintf(buf, len, "-");
    else if (fit->power)
        snprintf(buf, len, "~n^%.2g%s", fit->exponent, fit->poor ? "?" : "");
    else
        snprintf(buf, len, "%s%s", growth_model_name(fit->best), fit->poor ? "?" : "");
    return buf;
}

const char *growth_kind_name(enum growth_kind kind)
{
    static const char *const names[] = {"none", "model", "power", "poor"};
    return (unsigned)kind < sizeof names / sizeof *names ? names[kind] : "?";
}

const char *growth_fit_describe(const struct growth_fit *fit, char *buf, size_t len)
{
    if (!fit->verdict) {
        snprintf(buf, len, "no verdict: %s", fit->why);
        return buf;
    }
    char verdict[32];
    size_t used = (size_t)snprintf(
        buf, len, "%s%s over n = %.6g..%.6g (%zu of %zu size classes); exponent over "
                  "n = %.6g..%.6g: %.3f [%.3f, %.3f]",
        growth_verdict_text(fit, verdict, sizeof verdict),
        fit->kind == GROWTH_POOR ? " (poor)" : fit->power ? " (between the models)" : "",
        fit->window_lo, fit->window_hi, fit->window_classes, fit->classes, fit->exponent_from,
        fit->window_hi, fit->exponent, fit->exponent_low, fit->exponent_high);
    if (fit->set_aside && used < len) {
        used += (size_t)snprintf(buf + used, len - used, "; %zu size class%s set aside (n =",
                                 fit->set_aside, fit->set_aside == 1 ? "" : "es");
        for (size_t i = 0; i < fit->set_aside && i < GROWTH_SET_ASIDE_MAX && used < len; i++)
            used += (size_t)snprintf(buf + used, len - used, "%s %.6g", i ? "," : "",
                                     fit->set_aside_n[i]);
        if (used < len)
            used += (size_t)snprintf(buf + used, len - used, "%s; %.6g call%s)",
                                     fit->set_aside > GROWTH_SET_ASIDE_MAX ? ", ..." : "",
                                     fit->set_aside_calls, fit->set_aside_calls == 1 ? "" : "s");
    }
    if (used < len)
        used += (size_t)snprintf(buf + used, len - used, "; relative error of");
    for (int m = 0; m < GROWTH_MODELS && used < len; m++) {
        used += (size_t)snprintf(buf + used, len - used, "%s %s %.1f%%", m ? "," : "",
                                 model_names[m], 100 * fit->models[m].error);
        if (fit->models[m].offset > 0 && used < len)
            used += (size_t)snprintf(buf + used, len - used, " (n - %.1f)",
                                     fit->models[m].offset);
    }
    return buf;
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

/* ---- points and size classes ---- */

/* A size, with its weight in the fits: each size class (a quarter of an
 * octave) weighs 1 in all, shared by its sizes, so that the fit follows the
 * whole range of sizes and not the sizes seen most often. */
struct sized {
    double n, cost, calls, w;
    int set_aside;
};

/* A cost of 0 (a routine that ran no instruction) counts as 1. */
static double positive(double cost)
{
    return cost >= 1 ? cost : 1;
}

static double weight_of(const struct growth_point *p)
{
    return p->weight > 0 ? p->weight : 1;
}

static long class_of(double n)
{
    return (long)floor(log2(n) * GROWTH_CLASSES_PER_OCTAVE);
}

static int by_n(const void *x, const void *y)
{
    const struct sized *a = x, *b = y;
    return (a->n > b->n) - (a->n < b->n);
}

/* The points with n > 0, smallest first, weighted; returns how many and
 * the number of classes through *CLASSES. */
static size_t make_points(const struct growth_point *pts, size_t n, struct sized *out,
                          size_t *classes)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (pts[i].n > 0)
            out[m++] = (struct sized){pts[i].n, positive(pts[i].cost), weight_of(&pts[i]), 1, 0};
    qsort(out, m, sizeof *out, by_n);
    *classes = 0;
    for (size_t i = 0; i < m;) {
        size_t j = i;
        while (j < m && class_of(out[j].n) == class_of(out[i].n))
            j++;
        for (size_t k = i; k < j; k++)
            out[k].w = 1.0 / (double)(j - i);
        ++*classes;
        i = j;
    }
    return m;
}

static size_t classes_in(const struct sized *p, size_t lo, size_t hi)
{
    size_t count = 0;
    for (size_t i = lo; i < hi; i++)
        count += i == lo || class_of(p[i].n) != class_of(p[i - 1].n);
    return count;
}

/* ---- least squares ---- */

/* Solves the K x K system A x = b (K <= 3) by elimination with partial
 * pivoting; returns non-zero when singular. A and b are destroyed. */
static int solve(int k, double a[3][3], double b[3], double x[3])
{
    for (int c = 0; c < k; c++) {
        int p = c;
        for (int r = c + 1; r < k; r++)
            if (fabs(a[r][c]) > fabs(a[p][c]))
                p = r;
        if (fabs(a[p][c]) < 1e-300)
            return -1;
        for (int j = 0; j < k; j++) {
            double t = a[c][j];
            a[c][j] = a[p][j];
            a[p][j] = t;
        }
        double t = b[c];
        b[c] = b[p];
        b[p] = t;
        for (int r = c + 1; r < k; r++) {
            double f = a[r][c] / a[c][c];
            for (int j = c; j < k; j++)
                a[r][j] -= f * a[c][j];
            b[r] -= f * b[c];
        }
    }
    for (int c = k - 1; c >= 0; c--) {
        double s = b[c];
        for (int j = c + 1; j < k; j++)
            s -= a[c][j] * x[j];
        x[c] = s / a[c][c];
    }
    return 0;
}

/* A polynomial of degree DEG (1 or 2) in x = log n - x0 through log cost,
 * by weighted least squares over the points not set aside. */
struct loglog_fit {
    int deg;
    double p[3];
    double inv[3][3];   /* (X'WX)^-1 */
    double cov[3][3];   /* of p */
    double ss_res, ss_tot, w_sum;
    size_t m;           /* points used */
    size_t classes;     /* their classes */
    int ok;
};

static void fit_loglog(const struct sized *c, size_t lo, size_t hi, double x0, int deg,
                       struct loglog_fit *out)
{
    *out = (struct loglog_fit){.deg = deg};
    int k = deg + 1;
    double xtx[3][3] = {{0}}, xty[3] = {0}, y_sum = 0, yy_sum = 0;
    long last_class = 0;
    for (size_t i = lo; i < hi; i++) {
        if (c[i].set_aside)
            continue;
        double x = log(c[i].n) - x0, y = log(c[i].cost), w = c[i].w, pw[3] = {1, x, x * x};
        for (int r = 0; r < k; r++) {
            for (int s = 0; s < k; s++)
                xtx[r][s] += w * pw[r] * pw[s];
            xty[r] += w * pw[r] * y;
        }
        y_sum += w * y;
        yy_sum += w * y * y;
        out->w_sum += w;
        if (out->m == 0 || class_of(c[i].n) != last_class)
            out->classes++;
        last_class = class_of(c[i].n);
        out->m++;
    }
    if (out->classes < (size_t)k)
        return;
    for (int col = 0; col < k; col++) {
        double a[3][3], e[3] = {0}, x[3] = {0};
        memcpy(a, xtx, sizeof a);
        e[col] = 1;
        if (solve(k, a, e, x) != 0)
            return;
        for (int r = 0; r < k; r++)
            out->inv[r][col] = x[r];
    }
    for (int r = 0; r < k; r++) {
        out->p[r] = 0;
        for (int s = 0; s < k; s++)
            out->p[r] += out->inv[r][s] * xty[s];
    }
    double ss = 0;
    for (size_t i = lo; i < hi; i++) {
        if (c[i].set_aside)
            continue;
        double x = log(c[i].n) - x0;
        double r = log(c[i].cost) - (out->p[0] + out->p[1] * x + out->p[2] * x * x);
        ss += c[i].w * r * r;
    }
    out->ss_res = ss;
    out->ss_tot = yy_sum - y_sum * y_sum / out->w_sum;
    /* Degrees of freedom count classes, since a class weighs one point. */
    double var = out->classes > (size_t)k
                     ? ss / out->w_sum * (double)out->classes / (double)(out->classes - (size_t)k)
                     : INFINITY;
    for (int r = 0; r < k; r++)
        for (int s = 0; s < k; s++)
            out->cov[r][s] = out->inv[r][s] * var * out->w_sum / (double)out->classes;
    out->ok = 1;
}

static double loglog_at(const struct loglog_fit *f, double x)
{
    return f->p[0] + f->p[1] * x + f->p[2] * x * x;
}

/* ---- the window and its outliers ---- */

static double median_of(double *v, size_t n)
{
    if (n == 0)
        return 0;
    for (size_t i = 1; i < n; i++)  /* insertion sort: short lists */
        for (size_t j = i; j > 0 && v[j - 1] > v[j]; j--) {
            double t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The first point of the large end: the upper half of the logarithmic
 * range, widened to GROWTH_WINDOW_CLASSES classes spanning GROWTH_MIN_SPAN. */
static size_t window_start(const struct sized *c, size_t n)
{
    double hi = log(c[n - 1].n), mid = (log(c[0].n) + hi) / 2;
    size_t start = 0;
    while (start < n && log(c[start].n) < mid)
        start++;
    while (start > 0 && (classes_in(c, start, n) < GROWTH_WINDOW_CLASSES ||
                         hi - log(c[start].n) < log(GROWTH_MIN_SPAN)))
        start--;
    while (start > 0 && class_of(c[start - 1].n) == class_of(c[start].n))
        start--;  /* whole classes */
    return start;
}

/* The robust trend of the window: a Theil-Sen line through the classes'
 * median costs (robust to nearly 3 classes in 10 off the trend) as a start,
 * then a line or parabola reweighted by Tukey's biweight until it settles.
 * Returns the robust scale of the residuals; F is the fit. */
static double robust_trend(struct sized *c, size_t lo, size_t hi, double x0, double *psi,
                           struct loglog_fit *f)
{
    size_t m = hi - lo, nc = 0;
    double *cx = xcalloc(m, sizeof *cx), *cy = xcalloc(m, sizeof *cy);
    double *tmp = xcalloc(m > 1 ? m * (m - 1) / 2 : 1, sizeof *tmp);
    for (size_t i = lo; i < hi;) {
        size_t j = i, k = 0;
        while (j < hi && class_of(c[j].n) == class_of(c[i].n))
            j++;
        double xs = 0;
        for (size_t q = i; q < j; q++) {
            xs += log(c[q].n) - x0;
            tmp[k++] = log(c[q].cost);
        }
        cx[nc] = xs / (double)(j - i);
        cy[nc++] = median_of(tmp, k);
        i = j;
    }
    size_t pairs = 0;
    for (size_t i = 0; i < nc; i++)
        for (size_t j = i + 1; j < nc; j++)
            tmp[pairs++] = (cy[j] - cy[i]) / (cx[j] - cx[i]);
    double slope = median_of(tmp, pairs);
    for (size_t i = 0; i < nc; i++)
        tmp[i] = cy[i] - slope * cx[i];
    *f = (struct loglog_fit){.deg = 1, .p = {median_of(tmp, nc), slope, 0}, .ok = 1};
    int deg = nc >= 7 ? 2 : 1;
    double scale = 0;
    struct sized *reweighted = xcalloc(m, sizeof *reweighted);
    for (int iter = 0; iter < 30; iter++) {
        for (size_t i = lo; i < hi; i++)
            tmp[i - lo] = fabs(log(c[i].cost) - loglog_at(f, log(c[i].n) - x0));
        scale = 1.4826 * median_of(tmp, m);
        if (scale < 1e-6)
            scale = 1e-6;
        for (size_t i = lo; i < hi; i++) {
            double u = (log(c[i].cost) - loglog_at(f, log(c[i].n) - x0)) / (4.685 * scale);
            psi[i - lo] = fabs(u) < 1 ? (1 - u * u) * (1 - u * u) : 0;
            reweighted[i - lo] = c[i];
            reweighted[i - lo].w = c[i].w * psi[i - lo];
            reweighted[i - lo].set_aside = 0;
        }
        struct loglog_fit next;
        fit_loglog(reweighted, 0, m, x0, deg, &next);
        if (!next.ok)
            break;
        double change = fabs(next.p[0] - f->p[0]) + fabs(next.p[1] - f->p[1]) +
                        fabs(next.p[2] - f->p[2]);
        *f = next;
        if (change < 1e-9)
            break;
    }
    free(reweighted);
    free(cx);
    free(cy);
    free(tmp);
    return scale;
}

/* Sets aside the points far off the robust trend (beyond
 * GROWTH_OUTLIER_SIGMAS robust deviations and GROWTH_OUTLIER_RATIO) that
 * stand for no more calls than the window's median point, furthest first,
 * up to GROWTH_OUTLIER_SHARE of the window's weight. */
static void set_aside_outliers(struct sized *c, size_t lo, size_t hi, double x0,
                               struct growth_fit *out)
{
    size_t m = hi - lo;
    double *calls = xcalloc(m, sizeof *calls), *psi = xcalloc(m, sizeof *psi);
    double weight = 0, aside = 0;
    for (size_t i = lo; i < hi; i++) {
        calls[i - lo] = c[i].calls;
        weight += c[i].w;
    }
    double typical_calls = median_of(calls, m);
    struct loglog_fit f;
    double scale = robust_trend(c, lo, hi, x0, psi, &f);
    double limit = fmax(GROWTH_OUTLIER_SIGMAS * scale, log(GROWTH_OUTLIER_RATIO));
    for (;;) {
        size_t worst = hi;
        double worst_dev = limit;
        for (size_t i = lo; i < hi; i++) {
            double r = fabs(log(c[i].cost) - loglog_at(&f, log(c[i].n) - x0));
            if (!c[i].set_aside && r > worst_dev && c[i].calls <= typical_calls &&
                aside + c[i].w <= weight * GROWTH_OUTLIER_SHARE) {
                worst_dev = r;
                worst = i;
            }
        }
        if (worst == hi)
            break;
        c[worst].set_aside = 1;
        aside += c[worst].w;
        if (out->set_aside < GROWTH_SET_ASIDE_MAX)
            out->set_aside_n[out->set_aside] = c[worst].n;
        out->set_aside++;
        out->set_aside_calls += c[worst].calls;
    }
    free(calls);
    free(psi);
}

/* ---- the exponent at the large end ---- */

/* The first point of the exponent's range: the upper half of the window's
 * logarithmic range, widened downwards to GROWTH_EXPONENT_CLASSES classes. A
 * line over the top of the sizes is bent little by lower-order terms
 * (25 n + n^2/8 has slope 1.9 over [1024, 2048], 1.5 over [180, 2048]). */
static size_t exponent_start(const struct sized *c, size_t lo, size_t hi)
{
    double top = log(c[hi - 1].n), mid = (log(c[lo].n) + top) / 2;
    size_t start = lo;
    while (start < hi && log(c[start].n) < mid)
        start++;
    while (start > lo && classes_in(c, start, hi) < GROWTH_EXPONENT_CLASSES)
        start--;
    while (start > lo && class_of(c[start - 1].n) == class_of(c[start].n))
        start--;  /* whole classes */
    return start;
}

static void fit_exponent(const struct sized *c, size_t lo, size_t hi, double x0,
                         struct growth_fit *out)
{
    struct loglog_fit line;
    fit_loglog(c, lo, hi, x0, 1, &line);
    size_t df = line.classes > 2 ? line.classes - 2 : 0;
    double var = line.cov[1][1];
    double half = student_t95(df) * sqrt(var > 0 ? var : 0);
    out->exponent_from = c[lo].n;
    out->exponent = line.p[1];
    out->exponent_low = line.p[1] - half;
    out->exponent_high = line.p[1] + half;
    memcpy(out->loglog, line.p, sizeof out->loglog);
    out->loglog_x0 = x0;
    out->r2 = line.ss_tot > 0 ? 1 - line.ss_res / line.ss_tot : 1;
    out->loglog_error = line.w_sum > 0 ? exp(sqrt(line.ss_res / line.w_sum)) - 1 : 0;
}

/* The slope of model M's fitted curve over the exponent's range, measured
 * as the data's is: a line through the curve's values at the same sizes,
 * with the same weights. */
static double model_slope(const struct sized *c, size_t lo, size_t hi, double x0,
                          const struct growth_fit *fit, enum growth_model m)
{
    struct sized *curve = xcalloc(hi - lo, sizeof *curve);
    for (size_t i = lo; i < hi; i++) {
        curve[i - lo] = c[i];
        curve[i - lo].cost = growth_model_eval(fit, m, c[i].n);
        if (!(curve[i - lo].cost > 0))
            curve[i - lo].cost = 1e-300;
    }
    struct loglog_fit line;
    fit_loglog(curve, 0, hi - lo, x0, 1, &line);
    free(curve);
    return line.ok ? line.p[1] : 0;
}

/* ---- the models ---- */

/* cost ~ a + b f(n - shift) [+ c n], b, c >= 0, least squares on relative
 * residuals over the window's classes. f and n are scaled by their largest
 * value so that n^3 stays well conditioned. */
static void fit_model_at(const struct sized *cl, size_t lo, size_t hi,
                         enum growth_model m, double shift, int linear_term,
                         struct model_fit *out)
{
    double f_scale = 0, n_scale = 0;
    for (size_t i = lo; i < hi; i++) {
        if (growth_model_f(m, cl[i].n - shift) > f_scale)
            f_scale = growth_model_f(m, cl[i].n - shift);
        if (cl[i].n > n_scale)
            n_scale = cl[i].n;
    }
    if (f_scale <= 0)
        f_scale = 1;
    if (n_scale <= 0)
        n_scale = 1;
    /* Normal equations of the weighted problem, columns 1, f, n. */
    double g[3][3] = {{0}}, h[3] = {0}, yy = 0;
    for (size_t i = lo; i < hi; i++) {
        if (cl[i].set_aside)
            continue;
        double y = cl[i].cost, w = cl[i].w / (y * y);
        yy += w * y * y;
        double col[3] = {1, growth_model_f(m, cl[i].n - shift) / f_scale, cl[i].n / n_scale};
        for (int r = 0; r < 3; r++) {
            for (int s = 0; s < 3; s++)
                g[r][s] += w * col[r] * col[s];
            h[r] += w * col[r] * y;
        }
    }
    /* Every subset of the columns, each coefficient non-negative (a
     * negative constant would let a + b n pass for n log n): the feasible
     * solution with the smallest weighted squared error. */
    double best[3] = {0}, best_sq = INFINITY;
    for (int subset = 1; subset < 8; subset++) {
        if ((subset & 2) && m == GROWTH_CONSTANT)
            continue;
        if ((subset & 4) && !linear_term)
            continue;
        int idx[3], k = 0;
        for (int j = 0; j < 3; j++)
            if (subset & (1 << j))
                idx[k++] = j;
        double a[3][3], b[3], x[3] = {0};
        for (int r = 0; r < k; r++) {
            for (int q = 0; q < k; q++)
                a[r][q] = g[idx[r]][idx[q]];
            b[r] = h[idx[r]];
        }
        if (solve(k, a, b, x) != 0)
            continue;
        int feasible = 1;
        for (int r = 0; r < k; r++)
            feasible &= x[r] >= 0;
        if (!feasible)
            continue;
        double coef[3] = {0};
        for (int r = 0; r < k; r++)
            coef[idx[r]] = x[r];
        /* sum w (y - c.col)^2 = yy - 2 c.h + c G c */
        double sq = yy;
        for (int r = 0; r < 3; r++) {
            sq -= 2 * coef[r] * h[r];
            for (int q = 0; q < 3; q++)
                sq += coef[r] * g[r][q] * coef[q];
        }
        if (sq < best_sq) {
            best_sq = sq;
            memcpy(best, coef, sizeof best);
        }
    }
    out->a = best[0];
    out->b = best[1] / f_scale;
    out->c = best[2] / n_scale;
    out->offset = shift;
    double sq = 0, weights = 0;
    for (size_t i = lo; i < hi; i++) {
        if (cl[i].set_aside)
            continue;
        double y = cl[i].cost;
        double r = (y - (out->a + out->b * growth_model_f(m, cl[i].n - shift) +
                         out->c * cl[i].n)) / y;
        sq += cl[i].w * (r * r < 1 ? r * r : 1);
        weights += cl[i].w;
    }
    out->error = weights > 0 ? sqrt(sq / weights) : 0;
}

/* Offsets tried: OFFSET_STEPS - 1 steps up to OFFSET_MAX_SHARE of the
 * window's smallest size; step 0 is no offset. At the large end a fixed
 * extra input is a small part of the input: a larger offset would let a
 * straight line pass for n log n. */
#define OFFSET_STEPS 13
#define OFFSET_MAX_SHARE 0.25
/* An offset is kept when it cuts the error by this factor and by
 * OFFSET_MIN_GAIN at least. */
#define OFFSET_GAIN 0.98
#define OFFSET_MIN_GAIN 0.001

static double offset_candidate(double n_min, double j)
{
    return n_min * OFFSET_MAX_SHARE * j / (OFFSET_STEPS - 1);
}

/* The offset n0 absorbs input a routine reads besides its argument (a
 * lookup table, its caller's frame): sizes shifted by a constant, which
 * would bend every model. */
static void fit_model(const struct sized *cl, size_t lo, size_t hi, enum growth_model m,
                      struct model_fit *out)
{
    double n_min = cl[lo].n;
    fit_model_at(cl, lo, hi, m, 0, 0, out);
    if (m != GROWTH_CONSTANT) {
        struct model_fit best = *out;
        int best_j = 0;
        for (int j = 1; j < OFFSET_STEPS; j++) {
            struct model_fit shifted;
            fit_model_at(cl, lo, hi, m, offset_candidate(n_min, j), 0, &shifted);
            if (shifted.error < best.error) {
                best = shifted;
                best_j = j;
            }
        }
        if (best_j > 0) {
            /* Between the grid's neighbours of the best: a ternary search. */
            double a_end = offset_candidate(n_min, best_j - 1);
            double b_end = offset_candidate(n_min, best_j + 1 < OFFSET_STEPS ? best_j + 1 : best_j);
            for (int i = 0; i < 40; i++) {
                struct model_fit x, y;
                double p = a_end + (b_end - a_end) / 3, q = b_end - (b_end - a_end) / 3;
                fit_model_at(cl, lo, hi, m, p, 0, &x);
                fit_model_at(cl, lo, hi, m, q, 0, &y);
                if (x.error < best.error)
                    best = x;
                if (y.error < best.error)
                    best = y;
                if (x.error < y.error)
                    b_end = q;
                else
                    a_end = p;
            }
            if (best.error < out->error * OFFSET_GAIN - OFFSET_MIN_GAIN)
                *out = best;
        }
    }
    /* A superlinear model may carry a linear term: 25 n + n^2/8 is n^2. */
    if (m == GROWTH_NLOGN || m == GROWTH_QUADRATIC || m == GROWTH_CUBIC) {
        struct model_fit with_linear;
        fit_model_at(cl, lo, hi, m, 0, 1, &with_linear);
        if (with_linear.error < out->error * OFFSET_GAIN - OFFSET_MIN_GAIN)
            *out = with_linear;
    }
}

/* The exponents model M shows over sizes [LO, HI] (its own, without
 * constants or lower-order terms): a range for the ones with a logarithm. */
static void model_exponents(enum growth_model m, double lo, double hi, double *from,
                            double *to)
{
    double small = log(lo > M_E ? lo : M_E), large = log(hi > M_E ? hi : M_E);
    static const double power[GROWTH_MODELS] = {0, 0, 1, 1, 2, 3};
    *from = *to = power[m];
    if (m == GROWTH_LOG || m == GROWTH_NLOGN) {
        *from += 1 / large;
        *to += 1 / small;
    }
}

int growth_model_allowed(const struct growth_fit *fit, enum growth_model m)
{
    double from, to, slope = fit->models[m].slope;
    model_exponents(m, fit->exponent_from, fit->window_hi, &from, &to);
    /* Lower-order terms hide some of the leading growth, as much as the
     * fitted curve shows; a fixed part of the input (a table read besides
     * the data, a flag) steepens the slope, n / (n - n0) times: as much as
     * the curve shows where the model, offset included, fits closely. */
    double low = fmin(from, slope);
    double high = fit->models[m].error <= GROWTH_OFFSET_FIT ? fmax(to, slope) : to;
    return low - GROWTH_SLACK_BELOW <= fit->exponent_high &&
           high + GROWTH_SLACK_ABOVE >= fit->exponent_low &&
           slope >= from - GROWTH_LEADING_SLACK;
}

/* ---- the verdict ---- */

/* The exponent as the verdict: growth between the models, or none of them
 * fitting. The model named is the nearest, for whoever asks. */
static void power_verdict(struct growth_fit *out)
{
    double nearest = INFINITY;
    for (int m = 0; m < GROWTH_MODELS; m++) {
        double from, to;
        model_exponents((enum growth_model)m, out->window_lo, out->window_hi, &from, &to);
        double d = fmin(fabs(from - out->exponent), fabs(to - out->exponent));
        if (d < nearest) {
            nearest = d;
            out->best = (enum growth_model)m;
        }
    }
    out->power = 1;
    out->poor = !(out->exponent_high - out->exponent_low <= GROWTH_POWER_WIDTH) ||
                !(out->loglog_error <= GROWTH_POOR_ERROR);
    out->kind = out->poor ? GROWTH_POOR : GROWTH_POWER;
}

static void decide(struct growth_fit *out)
{
    int candidate[GROWTH_MODELS] = {0}, any = 0;
    for (int m = 0; m < GROWTH_MODELS; m++) {
        candidate[m] = growth_model_allowed(out, (enum growth_model)m);
        any |= candidate[m];
    }
    if (!any) {
        power_verdict(out);
        return;
    }
    enum growth_model best = GROWTH_MODELS;
    for (int m = 0; m < GROWTH_MODELS; m++)
        if (candidate[m] && (best == GROWTH_MODELS || out->models[m].error < out->models[best].error))
            best = (enum growth_model)m;
    /* A slower-growing model about as good is preferred, but not one that
     * would fall short of GROWTH_POOR_ERROR where the best does not: the
     * verdict would turn poor, or a power law, while a model fits. */
    double good_enough = out->models[best].error * GROWTH_TIE_FACTOR + GROWTH_TIE_SLACK;
    if (out->models[best].error <= GROWTH_POOR_ERROR && good_enough > GROWTH_POOR_ERROR)
        good_enough = GROWTH_POOR_ERROR;
    for (int m = 0; m < (int)best; m++)
        if (candidate[m] && out->models[m].error <= good_enough) {
            best = (enum growth_model)m;
            break;
        }
    out->best = best;
    int wide = !(out->exponent_high - out->exponent_low <= GROWTH_POOR_WIDTH);
    out->poor = wide || out->models[best].error > GROWTH_POOR_ERROR;
    /* No model fits, but the power law does: it is the answer. */
    if (out->poor && !wide && out->exponent_high - out->exponent_low <= GROWTH_POWER_WIDTH &&
        out->loglog_error <= GROWTH_POOR_ERROR) {
        power_verdict(out);
        return;
    }
    out->kind = out->poor ? GROWTH_POOR : GROWTH_MODEL;
}

const struct growth_gate growth_default_gate = {GROWTH_MIN_SIZES, GROWTH_MIN_CLASSES,
                                                GROWTH_MIN_SPAN};

void growth_fit(const struct growth_point *pts, size_t n, struct growth_fit *out)
{
    growth_fit_gated(pts, n, &growth_default_gate, out);
}

void growth_fit_gated(const struct growth_point *pts, size_t n, const struct growth_gate *gate,
                      struct growth_fit *out)
{
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < n; i++)
        out->sizes += pts[i].n > 0;
    struct sized *c = xcalloc(out->sizes ? out->sizes : 1, sizeof *c);
    size_t m = make_points(pts, n, c, &out->classes);
    double span = m ? c[m - 1].n / c[0].n : 0;
    if (out->sizes < gate->sizes || out->sizes < 3) {
        snprintf(out->why, sizeof out->why, "%zu input size%s; a fit needs %zu", out->sizes,
                 out->sizes == 1 ? "" : "s", gate->sizes);
    } else if (out->classes < gate->classes || out->classes < 3) {
        snprintf(out->why, sizeof out->why,
                 "%zu input sizes in %zu size classes; a fit needs %zu classes", out->sizes,
                 out->classes, gate->classes);
    } else if (span < gate->span) {
        snprintf(out->why, sizeof out->why, "input sizes span %.1fx; a fit needs %.3gx", span,
                 gate->span);
    } else {
        size_t lo = window_start(c, m), hi = m;
        out->window_lo = c[lo].n;
        out->window_hi = c[hi - 1].n;
        out->window_classes = classes_in(c, lo, hi);
        double x0 = log(c[hi - 1].n);
        set_aside_outliers(c, lo, hi, x0, out);
        size_t from = exponent_start(c, lo, hi);
        fit_exponent(c, from, hi, x0, out);
        for (int k = 0; k < GROWTH_MODELS; k++) {
            fit_model(c, lo, hi, (enum growth_model)k, &out->models[k]);
            out->models[k].slope = model_slope(c, from, hi, x0, out, (enum growth_model)k);
        }
        out->verdict = 1;
        decide(out);
    }
    free(c);
}
