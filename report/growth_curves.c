/* growth_curves: non-negative least squares of a + b g(n) [+ c n] on
 * relative residuals (see growth_curves.h). */
#include "report/growth_curves.h"

#include <math.h>
#include <string.h>

#include "report/linear_solve.h"

#define MAX_VARS 3
#define MAX_CONSTRAINTS 4
#define MAX_SYSTEM LINEAR_SOLVE_MAX

double curve_eval(const struct curve *c, curve_term term, double k, double n)
{
    double x = n - c->offset;
    return c->a + c->b * (term ? term(x) : pow(x, k)) + c->c * n;
}

/* The quadratic problem: minimise yy - 2 h.x + x.G.x over D variables with
 * C x >= 0 (N rows). Its optimum lies where some of the constraints hold
 * with equality and the rest are met: every such set of at most D active
 * constraints is tried (at most 15 here), the best feasible point kept.
 * x = 0 is always feasible (all coefficients 0). */
struct problem {
    int d, n;
    double g[MAX_VARS][MAX_VARS], h[MAX_VARS], yy;
    double c[MAX_CONSTRAINTS][MAX_VARS];
};

static double objective(const struct problem *p, const double *x)
{
    double v = p->yy;
    for (int r = 0; r < p->d; r++) {
        v -= 2 * p->h[r] * x[r];
        for (int s = 0; s < p->d; s++)
            v += x[r] * p->g[r][s] * x[s];
    }
    return v;
}

static void minimise(const struct problem *p, double *best)
{
    double best_value = INFINITY;
    memset(best, 0, MAX_VARS * sizeof *best);
    for (unsigned set = 0; set < 1u << p->n; set++) {
        int active[MAX_CONSTRAINTS], k = 0;
        for (int i = 0; i < p->n; i++)
            if (set & (1u << i))
                active[k++] = i;
        if (k > p->d)
            continue;
        /* [G  C_S'; C_S 0] [x; l] = [h; 0] */
        int size = p->d + k;
        double a[MAX_SYSTEM][MAX_SYSTEM] = {{0}}, b[MAX_SYSTEM] = {0}, x[MAX_SYSTEM] = {0};
        for (int r = 0; r < p->d; r++) {
            for (int s = 0; s < p->d; s++)
                a[r][s] = p->g[r][s];
            b[r] = p->h[r];
        }
        for (int i = 0; i < k; i++)
            for (int s = 0; s < p->d; s++) {
                a[p->d + i][s] = p->c[active[i]][s];
                a[s][p->d + i] = p->c[active[i]][s];
            }
        if (linear_solve(size, a, b, x) != 0)
            continue;
        double magnitude = 1;
        for (int s = 0; s < p->d; s++)
            magnitude = fmax(magnitude, fabs(x[s]));
        int feasible = 1;
        for (int i = 0; i < p->n && feasible; i++) {
            double v = 0;
            for (int s = 0; s < p->d; s++)
                v += p->c[i][s] * x[s];
            feasible = v >= -1e-9 * magnitude;
        }
        double value = feasible ? objective(p, x) : INFINITY;
        if (value < best_value) {
            best_value = value;
            memcpy(best, x, MAX_VARS * sizeof *best);
        }
    }
}

void curve_fit(const struct curve_point *pts, size_t m, curve_term term, double k, int linear,
               double offset, double min_share, struct curve *out)
{
    memset(out, 0, sizeof *out);
    out->error = 1;
    out->offset = offset;
    if (m == 0)
        return;
    /* Columns 1, g(n), n, each scaled by its value at the largest size
     * (its largest value: every g grows), so that n^3 stays well
     * conditioned and the share bound reads the same at every scale. */
    double n_top = 0;
    for (size_t i = 0; i < m; i++)
        n_top = fmax(n_top, pts[i].n);
    double g_top = term ? term(n_top - offset) : pow(n_top - offset, k);
    if (!(g_top > 0))
        g_top = 1;
    /* The residual (y - x.col) / y is 1 - x'.z with x = Y x' and
     * z = col Y / y, Y the largest cost: every entry of the problem is
     * then near 1, whatever the scale of the costs. */
    double y_top = 0;
    for (size_t i = 0; i < m; i++)
        y_top = fmax(y_top, pts[i].cost);
    struct problem p = {.d = linear ? 3 : 2};
    for (size_t i = 0; i < m; i++) {
        double x = pts[i].n - offset, g = term ? term(x) : pow(x, k), f = y_top / pts[i].cost;
        double z[MAX_VARS] = {f, g / g_top * f, pts[i].n / n_top * f};
        p.yy += pts[i].w;
        for (int r = 0; r < p.d; r++) {
            for (int s = 0; s < p.d; s++)
                p.g[r][s] += pts[i].w * z[r] * z[s];
            p.h[r] += pts[i].w * z[r];
        }
    }
    for (int v = 0; v < p.d; v++)
        p.c[p.n++][v] = 1;  /* every coefficient >= 0 */
    if (min_share > 0) {
        /* b g(top) (1 - S) - S a - S c n_top >= 0, in scaled columns */
        p.c[p.n][0] = -min_share;
        p.c[p.n][1] = 1 - min_share;
        if (linear)
            p.c[p.n][2] = -min_share;
        p.n++;
    }
    /* Each column scaled to unit weight (x = D x~), so that the
     * elimination's pivots compare like with like: the constant's column
     * weighs (largest cost / smallest cost)^2 times the others'. */
    double scale[MAX_VARS], x[MAX_VARS];
    for (int r = 0; r < p.d; r++)
        scale[r] = p.g[r][r] > 0 ? 1 / sqrt(p.g[r][r]) : 1;
    for (int r = 0; r < p.d; r++) {
        for (int s = 0; s < p.d; s++)
            p.g[r][s] *= scale[r] * scale[s];
        p.h[r] *= scale[r];
    }
    for (int i = 0; i < p.n; i++)
        for (int s = 0; s < p.d; s++)
            p.c[i][s] *= scale[s];
    minimise(&p, x);
    for (int r = 0; r < p.d; r++)
        x[r] *= scale[r];
    out->a = fmax(x[0], 0) * y_top;
    out->b = fmax(x[1], 0) * y_top / g_top;
    out->c = linear ? fmax(x[2], 0) * y_top / n_top : 0;
    double top = curve_eval(out, term, k, n_top);
    out->share = top > 0 ? out->b * g_top / top : 0;
    double sq = 0, weights = 0;
    for (size_t i = 0; i < m; i++) {
        double r = (pts[i].cost - curve_eval(out, term, k, pts[i].n)) / pts[i].cost;
        sq += pts[i].w * fmin(r * r, 1);
        weights += pts[i].w;
    }
    out->error = weights > 0 ? sqrt(sq / weights) : 1;
}
