/* growth_fit: one verdict on how a routine's cost grows (see growth_fit.h). */
#include "report/growth_fit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/oom.h"
#include "report/growth_curves.h"
#include "report/growth_window.h"

static const char *const model_names[GROWTH_MODELS] = {"1", "log n", "n", "n log n", "n^2",
                                                        "n^3"};

const char *growth_model_name(enum growth_model m)
{
    return (unsigned)m < GROWTH_MODELS ? model_names[m] : "?";
}

static double f_const(double n) { (void)n; return 1; }
static double f_log(double n) { return n > 1 ? log2(n) : 0; }
static double f_linear(double n) { return n; }
static double f_nlogn(double n) { return n > 1 ? n * log2(n) : 0; }
static double f_quadratic(double n) { return n * n; }
static double f_cubic(double n) { return n * n * n; }

static const curve_term model_terms[GROWTH_MODELS] = {f_const, f_log, f_linear,
                                                       f_nlogn, f_quadratic, f_cubic};

/* The exponent each model's term shows (log n and n log n: that of the
 * power they multiply). */
static const double model_power[GROWTH_MODELS] = {0, 0, 1, 1, 2, 3};

double growth_model_f(enum growth_model m, double n)
{
    return (unsigned)m < GROWTH_MODELS ? model_terms[m](n) : 0;
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
    const struct model_fit *f = &fit->power_curve;
    return f->a + f->b * pow(n - f->offset, fit->exponent) + f->c * n;
}

const char *growth_verdict_text(const struct growth_fit *fit, char *buf, size_t len)
{
    const char *poor = fit->poor ? "?" : "";
    int lo = GROWTH_MODELS, hi = -1;
    for (int k = 0; fit->verdict && !fit->power && k < GROWTH_MODELS; k++)
        if (fit->models[k].rival) {
            lo = k < lo ? k : lo;
            hi = k;
        }
    if (!fit->verdict)
        snprintf(buf, len, "%s", fit->varies ? "varies" : "-");
    else if (fit->power)
        snprintf(buf, len, "~n^%.2g%s", fit->exponent, poor);
    else if (hi > lo) /* two neighbours: "n or n log n"; more, the range they span */
        snprintf(buf, len, "%s%s%s%s", model_names[lo], fit->alternative >= 0 ? " or " : "..",
                 model_names[hi], poor);
    else
        snprintf(buf, len, "%s%s", growth_model_name(fit->best), poor);
    return buf;
}

const char *growth_kind_name(enum growth_kind kind)
{
    static const char *const names[] = {"none", "model", "power", "poor"};
    return (unsigned)kind < sizeof names / sizeof *names ? names[kind] : "?";
}

/* Appends to BUF as snprintf would, keeping *USED within LEN. */
#define APPEND(...)                                                                        \
    do {                                                                                   \
        if (used < len) {                                                                  \
            int w_ = snprintf(buf + used, len - used, __VA_ARGS__);                        \
            used = w_ < 0 ? len : used + (size_t)w_ < len ? used + (size_t)w_ : len;       \
        }                                                                                  \
    } while (0)

const char *growth_fit_describe(const struct growth_fit *fit, char *buf, size_t len)
{
    if (!fit->verdict) {
        snprintf(buf, len, "no verdict: %s", fit->why);
        return buf;
    }
    char verdict[32];
    size_t used = 0;
    APPEND("%s%s over n = %.6g..%.6g (%zu of %zu size classes); exponent over n = %.6g..%.6g: "
           "%.3f [%.3f, %.3f] (of the growing term); from %.6g of %.6g call%s; noise %.1f%%",
           growth_verdict_text(fit, verdict, sizeof verdict),
           fit->kind == GROWTH_POOR ? " (poor)" : fit->power ? " (between the models)" : "",
           fit->window_lo, fit->window_hi, fit->window_classes, fit->classes,
           fit->exponent_from, fit->window_hi, fit->exponent, fit->exponent_low,
           fit->exponent_high, fit->decided_calls, fit->calls, fit->calls == 1 ? "" : "s",
           100 * fit->noise);
    if (fit->set_aside) {
        APPEND("; %zu size class%s set aside (n =", fit->set_aside,
               fit->set_aside == 1 ? "" : "es");
        for (size_t i = 0; i < fit->set_aside && i < GROWTH_SET_ASIDE_MAX; i++)
            APPEND("%s %.6g", i ? "," : "", fit->set_aside_n[i]);
        APPEND("%s; %.6g call%s)", fit->set_aside > GROWTH_SET_ASIDE_MAX ? ", ..." : "",
               fit->set_aside_calls, fit->set_aside_calls == 1 ? "" : "s");
    }
    APPEND("; relative error of");
    for (int m = 0; m < GROWTH_MODELS; m++) {
        APPEND("%s %s %.1f%%", m ? "," : "", model_names[m], 100 * fit->models[m].error);
        if (fit->models[m].c > 0)
            APPEND(" (with c n)");
        if (fit->models[m].offset > 0)
            APPEND(" (n - %.1f)", fit->models[m].offset);
    }
    APPEND(", ~n^k %.1f%%", 100 * fit->power_curve.error);
    return buf;
}

/* ---- the curves ---- */

/* Akaike's criterion, corrected for small samples, of a curve with TERMS
 * coefficients and relative error ERROR over M classes; errors below FLOOR
 * count as FLOOR (within the noise, curves are equal: fewer terms win). */
static double aicc(double error, double floor, size_t m, int terms)
{
    /* m <= terms + 1 leaves no degree of freedom to judge by: as good as
     * excluded */
    double e = fmax(error, floor), n = (double)m, p = terms;
    double correction = n - p - 1 > 0 ? 2 * p * (p + 1) / (n - p - 1) : 1e6;
    return n * log(e * e) + 2 * p + correction;
}

/* The points a curve is fitted to: the window, less what was set aside. */
static size_t curve_points(const struct sized *c, size_t lo, size_t hi, struct curve_point *out)
{
    size_t m = 0;
    for (size_t i = lo; i < hi; i++)
        if (!c[i].set_aside)
            out[m++] = (struct curve_point){c[i].n, c[i].cost, c[i].w};
    return m;
}

static void store(struct model_fit *into, const struct curve *c, int terms, double floor,
                  size_t classes)
{
    into->a = c->a;
    into->b = c->b;
    into->c = c->c;
    into->offset = c->offset;
    into->error = c->error;
    into->share = c->share;
    into->terms = terms;
    into->aicc = aicc(c->error, floor, classes, terms);
}

/* The fixed part of the input tried: up to GROWTH_OFFSET_SHARE of the
 * smallest size judged, on a grid of OFFSET_STEPS, then refined between
 * the best point's neighbours by golden section. */
#define OFFSET_STEPS 8
#define GOLDEN 0.6180339887498949

static void fit_offset(const struct curve_point *p, size_t m, curve_term term, double n_lo,
                       struct curve *best)
{
    double top = GROWTH_OFFSET_SHARE * n_lo, step = top / OFFSET_STEPS;
    struct curve c;
    int at = 1;
    curve_fit(p, m, term, 0, 0, step, 0, best);
    for (int i = 2; i <= OFFSET_STEPS; i++) {
        curve_fit(p, m, term, 0, 0, i * step, 0, &c);
        if (c.error < best->error) {
            *best = c;
            at = i;
        }
    }
    double lo = (at - 1) * step, hi = fmin(top, (at + 1) * step);
    for (int it = 0; it < 24; it++) {
        double x1 = hi - GOLDEN * (hi - lo), x2 = lo + GOLDEN * (hi - lo);
        struct curve c1, c2;
        curve_fit(p, m, term, 0, 0, x1, 0, &c1);
        curve_fit(p, m, term, 0, 0, x2, 0, &c2);
        if (c1.error < best->error)
            *best = c1;
        if (c2.error < best->error)
            *best = c2;
        if (c1.error <= c2.error)
            hi = x2;
        else
            lo = x1;
    }
}

/* Each model as a + b f(n); then, where the criterion prefers either, with
 * a fixed part n0 of the input, a + b f(n - n0), or (the models above n)
 * with a linear term, a + c n + b f(n): one lower-order term at most. */
static void fit_models(const struct curve_point *p, size_t m, size_t classes, double floor,
                       struct growth_fit *out)
{
    double n_lo = m ? p[0].n : 1;
    for (int k = 0; k < GROWTH_MODELS; k++) {
        struct curve plain, variant;
        struct model_fit with;
        curve_fit(p, m, model_terms[k], 0, 0, 0, 0, &plain);
        if (k == GROWTH_CONSTANT) {  /* a alone: the term 1 is the constant */
            plain.a += plain.b;
            plain.b = 0;
            plain.share = 1;
            store(&out->models[k], &plain, 1, floor, classes);
            continue;
        }
        store(&out->models[k], &plain, 2, floor, classes);
        if (classes > 3) {
            /* For n a fixed part of the input is a negative constant,
             * a - b n0 + b n: no term more. */
            fit_offset(p, m, model_terms[k], n_lo, &variant);
            store(&with, &variant, k == GROWTH_LINEAR ? 2 : 3, floor, classes);
            if (with.aicc < out->models[k].aicc)
                out->models[k] = with;
        }
        if (k > GROWTH_LINEAR && classes > 3) {
            curve_fit(p, m, model_terms[k], 0, 1, 0, 0, &variant);
            store(&with, &variant, 3, floor, classes);
            if (variant.c > 0 && variant.share >= GROWTH_MATERIAL &&
                with.aicc < out->models[k].aicc)
                out->models[k] = with;
        }
    }
}

/* ---- the exponent ---- */

#define EXPONENT_STEP 0.05
#define EXPONENT_STEPS ((int)(GROWTH_EXPONENT_MAX / EXPONENT_STEP + 0.5))

/* The family whose exponent is measured: a + b (n - offset)^k (+ c n). */
struct family {
    int linear;
    double offset;
    size_t classes; /* for its criterion */
    double floor;
};

static double power_error(const struct curve_point *p, size_t m, double k,
                          const struct family *fam, struct curve *c)
{
    curve_fit(p, m, NULL, k, fam->linear, fam->offset, GROWTH_MATERIAL, c);
    return c->error;
}

/* The exponent of a + b (n - n0)^k (+ c n, k >= 1 then) with its growing
 * term material: the best k, and the range of k whose error is at most
 * TOLERANCE (a grid, its edges refined by bisection). With TOLERANCE < 0,
 * the best k alone. */
static void exponent_of(const struct curve_point *p, size_t m, const struct family *fam,
                        double tolerance, struct growth_fit *out)
{
    int linear = fam->linear;
    double from = linear ? 1 : 0, errors[EXPONENT_STEPS + 1];
    int steps = (int)((GROWTH_EXPONENT_MAX - from) / EXPONENT_STEP + 0.5), best = 0;
    struct curve c;
    for (int i = 0; i <= steps; i++) {
        errors[i] = power_error(p, m, from + i * EXPONENT_STEP, fam, &c);
        if (errors[i] < errors[best] - 1e-12)
            best = i;
    }
    /* Golden-section search between the grid's neighbours of the best. */
    double lo = from + (best > 0 ? best - 1 : 0) * EXPONENT_STEP;
    double hi = from + (best < steps ? best + 1 : steps) * EXPONENT_STEP;
    const double r = (sqrt(5) - 1) / 2;
    double x1 = hi - r * (hi - lo), x2 = lo + r * (hi - lo);
    double e1 = power_error(p, m, x1, fam, &c), e2 = power_error(p, m, x2, fam, &c);
    for (int it = 0; it < 40; it++) {
        if (e1 <= e2) {
            hi = x2, x2 = x1, e2 = e1;
            x1 = hi - r * (hi - lo);
            e1 = power_error(p, m, x1, fam, &c);
        } else {
            lo = x1, x1 = x2, e1 = e2;
            x2 = lo + r * (hi - lo);
            e2 = power_error(p, m, x2, fam, &c);
        }
    }
    double k = (lo + hi) / 2, grid_k = from + best * EXPONENT_STEP;
    if (power_error(p, m, k, fam, &c) > errors[best])
        k = grid_k;
    double error = power_error(p, m, k, fam, &c);
    out->exponent = k;
    store(&out->power_curve, &c, 3 + linear + (fam->offset > 0), fam->floor, fam->classes);
    out->power_curve.error = error;
    out->exponent_low = out->exponent_high = k;
    if (tolerance < 0)
        return;
    /* The range: every grid point within TOLERANCE, and K, its outer edges
     * refined towards the next grid points. */
    double edge[2] = {k, k};
    for (int i = 0; i <= steps; i++)
        if (errors[i] <= tolerance) {
            edge[0] = fmin(edge[0], from + i * EXPONENT_STEP);
            edge[1] = fmax(edge[1], from + i * EXPONENT_STEP);
        }
    for (int side = 0; side < 2; side++) {
        double in = edge[side];
        double off = side ? fmin(in + EXPONENT_STEP, GROWTH_EXPONENT_MAX)
                          : fmax(in - EXPONENT_STEP, from);
        if (in == off || power_error(p, m, off, fam, &c) <= tolerance) {
            edge[side] = off;
            continue;
        }
        for (int it = 0; it < 20; it++) {
            double mid = (in + off) / 2;
            if (power_error(p, m, mid, fam, &c) <= tolerance)
                in = mid;
            else
                off = mid;
        }
        edge[side] = in;
    }
    out->exponent_low = edge[0];
    out->exponent_high = edge[1];
}

/* ---- the verdict ---- */

/* Whether the calls at one size class cost over GROWTH_VARIES_RATIO times
 * as much as others there: the cost is not a function of the size. */
static int cost_varies(const struct sized *c, size_t n, struct growth_fit *out)
{
    double worst = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        double low = INFINITY, high = 0;
        for (; j < n && growth_class_of(c[j].n) == growth_class_of(c[i].n); j++)
            if (c[j].low > 0 && c[j].high > 0) {
                low = fmin(low, c[j].low);
                high = fmax(high, c[j].high);
            }
        if (high > 0 && high / low > worst) {
            worst = high / low;
            if (worst > GROWTH_VARIES_RATIO)
                snprintf(out->why, sizeof out->why,
                         "cost depends on more than input size: calls at n = %.0f..%.0f cost "
                         "%.0f to %.0f (%.0fx); --contexts may tell its callers apart",
                         c[i].n, c[j - 1].n, low, high, high / low);
        }
        i = j;
    }
    return worst > GROWTH_VARIES_RATIO;
}

/* The spread of cost at equal n over the window (sizes of more than one
 * call), pooled, and at least GROWTH_NOISE_FLOOR. */
static double noise_of(const struct sized *c, size_t lo, size_t hi)
{
    double sq = 0, w = 0;
    for (size_t i = lo; i < hi; i++)
        if (!c[i].set_aside && c[i].calls >= 2) {
            sq += c[i].w * c[i].spread * c[i].spread;
            w += c[i].w;
        }
    return fmax(GROWTH_NOISE_FLOOR, w > 0 ? sqrt(sq / w) : 0);
}

/* The calls that decide the verdict (growth_fit.h, 8): those of the sizes
 * judged, less what was set aside. */
static void support(const struct sized *c, size_t lo, size_t hi, struct growth_fit *out)
{
    for (size_t i = lo; i < hi; i++)
        if (!c[i].set_aside) {
            out->decided_calls += c[i].calls;
            out->decided_classes +=
                i == lo || growth_class_of(c[i].n) != growth_class_of(c[i - 1].n);
        }
}

static int supported(const struct growth_fit *fit)
{
    return fit->decided_classes >= GROWTH_SUPPORT_CLASSES &&
           (fit->decided_calls >= GROWTH_SUPPORT_CALLS ||
            fit->decided_calls >= GROWTH_SUPPORT_SHARE * fit->calls);
}

/* The model nearest the power law's exponent, named for whoever asks. */
static enum growth_model nearest_model(double k)
{
    enum growth_model best = GROWTH_CONSTANT;
    for (int m = 1; m < GROWTH_MODELS; m++)
        if (fabs(model_power[m] - k) < fabs(model_power[best] - k))
            best = (enum growth_model)m;
    return best;
}

/* How far a curve's error may be from the best and the curve still fit
 * (growth_fit.h, 6): GROWTH_FIT_RATIO times the best error plus the noise,
 * the noise counted no larger than the scatter of the data about the best
 * curve. */
static double tolerance_of(const struct growth_fit *out)
{
    double noise = fmax(GROWTH_NOISE_FLOOR, fmin(out->noise, out->best_error));
    return GROWTH_FIT_RATIO * out->best_error + noise;
}

static void decide(const struct curve_point *p, size_t m, size_t classes, struct growth_fit *out)
{
    double tolerance = tolerance_of(out);
    int count = 0;
    out->best = GROWTH_MODELS;
    out->alternative = -1;
    for (int k = 0; k < GROWTH_MODELS; k++) {
        struct model_fit *f = &out->models[k];
        f->fits = f->error <= tolerance;
        f->candidate = f->fits && (size_t)f->terms + 1 <= classes &&
                       (k == GROWTH_CONSTANT || f->share >= GROWTH_MATERIAL);
        if (!f->candidate)
            continue;
        count++;
        const struct model_fit *b = &out->models[out->best];
        if (out->best == GROWTH_MODELS || f->terms < b->terms ||
            (f->terms == b->terms && f->aicc < b->aicc))
            out->best = (enum growth_model)k;
    }
    if (count == 0) {
        /* No model fits: the power law is the verdict. */
        const struct family plain = {0, 0, classes, out->noise / 2};
        exponent_of(p, m, &plain, tolerance, out);
        out->best = nearest_model(out->exponent);
        out->power = 1;
        out->poor = out->exponent_high - out->exponent_low > GROWTH_POWER_WIDTH ||
                    out->power_curve.error > GROWTH_POOR_ERROR ||
                    (size_t)out->power_curve.terms + 2 > classes;
        return;
    }
    /* The candidates of as many terms that the criterion cannot tell from
     * the best: named with it when there is one and it is a neighbour,
     * else a range. */
    int b = (int)out->best, rivals = 0;
    for (int k = 0; k < GROWTH_MODELS; k++) {
        struct model_fit *f = &out->models[k];
        f->rival = f->candidate && f->aicc <= out->models[b].aicc + GROWTH_AIC_TIE &&
                   f->terms == out->models[b].terms;
        rivals += f->rival;
    }
    for (int k = 0; k < GROWTH_MODELS; k++)
        if (k != b && out->models[k].rival && rivals == 2 && (k == b - 1 || k == b + 1))
            out->alternative = k;
    int ambiguous = rivals > 2 || (rivals == 2 && out->alternative < 0);
    const struct family own = {out->models[b].c > 0, out->models[b].offset, classes,
                               out->noise / 2};
    exponent_of(p, m, &own, tolerance, out);
    /* The models named fit as well: the exponents of their growing terms
     * (those that are powers) are in the range. */
    for (int k = 0; k < GROWTH_MODELS; k++)
        if (out->models[k].rival && k != GROWTH_LOG && k != GROWTH_NLOGN) {
            out->exponent_low = fmin(out->exponent_low, model_power[k]);
            out->exponent_high = fmax(out->exponent_high, model_power[k]);
        }
    out->poor = ambiguous || out->models[b].error > GROWTH_POOR_ERROR ||
                out->exponent_high - out->exponent_low > GROWTH_POOR_WIDTH;
}

/* The log-log slope of model M's curve across the window. */
static double model_slope(const struct growth_fit *fit, enum growth_model m)
{
    double lo = growth_model_eval(fit, m, fit->window_lo);
    double hi = growth_model_eval(fit, m, fit->window_hi);
    if (!(lo > 0 && hi > 0) || fit->window_hi <= fit->window_lo)
        return 0;
    return log(hi / lo) / log(fit->window_hi / fit->window_lo);
}

const struct growth_gate growth_default_gate = {GROWTH_MIN_SIZES, GROWTH_MIN_CLASSES,
                                                GROWTH_MIN_SPAN};

void growth_fit(const struct growth_point *pts, size_t n, struct growth_fit *out)
{
    growth_fit_gated(pts, n, &growth_default_gate, out);
}

/* The verdict over the window C[LO..HI); with POWER_RANGE, the range of
 * exponents of the power law alone too. */
static void judge_window(struct sized *c, size_t lo, size_t hi, int power_range,
                         struct growth_fit *out)
{
    out->window_lo = c[lo].n;
    out->window_hi = c[hi - 1].n;
    out->window_classes = growth_classes_in(c, lo, hi);
    out->exponent_from = out->window_lo;
    double x0 = log(c[hi - 1].n);
    growth_set_aside(c, lo, hi, x0, out);
    out->r2 = growth_loglog_r2(c, lo, hi, x0);
    out->noise = noise_of(c, lo, hi);
    struct curve_point *p = xcalloc(hi - lo, sizeof *p);
    size_t m = curve_points(c, lo, hi, p), classes = 0;
    for (size_t i = 0; i < m; i++)
        classes += i == 0 || growth_class_of(p[i].n) != growth_class_of(p[i - 1].n);
    fit_models(p, m, classes, out->noise / 2, out);
    const struct family plain = {0, 0, classes, out->noise / 2};
    exponent_of(p, m, &plain, -1, out);
    /* The best description: the smallest error of the curves with a degree
     * of freedom left (the power law, two: three terms through four
     * classes fit anything). */
    out->power_law_exponent = out->exponent;
    out->power_law_error = out->power_curve.error;
    out->best_error = (size_t)out->power_curve.terms + 2 <= classes ? out->power_curve.error : 1;
    for (int k = 0; k < GROWTH_MODELS; k++)
        if ((size_t)out->models[k].terms + 1 <= classes)
            out->best_error = fmin(out->best_error, out->models[k].error);
    if (power_range) {
        exponent_of(p, m, &plain, tolerance_of(out), out);
        out->power_law_low = out->exponent_low;
        out->power_law_high = out->exponent_high;
    }
    decide(p, m, classes, out);
    for (int k = 0; k < GROWTH_MODELS; k++)
        out->models[k].slope = model_slope(out, (enum growth_model)k);
    out->verdict = 1;
    out->kind = out->poor ? GROWTH_POOR : out->power ? GROWTH_POWER : GROWTH_MODEL;
    free(p);
}

/* Whether SUB, fitted without one end of FIT's window, still backs FIT: a
 * model FIT names is a candidate there (fits, and its growing term is
 * material), or for a power law, SUB's power law fits FIT's exponent. */
static int still_backed(const struct growth_fit *fit, const struct growth_fit *sub)
{
    if (fit->power)
        return sub->power_law_low <= fit->exponent_high &&
               fit->exponent_low <= sub->power_law_high;
    return sub->models[fit->best].candidate ||
           (fit->alternative >= 0 && sub->models[fit->alternative].candidate);
}

/* Whether the verdict over C[LO..HI) is backed without its smallest, and
 * without its largest, size class, each time by GROWTH_MIN_CLASSES classes
 * spanning half the window's logarithmic range (growth_fit.h, 8). */
static int holds_without_ends(struct sized *c, size_t lo, size_t hi, const struct growth_fit *fit)
{
    size_t second = lo, last = hi - 1;
    while (second < hi && growth_class_of(c[second].n) == growth_class_of(c[lo].n))
        second++;
    while (last > lo && growth_class_of(c[last - 1].n) == growth_class_of(c[hi - 1].n))
        last--;
    const size_t from[2] = {second, lo}, to[2] = {hi, last};
    struct growth_fit *sub = xcalloc(1, sizeof *sub);
    int holds = 1;
    for (int end = 0; end < 2 && holds; end++) {
        holds = growth_classes_in(c, from[end], to[end]) >= GROWTH_MIN_CLASSES &&
                c[to[end] - 1].n / c[from[end]].n >= sqrt(c[hi - 1].n / c[lo].n);
        if (holds) {
            memset(sub, 0, sizeof *sub);
            judge_window(c, from[end], to[end], 1, sub);
            holds = still_backed(fit, sub);
        }
    }
    free(sub);
    return holds;
}

static void judge(struct sized *c, size_t count, struct growth_fit *out)
{
    size_t lo = growth_window_start(c, count);
    judge_window(c, lo, count, 0, out);
    support(c, lo, count, out);
    if (!out->poor && !(supported(out) && holds_without_ends(c, lo, count, out)))
        out->poor = 1;
    out->kind = out->poor ? GROWTH_POOR : out->power ? GROWTH_POWER : GROWTH_MODEL;
}

void growth_fit_gated(const struct growth_point *pts, size_t n, const struct growth_gate *gate,
                      struct growth_fit *out)
{
    memset(out, 0, sizeof *out);
    out->alternative = -1;
    for (size_t i = 0; i < n; i++)
        if (pts[i].n > 0) {
            out->sizes++;
            out->calls += pts[i].weight > 0 ? pts[i].weight : 1;
        }
    struct sized *c = xcalloc(out->sizes ? out->sizes : 1, sizeof *c);
    size_t m = growth_sized(pts, n, c, &out->classes);
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
    } else if (cost_varies(c, m, out)) {
        out->varies = 1;
    } else {
        judge(c, m, out);
    }
    free(c);
}
