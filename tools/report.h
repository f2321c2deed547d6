/* report: the formats `trms report` prints a stored result in. */
#ifndef TRMS_REPORT_H
#define TRMS_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "analyses/result.h"

struct report_options {
    const char *recording;  /* path, for the heading */
    size_t top;             /* text: routines shown, 0 = all */
    const char *routine;    /* text: also print this routine's tuples */
};

/* Each returns -1, having printed nothing, when the options ask for
 * something the result lacks (a routine it never saw). */
int report_text(FILE *out, const struct analysis_result *r, const struct report_options *o);
int report_json(FILE *out, const struct analysis_result *r, const struct report_options *o);
int report_csv(FILE *out, const struct analysis_result *r, const struct report_options *o);

/* Decimal digits of V in BUF. */
const char *format_u128(unsigned __int128 v, char buf[static 40]);

/* Profiles ordered by cumulative cost, highest first (ties by name, then
 * thread); the caller frees the array of pointers. */
const struct routine_profile **profiles_by_cost(const struct analysis_result *r);

#endif
