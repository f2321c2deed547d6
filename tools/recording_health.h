/* recording_health: what `trms info` can vouch for cheaply: that the
 * event trace ends with its end block and holds the events the meta says
 * (trace_check.h), and how much of the result store is in use. */
#ifndef TRMS_RECORDING_HEALTH_H
#define TRMS_RECORDING_HEALTH_H

#include "store/store_compact.h"
#include "trace/recording.h"
#include "trace/trace_check.h"

struct recording_health {
    struct trace_check trace;
    int complete;               /* the meta's word, unless the trace says otherwise */
    const char *trace_state;    /* "verified", "cut", "damaged", "mismatch", "unverified",
                                   "none" (--trace none kept no trace) */
    char complete_text[512];    /* "yes", "no (trace cut at byte N; ...)" */
    char problem[256];          /* what verify would refuse that is cheap to see, or "" */
    struct store_usage store;   /* zero when there is none, or it cannot be read */
};

void recording_health_check(const struct recording *rec, struct recording_health *h);

#endif
