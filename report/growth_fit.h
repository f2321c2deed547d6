/* growth_fit: a routine's empirical cost function as one verdict: how its
 * cost grows with its input size.
 *
 * Real profiles are not clean curves: many tiny calls at small sizes and a
 * few large ones, sizes that move in steps (vectorized code reads whole
 * blocks), a call now and then far slower than the rest (an allocator
 * consolidating its heap), lower-order terms that hide the leading one
 * until n is large. So:
 *
 *  1. Sizes are grouped into classes a quarter of an octave wide, and each
 *     class weighs 1 in every fit, shared by its sizes: the fit follows the
 *     whole range of sizes, not the sizes seen most often.
 *  2. The verdict judges the large end, where asymptotics show: the upper
 *     half of the sizes' logarithmic range, widened downwards to at least
 *     GROWTH_WINDOW_CLASSES classes spanning GROWTH_MIN_SPAN.
 *  3. A size far off the trend there (beyond GROWTH_OUTLIER_SIGMAS robust
 *     deviations and off by GROWTH_OUTLIER_RATIO) that stands for no more
 *     calls than the median size is set aside, furthest first, up to
 *     GROWTH_OUTLIER_SHARE of the window (about where the robust trend they
 *     are measured from, a Theil-Sen line through the classes' medians
 *     reweighted by Tukey's biweight, breaks down); the fit says what it
 *     set aside.
 *  4. The exponent is the slope of log cost against log n over the top
 *     of the window (its upper half, at least GROWTH_EXPONENT_CLASSES
 *     classes),
 *     where lower-order terms bend it least (25 n + n^2/8 grows as n^1.9
 *     over [1024, 2048], as n^1.5 over [180, 2048]), with a 95% confidence
 *     interval (Student's t, the classes counted as the observations).
 *  5. Models 1, log n, n, n log n, n^2 and n^3 are each fitted over the
 *     window as a + b f(n - n0), n0 up to a quarter of the window's
 *     smallest size (the superlinear ones also as a + b f(n) + c n), every
 *     coefficient non-negative, by least squares on relative residuals,
 *     each counted up to 100%. A model is a candidate when its own
 *     exponent over the exponent's range (0, 1/ln n, 1, 1 + 1/ln n, 2, 3),
 *     or its fitted curve's slope there where lower, is at most
 *     GROWTH_SLACK_BELOW above the interval (lower-order terms hide some of
 *     the leading growth: 25 n + n^2/8 grows as n^1.9 over [1024, 2048]),
 *     and its own exponent (or its fitted curve's slope where higher, if
 *     the model fits within GROWTH_OFFSET_FIT: a table read besides the
 *     data is a fixed part n0 of the input and steepens n^k to
 *     (n - n0)^k) at most GROWTH_SLACK_ABOVE below it, and when its fitted
 *     curve, measured as the data is, grows within GROWTH_LEADING_SLACK of
 *     its exponent: its leading term shows at the large end. The best
 *     fitting candidate is chosen; a slower-growing one within
 *     GROWTH_TIE_FACTOR (plus GROWTH_TIE_SLACK) of it is preferred, since
 *     an extra term fitting noise is no evidence of growth.
 *  6. The verdict is then one of:
 *     - a model (GROWTH_MODEL): "n^2";
 *     - a power law (GROWTH_POWER), when no model is a candidate, or none
 *       fits within GROWTH_POOR_ERROR, and the exponent is known to within
 *       GROWTH_POWER_WIDTH and the power law fits: "~n^1.47", growth
 *       between the models, not labelled as one of them;
 *     - poor (GROWTH_POOR): the chosen model fits worse than
 *       GROWTH_POOR_ERROR, or the exponent's interval is wider than
 *       GROWTH_POOR_WIDTH (it cannot tell the models apart), or no model is
 *       a candidate and the power law is uncertain: "n^2?", "~n^1.2?";
 *     - none (GROWTH_NONE): fewer than GROWTH_MIN_SIZES sizes, or
 *       GROWTH_MIN_CLASSES classes, or a span under GROWTH_MIN_SPAN. These
 *       were chosen on data (bench/growth_gate.sh): subsets of the sizes of
 *       the corpus's routines of known growth (tests/programs/growth)
 *       give the known verdict in 66% of the cases at spans of 3x-4x, 78%
 *       at 4x-6x; with 3 sizes in 3 classes in 59% (30% flagged), with 4
 *       in 71%, 5 in 73%: the gate is the smallest span and number of
 *       sizes from which verdicts are right at least 70% of the time.
 *     The model and the exponent never contradict each other: the model is
 *     chosen among those the exponent allows, and a power law is given
 *     only when it allows none that fits.
 *
 * Input size 0 has no logarithm and is left out. */
#ifndef TRMS_GROWTH_FIT_H
#define TRMS_GROWTH_FIT_H

#include <stddef.h>

#define GROWTH_MIN_SIZES 4
#define GROWTH_MIN_CLASSES 4
#define GROWTH_MIN_SPAN 4.0
#define GROWTH_WINDOW_CLASSES 5
#define GROWTH_CLASSES_PER_OCTAVE 4
#define GROWTH_EXPONENT_CLASSES 8
#define GROWTH_OUTLIER_SIGMAS 4.0
#define GROWTH_OUTLIER_RATIO 1.5
#define GROWTH_OUTLIER_SHARE 0.3
#define GROWTH_SLACK_BELOW 0.10
#define GROWTH_SLACK_ABOVE 0.05
#define GROWTH_OFFSET_FIT 0.05
#define GROWTH_LEADING_SLACK 0.25
#define GROWTH_TIE_FACTOR 1.10
#define GROWTH_TIE_SLACK 0.005
#define GROWTH_POOR_ERROR 0.10
#define GROWTH_POWER_WIDTH 0.5
#define GROWTH_POOR_WIDTH 1.0
/* Sizes set aside that a fit remembers (it counts them all). */
#define GROWTH_SET_ASIDE_MAX 8

enum growth_model {
    GROWTH_CONSTANT,
    GROWTH_LOG,
    GROWTH_LINEAR,
    GROWTH_NLOGN,
    GROWTH_QUADRATIC,
    GROWTH_CUBIC,
    GROWTH_MODELS
};

enum growth_kind {
    GROWTH_NONE,  /* no verdict: too little data */
    GROWTH_MODEL, /* one of the models */
    GROWTH_POWER, /* a power law between the models */
    GROWTH_POOR,  /* a guess: the data do not support more */
};

struct growth_point {
    double n;      /* input size */
    double cost;
    double weight; /* calls at this size; 0 counts as 1 */
};

struct model_fit {
    double a, b, c; /* cost ~ a + b f(n - offset) + c n */
    double offset;
    double error;   /* RMS of (cost - fit) / cost over the window, each at most 1 */
    double slope;   /* of its curve over the exponent's range, as the data's is measured */
};

struct growth_fit {
    size_t sizes;            /* distinct n > 0 among the points */
    size_t classes;          /* size classes among them */
    int verdict;             /* kind != GROWTH_NONE: the fields below are set */
    enum growth_kind kind;
    char why[96];            /* GROWTH_NONE: why not */
    double window_lo, window_hi; /* the large end the verdict judged (class sizes) */
    size_t window_classes;   /* classes there, those set aside included */
    double exponent_from;    /* the exponent's range: exponent_from..window_hi */
    double exponent;         /* slope of log cost against log n there */
    double exponent_low;     /* its 95% confidence interval */
    double exponent_high;
    double loglog[2];        /* log cost = p0 + p1 (log n - loglog_x0) there */
    double loglog_x0;
    double r2;               /* of that line */
    double loglog_error;     /* RMS relative deviation of the classes from it */
    struct model_fit models[GROWTH_MODELS];
    enum growth_model best;  /* GROWTH_MODEL, GROWTH_POOR: the model named */
    int poor;                /* kind == GROWTH_POOR */
    int power;               /* the verdict is the exponent (GROWTH_POWER, or a poor one) */
    size_t set_aside;        /* classes set aside as outliers */
    double set_aside_n[GROWTH_SET_ASIDE_MAX]; /* their sizes, the first GROWTH_SET_ASIDE_MAX */
    double set_aside_calls;  /* the calls they stand for */
};

/* Fits the N points (one per distinct n; n = 0 ignored). */
void growth_fit(const struct growth_point *points, size_t n, struct growth_fit *out);

/* How much data a verdict needs: the default is GROWTH_MIN_SIZES sizes in
 * GROWTH_MIN_CLASSES classes spanning GROWTH_MIN_SPAN (chosen on data by
 * bench/growth_gate.sh); the fit never goes below 3 sizes in 3 classes. */
struct growth_gate {
    size_t sizes, classes;
    double span;
};
extern const struct growth_gate growth_default_gate;

/* growth_fit with another GATE (the large end it judges is the same). */
void growth_fit_gated(const struct growth_point *points, size_t n, const struct growth_gate *gate,
                      struct growth_fit *out);

/* "1", "log n", "n", "n log n", "n^2", "n^3". */
const char *growth_model_name(enum growth_model m);

/* f(n) of model M (log base 2). */
double growth_model_f(enum growth_model m, double n);

/* The fitted cost of model M at N (its offset applied). */
double growth_model_eval(const struct growth_fit *fit, enum growth_model m, double n);

/* Whether the exponent allows model M (a candidate, see 5 above). */
int growth_model_allowed(const struct growth_fit *fit, enum growth_model m);

/* The verdict's curve at N: the model's, or the power law's. */
double growth_fit_eval(const struct growth_fit *fit, double n);

/* The verdict in a few characters: "n^2", "~n^1.47", a '?' after a poor
 * one, "-" without one. BUF holds at least 16 bytes. */
const char *growth_verdict_text(const struct growth_fit *fit, char *buf, size_t len);

/* The verdict in words, one line: what it says, the sizes it judged, the
 * exponent and its interval, what was set aside, each model's error. */
const char *growth_fit_describe(const struct growth_fit *fit, char *buf, size_t len);

/* "model", "power", "poor", "none". */
const char *growth_kind_name(enum growth_kind kind);

/* The two-sided 95% quantile of Student's t with DF degrees of freedom. */
double student_t95(size_t df);

#endif
