#include "report/report_diff.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/activation.h"
#include "common/oom.h"
#include "report/json.h"
#include "report/report.h"

static int same_row(const struct report_row *x, const char *x_key, const struct report_row *y,
                    const char *y_key)
{
    return x->all_threads == y->all_threads && x->tid == y->tid && strcmp(x_key, y_key) == 0;
}

/* Both verdicts confident, different, and their exponents' intervals
 * apart. */
static int growth_changed(const struct growth_fit *a, const struct growth_fit *b)
{
    char va[32], vb[32];
    return a->verdict && b->verdict && !a->poor && !b->poor &&
           strcmp(growth_verdict_text(a, va, sizeof va), growth_verdict_text(b, vb, sizeof vb)) &&
           (a->exponent_high < b->exponent_low || b->exponent_high < a->exponent_low);
}

static uint64_t cost_of(const struct diff_row *r)
{
    uint64_t a = r->a ? r->a->cost : 0, b = r->b ? r->b->cost : 0;
    return a > b ? a : b;
}

static int by_importance(const void *x, const void *y)
{
    const struct diff_row *a = x, *b = y;
    int ca = a->growth_changed * 4 + (a->cost_changed || !a->a || !a->b) * 2;
    int cb = b->growth_changed * 4 + (b->cost_changed || !b->a || !b->b) * 2;
    if (ca != cb)
        return cb - ca;
    if (ca == 2 && fabs(a->cost_change) != fabs(b->cost_change))
        return fabs(a->cost_change) < fabs(b->cost_change) ? 1 : -1;
    uint64_t x1 = cost_of(a), y1 = cost_of(b);
    if (x1 != y1)
        return x1 < y1 ? 1 : -1;
    return 0;
}

/* The program's cost: its threads' roots. */
static uint64_t total_cost(const struct report_model *m)
{
    uint64_t total = 0;
    for (size_t i = 0; i < m->n_rows; i++)
        if (strcmp(m->rows[i].name, ROUTINE_ROOT_LABEL) == 0 &&
            (!m->rows[i].context || m->rows[i].context_depth == 0))
            total += m->rows[i].cost;
    return total;
}

void report_diff_build(const struct report_model *a, const struct report_model *b,
                       const struct diff_options *o, struct report_diff *out)
{
    uint64_t ta = total_cost(a), tb = total_cost(b);
    double noticeable = DIFF_MIN_SHARE * (double)(ta > tb ? ta : tb);
    memset(out, 0, sizeof *out);
    out->rows = xcalloc(a->n_rows + b->n_rows + 1, sizeof *out->rows);
    unsigned char *matched = xcalloc(b->n_rows + 1, 1);
    char **b_keys = xcalloc(b->n_rows + 1, sizeof *b_keys);
    char key[REPORT_LABEL_MAX];
    for (size_t j = 0; j < b->n_rows; j++)
        b_keys[j] = xstrdup(report_row_key(&b->rows[j], key, sizeof key));
    for (size_t i = 0; i < a->n_rows; i++) {
        struct diff_row *d = &out->rows[out->n_rows++];
        d->a = &a->rows[i];
        report_row_key(d->a, key, sizeof key);
        for (size_t j = 0; j < b->n_rows && !d->b; j++)
            if (!matched[j] && same_row(d->a, key, &b->rows[j], b_keys[j])) {
                d->b = &b->rows[j];
                matched[j] = 1;
            }
    }
    for (size_t j = 0; j < b->n_rows; j++)
        free(b_keys[j]);
    free(b_keys);
    for (size_t j = 0; j < b->n_rows; j++)
        if (!matched[j])
            out->rows[out->n_rows++] = (struct diff_row){.b = &b->rows[j]};
    free(matched);
    for (size_t i = 0; i < out->n_rows; i++) {
        struct diff_row *d = &out->rows[i];
        if (!d->a || !d->b) {
            out->n_only_a += !d->b;
            out->n_only_b += !d->a;
            continue;
        }
        d->cost_change = d->a->cost ? ((double)d->b->cost - (double)d->a->cost) / (double)d->a->cost
                                    : 0;
        double moved = fabs((double)d->b->cost - (double)d->a->cost);
        d->cost_changed = moved >= noticeable &&
                          (d->a->cost ? fabs(d->cost_change) > o->threshold : d->b->cost != 0);
        d->growth_changed = growth_changed(&d->a->fit[o->metric][o->cost],
                                           &d->b->fit[o->metric][o->cost]);
        out->n_growth += d->growth_changed;
        out->n_cost += d->cost_changed;
    }
    qsort(out->rows, out->n_rows, sizeof *out->rows, by_importance);
}

void report_diff_free(struct report_diff *d)
{
    free(d->rows);
    memset(d, 0, sizeof *d);
}

/* ---- text ---- */

static void growth_cell(char *buf, size_t len, const struct report_row *r, const struct diff_options *o)
{
    if (!r) {
        snprintf(buf, len, "(absent)");
        return;
    }
    const struct growth_fit *f = &r->fit[o->metric][o->cost];
    if (!f->verdict)
        snprintf(buf, len, "- (%zu sizes)", f->sizes);
    else
    {
        char verdict[32];
        snprintf(buf, len, "%s k=%.2f", growth_verdict_text(f, verdict, sizeof verdict),
                 f->exponent);
    }
}

static void thread_cell(char *buf, size_t len, const struct diff_row *d)
{
    const struct report_row *r = d->a ? d->a : d->b;
    if (r->all_threads)
        snprintf(buf, len, "all");
    else
        snprintf(buf, len, "%" PRIu32, r->tid);
}

int report_diff_text(FILE *out, const struct report_model *a, const struct report_model *b,
                     const struct report_diff *d, const struct diff_options *o)
{
    fprintf(out, "diff %s -> %s: growth of %s cost by %s; cost changes over %.0f%%\n",
            a->recordings[0], b->recordings[0], o->cost == COST_WORST ? "worst-case" : "average",
            o->metric == METRIC_RMS ? "RMS" : "TRMS", 100 * o->threshold);
    fprintf(out, "%zu routines changed growth, %zu changed cost, %zu only in %s, %zu only in %s\n\n",
            d->n_growth, d->n_cost, d->n_only_a, a->recordings[0], d->n_only_b, b->recordings[0]);
    size_t width = 7;
    char buf[REPORT_LABEL_MAX];
    size_t shown = 0;
    for (size_t i = 0; i < d->n_rows; i++) {
        const struct diff_row *r = &d->rows[i];
        if (!o->all && !r->growth_changed && !r->cost_changed && r->a && r->b)
            continue;
        size_t len = strlen(report_row_label(r->a ? r->a : r->b, buf, sizeof buf));
        if (len > width)
            width = len < 48 ? len : 48;
        shown++;
    }
    if (!shown) {
        fprintf(out, "no routine changed (--all lists them all)\n");
        return 0;
    }
    fprintf(out, "  %-*s %6s %9s %9s %12s %12s %8s  %-16s %-16s %s\n", (int)width, "routine",
            "thread", "calls A", "calls B", "cost A", "cost B", "change", "growth A", "growth B",
            "what");
    for (size_t i = 0; i < d->n_rows; i++) {
        const struct diff_row *r = &d->rows[i];
        if (!o->all && !r->growth_changed && !r->cost_changed && r->a && r->b)
            continue;
        char thread[16], ga[48], gb[48], change[16] = "";
        thread_cell(thread, sizeof thread, r);
        growth_cell(ga, sizeof ga, r->a, o);
        growth_cell(gb, sizeof gb, r->b, o);
        if (r->a && r->b && r->a->cost)
            snprintf(change, sizeof change, "%+.0f%%", 100 * r->cost_change);
        const char *label = report_row_label_fit(r->a ? r->a : r->b, width, buf, sizeof buf);
        char ca[24] = "-", cb[24] = "-", na[24] = "-", nb[24] = "-";
        if (r->a) {
            snprintf(ca, sizeof ca, "%" PRIu64, r->a->cost);
            snprintf(na, sizeof na, "%" PRIu64, r->a->calls);
        }
        if (r->b) {
            snprintf(cb, sizeof cb, "%" PRIu64, r->b->cost);
            snprintf(nb, sizeof nb, "%" PRIu64, r->b->calls);
        }
        const char *what = r->growth_changed ? "GROWTH"
                           : !r->b           ? "only in A"
                           : !r->a           ? "only in B"
                           : r->cost_changed ? "cost"
                                             : "";
        fprintf(out, "  %-*s %6s %9s %9s %12s %12s %8s  %-16s %-16s %s\n", (int)width, label,
                thread, na, nb, ca, cb, change, ga, gb, what);
    }
    return 0;
}

/* ---- JSON ---- */

static void json_growth(FILE *out, const struct report_row *r, const struct diff_options *o)
{
    if (!r) {
        fputs("null", out);
        return;
    }
    const struct growth_fit *f = &r->fit[o->metric][o->cost];
    if (!f->verdict) {
        fprintf(out, "{\"verdict\": false, \"sizes\": %zu}", f->sizes);
        return;
    }
    char verdict[32];
    fputs("{\"verdict\": true, \"growth\": ", out);
    json_string(out, growth_verdict_text(f, verdict, sizeof verdict));
    fprintf(out, ", \"kind\": \"%s\", \"model\": ", growth_kind_name(f->kind));
    if (f->power)
        fputs("null", out);
    else
        json_string(out, growth_model_name(f->best));
    fputs(", \"exponent\": ", out);
    json_number(out, f->exponent);
    fputs(", \"exponent_ci\": [", out);
    json_number(out, f->exponent_low);
    fputs(", ", out);
    json_number(out, f->exponent_high);
    fprintf(out, "], \"sizes\": %zu}", f->sizes);
}

int report_diff_json(FILE *out, const struct report_model *a, const struct report_model *b,
                     const struct report_diff *d, const struct diff_options *o)
{
    fputs("{\n  \"a\": ", out);
    json_string(out, a->recordings[0]);
    fputs(",\n  \"b\": ", out);
    json_string(out, b->recordings[0]);
    fprintf(out, ",\n  \"metric\": \"%s\",\n  \"cost\": \"%s\",\n  \"threshold\": ",
            report_metric_names[o->metric], report_cost_names[o->cost]);
    json_number(out, o->threshold);
    fprintf(out, ",\n  \"growth_changed\": %zu,\n  \"cost_changed\": %zu,\n  \"only_a\": %zu,"
                 "\n  \"only_b\": %zu,\n  \"routines\": [",
            d->n_growth, d->n_cost, d->n_only_a, d->n_only_b);
    for (size_t i = 0; i < d->n_rows; i++) {
        const struct diff_row *r = &d->rows[i];
        const struct report_row *any = r->a ? r->a : r->b;
        fputs(i ? ",\n    {\"name\": " : "\n    {\"name\": ", out);
        json_string(out, any->name);
        char label[REPORT_LABEL_MAX];
        fputs(", \"label\": ", out);
        json_string(out, report_row_label(any, label, sizeof label));
        if (any->all_threads)
            fputs(", \"thread\": null", out);
        else
            fprintf(out, ", \"thread\": %" PRIu32, any->tid);
        fprintf(out, ", \"in_a\": %s, \"in_b\": %s", r->a ? "true" : "false",
                r->b ? "true" : "false");
        if (r->a)
            fprintf(out, ", \"calls_a\": %" PRIu64 ", \"cost_a\": %" PRIu64, r->a->calls,
                    r->a->cost);
        if (r->b)
            fprintf(out, ", \"calls_b\": %" PRIu64 ", \"cost_b\": %" PRIu64, r->b->calls,
                    r->b->cost);
        if (r->a && r->b) {
            fputs(", \"cost_change\": ", out);
            json_number(out, r->cost_change);
        }
        fprintf(out, ", \"cost_changed\": %s, \"growth_changed\": %s,\n     \"growth_a\": ",
                r->cost_changed ? "true" : "false", r->growth_changed ? "true" : "false");
        json_growth(out, r->a, o);
        fputs(", \"growth_b\": ", out);
        json_growth(out, r->b, o);
        fputc('}', out);
    }
    fputs("\n  ]\n}\n", out);
    return 0;
}
