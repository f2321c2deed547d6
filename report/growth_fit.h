/* growth_fit: a routine's empirical cost function as one verdict: how its
 * cost grows with its input size.
 *
 * Real profiles are not clean curves: many tiny calls at small sizes and a
 * few large ones, sizes that move in steps (vectorized code reads whole
 * blocks), a fixed set-up cost that dominates short inputs, a call now and
 * then far slower than the rest (an allocator consolidating its heap). So:
 *
 *  1. Sizes are grouped into classes a quarter of an octave wide, and each
 *     class weighs 1 in every fit, shared by its sizes: the fit follows the
 *     whole range of sizes, not the sizes seen most often.
 *  2. A routine whose calls at one size class cost more than
 *     GROWTH_VARIES_RATIO times as much as others there is not a function
 *     of its input size (an interpreter's loop, a parser fed different
 *     statements): it gets no fit (GROWTH_NONE, varies), but "cost depends
 *     on more than input size"; calling contexts may tell its callers
 *     apart.
 *  3. The verdict judges the large end, where asymptotics show: the upper
 *     GROWTH_WINDOW_SHARE of the sizes' logarithmic range, widened
 *     downwards to at least GROWTH_WINDOW_CLASSES classes spanning
 *     GROWTH_MIN_SPAN.
 *  4. A size far off the trend there (beyond GROWTH_OUTLIER_SIGMAS robust
 *     deviations and off by GROWTH_OUTLIER_RATIO) that stands for no more
 *     calls than the median size, and is not in the largest class (where
 *     growth shows: off the trend, it puts the trend in question), is set
 *     aside, furthest first, up to
 *     GROWTH_OUTLIER_SHARE of the window (about where the robust trend they
 *     are measured from, a Theil-Sen line through the classes' medians
 *     reweighted by Tukey's biweight, breaks down); the fit says what it
 *     set aside.
 *  5. Each model 1, log n, n, n log n, n^2, n^3 is fitted as a + b f(n),
 *     a >= 0, b >= 0 (growth_curves.h: least squares on relative
 *     residuals; 2 terms, the constant 1), and with at most one lower-order
 *     term, kept only where its Akaike criterion (AICc, the classes counted
 *     as the observations) is lower: a fixed part n0 of the input, up to
 *     GROWTH_OFFSET_SHARE of the smallest size judged (a table read besides
 *     the data: a + b f(n - n0); for n the same curve as a negative
 *     constant, so no term more), or for the models above n c n, c >= 0
 *     (a loop calling a vectorized strlen costs c n + b n^2; 3 terms each).
 *     So is the power law a + b n^k, 0 <= k <= GROWTH_EXPONENT_MAX (3
 *     terms; counted only over 2 classes more than that).
 *  6. The noise is the spread of cost at equal n (the standard deviation
 *     of a call's cost relative to the mean, pooled over the sizes of more
 *     than one call), at least GROWTH_NOISE_FLOOR. A model *fits* when its
 *     error is at most GROWTH_FIT_RATIO times the smallest error of any
 *     curve (the models and the power law) plus the noise, the noise
 *     counted no larger than that smallest error (at least the floor):
 *     where the sizes judged scatter less about the best curve than single
 *     calls at a few sizes do (means, maxima, sizes of one call each), the
 *     scatter the fit shows is the noise it can claim (wordfreq's
 *     str_tolower: a 15% spread at the three sizes of several calls, n^2
 *     within 5.6% over 11 classes); it is *material*
 *     when its growing term b f(n) is at least GROWTH_MATERIAL of its
 *     fitted cost at the largest size (a curve whose b f(n) is negligible
 *     there is no evidence for f; the constant always is). The candidates
 *     are the models that fit and are material.
 *  7. The verdict is then one of:
 *     - a model (GROWTH_MODEL): of the candidates with the fewest terms
 *       (a lower-order term is demanded only where no curve without one
 *       fits), the one of lowest AICc (errors below half the noise counted
 *       as half the noise), "n^2"; its rivals are the candidates with as
 *       many terms whose AICc is within GROWTH_AIC_TIE of it; where the one
 *       rival is its neighbour in the list, both, "n or n log n": the span
 *       cannot tell them apart;
 *     - a power law (GROWTH_POWER), when no model is a candidate: "~n^1.47",
 *       growth between the models, not labelled as one of them;
 *     - poor (GROWTH_POOR), a model or a power law marked '?', when the
 *       data cannot back a confident claim: its error is over
 *       GROWTH_POOR_ERROR; its exponent's range (9) is wider than
 *       GROWTH_POOR_WIDTH (curves growing as differently as n and n^2 fit
 *       as well); more candidates than a pair of neighbours (the
 *       data cannot tell them apart: the verdict is the range they span,
 *       "log n..n^2?"); a power law whose exponent's range is wider than
 *       GROWTH_POWER_WIDTH; or too little support (8 below);
 *     - none (GROWTH_NONE): fewer than GROWTH_MIN_SIZES sizes, or
 *       GROWTH_MIN_CLASSES classes, or a span under GROWTH_MIN_SPAN (chosen
 *       on data: bench/growth_gate.sh), or a cost that varies (2 above).
 *  8. Support: the calls that decide a verdict are those of the sizes it
 *     judged (3, less what was set aside). They must lie in at least
 *     GROWTH_SUPPORT_CLASSES classes and number at least
 *     GROWTH_SUPPORT_CALLS or GROWTH_SUPPORT_SHARE of the routine's calls,
 *     and the verdict must be backed without the smallest, and without the
 *     largest, class judged, each time by GROWTH_MIN_CLASSES classes
 *     spanning half the window's logarithmic range (a stray end does not
 *     make the span): a model it names still a candidate there,
 *     or a power law still fitting its exponent (one large call against
 *     flat ones, a cluster of sizes and one stray small one, decide
 *     nothing alone); otherwise it rests on a few points, and is poor. The
 *     report says "from 8 of 3011 calls".
 *  9. The exponent is that of the growing term: k of a + b n^k fitted with
 *     its growing term material (with the verdict's c n or n0 beside it when
 *     it has one, k >= 1 with c n), so that a constant or a lower-order term
 *     does not drag it below the growth. Its range is every k whose curve
 *     fits as a model does (6), and the exponent of the growing term of
 *     every model the verdict names (0 for 1, 1 for n, 2, 3); it is never
 *     negative.
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
#define GROWTH_OUTLIER_SIGMAS 4.0
#define GROWTH_OUTLIER_RATIO 1.5
#define GROWTH_OUTLIER_SHARE 0.3
#define GROWTH_WINDOW_SHARE 0.5
#define GROWTH_OFFSET_SHARE 0.25
#define GROWTH_VARIES_RATIO 10.0
#define GROWTH_NOISE_FLOOR 0.01
#define GROWTH_FIT_RATIO 1.2
#define GROWTH_MATERIAL 0.25
#define GROWTH_AIC_TIE 4.0
#define GROWTH_POOR_ERROR 0.10
#define GROWTH_POWER_WIDTH 0.5
#define GROWTH_POOR_WIDTH 1.0
#define GROWTH_EXPONENT_MAX 4.0
#define GROWTH_SUPPORT_CLASSES 3
#define GROWTH_SUPPORT_CALLS 16
#define GROWTH_SUPPORT_SHARE 0.25
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
    GROWTH_NONE,  /* no verdict: too little data, or a cost that varies */
    GROWTH_MODEL, /* one of the models, or two neighbours */
    GROWTH_POWER, /* a power law between the models */
    GROWTH_POOR,  /* a guess: the data do not support more */
};

struct growth_point {
    double n;      /* input size */
    double cost;   /* the cost fitted: worst-case or average */
    double weight; /* calls at this size; 0 counts as 1 */
    double spread; /* standard deviation of a call's cost here, relative to the mean
                      (0: unknown, or one call) */
    double low, high; /* the cheapest and costliest call here (0: unknown) */
};

struct model_fit {
    double a, b, c;  /* cost ~ a + b f(n - offset) + c n */
    double offset;   /* n0, a fixed part of the input: cost ~ a + b f(n - n0) */
    double error;    /* RMS of (cost - fit) / cost over the window, each at most 1 */
    double share;    /* b f(n) / fit at the window's largest size */
    double slope;    /* of log fit against log n across the window (as measured end to end) */
    double aicc;     /* Akaike's criterion, small-sample corrected */
    int terms;       /* coefficients fitted: 1 (a), 2 (a, b) or 3 (a, b, c) */
    int fits;        /* error within the noise of the best curve's (see 6) */
    int candidate;   /* fits and material */
    int rival;       /* a candidate whose criterion is within GROWTH_AIC_TIE of the
                        verdict's: named with it, or making it a range */
};

struct growth_fit {
    size_t sizes;            /* distinct n > 0 among the points */
    size_t classes;          /* size classes among them */
    int verdict;             /* kind != GROWTH_NONE: the fields below are set */
    enum growth_kind kind;
    int varies;              /* GROWTH_NONE: cost depends on more than input size */
    char why[160];           /* GROWTH_NONE: why not */
    double window_lo, window_hi; /* the large end the verdict judged (class sizes) */
    size_t window_classes;   /* classes there, those set aside included */
    double noise;            /* the spread at equal n, at least GROWTH_NOISE_FLOOR */
    double best_error;       /* the smallest error of any curve */
    double exponent_from;    /* the exponent's range of sizes: exponent_from..window_hi */
    double exponent;         /* k of the growing term, >= 0 */
    double exponent_low;     /* the exponents whose curve fits (see 9) */
    double exponent_high;
    struct model_fit power_curve; /* a + b (n - n0)^exponent (+ c n): the verdict's growing
                                     term with its exponent (n0, c n: its model's) */
    double power_law_exponent;    /* the power law a + b n^k alone: its k */
    double power_law_error;       /* and its error (a candidate for best_error) */
    double power_law_low, power_law_high; /* its exponents that fit (windows without an end) */
    double r2;               /* of log cost against log n over the window */
    struct model_fit models[GROWTH_MODELS];
    enum growth_model best;  /* GROWTH_MODEL, GROWTH_POOR: the model named */
    int alternative;         /* a neighbour of best that fits as well, or -1 */
    int poor;                /* kind == GROWTH_POOR */
    int power;               /* the verdict is the exponent (GROWTH_POWER, or a poor one) */
    double calls;            /* all calls of the routine (n > 0) */
    double decided_calls;    /* those that decide the verdict (see 8) */
    size_t decided_classes;  /* their size classes */
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

/* The fitted cost of model M at N. */
double growth_model_eval(const struct growth_fit *fit, enum growth_model m, double n);

/* The verdict's curve at N: the model's, or the power law's. */
double growth_fit_eval(const struct growth_fit *fit, double n);

/* The verdict in a few characters: "n^2", "n or n log n" (two neighbours
 * fit), "log n..n^2?" (more models fit: the range they span), "~n^1.47", a
 * '?' after a poor one, "varies" for a cost that depends on more than input
 * size, "-" without one. BUF holds at least 16 bytes. */
const char *growth_verdict_text(const struct growth_fit *fit, char *buf, size_t len);

/* The verdict in words, one line: what it says, the sizes and calls it
 * judged, the exponent and its range, the noise, what was set aside, each
 * model's error. */
const char *growth_fit_describe(const struct growth_fit *fit, char *buf, size_t len);

/* "model", "power", "poor", "none". */
const char *growth_kind_name(enum growth_kind kind);

#endif
