/* growth_window: size classes, the large end, outliers (growth_window.h). */
#include "report/growth_window.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/oom.h"
#include "report/linear_solve.h"

/* A cost of 0 (a routine that ran no instruction) counts as 1. */
static double positive(double cost)
{
    return cost >= 1 ? cost : 1;
}

static double weight_of(const struct growth_point *p)
{
    return p->weight > 0 ? p->weight : 1;
}

long growth_class_of(double n)
{
    return (long)floor(log2(n) * GROWTH_CLASSES_PER_OCTAVE);
}

static int by_n(const void *x, const void *y)
{
    const struct sized *a = x, *b = y;
    return (a->n > b->n) - (a->n < b->n);
}

size_t growth_sized(const struct growth_point *pts, size_t n, struct sized *out,
                    size_t *classes)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (pts[i].n > 0)
            out[m++] = (struct sized){.n = pts[i].n, .cost = positive(pts[i].cost),
                                      .calls = weight_of(&pts[i]), .w = 1,
                                      .spread = pts[i].spread, .low = pts[i].low,
                                      .high = pts[i].high};
    qsort(out, m, sizeof *out, by_n);
    *classes = 0;
    for (size_t i = 0; i < m;) {
        size_t j = i;
        while (j < m && growth_class_of(out[j].n) == growth_class_of(out[i].n))
            j++;
        for (size_t k = i; k < j; k++)
            out[k].w = 1.0 / (double)(j - i);
        ++*classes;
        i = j;
    }
    return m;
}

size_t growth_classes_in(const struct sized *p, size_t lo, size_t hi)
{
    size_t count = 0;
    for (size_t i = lo; i < hi; i++)
        count += i == lo || growth_class_of(p[i].n) != growth_class_of(p[i - 1].n);
    return count;
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
        if (out->m == 0 || growth_class_of(c[i].n) != last_class)
            out->classes++;
        last_class = growth_class_of(c[i].n);
        out->m++;
    }
    if (out->classes < (size_t)k)
        return;
    for (int col = 0; col < k; col++) {
        double a[LINEAR_SOLVE_MAX][LINEAR_SOLVE_MAX] = {{0}}, e[3] = {0}, x[3] = {0};
        for (int r = 0; r < k; r++)
            for (int s = 0; s < k; s++)
                a[r][s] = xtx[r][s];
        e[col] = 1;
        if (linear_solve(k, a, e, x) != 0)
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
size_t growth_window_start(const struct sized *c, size_t n)
{
    double hi = log(c[n - 1].n), mid = hi - GROWTH_WINDOW_SHARE * (hi - log(c[0].n));
    size_t start = 0;
    while (start < n && log(c[start].n) < mid)
        start++;
    while (start > 0 && (growth_classes_in(c, start, n) < GROWTH_WINDOW_CLASSES ||
                         hi - log(c[start].n) < log(GROWTH_MIN_SPAN)))
        start--;
    while (start > 0 && growth_class_of(c[start - 1].n) == growth_class_of(c[start].n))
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
        while (j < hi && growth_class_of(c[j].n) == growth_class_of(c[i].n))
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
void growth_set_aside(struct sized *c, size_t lo, size_t hi, double x0, struct growth_fit *out)
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
            /* The largest size class is where growth shows: off the trend,
             * it puts the trend in question, not itself. */
            if (growth_class_of(c[i].n) == growth_class_of(c[hi - 1].n))
                continue;
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


double growth_loglog_r2(const struct sized *c, size_t lo, size_t hi, double x0)
{
    struct loglog_fit line;
    fit_loglog(c, lo, hi, x0, 1, &line);
    return line.ok && line.ss_tot > 0 ? 1 - line.ss_res / line.ss_tot : 1;
}
