/* growth_fit: an empirical cost function, fitted to cost against input
 * size.
 *
 * Two answers, from the same points:
 * - a power law, cost ~ c * (n - n0)^k, fitted by least squares on log
 *   cost against log (n - n0); the exponent k comes with a 95% confidence
 *   interval (Student's t), so "k = 1.98 [1.95, 2.01]" reads as quadratic;
 * - a model choice among 1, log n, n, n log n, n^2 and n^3: for each,
 *   cost ~ a + b * f(n - n0) with b >= 0, fitted by least squares on
 *   relative residuals (so small and large n weigh alike), and its
 *   goodness of fit, the root mean square of the relative residuals (each
 *   counted up to 100%, so that one wild point cannot hide a good fit of
 *   all the others). The model with the smallest error is chosen; a
 *   slower-growing model within GROWTH_TIE_FACTOR of it (plus
 *   GROWTH_TIE_SLACK) is preferred, because an extra term fitting noise is
 *   no evidence of growth.
 *
 * The offset n0, between 0 and the smallest n, is there because a routine
 * often reads a fixed amount of memory besides its input (a lookup table, a
 * vectorized strlen reading whole 32-byte blocks, its caller's frame): its
 * input sizes are then shifted by a constant, which would bend every
 * model. It is searched for (n0 = n_min * (1 - 2^-j), j = 0..12) and kept
 * only when it makes the fit clearly better.
 *
 * Each point weighs as many times as the calls it stands for (WEIGHT), so
 * that a size seen once (a first call that also bound a lazy symbol) does
 * not count as much as a size seen thousands of times.
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
/* A chosen model off by more than this (relative RMS) is a poor fit: the
 * cost depends on more than the input size, or the sizes are noisy. */
#define GROWTH_POOR_ERROR 0.10

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
    double weight; /* calls at this size; 0 counts as 1 */
};

struct model_fit {
    double a, b;   /* cost ~ a + b * f(n - offset) */
    double offset;
    double error;  /* weighted RMS of (cost - fit) / cost, each at most 1 */
};

struct growth_fit {
    size_t sizes;          /* distinct n > 0 among the points */
    int verdict;           /* enough sizes: the fields below are set */
    char why[96];          /* without a verdict: why not */
    double exponent;       /* k of cost ~ c * (n - offset)^k */
    double exponent_low;   /* 95% confidence interval of k */
    double exponent_high;
    double coefficient;    /* c */
    double offset;         /* n0 of the power law */
    double r2;             /* of the log-log line */
    struct model_fit models[GROWTH_MODELS];
    enum growth_model best;
    int poor;              /* the best model's error passes GROWTH_POOR_ERROR */
};

/* Fits the N points (one per distinct n; n = 0 ignored). */
void growth_fit(const struct growth_point *points, size_t n, struct growth_fit *out);

/* "1", "log n", "n", "n log n", "n^2", "n^3". */
const char *growth_model_name(enum growth_model m);

/* f(n) of model M (log base 2). */
double growth_model_f(enum growth_model m, double n);

/* The fitted cost of model M at N (its offset applied). */
double growth_model_eval(const struct growth_fit *fit, enum growth_model m, double n);

/* The two-sided 95% quantile of Student's t with DF degrees of freedom. */
double student_t95(size_t df);

#endif
