/* The CSV report: one row per performance tuple, for spreadsheets and
 * plotting tools, each with its routine's growth verdict by its metric
 * (worst-case cost: as printed, its exponent and range) and module. */
#include <inttypes.h>

#include "report/csv.h"
#include "report/report.h"
#include "report/report_model.h"

static void rows(FILE *out, const struct report_row *r, int metric,
                 const struct profile_point *pts, size_t n)
{
    char sq[40], ssq[40], path[REPORT_LABEL_MAX], verdict[32], tail[160];
    const struct growth_fit *fit = &r->fit[metric][COST_WORST];
    growth_verdict_text(fit, verdict, sizeof verdict);
    if (fit->verdict)
        snprintf(tail, sizeof tail, ",%.4g,%.4g,%.4g,", fit->exponent, fit->exponent_low,
                 fit->exponent_high);
    else
        snprintf(tail, sizeof tail, ",,,,");
    for (size_t i = 0; i < n; i++) {
        csv_field(out, r->name);
        if (r->all_threads)
            fputs(",all", out);
        else
            fprintf(out, ",%" PRIu32, r->tid);
        fprintf(out, ",%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
                     ",%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%s,%" PRIu64 ",",
                report_metric_names[metric], pts[i].n, pts[i].calls, pts[i].min, pts[i].max,
                pts[i].sum,
                format_u128(pts[i].sumsq, sq), pts[i].self_min, pts[i].self_max,
                pts[i].self_sum, format_u128(pts[i].self_sumsq, ssq), pts[i].real_sum);
        csv_field(out, r->context ? report_row_label(r, path, sizeof path) : "");
        fputc(',', out);
        csv_field(out, verdict);
        fputs(tail, out);
        csv_field(out, r->module ? r->module : "");
        if (r->module)
            fprintf(out, ",0x%" PRIx64, r->module_address);
        else
            fputc(',', out);
        /* Added at the end: the routine's external input, and of it what
         * another recorded process wrote (from_pid), per row. */
        fprintf(out, ",%" PRIu64 ",%" PRIu64 ",", r->induced_external, r->induced_process);
        if (r->from_pid)
            fprintf(out, "%d", r->from_pid);
        fputc('\n', out);
    }
}

int report_csv(FILE *out, const struct report_model *m, const struct report_options *o)
{
    (void)o;
    /* A CSV holds rows only: what is missing is said beside it. */
    report_model_say_notes(m);
    fputs("routine,thread,metric,n,calls,min,max,sum,sumsq,self_min,self_max,self_sum,"
          "self_sumsq,real_sum,context,growth,exponent,exponent_low,exponent_high,module,"
          "module_address,induced_external,induced_process,from_pid\n", out);
    for (size_t i = 0; i < m->n_rows; i++) {
        const struct report_row *r = &m->rows[i];
        rows(out, r, METRIC_RMS, r->points[METRIC_RMS], r->n_points[METRIC_RMS]);
        rows(out, r, METRIC_TRMS, r->points[METRIC_TRMS], r->n_points[METRIC_TRMS]);
    }
    return 0;
}
