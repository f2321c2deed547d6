/* The CSV report: one row per performance tuple, for spreadsheets and
 * plotting tools. */
#include <inttypes.h>

#include "report/csv.h"
#include "report/report.h"
#include "report/report_model.h"

static void rows(FILE *out, const struct report_row *r, const char *metric,
                 const struct profile_point *pts, size_t n)
{
    char sq[40], ssq[40], path[REPORT_LABEL_MAX];
    for (size_t i = 0; i < n; i++) {
        csv_field(out, r->name);
        if (r->all_threads)
            fputs(",all", out);
        else
            fprintf(out, ",%" PRIu32, r->tid);
        fprintf(out, ",%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
                     ",%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%s,%" PRIu64 ",",
                metric, pts[i].n, pts[i].calls, pts[i].min, pts[i].max, pts[i].sum,
                format_u128(pts[i].sumsq, sq), pts[i].self_min, pts[i].self_max,
                pts[i].self_sum, format_u128(pts[i].self_sumsq, ssq), pts[i].real_sum);
        csv_field(out, r->context ? report_row_label(r, path, sizeof path) : "");
        fputc('\n', out);
    }
}

int report_csv(FILE *out, const struct report_model *m, const struct report_options *o)
{
    (void)o;
    fputs("routine,thread,metric,n,calls,min,max,sum,sumsq,self_min,self_max,self_sum,"
          "self_sumsq,real_sum,context\n", out);
    for (size_t i = 0; i < m->n_rows; i++) {
        const struct report_row *r = &m->rows[i];
        rows(out, r, "rms", r->points[METRIC_RMS], r->n_points[METRIC_RMS]);
        rows(out, r, "trms", r->points[METRIC_TRMS], r->n_points[METRIC_TRMS]);
    }
    return 0;
}
