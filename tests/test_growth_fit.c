/* test_growth_fit: the growth verdict against synthetic data whose answer
 * is known, and its rule restated here, apart from report/growth_fit.c.
 *
 * Known answers: each model's cost a + b f(n), with a set-up a as large as
 * the work at the largest size, over spans of 4x to 64x, gives that model,
 * or "n or n log n" where the span cannot tell those apart, never a power
 * law or a slower model; a lower-order term (c n + b n^2) or a fixed part
 * of the input (b (n - n0)) does not change the model; a constant cost,
 * even one that shrinks, gives 1 and never a negative exponent; growth
 * between the models gives a power law; the large end decides; isolated
 * slow calls are set aside; a verdict resting on one call, or on a few
 * calls beside the bulk of them, is marked '?'; a cost that spreads over
 * 10x at one size gets no fit; the spread at equal n is the noise.
 *
 * The rule restated (check_rule): from the points and the fit's reported
 * coefficients, each model's error is recomputed; from those errors, the
 * noise and the shares, which models fit, which are candidates, which the
 * criterion cannot tell apart and what the verdict must then say; and the
 * exponent is never negative and its range holds the models named. Over
 * 3000 random mixtures of terms, sizes, noise and set-ups, every verdict
 * obeys it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/growth_fit.h"
#include "tests/check.h"

#define MAX_POINTS 4096

/* Uniform in [-1, 1]. */
static double uniform(unsigned *state)
{
    *state = *state * 1103515245u + 12345u;
    return ((*state >> 8) & 0xffff) / 65535.0 * 2 - 1;
}

static double f_of(int model, double n)
{
    switch (model) {
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
    default:
        return n * n * n;
    }
}

static const char *const names[] = {"1", "log n", "n", "n log n", "n^2", "n^3"};

/* ---- the rule, restated from growth_fit.h ---- */

/* Quarter-octave size classes, each weighing 1 shared by its sizes. */
static long class_of(double n)
{
    return (long)floor(log2(n) * 4);
}

/* The weighted RMS of (cost - curve) / cost over the window, each at most
 * 1, for curve a + b g(n - n0) + c n (g = n^k when MODEL < 0). */
static double error_of(const struct growth_point *pts, size_t count, const struct growth_fit *fit,
                       const struct model_fit *f, int model, double k)
{
    double sq = 0, w = 0;
    for (size_t i = 0; i < count; i++) {
        double n = pts[i].n;
        int aside = 0;
        for (size_t s = 0; s < fit->set_aside && s < GROWTH_SET_ASIDE_MAX; s++)
            aside |= fit->set_aside_n[s] == n;
        if (n < fit->window_lo || n > fit->window_hi || aside)
            continue;
        size_t same = 0;
        for (size_t j = 0; j < count; j++)
            same += class_of(pts[j].n) == class_of(n);
        double cost = pts[i].cost >= 1 ? pts[i].cost : 1;
        double g = model < 0 ? pow(n - f->offset, k) : f_of(model, n - f->offset);
        double r = (cost - (f->a + f->b * g + f->c * n)) / cost;
        sq += fmin(r * r, 1) / (double)same;
        w += 1.0 / (double)same;
    }
    return w > 0 ? sqrt(sq / w) : 1;
}

/* Akaike's criterion, small-sample corrected, errors under FLOOR counted as
 * FLOOR; no degree of freedom left is as good as excluded. */
static double criterion(double error, double floor, double m, double p)
{
    double e = fmax(error, floor);
    return m * log(e * e) + 2 * p + (m - p - 1 > 0 ? 2 * p * (p + 1) / (m - p - 1) : 1e6);
}

static void rule_miss(const char *what, const struct growth_fit *fit, const char *problem)
{
    char text[1024];
    fprintf(stderr, "%s: %s: %s\n", what, problem, growth_fit_describe(fit, text, sizeof text));
    check_failures++;
}

/* Checks FIT of the COUNT points against the rule; returns 0 when it holds. */
static int check_rule(const char *what, const struct growth_point *pts, size_t count,
                      const struct growth_fit *fit)
{
    if (!fit->verdict)
        return 0;
    int before = check_failures;
    /* The classes judged, and the noise: the spread at equal n (sizes of
     * more than one call), pooled, at least 1%. */
    double classes = 0, spread_sq = 0, spread_w = 0;
    long last = 0;
    int any = 0;
    for (size_t i = 0; i < count; i++) {
        int aside = 0;
        for (size_t s = 0; s < fit->set_aside && s < GROWTH_SET_ASIDE_MAX; s++)
            aside |= fit->set_aside_n[s] == pts[i].n;
        if (pts[i].n < fit->window_lo || pts[i].n > fit->window_hi || aside)
            continue;
        size_t same = 0;
        for (size_t j = 0; j < count; j++)
            same += class_of(pts[j].n) == class_of(pts[i].n);
        if (pts[i].weight >= 2) {
            spread_sq += pts[i].spread * pts[i].spread / (double)same;
            spread_w += 1.0 / (double)same;
        }
        if (!any || class_of(pts[i].n) != last)
            classes++;
        any = 1;
        last = class_of(pts[i].n);
    }
    double noise = fmax(0.01, spread_w > 0 ? sqrt(spread_sq / spread_w) : 0);
    if (fabs(noise - fit->noise) > 1e-9)
        rule_miss(what, fit, "noise is not the spread at equal n");
    /* Each model's error, recomputed from its coefficients. */
    double error[GROWTH_MODELS], terms[GROWTH_MODELS], best = 1;
    for (int m = 0; m < GROWTH_MODELS; m++) {
        const struct model_fit *f = &fit->models[m];
        error[m] = error_of(pts, count, fit, f, m, 0);
        if (fabs(error[m] - f->error) > 1e-6)
            rule_miss(what, fit, "a model's error is not its curve's");
        if (f->a < 0 || f->b < 0 || f->c < 0 || f->offset < 0)
            rule_miss(what, fit, "a negative coefficient");
        /* 1 for the constant; 2; one more for c n, or an offset but on n
         * (where it is a negative constant). */
        terms[m] = m == GROWTH_CONSTANT
                       ? 1
                       : 2 + (f->c > 0) + (f->offset > 0 && m != GROWTH_LINEAR);
        if (terms[m] + 1 <= classes)
            best = fmin(best, error[m]);
    }
    if (classes >= 5)
        best = fmin(best, fit->power_law_error);
    if (fabs(best - fit->best_error) > 1e-6)
        rule_miss(what, fit, "best_error is not the smallest error");
    /* Fits: within 1.2 times the best error plus the noise, the noise
     * counted no larger than the best error (at least 1%); a candidate:
     * fits, a degree of freedom left, and its growing term at least a
     * quarter of its cost at the largest size (1 always). */
    double tolerance = 1.2 * best + fmax(0.01, fmin(noise, best)), lowest = INFINITY;
    int candidate[GROWTH_MODELS], count_candidates = 0, chosen = -1;
    for (int m = 0; m < GROWTH_MODELS; m++) {
        const struct model_fit *f = &fit->models[m];
        double top = fit->window_hi;
        double grow = f->b * f_of(m, top - f->offset);
        double share = m == GROWTH_CONSTANT ? 1 : grow / (f->a + grow + f->c * top);
        candidate[m] = error[m] <= tolerance && terms[m] + 1 <= classes && share >= 0.25;
        count_candidates += candidate[m];
        double aic = criterion(error[m], noise / 2, classes, terms[m]);
        if (candidate[m] && (chosen < 0 || terms[m] < terms[chosen] ||
                             (terms[m] == terms[chosen] && aic < lowest))) {
            lowest = aic;
            chosen = m;
        }
    }
    char want[64], got[64];
    growth_verdict_text(fit, got, sizeof got);
    int poor = fit->poor;
    if (count_candidates == 0) {
        /* A power law: its exponent, '?' when wide or over 10%. */
        snprintf(want, sizeof want, "~n^%.2g", fit->exponent);
        if (!fit->power)
            rule_miss(what, fit, "a model where none is a candidate");
        if (!poor && (fit->exponent_high - fit->exponent_low > 0.5 ||
                      fit->power_curve.error > 0.10 || classes < 5))
            rule_miss(what, fit, "a confident power law that is wide, poor or overfitted");
    } else {
        /* The verdict: of the candidates with fewest terms, the lowest
         * criterion; its rivals, candidates with as many terms within 4 of
         * it: one, a pair of neighbours ("n or n log n"), or a range
         * (always '?'). */
        int lo = GROWTH_MODELS, hi = -1, rival[GROWTH_MODELS], rivals = 0;
        for (int m = 0; m < GROWTH_MODELS; m++) {
            rival[m] = candidate[m] && terms[m] == terms[chosen] &&
                       criterion(error[m], noise / 2, classes, terms[m]) <= lowest + 4;
            rivals += rival[m];
            if (rival[m]) {
                lo = m < lo ? m : lo;
                hi = m;
            }
        }
        if (lo == hi)
            snprintf(want, sizeof want, "%s", names[lo]);
        else
            snprintf(want, sizeof want, "%s%s%s", names[lo],
                     rivals == 2 && hi == lo + 1 ? " or " : "..", names[hi]);
        if (fit->power || (int)fit->best != chosen)
            rule_miss(what, fit, "the model named is not the candidate of lowest criterion");
        if (!(rivals == 1 || (rivals == 2 && hi == lo + 1)) && !poor)
            rule_miss(what, fit, "models the criterion cannot tell apart, without '?'");
        if (!poor && error[chosen] > 0.10)
            rule_miss(what, fit, "a confident model off by more than 10%");
        if (!poor && fit->exponent_high - fit->exponent_low > 1.0)
            rule_miss(what, fit, "a confident model whose exponent's range is over 1 wide");
        /* A confident verdict fits no worse than any curve by more than
         * the noise allows. */
        if (!poor && error[chosen] > tolerance)
            rule_miss(what, fit, "a confident verdict fitting worse than another");
        for (int m = lo; m <= hi; m++) {
            static const double power[] = {0, 0, 1, 1, 2, 3};
            if (rival[m] && m != GROWTH_LOG && m != GROWTH_NLOGN &&
                (power[m] < fit->exponent_low - 1e-9 || power[m] > fit->exponent_high + 1e-9))
                rule_miss(what, fit, "a model named outside the exponent's range");
        }
    }
    if (poor)
        strcat(want, "?");
    if (strcmp(want, got) != 0) {
        char problem[160];
        snprintf(problem, sizeof problem, "says '%s' where the rule says '%s'", got, want);
        rule_miss(what, fit, problem);
    }
    if (fit->exponent < 0 || fit->exponent_low < 0)
        rule_miss(what, fit, "a negative exponent");
    if (!(fit->exponent_low <= fit->exponent && fit->exponent <= fit->exponent_high))
        rule_miss(what, fit, "the exponent outside its range");
    if (fit->poor != (fit->kind == GROWTH_POOR))
        rule_miss(what, fit, "poor but not of kind poor");
    return check_failures != before;
}

/* ---- known answers ---- */

/* Sizes from LO to SPAN times LO, a fifth apart, CALLS calls each at cost
 * a + b f(n) times (1 + noise) (each call drawn apart: the spread). */
static size_t make_setup(struct growth_point *pts, int model, double lo, double span, double a,
                         double b, double noise, unsigned seed)
{
    unsigned state = seed;
    size_t count = 0;
    double top = lo * span;
    for (double n = lo; n <= top && count < MAX_POINTS;
         n = n < top ? fmin(ceil(n * 1.2), top) : INFINITY) {
        double cost = a + b * f_of(model, n), sum = 0, sq = 0, low = INFINITY, high = 0;
        for (int call = 0; call < 3; call++) {
            double c = cost * (1 + noise * uniform(&state));
            sum += c;
            sq += c * c;
            low = fmin(low, c);
            high = fmax(high, c);
        }
        double mean = sum / 3, var = (sq - 3 * mean * mean) / 2;
        pts[count++] = (struct growth_point){n, high, 3, var > 0 ? sqrt(var) / mean : 0, low,
                                             high};
    }
    return count;
}

static void report_miss(const char *what, const struct growth_fit *fit, const char *want)
{
    char text[1024];
    fprintf(stderr, "%s: expected %s, got %s\n", what, want,
            growth_fit_describe(fit, text, sizeof text));
    check_failures++;
}

/* Every model with a set-up as large as its work at the largest size: its
 * own verdict, or "n or n log n" for those two, never a power law or a
 * slower model. log n and 1 too (the program corpus cannot make them: no
 * routine reads n cells in log n instructions). */
static void setup_costs(void)
{
    static const double spans[] = {4, 8, 16, 64};
    static const double smallest[GROWTH_MODELS] = {4, 16, 16, 16, 8, 3};
    for (int model = 0; model < GROWTH_MODELS; model++)
        for (size_t s = 0; s < sizeof spans / sizeof *spans; s++)
            for (unsigned seed = 0; seed < 4; seed++) {
                double noise = seed ? 0.005 : 0, top = smallest[model] * spans[s];
                double b = 5, a = model ? b * f_of(model, top) : 700;
                struct growth_point pts[MAX_POINTS];
                size_t count = make_setup(pts, model, smallest[model], spans[s], a, b, noise,
                                          seed + 1);
                struct growth_fit fit;
                growth_fit(pts, count, &fit);
                char what[96], text[32];
                snprintf(what, sizeof what, "%.0f + %.0f %s over %gx (noise %.3f)", a, b,
                         names[model], spans[s], noise);
                check_rule(what, pts, count, &fit);
                growth_verdict_text(&fit, text, sizeof text);
                int right = strcmp(text, names[model]) == 0 ||
                            ((model == GROWTH_LINEAR || model == GROWTH_NLOGN) &&
                             strcmp(text, "n or n log n") == 0);
                if (!right)
                    report_miss(what, &fit, names[model]);
                if (fit.exponent < 0)
                    report_miss(what, &fit, "a non-negative exponent");
            }
}

/* Costs with lower-order terms, exact: the model of the leading term; a
 * fixed part of the input, b (n - n0): n. */
static double c_quad_mixed(double n) { return 25 * n + n * n / 8; }
static double c_nlogn_mixed(double n) { return 30 + 40 * n + 5 * n * log2(n); }
static double c_table(double n) { return 3 * (n - 20); }
static double c_cube(double n) { return 100 + n * n * n; }

/* 21 sizes from 16 to 16384, a half octave apart. */
static const double wide[] = {16,   23,   32,   45,   64,   91,    128,   181,   256,  362,  512,
                              724,  1024, 1448, 2048, 2896, 4096, 5793, 8192, 11585, 16384};
#define N_WIDE (sizeof wide / sizeof *wide)

static size_t make(struct growth_point *pts, const double *ns, size_t count,
                   double (*cost)(double), double noise, unsigned seed)
{
    unsigned state = seed;
    for (size_t i = 0; i < count; i++)
        pts[i] = (struct growth_point){ns[i], cost(ns[i]) * (1 + noise * uniform(&state)), 1, 0,
                                       0, 0};
    return count;
}

static void expect(const char *what, double (*cost)(double), double noise, const char *want)
{
    for (unsigned seed = 1; seed <= (noise > 0 ? 20u : 1u); seed++) {
        struct growth_point pts[N_WIDE];
        struct growth_fit fit;
        growth_fit(pts, make(pts, wide, N_WIDE, cost, noise, seed), &fit);
        check_rule(what, pts, N_WIDE, &fit);
        char text[32];
        if (strcmp(growth_verdict_text(&fit, text, sizeof text), want) != 0)
            report_miss(what, &fit, want);
    }
}

static void lower_order_terms(void)
{
    expect("25 n + n^2 / 8", c_quad_mixed, 0, "n^2");
    expect("25 n + n^2 / 8", c_quad_mixed, 0.02, "n^2");
    expect("30 + 40 n + 5 n log n", c_nlogn_mixed, 0, "n log n");
    expect("3 (n - 20)", c_table, 0, "n");
    expect("100 + n^3", c_cube, 0.02, "n^3");
    /* The lower-order term is found as such, and the exponent is the
     * leading term's. */
    struct growth_point pts[N_WIDE];
    struct growth_fit fit;
    growth_fit(pts, make(pts, wide, N_WIDE, c_quad_mixed, 0, 1), &fit);
    CHECK(fabs(fit.models[GROWTH_QUADRATIC].c - 25) < 0.01);
    CHECK(fabs(fit.models[GROWTH_QUADRATIC].b - 0.125) < 1e-5);
    CHECK(fabs(fit.exponent - 2) < 0.01);
    growth_fit(pts, make(pts, wide, N_WIDE, c_table, 0, 1), &fit);
    CHECK(fit.models[GROWTH_LINEAR].offset > 0);
    CHECK(fabs(fit.exponent - 1) < 0.02);
}

/* A constant cost whose input varies: 1, exponent 0. One that shrinks as
 * the input grows (memcmp returning at the first difference: 26
 * instructions for short inputs, 18 for long ones): 1, maybe '?', never a
 * negative exponent. */
static void constant_costs(void)
{
    struct growth_point pts[64];
    size_t count = 0;
    for (double n = 2; n <= 256; n = ceil(n * 1.25))
        pts[count++] = (struct growth_point){n, 70, 40, 0, 70, 70};
    struct growth_fit fit;
    growth_fit(pts, count, &fit);
    check_rule("constant 70", pts, count, &fit);
    char text[32];
    CHECK_STR(growth_verdict_text(&fit, text, sizeof text), "1");
    CHECK(fit.exponent == 0 && fit.exponent_low == 0 && fit.exponent_high < 0.2);
    count = 0;
    static const double shrinking[][2] = {{4, 26}, {5, 26}, {6, 26}, {16, 18}, {17, 18}, {18, 18}};
    for (size_t i = 0; i < 6; i++)
        pts[count++] = (struct growth_point){shrinking[i][0], shrinking[i][1], 5, 0,
                                             shrinking[i][1], shrinking[i][1]};
    growth_fit(pts, count, &fit);
    check_rule("memcmp", pts, count, &fit);
    growth_verdict_text(&fit, text, sizeof text);
    CHECK(strcmp(text, "1") == 0 || strcmp(text, "1?") == 0);
    CHECK(fit.exponent >= 0 && fit.exponent_low >= 0);
}

/* Growth between the models is a power law, never one of them. */
static double c_pow13(double n) { return 9 * pow(n, 1.3); }
static double c_pow15(double n) { return 4 * pow(n, 1.5); }
static double c_pow25(double n) { return 2 * pow(n, 2.5); }
static double c_sqrt(double n) { return 30 * sqrt(n); }

static void between_models(void)
{
    static const struct {
        const char *what;
        double (*cost)(double);
        double k;
    } cases[] = {{"9 n^1.3", c_pow13, 1.3}, {"4 n^1.5", c_pow15, 1.5},
                 {"2 n^2.5", c_pow25, 2.5}, {"30 sqrt n", c_sqrt, 0.5}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        for (unsigned seed = 1; seed <= 20; seed++) {
            double noise = seed == 1 ? 0 : 0.02;
            struct growth_point pts[N_WIDE];
            struct growth_fit fit;
            growth_fit(pts, make(pts, wide, N_WIDE, cases[i].cost, noise, seed), &fit);
            check_rule(cases[i].what, pts, N_WIDE, &fit);
            if (fit.kind != GROWTH_POWER || fabs(fit.exponent - cases[i].k) > 0.05)
                report_miss(cases[i].what, &fit, "a power law");
        }
    struct growth_point pts[N_WIDE];
    struct growth_fit fit;
    growth_fit(pts, make(pts, wide, N_WIDE, c_pow15, 0, 1), &fit);
    CHECK(fabs(fit.exponent - 1.5) < 1e-3);
    CHECK(fabs(growth_fit_eval(&fit, 1000) / (4 * pow(1000, 1.5)) - 1) < 1e-3);
    char text[32];
    CHECK_STR(growth_verdict_text(&fit, text, sizeof text), "~n^1.5");
}

/* Cost about 2000 up to n = 256 (a fixed set-up dominates: n^2 is 15% of
 * it there), growing as n^2 beyond: the large end says n^2, though most
 * sizes are small. Thousands of small calls at every size below 1000 do
 * not outweigh a few large ones. */
static double c_threshold(double n) { return 2000 + n + 0.005 * n * n; }

static void large_end(void)
{
    struct growth_point pts[MAX_POINTS];
    size_t count = 0;
    for (double n = 4; n <= 8192; n *= 1.1)
        pts[count++] = (struct growth_point){floor(n), c_threshold(floor(n)), 1, 0, 0, 0};
    struct growth_fit fit;
    growth_fit(pts, count, &fit);
    check_rule("threshold", pts, count, &fit);
    if (!(fit.kind == GROWTH_MODEL && fit.best == GROWTH_QUADRATIC))
        report_miss("threshold", &fit, "n^2");
    CHECK(fit.window_lo > 64 && fit.window_hi == pts[count - 1].n);
    count = 0;
    for (int n = 1; n <= 1000; n++)
        pts[count++] = (struct growth_point){n, 50 + 6 * n * log2(n + 1), 5000, 0, 0, 0};
    for (double n = 1500; n <= 200000; n *= 1.5)
        pts[count++] = (struct growth_point){n, 50 + 6 * n * log2(n + 1), 1, 0, 0, 0};
    growth_fit(pts, count, &fit);
    check_rule("many small calls", pts, count, &fit);
    CHECK(fit.kind == GROWTH_MODEL && fit.best == GROWTH_NLOGN && fit.alternative < 0);
    CHECK(fit.window_lo > 300);
}

static double c_quad(double n) { return 5 + 3 * n * n; }
static double c_nlogn(double n) { return 7 * n * log2(n); }

static void outliers(void)
{
    struct growth_point pts[N_WIDE];
    struct growth_fit fit;
    /* A routine's first call, a large input read for a tiny cost (lazy
     * binding in the dynamic linker): one call, among sizes of 100 calls. */
    size_t count = make(pts, wide, N_WIDE, c_quad, 0.02, 7);
    for (size_t i = 0; i < count; i++)
        pts[i].weight = 100;
    pts[count - 3].cost /= 200;
    pts[count - 3].weight = 1;
    growth_fit(pts, count, &fit);
    check_rule("first call", pts, count, &fit);
    CHECK(fit.kind == GROWTH_MODEL && fit.best == GROWTH_QUADRATIC);
    CHECK_EQ(fit.set_aside, 1);
    CHECK(fit.set_aside_n[0] == wide[N_WIDE - 3] && fit.set_aside_calls == 1);
    char text[1024];
    if (!strstr(growth_fit_describe(&fit, text, sizeof text),
                "1 size class set aside (n = 8192; 1 call)"))
        report_miss("the first call", &fit, "n = 8192 set aside");
    /* The same point standing for more calls than the others is the
     * routine's behaviour, not an accident: kept. */
    pts[count - 3].weight = 1000;
    growth_fit(pts, count, &fit);
    CHECK_EQ(fit.set_aside, 0);
    CHECK(fit.kind != GROWTH_MODEL || fit.best != GROWTH_QUADRATIC || fit.poor);
    /* Three slow calls in the window (an allocator consolidating its heap):
     * all set aside, the verdict stands. */
    count = make(pts, wide, N_WIDE, c_nlogn, 0.02, 3);
    pts[12].cost *= 4;
    pts[14].cost *= 3;
    pts[17].cost *= 5;
    growth_fit(pts, count, &fit);
    check_rule("slow calls", pts, count, &fit);
    CHECK(fit.kind == GROWTH_MODEL && fit.best == GROWTH_NLOGN);
    CHECK_EQ(fit.set_aside, 3);
    /* The largest size is never set aside: off the trend, it makes the
     * verdict a guess. */
    count = make(pts, wide, N_WIDE, c_nlogn, 0.02, 3);
    pts[N_WIDE - 1].cost /= 4;
    growth_fit(pts, count, &fit);
    check_rule("slow top", pts, count, &fit);
    for (size_t i = 0; i < fit.set_aside; i++)
        CHECK(fit.set_aside_n[i] != wide[N_WIDE - 1]);
    CHECK(fit.poor);
    /* Half the window off: no longer outliers, and no confident verdict. */
    count = make(pts, wide, N_WIDE, c_nlogn, 0.02, 3);
    for (size_t i = 11; i < N_WIDE; i += 2)
        pts[i].cost *= 4;
    growth_fit(pts, count, &fit);
    check_rule("half off", pts, count, &fit);
    CHECK(fit.set_aside <= fit.window_classes * GROWTH_OUTLIER_SHARE);
    CHECK(fit.poor);
}

/* A verdict needs the bulk of the calls and more than one point: one
 * large call against five flat ones (Python's PyRun_StringFlags), or eight
 * unrelated large statements beside 3000 calls of one size (a parser),
 * decide nothing; the report says from how many calls it judged. */
static void support(void)
{
    struct growth_point pts[16];
    size_t count = 0;
    static const double flat[] = {300, 420, 610, 880, 1300};
    for (size_t i = 0; i < 5; i++)
        pts[count++] = (struct growth_point){flat[i], 5000 + flat[i], 1, 0, 0, 0};
    pts[count++] = (struct growth_point){156456, 5000 + 2e-4 * 156456.0 * 156456.0, 1, 0, 0, 0};
    struct growth_fit fit;
    growth_fit(pts, count, &fit);
    check_rule("one large call", pts, count, &fit);
    CHECK(fit.verdict && fit.poor);
    /* A parser: 3000 calls of one size (the same statement), and eight
     * unrelated statements, one call each, up to 40 times as large. */
    count = 0;
    pts[count++] = (struct growth_point){800, 14900, 3000, 0.01, 14700, 15100};
    static const double statements[][2] = {{4000, 90000},    {6000, 260000},  {8500, 180000},
                                           {12000, 900000},  {16000, 700000}, {22000, 2600000},
                                           {30000, 2100000}, {40000, 7900000}};
    for (size_t i = 0; i < 8; i++)
        pts[count++] = (struct growth_point){statements[i][0], statements[i][1], 1, 0, 0, 0};
    growth_fit(pts, count, &fit);
    check_rule("parser", pts, count, &fit);
    if (!(fit.verdict && fit.poor))
        report_miss("parser", &fit, "a guess");
    CHECK(fit.calls == 3008 && fit.decided_calls < 16);
    char text[1024];
    CHECK(strstr(growth_fit_describe(&fit, text, sizeof text), " of 3008 calls") != NULL);
    /* Statements whose cost grows as n^2: confident when each size stands
     * for 50 calls, a guess when for one. */
    for (size_t i = 1; i < count; i++) {
        pts[i].cost = 3000 + 0.005 * pts[i].n * pts[i].n;
        pts[i].weight = 50;
    }
    growth_fit(pts, count, &fit);
    check_rule("n^2 statements", pts, count, &fit);
    CHECK(fit.verdict && !fit.poor && fit.best == GROWTH_QUADRATIC);
    for (size_t i = 1; i < count; i++)
        pts[i].weight = 1;
    growth_fit(pts, count, &fit);
    check_rule("n^2 statements, one call each", pts, count, &fit);
    CHECK(fit.verdict && fit.poor && fit.best == GROWTH_QUADRATIC);
}

/* Calls of one size costing over 10x apart (an interpreter's loop): no
 * fit, "varies", and the reason. */
static void varies(void)
{
    struct growth_point pts[N_WIDE];
    size_t count = make(pts, wide, N_WIDE, c_nlogn, 0, 1);
    for (size_t i = 0; i < count; i++)
        pts[i].low = pts[i].high = pts[i].cost;
    struct growth_fit fit;
    growth_fit(pts, count, &fit);
    CHECK(fit.verdict && !fit.varies);
    pts[9].weight = 40;
    pts[9].low = pts[9].cost / 11;
    growth_fit(pts, count, &fit);
    char text[32];
    CHECK(!fit.verdict && fit.varies);
    CHECK_STR(growth_verdict_text(&fit, text, sizeof text), "varies");
    CHECK(strstr(fit.why, "cost depends on more than input size") != NULL);
    pts[9].low = pts[9].cost / 9;
    growth_fit(pts, count, &fit);
    CHECK(fit.verdict && !fit.varies);
}

/* The spread at equal n is the noise, as far as the sizes fitted show it:
 * n against n log n over 4x can be told apart without spread; with a 6%
 * spread at every size that the costs fitted show too (each size the
 * costliest of 3 calls drawn apart), they cannot; with the same spread
 * declared but costs fitted exactly on the curve (means of many calls),
 * the fit claims the scatter it sees, and they can. */
static void noise_from_spread(void)
{
    struct growth_point pts[MAX_POINTS];
    size_t count = make_setup(pts, GROWTH_NLOGN, 64, 4, 0, 5, 0, 1);
    struct growth_fit fit;
    growth_fit(pts, count, &fit);
    check_rule("n log n", pts, count, &fit);
    CHECK(fit.noise == GROWTH_NOISE_FLOOR && fit.best == GROWTH_NLOGN && fit.alternative < 0);
    for (size_t i = 0; i < count; i++)
        pts[i].spread = 0.06;
    growth_fit(pts, count, &fit);
    check_rule("n log n, spread, exact costs", pts, count, &fit);
    CHECK(fabs(fit.noise - 0.06) < 1e-9);
    CHECK(fit.best == GROWTH_NLOGN && !fit.models[GROWTH_LINEAR].fits);
    int told_apart = 0;
    for (unsigned seed = 1; seed <= 20; seed++) {
        count = make_setup(pts, GROWTH_NLOGN, 64, 4, 0, 5, 0.1, seed);
        growth_fit(pts, count, &fit);
        check_rule("n log n, spread, drawn costs", pts, count, &fit);
        CHECK(fit.noise > 0.03);
        told_apart += !fit.models[GROWTH_LINEAR].fits;
    }
    CHECK(told_apart <= 2);
}

/* Five sizes from 4 to 27, noisy: no confident n^3. */
static void weak_data(void)
{
    static const double few[] = {4, 7, 11, 18, 27};
    int confident = 0;
    for (unsigned seed = 1; seed <= 50; seed++) {
        struct growth_point pts[5];
        struct growth_fit fit;
        growth_fit(pts, make(pts, few, 5, c_cube, 0.4, seed), &fit);
        CHECK(fit.verdict);
        check_rule("weak", pts, 5, &fit);
        confident += !fit.poor && fit.best == GROWTH_CUBIC &&
                     fit.exponent_high - fit.exponent_low > 1.5;
    }
    CHECK_EQ(confident, 0);
}

/* The rule, over random mixtures of terms, set-ups, sizes, calls and
 * noise. */
static void rule_holds(void)
{
    unsigned state = 99;
    int models = 0, powers = 0, pairs = 0, poor = 0;
    for (int trial = 0; trial < 3000; trial++) {
        double c0 = 1000 * (uniform(&state) + 1), c1 = 10 * (uniform(&state) + 1),
               c2 = (uniform(&state) + 1) * 0.01, k = 3 * (uniform(&state) + 1) / 2;
        double noise = 0.15 * (uniform(&state) + 1) / 2, lo = 1 + 50 * (uniform(&state) + 1);
        double ratio = 1.05 + 0.5 * (uniform(&state) + 1) / 2;
        double span = pow(2, 2 + 9 * (uniform(&state) + 1) / 2);
        size_t count = 0;
        struct growth_point pts[256];
        for (double n = lo; n < lo * span && count < 256; n *= ratio) {
            double cost = c0 + c1 * n + c2 * pow(n, k);
            double calls = 1 + floor(8 * (uniform(&state) + 1));
            double spread = calls > 1 ? noise * (uniform(&state) + 1) / 2 : 0;
            pts[count++] = (struct growth_point){floor(n), cost * (1 + noise * uniform(&state)),
                                                 calls, spread, 0, 0};
        }
        struct growth_fit fit;
        growth_fit(pts, count, &fit);
        if (!fit.verdict)
            continue;
        char what[64];
        snprintf(what, sizeof what, "random mixture %d", trial);
        if (check_rule(what, pts, count, &fit))
            break;
        models += !fit.power && !fit.poor;
        powers += fit.power;
        pairs += fit.alternative >= 0;
        poor += fit.poor;
    }
    CHECK(models > 500 && powers > 100 && pairs > 50 && poor > 100);
}

static void no_verdict(void)
{
    struct growth_point pts[MAX_POINTS];
    struct growth_fit fit;
    growth_fit(pts, make(pts, wide, GROWTH_MIN_SIZES - 1, c_quad, 0, 1), &fit);
    CHECK(!fit.verdict && fit.kind == GROWTH_NONE);
    CHECK_EQ(fit.sizes, GROWTH_MIN_SIZES - 1);
    CHECK_STR(fit.why, "3 input sizes; a fit needs 4");
    /* As few sizes as the gate takes, doubling: a verdict, a guess. */
    double doubling[GROWTH_MIN_SIZES];
    for (size_t i = 0; i < GROWTH_MIN_SIZES; i++)
        doubling[i] = 16 << i;
    growth_fit(pts, make(pts, doubling, GROWTH_MIN_SIZES, c_quad, 0, 1), &fit);
    CHECK(fit.verdict && fit.poor);
    growth_fit(pts, make(pts, wide, 1, c_quad, 0, 1), &fit);
    CHECK_STR(fit.why, "1 input size; a fit needs 4");
    /* n = 0 is no size. */
    static const double with_zero[] = {0, 16, 32, 64};
    growth_fit(pts, make(pts, with_zero, 4, c_nlogn, 0, 1), &fit);
    CHECK(!fit.verdict);
    CHECK_EQ(fit.sizes, 3);
    /* Many sizes in few classes. */
    static const double crowded[] = {100, 101, 102, 103, 104, 105, 300, 301, 302, 900, 901};
    growth_fit(pts, make(pts, crowded, 11, c_nlogn, 0, 1), &fit);
    CHECK(!fit.verdict);
    CHECK_STR(fit.why, "11 input sizes in 3 size classes; a fit needs 4 classes");
    /* Many sizes close together tell nothing about growth. */
    static const double close[] = {100, 115, 130, 145, 160, 175, 190, 200};
    growth_fit(pts, make(pts, close, 8, c_quad, 0, 1), &fit);
    CHECK(!fit.verdict);
    CHECK_STR(fit.why, "input sizes span 2.0x; a fit needs 4x");
    growth_fit(pts, 0, &fit);
    CHECK(!fit.verdict);
    char text[32];
    CHECK_STR(growth_verdict_text(&fit, text, sizeof text), "-");
}

static void texts(void)
{
    struct growth_point pts[N_WIDE];
    struct growth_fit fit;
    char text[32];
    growth_fit(pts, make(pts, wide, N_WIDE, c_quad, 0, 1), &fit);
    CHECK_STR(growth_verdict_text(&fit, text, sizeof text), "n^2");
    CHECK_STR(growth_kind_name(fit.kind), "model");
    fit.poor = 1;
    fit.kind = GROWTH_POOR;
    CHECK_STR(growth_verdict_text(&fit, text, sizeof text), "n^2?");
    fit.models[GROWTH_CUBIC].rival = 1;
    fit.alternative = GROWTH_CUBIC;
    CHECK_STR(growth_verdict_text(&fit, text, sizeof text), "n^2 or n^3?");
    fit.models[GROWTH_LINEAR].rival = 1;
    fit.alternative = -1;
    CHECK_STR(growth_verdict_text(&fit, text, sizeof text), "n..n^3?");
    growth_fit(pts, make(pts, wide, N_WIDE, c_pow25, 0, 1), &fit);
    CHECK_STR(growth_verdict_text(&fit, text, sizeof text), "~n^2.5");
    CHECK_STR(growth_kind_name(fit.kind), "power");
}

int main(void)
{
    setup_costs();
    lower_order_terms();
    constant_costs();
    between_models();
    large_end();
    outliers();
    support();
    varies();
    noise_from_spread();
    weak_data();
    rule_holds();
    no_verdict();
    texts();
    return check_report("test_growth_fit");
}
