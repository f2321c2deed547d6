/* The JSON report: the whole result, exact, for scripts and tests. */
#include <inttypes.h>

#include "analyses/activation.h"
#include "store/symbol_store.h"
#include "tools/json.h"
#include "tools/report.h"

static void json_points(FILE *out, const struct profile_point *pts, size_t n)
{
    fputc('[', out);
    for (size_t i = 0; i < n; i++) {
        const struct profile_point *p = &pts[i];
        char sq[40], ssq[40];
        fprintf(out,
                "%s{\"n\": %" PRIu64 ", \"calls\": %" PRIu64 ", \"min\": %" PRIu64
                ", \"max\": %" PRIu64 ", \"sum\": %" PRIu64 ", \"sumsq\": %s, \"self_min\": %"
                PRIu64 ", \"self_max\": %" PRIu64 ", \"self_sum\": %" PRIu64
                ", \"self_sumsq\": %s}",
                i ? ", " : "", p->n, p->calls, p->min, p->max, p->sum, format_u128(p->sumsq, sq),
                p->self_min, p->self_max, p->self_sum, format_u128(p->self_sumsq, ssq));
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

int report_json(FILE *out, const struct analysis_result *r, const struct report_options *o)
{
    fputs("{\n  \"recording\": ", out);
    json_string(out, o->recording);
    fprintf(out, ",\n  \"trms_version\": \"%s\",\n  \"cell_size\": %" PRIu64
                 ",\n  \"line_size\": %" PRIu64 ",\n  \"events\": {",
            TRMS_VERSION, r->cell_size, r->line_size);
    for (int t = 0; t < EVENT_TYPE_COUNT; t++)
        fprintf(out, "%s\"%s\": %" PRIu64, t ? ", " : "", event_type_name((enum event_type)t),
                r->events[t]);
    fprintf(out, "},\n  \"activations\": %" PRIu64 ",\n  \"routines\": [", r->activations);
    for (size_t i = 0; i < r->n_profiles; i++) {
        const struct routine_profile *p = &r->profiles[i];
        char buf[REPORT_LABEL_MAX];
        fputs(i ? ",\n    {\"name\": " : "\n    {\"name\": ", out);
        json_string(out, report_routine_name(&r->routines, o->symbols, p->routine, buf));
        if (p->routine != ROUTINE_ROOT && p->routine < r->routines.count &&
            r->routines.items[p->routine].addr)
            fprintf(out, ", \"address\": \"0x%" PRIx64 "\"", r->routines.items[p->routine].addr);
        /* Where an address-only routine's name came from. */
        const struct symbol_name *sym = report_routine_symbol(&r->routines, o->symbols, p->routine);
        if (sym && sym->file) {
            fputs(", \"file\": ", out);
            json_string(out, sym->file);
        }
        if (sym && sym->line > 0)
            fprintf(out, ", \"line\": %d", sym->line);
        fprintf(out,
                ", \"thread\": %" PRIu32 ", \"calls\": %" PRIu64 ", \"cost\": %" PRIu64
                ", \"self_cost\": %" PRIu64 ", \"induced_thread\": %" PRIu64
                ", \"induced_external\": %" PRIu64 ",\n     \"rms_points\": ",
                p->tid, p->calls, p->cost, p->self_cost, p->induced_thread, p->induced_external);
        json_points(out, p->rms_points, p->n_rms_points);
        fputs(",\n     \"trms_points\": ", out);
        json_points(out, p->trms_points, p->n_trms_points);
        fputc('}', out);
    }
    fputs("\n  ],\n  \"reuse\": {\n    \"global\": ", out);
    json_histogram(out, &r->reuse_global);
    fputs(",\n    \"threads\": {", out);
    for (size_t i = 0; i < r->n_threads; i++) {
        fprintf(out, "%s\n      \"%" PRIu32 "\": ", i ? "," : "", r->reuse_threads[i].tid);
        json_histogram(out, &r->reuse_threads[i].histogram);
    }
    fputs("\n    }\n  }\n}\n", out);
    return 0;
}
