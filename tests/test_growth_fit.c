/* test_growth_fit: the fitting of empirical cost functions against
 * synthetic data whose answer is known: exact power laws give their
 * exponent with a zero-width interval, each model's own data chooses that
 * model (with and without a constant term, with multiplicative noise) and
 * gives back its coefficients, residuals count up to 100%, offsets are
 * kept only when they clearly help, the exponent's interval is Student's t
 * over the residual degrees of freedom (the table checked against the
 * exact distribution), and too few or too close input sizes give no
 * verdict. */
#include <math.h>
#include <stdlib.h>

#include "tests/check.h"
#include "report/growth_fit.h"

#define MAX_POINTS 64

static size_t make(struct growth_point *pts, const double *ns, size_t count,
                   double (*cost)(double), double noise, unsigned seed)
{
    unsigned state = seed;
    for (size_t i = 0; i < count; i++) {
        state = state * 1103515245u + 12345u;
        double u = ((state >> 8) & 0xffff) / 65535.0 * 2 - 1; /* [-1, 1] */
        pts[i] = (struct growth_point){ns[i], cost(ns[i]) * (1 + noise * u), 1};
    }
    return count;
}

static double c_const(double n) { (void)n; return 500; }
static double c_log(double n) { return 40 + 25 * log2(n); }
static double c_lin(double n) { return 50 + 2 * n; }
static double c_nlogn(double n) { return 7 * n * log2(n); }
static double c_nlogn_offset(double n) { return 30 + 5 * n * log2(n); }
static double c_quad(double n) { return 5 + 3 * n * n; }
static double c_quad_mixed(double n) { return 12 + 9 * n + 4 * n * n; } /* str_tolower-like */
static double c_cube(double n) { return 100 + n * n * n; }
static double c_pow15(double n) { return 4 * pow(n, 1.5); }

static const double geometric[] = {2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256,
                                   384, 512, 768, 1024, 1536, 2048};
#define N_GEOMETRIC (sizeof geometric / sizeof *geometric)

static void expect_model(const char *what, double (*cost)(double), const double *ns, size_t count,
                         double noise, enum growth_model want)
{
    struct growth_point pts[MAX_POINTS];
    for (unsigned seed = 1; seed <= (noise > 0 ? 20u : 1u); seed++) {
        size_t n = make(pts, ns, count, cost, noise, seed);
        struct growth_fit fit;
        growth_fit(pts, n, &fit);
        CHECK(fit.verdict);
        if (fit.best != want) {
            fprintf(stderr, "%s (noise %.2f, seed %u): chose %s, expected %s; errors:", what, noise,
                    seed, growth_model_name(fit.best), growth_model_name(want));
            for (int m = 0; m < GROWTH_MODELS; m++)
                fprintf(stderr, " %s %.4f", growth_model_name((enum growth_model)m),
                        fit.models[m].error);
            fprintf(stderr, "\n");
            check_failures++;
        }
    }
}

static void exact_power_laws(void)
{
    struct growth_point pts[MAX_POINTS];
    struct growth_fit fit;
    /* 4 n^1.5: exponent 1.5, coefficient 4, r2 1, no width. */
    growth_fit(pts, make(pts, geometric, N_GEOMETRIC, c_pow15, 0, 1), &fit);
    CHECK(fit.verdict);
    CHECK(fabs(fit.exponent - 1.5) < 1e-9);
    CHECK(fabs(fit.coefficient - 4) < 1e-6);
    CHECK(fabs(fit.r2 - 1) < 1e-9);
    CHECK(fit.exponent_high - fit.exponent_low < 1e-6);
    CHECK_EQ(fit.sizes, N_GEOMETRIC);
    /* 3 n^2 + 5 over large n: exponent near 2 (the constant term pulls it
     * a little below, and no noise makes the interval say so). */
    growth_fit(pts, make(pts, geometric + 8, N_GEOMETRIC - 8, c_quad, 0, 1), &fit);
    CHECK(fabs(fit.exponent - 2) < 0.001);
    CHECK(fit.exponent_high < 2.0);
    /* Noise widens the interval but it still holds the true exponent. */
    growth_fit(pts, make(pts, geometric, N_GEOMETRIC, c_pow15, 0.1, 7), &fit);
    CHECK(fit.exponent_low < 1.5 && 1.5 < fit.exponent_high);
    CHECK(fit.exponent_high - fit.exponent_low > 0.001);
    CHECK(fit.exponent_high - fit.exponent_low < 0.2);
    /* The exact fit of its own model has error 0 and its coefficients. */
    growth_fit(pts, make(pts, geometric, N_GEOMETRIC, c_lin, 0, 1), &fit);
    CHECK(fit.models[GROWTH_LINEAR].error < 1e-9);
    CHECK(fabs(fit.models[GROWTH_LINEAR].a - 50) < 1e-6);
    CHECK(fabs(fit.models[GROWTH_LINEAR].b - 2) < 1e-9);
    CHECK(fabs(growth_model_eval(&fit, GROWTH_LINEAR, 1000) - 2050) < 1e-6);
    CHECK(fit.models[GROWTH_QUADRATIC].error > 0.05);
}

/* Each model's own exact data gives back its coefficients: b is the
 * factor of log2 n, n log2 n, n^2..., not of another base's logarithm. */
static void model_coefficients(void)
{
    static const struct {
        double (*cost)(double);
        enum growth_model model;
        double a, b;
    } exact[] = {
        {c_log, GROWTH_LOG, 40, 25},       {c_lin, GROWTH_LINEAR, 50, 2},
        {c_nlogn, GROWTH_NLOGN, 0, 7},     {c_quad, GROWTH_QUADRATIC, 5, 3},
        {c_cube, GROWTH_CUBIC, 100, 1},
    };
    for (size_t i = 0; i < sizeof exact / sizeof *exact; i++) {
        struct growth_point pts[MAX_POINTS];
        struct growth_fit fit;
        growth_fit(pts, make(pts, geometric, N_GEOMETRIC, exact[i].cost, 0, 1), &fit);
        const struct model_fit *m = &fit.models[exact[i].model];
        if (fit.best != exact[i].model || m->offset != 0 || m->error > 1e-9 ||
            fabs(m->a - exact[i].a) > 1e-6 * (1 + exact[i].a) ||
            fabs(m->b - exact[i].b) > 1e-9 * exact[i].b) {
            fprintf(stderr, "%s: a %.9g b %.9g offset %g error %g, expected a %g b %g\n",
                    growth_model_name(exact[i].model), m->a, m->b, m->offset, m->error,
                    exact[i].a, exact[i].b);
            check_failures++;
        }
    }
}

/* A size seen once at 1% of the cost of sizes seen a million times each
 * (a call that returned early) counts as a residual of 100%, not of 99
 * times its cost. The data fall, so every model is the constant a that
 * the weights 1/cost^2 give. */
static void residuals_capped(void)
{
    struct growth_point pts[6];
    for (size_t i = 0; i < 5; i++)
        pts[i] = (struct growth_point){2 << i, 100, 1e6};
    pts[5] = (struct growth_point){64, 1, 1};
    struct growth_fit fit;
    growth_fit(pts, 6, &fit);
    CHECK(fit.verdict && fit.best == GROWTH_CONSTANT);
    double a = (5e6 / 100 + 1) / (5e6 / 1e4 + 1), r = 1 - a / 100;
    double error = sqrt((5e6 * r * r + 1) / (5e6 + 1));
    for (int m = 0; m < GROWTH_MODELS; m++)
        if (fabs(fit.models[m].a - a) > 1e-9 * a || fit.models[m].b != 0 ||
            fabs(fit.models[m].error - error) > 1e-9 * error) {
            fprintf(stderr, "%s: a %.9g b %g error %.9g, expected a %.9g b 0 error %.9g\n",
                    growth_model_name((enum growth_model)m), fit.models[m].a, fit.models[m].b,
                    fit.models[m].error, a, error);
            check_failures++;
        }
}

static void model_choice(void)
{
    static const double small[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 14, 16, 20, 24, 28, 32,
                                   40, 48, 56, 64, 80, 96, 112, 128};
    const size_t n_small = sizeof small / sizeof *small;
    for (int noisy = 0; noisy < 2; noisy++) {
        double noise = noisy ? 0.03 : 0;
        expect_model("constant", c_const, geometric, N_GEOMETRIC, noise, GROWTH_CONSTANT);
        expect_model("log", c_log, geometric, N_GEOMETRIC, noise, GROWTH_LOG);
        expect_model("linear", c_lin, geometric, N_GEOMETRIC, noise, GROWTH_LINEAR);
        expect_model("n log n", c_nlogn, geometric, N_GEOMETRIC, noise, GROWTH_NLOGN);
        expect_model("n log n + c", c_nlogn_offset, geometric, N_GEOMETRIC, noise, GROWTH_NLOGN);
        expect_model("quadratic", c_quad, geometric, N_GEOMETRIC, noise, GROWTH_QUADRATIC);
        expect_model("quadratic, small n", c_quad_mixed, small, n_small, noise, GROWTH_QUADRATIC);
        expect_model("cubic", c_cube, geometric, N_GEOMETRIC, noise, GROWTH_CUBIC);
    }
}

/* A routine that reads 40 cells besides its input: cost 5 (n - 40)^2 + 100
 * over n = 44..300. Without the offset every model bends; with it, n^2 and
 * an exponent of 2. And a size seen once at a wild cost among sizes seen
 * 1000 times: the weights keep it from mattering. */
static double c_offset(double n) { return 100 + 5 * (n - 40) * (n - 40); }

static void offsets_and_weights(void)
{
    struct growth_point pts[MAX_POINTS];
    size_t n = 0;
    for (double x = 44; x <= 300; x *= 1.15)
        pts[n++] = (struct growth_point){x, c_offset(x), 1};
    struct growth_fit fit;
    growth_fit(pts, n, &fit);
    CHECK(fit.verdict && fit.best == GROWTH_QUADRATIC);
    CHECK(fit.models[GROWTH_QUADRATIC].offset > 30 && fit.models[GROWTH_QUADRATIC].offset < 44);
    CHECK(fit.models[GROWTH_QUADRATIC].error < 0.02);
    CHECK(fit.exponent_low < 2.05 && fit.exponent_high > 1.95);
    CHECK(fit.offset > 30);
    /* No offset where none is needed. */
    growth_fit(pts, make(pts, geometric, N_GEOMETRIC, c_pow15, 0, 1), &fit);
    CHECK(fit.offset == 0);
    growth_fit(pts, make(pts, geometric, N_GEOMETRIC, c_quad, 0, 1), &fit);
    CHECK(fit.models[GROWTH_QUADRATIC].offset == 0);
    /* a + 50 log2(n - 0.6): the offset is found when it makes a clear
     * difference (a = 1000), and not kept when it would cut the error by
     * less than a tenth of a point (a = 10000: 0.04% without it). */
    for (int big = 0; big < 2; big++) {
        for (size_t i = 0; i < N_GEOMETRIC; i++)
            pts[i] = (struct growth_point){geometric[i], (big ? 10000 : 1000) +
                                                             50 * log2(geometric[i] - 0.6), 1};
        growth_fit(pts, N_GEOMETRIC, &fit);
        const struct model_fit *m = &fit.models[GROWTH_LOG];
        if (big)
            CHECK(m->offset == 0 && m->error > 0.0002 && m->error < 0.001);
        else
            CHECK(fabs(m->offset - 0.6) < 1e-3 && m->error < 1e-6);
    }
    /* One size seen once, ten times too costly, among sizes seen 1000 times. */
    n = make(pts, geometric, N_GEOMETRIC, c_nlogn, 0, 1);
    for (size_t i = 0; i < n; i++)
        pts[i].weight = 1000;
    pts[n++] = (struct growth_point){4096, 10 * c_nlogn(4096), 1};
    growth_fit(pts, n, &fit);
    CHECK(fit.best == GROWTH_NLOGN);
    CHECK(fit.models[GROWTH_NLOGN].error < 0.05);
    /* The same point weighing as much as the others spoils the fit. */
    pts[n - 1].weight = 1000;
    growth_fit(pts, n, &fit);
    CHECK(fit.models[GROWTH_NLOGN].error > 0.1);
}

/* The exponent's 95% interval is Student's t over the residual degrees
 * of freedom, the points less the line's two parameters and less the
 * offset when one was searched for and kept; recomputed here the textbook
 * way (equal weights) at the offset the fit kept. */
static void check_interval(const char *what, const struct growth_point *pts, size_t n,
                           const struct growth_fit *fit)
{
    double sx = 0, sz = 0, sxx = 0, sxz = 0, szz = 0;
    for (size_t i = 0; i < n; i++) {
        sx += log(pts[i].n - fit->offset);
        sz += log(pts[i].cost);
    }
    for (size_t i = 0; i < n; i++) {
        double x = log(pts[i].n - fit->offset) - sx / n, z = log(pts[i].cost) - sz / n;
        sxx += x * x;
        sxz += x * z;
        szz += z * z;
    }
    double k = sxz / sxx;
    size_t df = n - (fit->offset > 0 ? 3 : 2);
    double half = student_t95(df) * sqrt((szz - k * sxz) / (double)df / sxx);
    if (fabs(fit->exponent - k) > 1e-9 || fabs(fit->exponent_low - (k - half)) > 1e-9 * half ||
        fabs(fit->exponent_high - (k + half)) > 1e-9 * half) {
        fprintf(stderr, "%s: exponent %.9f [%.9f, %.9f], expected %.9f +- %.9f\n", what,
                fit->exponent, fit->exponent_low, fit->exponent_high, k, half);
        check_failures++;
    }
}

static void intervals(void)
{
    struct growth_point pts[MAX_POINTS];
    struct growth_fit fit;
    size_t n = make(pts, geometric, N_GEOMETRIC, c_pow15, 0.1, 7);
    growth_fit(pts, n, &fit);
    CHECK(fit.offset == 0);
    check_interval("4 n^1.5, 10% noise", pts, n, &fit);
    n = 0;
    for (double x = 44; x <= 300; x *= 1.15)
        pts[n++] = (struct growth_point){x, c_offset(x) * (1 + 0.05 * sin(x)), 1};
    growth_fit(pts, n, &fit);
    CHECK(fit.offset > 30);
    check_interval("5 (n - 40)^2 + 100, 5% noise", pts, n, &fit);
}

static void no_verdict(void)
{
    struct growth_point pts[MAX_POINTS];
    struct growth_fit fit;
    /* Four sizes: one short of a fit. */
    growth_fit(pts, make(pts, geometric, GROWTH_MIN_SIZES - 1, c_quad, 0, 1), &fit);
    CHECK(!fit.verdict);
    CHECK_EQ(fit.sizes, GROWTH_MIN_SIZES - 1);
    CHECK_STR(fit.why, "4 input sizes; a fit needs 5");
    growth_fit(pts, make(pts, geometric, GROWTH_MIN_SIZES, c_quad, 0, 1), &fit);
    CHECK(fit.verdict);
    /* One size. */
    growth_fit(pts, make(pts, geometric, 1, c_quad, 0, 1), &fit);
    CHECK(!fit.verdict);
    CHECK_STR(fit.why, "1 input size; a fit needs 5");
    /* n = 0 is no size: five points, one of them 0. */
    static const double with_zero[] = {0, 10, 20, 40, 80};
    growth_fit(pts, make(pts, with_zero, 5, c_lin, 0, 1), &fit);
    CHECK(!fit.verdict);
    CHECK_EQ(fit.sizes, 4);
    /* Many sizes close together tell nothing about growth. */
    static const double close[] = {100, 110, 120, 130, 140, 150, 160, 170, 180, 190, 200};
    growth_fit(pts, make(pts, close, 11, c_quad, 0, 1), &fit);
    CHECK(!fit.verdict);
    CHECK_STR(fit.why, "input sizes span 2.0x; a fit needs 4x");
    /* No points at all. */
    growth_fit(pts, 0, &fit);
    CHECK(!fit.verdict);
}

/* The exact two-sided 95% quantile of Student's t with DF degrees of
 * freedom: the q where P(0 <= T <= q) = 0.475, the density integrated by
 * Simpson's rule and q found by bisection. */
static double t95_exact(size_t df)
{
    double v = (double)df;
    double norm = exp(lgamma((v + 1) / 2) - lgamma(v / 2)) / sqrt(v * acos(-1));
    double lo = 1.9, hi = 13;
    for (int it = 0; it < 50; it++) {
        double q = (lo + hi) / 2, h = q / 2000, mass = 0;
        for (int i = 0; i <= 2000; i++) {
            double t = i * h, w = i == 0 || i == 2000 ? 1 : i % 2 ? 4 : 2;
            mass += w * norm * pow(1 + t * t / v, -(v + 1) / 2);
        }
        if (mass * h / 3 < 0.475)
            lo = q;
        else
            hi = q;
    }
    return (lo + hi) / 2;
}

static void quantiles(void)
{
    /* Every entry of the table, to its three decimals; beyond it, the
     * expansion to 2e-4. */
    for (size_t df = 1; df <= 30; df++)
        if (fabs(student_t95(df) - t95_exact(df)) > 0.0006) {
            fprintf(stderr, "student_t95(%zu) is %.4f, exactly %.4f\n", df, student_t95(df),
                    t95_exact(df));
            check_failures++;
        }
    static const size_t beyond[] = {31, 32, 35, 40, 50, 60, 80, 120, 200, 1000};
    for (size_t i = 0; i < sizeof beyond / sizeof *beyond; i++)
        if (fabs(student_t95(beyond[i]) - t95_exact(beyond[i])) > 0.0002) {
            fprintf(stderr, "student_t95(%zu) is %.5f, exactly %.5f\n", beyond[i],
                    student_t95(beyond[i]), t95_exact(beyond[i]));
            check_failures++;
        }
    CHECK(fabs(student_t95(1) - 12.706) < 1e-9);
    CHECK(fabs(student_t95(10) - 2.228) < 1e-9);
    CHECK(fabs(student_t95(31) - 2.040) < 0.002);
    CHECK(fabs(student_t95(120) - 1.980) < 0.002);
    CHECK(fabs(student_t95(100000) - 1.960) < 0.001);
    CHECK(isinf(student_t95(0)));
    /* Decreasing in the degrees of freedom. */
    for (size_t df = 1; df < 200; df++)
        CHECK(student_t95(df + 1) < student_t95(df));
}

int main(void)
{
    exact_power_laws();
    model_coefficients();
    residuals_capped();
    model_choice();
    offsets_and_weights();
    intervals();
    no_verdict();
    quantiles();
    return check_report("test_growth_fit");
}
