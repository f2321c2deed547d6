/* causal_formats: a causal profile (`trms causal`) in Coz's own profile
 * format and as an HTML page of curves in the report's style.
 *
 * The profile is computed elsewhere (tools/cmd_causal.c over
 * analyses/causal_model.h); these only write it. */
#ifndef TRMS_CAUSAL_FORMATS_H
#define TRMS_CAUSAL_FORMATS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Routine speedups 0, 5, ..., 100%. */
#define CAUSAL_STEPS 21

struct causal_curve {
    const char *name, *module;     /* module "" when unknown */
    uint64_t instructions;         /* inclusive, over the run */
    double points[CAUSAL_STEPS];   /* predicted program speedup, a fraction */
    /* What the program speedup is computed from, in instructions: the
     * predicted run time, the mean time between two completions of the
     * progress point, or the mean latency (0 when none is left). */
    double measured[CAUSAL_STEPS];
    double max;
};

struct causal_profile {
    const char *recording;
    const char *progress;          /* NULL: end-to-end; else the point, or a latency's begin */
    const char *end;               /* a latency's end, or NULL */
    uint64_t completions;          /* of the progress point, or latency pairs */
    unsigned cores;                /* 0: a core per thread */
    uint64_t threads, segments, edges, instructions;
    double predicted_time;
    const struct causal_curve *curves;  /* ranked */
    size_t n;
    size_t left_out;
};

/* Coz's profile.coz: per routine and speedup one `experiment` line
 * (selected = the routine's name, duration in ns at 1 instruction/ns)
 * and the point it measures: a `throughput-point` (end-to-end or
 * --progress; duration / delta is the predicted time or period) or a
 * `latency-point` (Little's law in Coz's viewer, difference x duration /
 * arrivals, gives the predicted latency); then `runtime` and one
 * `samples` line per routine (its inclusive instructions). */
void causal_write_coz(FILE *out, const struct causal_profile *p);

/* One self-contained HTML page: the curves as plots (predicted program
 * speedup against routine speedup), ranked, and the table of values. */
void causal_write_html(FILE *out, const struct causal_profile *p);

#endif
