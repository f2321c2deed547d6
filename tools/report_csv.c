/* The CSV report: one row per performance tuple, for spreadsheets and
 * plotting tools. */
#include <inttypes.h>

#include "tools/csv.h"
#include "tools/report.h"

static void rows(FILE *out, const struct analysis_result *r, const struct report_options *o,
                 const struct routine_profile *p, const char *metric,
                 const struct profile_point *pts, size_t n)
{
    char buf[REPORT_LABEL_MAX], sq[40], ssq[40];
    for (size_t i = 0; i < n; i++) {
        csv_field(out, report_routine_name(&r->routines, o->symbols, p->routine, buf));
        fprintf(out, ",%" PRIu32 ",%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
                     ",%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%s\n",
                p->tid, metric, pts[i].n, pts[i].calls, pts[i].min, pts[i].max, pts[i].sum,
                format_u128(pts[i].sumsq, sq), pts[i].self_min, pts[i].self_max,
                pts[i].self_sum, format_u128(pts[i].self_sumsq, ssq));
    }
}

int report_csv(FILE *out, const struct analysis_result *r, const struct report_options *o)
{
    fputs("routine,thread,metric,n,calls,min,max,sum,sumsq,self_min,self_max,self_sum,"
          "self_sumsq\n", out);
    for (size_t i = 0; i < r->n_profiles; i++) {
        const struct routine_profile *p = &r->profiles[i];
        rows(out, r, o, p, "rms", p->rms_points, p->n_rms_points);
        rows(out, r, o, p, "trms", p->trms_points, p->n_trms_points);
    }
    return 0;
}
