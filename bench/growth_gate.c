/* growth_gate: how much data a growth verdict needs, measured on data.
 *
 * Reads series of performance tuples of routines whose growth is known
 * (bench/growth_gate.sh extracts them from a recording of the corpus of
 * tests/programs/growth), then, for each series, draws many subsets of
 * its sizes: a window of the sizes spanning a given ratio, anchored at a
 * size in the top tenth of the series' logarithmic range (the large end,
 * where the growth is known), and a given number of sizes drawn from the
 * window. Each subset is fitted with a
 * gate that lets almost everything through (3 sizes in 3 classes), and
 * the verdict is judged against the known growth. One line per draw on
 * stdout:
 *
 *     SERIES SIZES CLASSES SPAN OUTCOME VERDICT
 *
 * OUTCOME is right (the known verdict), both (two neighbours named, the
 * known one among them: "n or n log n" for n log n), flagged (a poor
 * verdict: the report's '?' warns the reader), close (a confident verdict that is not
 * the known one but stands for an exponent within 0.5 of it: n for
 * n log n, whose logarithm a narrow span hides; ~n^2.3 for n^2) or wrong
 * (a confident verdict further off: n^2 for n). bench/growth_gate.sh then asks, for each candidate
 * gate, how many verdicts it lets through and how many of those are
 * wrong.
 *
 * Input, on stdin: "series NAME EXPECTED LOW HIGH" (EXPECTED a verdict as
 * printed, "n^2" or "~n^1.5"; LOW and HIGH the exponent's expected range),
 * then one "N COST CALLS" line per size.
 *
 * usage: growth-gate [DRAWS_PER_CELL] [SEED] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/growth_fit.h"

#define MAX_SERIES 256
#define MAX_POINTS 4096

struct series {
    char name[160], expected[32];
    double low, high;
    struct growth_point *points;   /* sorted by n */
    size_t n;
};

static unsigned long long rng_state = 88172645463325252ull;

static double uniform01(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) / 9007199254740992.0;
}

static size_t below(size_t n)
{
    size_t i = (size_t)(uniform01() * (double)n);
    return i < n ? i : n - 1;
}

static int by_n(const void *x, const void *y)
{
    const struct growth_point *a = x, *b = y;
    return (a->n > b->n) - (a->n < b->n);
}

static size_t read_series(struct series *all)
{
    size_t count = 0;
    char line[512];
    struct series *s = NULL;
    while (fgets(line, sizeof line, stdin)) {
        if (strncmp(line, "series ", 7) == 0) {
            if (count == MAX_SERIES)
                break;
            s = &all[count++];
            memset(s, 0, sizeof *s);
            s->points = calloc(MAX_POINTS, sizeof *s->points);
            if (!s->points || sscanf(line, "series %159s %31s %lf %lf", s->name, s->expected,
                                     &s->low, &s->high) != 4) {
                fprintf(stderr, "growth-gate: bad series line: %s", line);
                exit(2);
            }
            for (char *p = s->expected; *p; p++)
                if (*p == '_')
                    *p = ' '; /* "n_log_n" on the line */
            continue;
        }
        double n, cost, calls;
        if (s && s->n < MAX_POINTS && sscanf(line, "%lf %lf %lf", &n, &cost, &calls) == 3 && n > 0)
            s->points[s->n++] = (struct growth_point){.n = n, .cost = cost, .weight = calls};
    }
    for (size_t i = 0; i < count; i++)
        qsort(all[i].points, all[i].n, sizeof *all[i].points, by_n);
    return count;
}

/* The exponent a verdict stands for: its model's (log n a tenth above
 * the power it multiplies), or the power law's. */
static double nominal(int power, double exponent, const char *model)
{
    static const struct {
        const char *name;
        double exponent;
    } models[] = {{"1", 0}, {"log n", 0.1}, {"n", 1}, {"n log n", 1.1}, {"n^2", 2}, {"n^3", 3}};
    if (power)
        return exponent;
    for (size_t i = 0; i < sizeof models / sizeof *models; i++)
        if (strcmp(models[i].name, model) == 0)
            return models[i].exponent;
    return NAN;
}

/* right, both, flagged, close or wrong, as the header above says. */
static const char *judge(const struct series *s, const struct growth_fit *fit)
{
    char text[32];
    growth_verdict_text(fit, text, sizeof text);
    if (fit->poor)
        return "flagged";
    if (!fit->power && fit->alternative >= 0 &&
        (strcmp(growth_model_name(fit->best), s->expected) == 0 ||
         strcmp(growth_model_name((enum growth_model)fit->alternative), s->expected) == 0))
        return "both";
    int power_expected = s->expected[0] == '~';
    if (power_expected ? fit->power && s->low <= fit->exponent && fit->exponent <= s->high
                       : strcmp(text, s->expected) == 0)
        return "right";
    double want = power_expected ? (s->low + s->high) / 2 : nominal(0, 0, s->expected);
    double got = nominal(fit->power, fit->exponent, growth_model_name(fit->best));
    return fabs(got - want) <= 0.5 ? "close" : "wrong";
}

int main(int argc, char **argv)
{
    int draws = argc > 1 ? atoi(argv[1]) : 20;
    if (argc > 2)
        rng_state ^= strtoull(argv[2], NULL, 10) * 0x9E3779B97F4A7C15ull;
    static struct series all[MAX_SERIES];
    size_t n_series = read_series(all);
    static const double spans[] = {1.5, 2, 3, 4, 6, 8, 12, 16, 32, 64, 256, 1024};
    const struct growth_gate open_gate = {3, 3, 1.0};
    struct growth_point subset[MAX_POINTS];
    size_t *pick = calloc(MAX_POINTS, sizeof *pick);
    if (!pick)
        return 1;
    for (size_t i = 0; i < n_series; i++) {
        const struct series *s = &all[i];
        if (s->n < 3)
            continue;
        /* Anchors: the sizes in the top tenth of the logarithmic range,
         * where the known growth holds (lower down, lower-order terms and
         * vectorized steps make other growths the truth). */
        double lo = log(s->points[0].n), hi = log(s->points[s->n - 1].n);
        size_t upper = 0;
        while (upper < s->n && log(s->points[upper].n) < hi - (hi - lo) / 10)
            upper++;
        for (size_t sp = 0; sp < sizeof spans / sizeof *spans; sp++) {
            for (size_t k = 3; k <= 16; k++) {
                for (int d = 0; d < draws; d++) {
                    /* The window: SPAN wide, down from the anchor. */
                    size_t top = upper + below(s->n - upper);
                    double floor_n = s->points[top].n / spans[sp];
                    size_t first = top;
                    while (first > 0 && s->points[first - 1].n >= floor_n)
                        first--;
                    size_t in_window = top - first + 1;
                    if (in_window < k)
                        continue;
                    /* K sizes of the window, at random (a partial shuffle). */
                    for (size_t j = 0; j < in_window; j++)
                        pick[j] = first + j;
                    for (size_t j = 0; j < k; j++) {
                        size_t r = j + below(in_window - j), t = pick[j];
                        pick[j] = pick[r];
                        pick[r] = t;
                        subset[j] = s->points[pick[j]];
                    }
                    struct growth_fit fit;
                    growth_fit_gated(subset, k, &open_gate, &fit);
                    if (!fit.verdict)
                        continue;
                    double min_n = INFINITY, max_n = 0;
                    for (size_t j = 0; j < k; j++) {
                        min_n = fmin(min_n, subset[j].n);
                        max_n = fmax(max_n, subset[j].n);
                    }
                    char text[32];
                    growth_verdict_text(&fit, text, sizeof text);
                    for (char *p = text; *p; p++)
                        if (*p == ' ')
                            *p = '_';
                    printf("%s %zu %zu %.4g %s %s\n", s->name, fit.sizes, fit.classes,
                           max_n / min_n, judge(s, &fit), text);
                }
            }
        }
    }
    free(pick);
    for (size_t i = 0; i < n_series; i++)
        free(all[i].points);
    return 0;
}
