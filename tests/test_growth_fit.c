/* test_growth_fit: the fitting of empirical cost functions against
 * synthetic data whose answer is known: exact power laws give their
 * exponent with a zero-width interval, each model's own data chooses that
 * model (with and without a constant term, with multiplicative noise), and
 * too few or too close input sizes give no verdict. */
#include <math.h>
#include <stdlib.h>

#include "tests/check.h"
#include "tools/growth_fit.h"

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

static void quantiles(void)
{
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
    model_choice();
    offsets_and_weights();
    no_verdict();
    quantiles();
    return check_report("test_growth_fit");
}
