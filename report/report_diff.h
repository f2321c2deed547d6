/* report_diff: which routines' cost or growth changed between two
 * recordings (trms diff).
 *
 * Rows of the two report models are matched by label and thread (threads
 * by order of appearance). A routine's growth changed when both runs have
 * a good fit (a verdict, not poor), their chosen models differ and their
 * exponents' 95% intervals do not overlap; its cost changed when it moved by more than the threshold
 * (relative to the first run) and by at least DIFF_MIN_SHARE of the
 * program's cost (a routine of 60 instructions going to 40 is noise).
 * Routines seen in one run only are listed too. */
#ifndef TRMS_REPORT_DIFF_H
#define TRMS_REPORT_DIFF_H

#include <stdio.h>

#include "report/report_model.h"

#define DIFF_MIN_SHARE 0.001

struct diff_options {
    int metric;              /* enum report_metric of the fits compared */
    int cost;                /* enum report_cost: worst-case or average */
    double threshold;        /* relative cost change that counts, e.g. 0.1 */
    int all;                 /* text: unchanged routines too */
};

struct diff_row {
    const struct report_row *a, *b;   /* either may be NULL: seen in one run only */
    double cost_change;               /* (b - a) / a; 0 when a has no cost */
    int growth_changed;
    int cost_changed;
};

struct report_diff {
    struct diff_row *rows;   /* changed first (growth, then the largest cost
                                changes), then the rest by cost */
    size_t n_rows;
    size_t n_growth, n_cost, n_only_a, n_only_b;
};

void report_diff_build(const struct report_model *a, const struct report_model *b,
                       const struct diff_options *o, struct report_diff *out);
void report_diff_free(struct report_diff *d);

int report_diff_text(FILE *out, const struct report_model *a, const struct report_model *b,
                     const struct report_diff *d, const struct diff_options *o);
int report_diff_json(FILE *out, const struct report_model *a, const struct report_model *b,
                     const struct report_diff *d, const struct diff_options *o);

#endif
