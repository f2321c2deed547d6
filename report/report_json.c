/* The JSON report: the whole model, exact, for scripts and tests. */
#include <inttypes.h>

#include "analyses/analysis_parts.h"
#include "report/json.h"
#include "report/report.h"
#include "report/report_model.h"

static void json_points(FILE *out, const struct profile_point *pts, size_t n)
{
    fputc('[', out);
    for (size_t i = 0; i < n; i++) {
        const struct profile_point *p = &pts[i];
        char sq[40], ssq[40];
        fprintf(out,
                "%s{\"n\": %" PRIu64 ", \"calls\": %" PRIu64 ", \"min\": %" PRIu64
                ", \"max\": %" PRIu64 ", \"sum\": %" PRIu64 ", \"sumsq\": %s, \"real_sum\": %"
                PRIu64 ", \"self_min\": %" PRIu64 ", \"self_max\": %" PRIu64
                ", \"self_sum\": %" PRIu64 ", \"self_sumsq\": %s}",
                i ? ", " : "", p->n, p->calls, p->min, p->max, p->sum, format_u128(p->sumsq, sq),
                p->real_sum, p->self_min, p->self_max, p->self_sum,
                format_u128(p->self_sumsq, ssq));
    }
    fputc(']', out);
}

static void json_histogram(FILE *out, const struct reuse_histogram *h)
{
    fprintf(out, "{\"accesses\": %" PRIu64 ", \"cold\": %" PRIu64 ", \"histogram\": [",
            h->accesses, h->cold);
    for (size_t i = 0; i < h->n_bins; i++)
        fprintf(out, "%s[%" PRIu64 ", %" PRIu64 "]", i ? ", " : "", h->bins[i].distance,
                h->bins[i].count);
    fputs("]}", out);
}

/* A fitted curve: cost ~ a + b f(n) + c n (offset always 0). */
static void json_curve(FILE *out, const struct model_fit *f)
{
    fputs("{\"a\": ", out);
    json_number(out, f->a);
    fputs(", \"b\": ", out);
    json_number(out, f->b);
    fputs(", \"c\": ", out);
    json_number(out, f->c);
    fputs(", \"offset\": ", out);
    json_number(out, f->offset);
    fputs(", \"error\": ", out);
    json_number(out, f->error);
    fputs(", \"slope\": ", out);
    json_number(out, f->slope);
    fputs(", \"share\": ", out);
    json_number(out, f->share);
    fputs(", \"aicc\": ", out);
    json_number(out, f->aicc);
    fprintf(out, ", \"terms\": %d, \"fits\": %s, \"candidate\": %s, \"rival\": %s}",
            f->terms, f->fits ? "true" : "false", f->candidate ? "true" : "false",
            f->rival ? "true" : "false");
}

static void json_fit(FILE *out, const struct growth_fit *fit)
{
    char verdict[32];
    fprintf(out, "{\"sizes\": %zu, \"classes\": %zu, \"verdict\": %s, \"kind\": \"%s\"",
            fit->sizes, fit->classes, fit->verdict ? "true" : "false",
            growth_kind_name(fit->kind));
    if (!fit->verdict) {
        fprintf(out, ", \"varies\": %s, \"why\": ", fit->varies ? "true" : "false");
        json_string(out, fit->why);
        fputc('}', out);
        return;
    }
    fputs(", \"growth\": ", out);
    json_string(out, growth_verdict_text(fit, verdict, sizeof verdict));
    fputs(", \"model\": ", out);
    if (fit->power)
        fputs("null", out);
    else
        json_string(out, growth_model_name(fit->best));
    fputs(", \"alternative\": ", out);
    if (fit->power || fit->alternative < 0)
        fputs("null", out);
    else
        json_string(out, growth_model_name((enum growth_model)fit->alternative));
    fprintf(out, ", \"poor\": %s, \"offset\": ", fit->poor ? "true" : "false");
    json_number(out, fit->power ? fit->power_curve.offset : fit->models[fit->best].offset);
    fputs(", \"noise\": ", out);
    json_number(out, fit->noise);
    fputs(", \"best_error\": ", out);
    json_number(out, fit->best_error);
    fputs(", \"calls\": ", out);
    json_number(out, fit->calls);
    fputs(", \"decided_calls\": ", out);
    json_number(out, fit->decided_calls);
    fprintf(out, ", \"decided_classes\": %zu", fit->decided_classes);
    fputs(", \"exponent\": ", out);
    json_number(out, fit->exponent);
    fputs(", \"exponent_ci\": [", out);
    json_number(out, fit->exponent_low);
    fputs(", ", out);
    json_number(out, fit->exponent_high);
    fputs("], \"exponent_from\": ", out);
    json_number(out, fit->exponent_from);
    fputs(", \"window\": [", out);
    json_number(out, fit->window_lo);
    fputs(", ", out);
    json_number(out, fit->window_hi);
    fprintf(out, "], \"window_classes\": %zu, \"set_aside\": [", fit->window_classes);
    for (size_t i = 0; i < fit->set_aside && i < GROWTH_SET_ASIDE_MAX; i++) {
        fputs(i ? ", " : "", out);
        json_number(out, fit->set_aside_n[i]);
    }
    fprintf(out, "], \"set_aside_classes\": %zu, \"set_aside_calls\": ", fit->set_aside);
    json_number(out, fit->set_aside_calls);
    fputs(", \"r2\": ", out);
    json_number(out, fit->r2);
    fputs(", \"power_law\": {\"exponent\": ", out);
    json_number(out, fit->power_law_exponent);
    fputs(", \"error\": ", out);
    json_number(out, fit->power_law_error);
    fputs("}, \"power_curve\": ", out);
    json_curve(out, &fit->power_curve);
    fputs(", \"models\": {", out);
    for (int m = 0; m < GROWTH_MODELS; m++) {
        fputs(m ? ", " : "", out);
        json_string(out, growth_model_name((enum growth_model)m));
        fputs(": ", out);
        json_curve(out, &fit->models[m]);
    }
    fputs("}}", out);
}

static void json_row(FILE *out, const struct report_model *m, const struct report_row *r)
{
    fputs("{\"name\": ", out);
    json_string(out, r->name);
    if (r->address)
        fprintf(out, ", \"address\": \"0x%" PRIx64 "\"", r->address);
    if (r->file) {
        fputs(", \"file\": ", out);
        json_string(out, r->file);
    }
    if (r->line > 0)
        fprintf(out, ", \"line\": %d", r->line);
    if (r->module) {
        fputs(", \"module\": ", out);
        json_string(out, r->module);
        fprintf(out, ", \"module_address\": \"0x%" PRIx64 "\"", r->module_address);
    }
    if (r->context) {
        fputs(", \"context\": [", out);
        for (size_t i = 0; i < r->context_depth; i++) {
            fputs(i ? ", " : "", out);
            json_string(out, r->context[i]);
        }
        fputc(']', out);
    }
    if (r->all_threads)
        fputs(", \"thread\": null", out);
    else
        fprintf(out, ", \"thread\": %" PRIu32, r->tid);
    fputs(", \"threads\": [", out);
    for (size_t i = 0; i < r->n_tids; i++)
        fprintf(out, "%s%" PRIu32, i ? ", " : "", r->tids[i]);
    fprintf(out, "], \"calls\": %" PRIu64 ", \"cost\": %" PRIu64 ", \"self_cost\": %" PRIu64,
            r->calls, r->cost, r->self_cost);
    if (m->analyses & ANALYSIS_TRMS)
    {
        fprintf(out, ", \"induced_thread\": %" PRIu64 ", \"induced_external\": %" PRIu64,
                r->induced_thread, r->induced_external);
        /* Of induced_external: what another recorded process wrote into a
         * pipe, FIFO or socket this routine's thread read. */
        fprintf(out, ", \"induced_process\": %" PRIu64 ", \"input_from\": ",
                r->induced_process);
        if (r->from_pid) {
            fprintf(out, "{\"pid\": %d, \"command\": ", r->from_pid);
            json_string(out, r->from_command ? r->from_command : "");
            fputc('}', out);
        } else {
            fputs("null", out);
        }
    }
    fprintf(out, ", \"wrapper\": %s", r->wrapper ? "true" : "false");
    if (m->analyses & ANALYSIS_TRMS) {
        fputs(", \"thread_input_share\": ", out);
        json_number(out, report_row_share(r, 0) / 100);
        fputs(", \"external_input_share\": ", out);
        json_number(out, report_row_share(r, 1) / 100);
    }
    fputs(", \"passes_to\": ", out);
    if (r->passes_to >= 0) {
        char label[REPORT_LABEL_MAX];
        json_string(out, report_row_label(&m->rows[r->passes_to], label, sizeof label));
    } else {
        fputs("null", out);
    }
    if (m->analyses & ANALYSIS_RMS) {
        fputs(",\n     \"rms_points\": ", out);
        json_points(out, r->points[METRIC_RMS], r->n_points[METRIC_RMS]);
    }
    if (m->analyses & ANALYSIS_TRMS) {
        fputs(",\n     \"trms_points\": ", out);
        json_points(out, r->points[METRIC_TRMS], r->n_points[METRIC_TRMS]);
    }
    fputs(",\n     \"fit\": {", out);
    int listed = 0;
    for (int metric = 0; metric < METRICS; metric++) {
        if (!(m->analyses & report_metric_parts[metric]))
            continue;
        fprintf(out, "%s\"%s\": {", listed++ ? ", " : "", report_metric_names[metric]);
        for (int k = 0; k < COST_KINDS; k++) {
            fprintf(out, "%s\n       \"%s\": ", k ? "," : "", report_cost_names[k]);
            json_fit(out, &r->fit[metric][k]);
        }
        fputc('}', out);
    }
    fputs("}}", out);
}

/* PARTS as a JSON list of the `--analyses` names, in their order. */
static const char *json_parts(unsigned parts, char buf[static 40])
{
    static const unsigned each[] = {ANALYSIS_RMS, ANALYSIS_TRMS, ANALYSIS_REUSE};
    size_t n = (size_t)snprintf(buf, 40, "[");
    for (size_t i = 0; i < sizeof each / sizeof *each; i++) {
        char name[ANALYSIS_PARTS_TEXT_MAX];
        if (parts & each[i])
            n += (size_t)snprintf(buf + n, 40 - n, "%s\"%s\"", n > 1 ? ", " : "",
                                  analysis_parts_text(each[i], name));
    }
    snprintf(buf + n, 40 - n, "]");
    return buf;
}

int report_json(FILE *out, const struct report_model *m, const struct report_options *o)
{
    (void)o;
    char parts[40];
    fputs("{\n  \"recording\": ", out);
    json_string(out, m->recordings[0]);
    fputs(",\n  \"recordings\": [", out);
    for (size_t i = 0; i < m->n_recordings; i++) {
        fputs(i ? ", " : "", out);
        json_string(out, m->recordings[i]);
    }
    int windows = 0;
    for (size_t i = 0; i < m->n_recordings; i++)
        windows |= m->windows[i] != NULL;
    if (windows) { /* only then: what a window left out, per recording */
        fputs("],\n  \"windows\": [", out);
        for (size_t i = 0; i < m->n_recordings; i++) {
            fputs(i ? ", " : "", out);
            if (m->windows[i])
                json_string(out, m->windows[i]);
            else
                fputs("null", out);
        }
    }
    int no_trace = 0;
    for (size_t i = 0; i < m->n_recordings; i++)
        no_trace |= m->no_trace[i];
    if (no_trace) { /* only then: the recordings that kept no event trace */
        fputs("],\n  \"traces_not_kept\": [", out);
        for (size_t i = 0, listed = 0; i < m->n_recordings; i++)
            if (m->no_trace[i]) {
                fputs(listed++ ? ", " : "", out);
                json_string(out, m->recordings[i]);
            }
    }
    fprintf(out, "],\n  \"trms_version\": \"%s\",\n  \"cell_size\": %" PRIu64
                 ",\n  \"line_size\": %" PRIu64 ",\n  \"analyses\": %s,\n  \"contexts\": %s"
                 ",\n  \"threads_aggregated\": %s,\n  \"threads_by_order\": %s,\n  \"ranked_by\": "
                 "\"%s\",\n  \"events\": {",
            TRMS_VERSION, m->cell_size, m->line_size, json_parts(m->analyses, parts),
            m->contexts ? "true" : "false",
            m->aggregate_threads ? "true" : "false", m->threads_by_order ? "true" : "false",
            m->by_self ? "self_cost" : "cost");
    for (int t = 0; t < EVENT_TYPE_COUNT; t++)
        fprintf(out, "%s\"%s\": %" PRIu64, t ? ", " : "", event_type_name((enum event_type)t),
                m->events[t]);
    fputc('}', out);
    /* A part not computed (`--analyses`) is left out whole. */
    if (m->analyses & (ANALYSIS_RMS | ANALYSIS_TRMS)) {
        fprintf(out, ",\n  \"activations\": %" PRIu64 ",\n  \"routines\": [", m->activations);
        for (size_t i = 0; i < m->n_rows; i++) {
            fputs(i ? ",\n    " : "\n    ", out);
            json_row(out, m, &m->rows[i]);
        }
        fputs("\n  ]", out);
    }
    if (!(m->analyses & ANALYSIS_REUSE)) {
        fputs("\n}\n", out);
        return 0;
    }
    fputs(",\n  \"reuse\": {\n    \"global\": ", out);
    json_histogram(out, &m->reuse_global);
    fputs(",\n    \"threads\": {", out);
    for (size_t i = 0; i < m->n_threads; i++) {
        fprintf(out, "%s\n      \"%" PRIu32 "\": ", i ? "," : "", m->reuse_threads[i].tid);
        json_histogram(out, &m->reuse_threads[i].histogram);
    }
    fputs("\n    }\n  }\n}\n", out);
    return 0;
}
