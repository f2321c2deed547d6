/* growth_fit: an empirical cost function, fitted to cost against input
 * size.
 *
 * Two answers, from the same points:
 * - a power law, cost ~ c * n^k, fitted by least squares on log cost
 *   against log n; the exponent k comes with a 95% confidence interval
 *   (Student's t), so "k = 1.98 [1.95, 2.01]" reads as quadratic;
 * - a model choice among 1, log n, n, n log n, n^2 and n^3: for each,
 *   cost ~ a + b * f(n) with b >= 0, fitted by least squares on relative
 *   residuals (so small and large n weigh alike), and its goodness of fit,
 *   the root mean square of the relative residuals. The model with the
 *   smallest error is chosen; a slower-growing model within
 *   GROWTH_TIE_FACTOR of it (plus GROWTH_TIE_SLACK) is preferred, because
 *   an extra term fitting noise is no evidence of growth.
 *
 * No verdict without GROWTH_MIN_SIZES distinct input sizes n > 0 spanning
 * at least a factor GROWTH_MIN_SPAN: fewer points cannot tell the models
 * apart. Input size 0 has no logarithm and is left out. */
#ifndef TRMS_GROWTH_FIT_H
#define TRMS_GROWTH_FIT_H

#include <stddef.h>

#define GROWTH_MIN_SIZES 5
#define GROWTH_MIN_SPAN 4.0
#define GROWTH_TIE_FACTOR 1.10
#define GROWTH_TIE_SLACK 0.005

enum growth_model {
    GROWTH_CONSTANT,
    GROWTH_LOG,
    GROWTH_LINEAR,
    GROWTH_NLOGN,
    GROWTH_QUADRATIC,
    GROWTH_CUBIC,
    GROWTH_MODELS
};

struct growth_point {
    double n;      /* input size */
    double cost;
};

struct model_fit {
    double a, b;   /* cost ~ a + b * f(n) */
    double error;  /* RMS of (cost - fit) / cost over the points */
};

struct growth_fit {
    size_t sizes;          /* distinct n > 0 among the points */
    int verdict;           /* enough sizes: the fields below are set */
    char why[96];          /* without a verdict: why not */
    double exponent;       /* k of cost ~ c * n^k */
    double exponent_low;   /* 95% confidence interval of k */
    double exponent_high;
    double coefficient;    /* c */
    double r2;             /* of the log-log line */
    struct model_fit models[GROWTH_MODELS];
    enum growth_model best;
};

/* Fits the N points (one per distinct n; n = 0 ignored). */
void growth_fit(const struct growth_point *points, size_t n, struct growth_fit *out);

/* "1", "log n", "n", "n log n", "n^2", "n^3". */
const char *growth_model_name(enum growth_model m);

/* f(n) of model M (log base 2). */
double growth_model_f(enum growth_model m, double n);

/* The fitted cost of model M at N. */
double growth_model_eval(const struct growth_fit *fit, enum growth_model m, double n);

/* The two-sided 95% quantile of Student's t with DF degrees of freedom. */
double student_t95(size_t df);

#endif
