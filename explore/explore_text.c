/* explore_text: the text form of an exploration (explore_format.h). */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/oom.h"
#include "explore/explore_format.h"

const char *explore_schedule_name(const struct explore *x, char *buf, size_t size)
{
    switch (x->schedule) {
    case EXPLORE_PCT:
        snprintf(buf, size, "PCT depth %" PRIu32, x->depth);
        break;
    case EXPLORE_RANDOM:
        snprintf(buf, size, "random quanta (mean %" PRIu32 " instructions)", x->quantum);
        break;
    case EXPLORE_CHAOS:
        snprintf(buf, size, "rr chaos mode");
        break;
    default:
        snprintf(buf, size, "the recordings given");
        break;
    }
    return buf;
}

static const struct explore *order_of;

/* Points that depend on the interleaving weigh more than those that only
 * differ between activations. */
static size_t varying_points(const struct explore_routine *r)
{
    size_t n = 0;
    for (size_t i = 0; i < r->n_points; i++)
        n += explore_point_depends(&r->points[i]) ? r->n_points + 1
             : explore_point_varies(&r->points[i]) ? 1
                                                   : 0;
    return n;
}

static int routine_order(const void *pa, const void *pb)
{
    const struct explore_routine *a = &order_of->routines[*(const size_t *)pa];
    const struct explore_routine *b = &order_of->routines[*(const size_t *)pb];
    size_t va = varying_points(a), vb = varying_points(b);
    if (va != vb)
        return va > vb ? -1 : 1;
    return strcmp(a->name, b->name);
}

size_t *explore_routine_order(const struct explore *x)
{
    size_t *order = xcalloc(x->n_routines + 1, sizeof *order);
    for (size_t i = 0; i < x->n_routines; i++)
        order[i] = i;
    order_of = x;
    qsort(order, x->n_routines, sizeof *order, routine_order);
    order_of = NULL;
    return order;
}

/* "3 seed-12.rec" or "3 seed-12.rec +4" (4 more runs had it too). */
static void extreme_text(const struct explore *x, const struct explore_extreme *e, char *buf,
                         size_t size)
{
    int n = snprintf(buf, size, "%" PRIu64 " %s", e->value, explore_run_name(x, e->run));
    if (e->runs > 1 && n > 0 && (size_t)n < size)
        snprintf(buf + n, size - (size_t)n, " +%" PRIu32, e->runs - 1);
}

static void header(FILE *out, const struct explore *x)
{
    char schedule[96];
    explore_schedule_name(x, schedule, sizeof schedule);
    fprintf(out, "explored %s%s%s: %zu runs, %s\n", x->command[0] ? "`" : "", x->command,
            x->command[0] ? "`" : "", x->n_runs, schedule);
    if (x->directory[0]) {
        size_t kept = 0;
        for (size_t i = 0; i < x->n_runs; i++)
            kept += x->runs[i].kept != 0;
        fprintf(out, "recordings: %s/ (%zu kept; `trms report REC` replays one exactly)\n",
                x->directory, kept);
    }
    if (x->schedule == EXPLORE_PCT) {
        uint64_t n = explore_max_threads(x);
        double runs = explore_pct_runs(n, x->k, x->depth);
        size_t pct_runs = x->n_runs ? x->n_runs - 1 : 0;
        fprintf(out, "k = %" PRIu64 " events that can be reordered (counted by the first run), n = "
                     "%" PRIu64 " threads: a result that needs %" PRIu32 " preemption%s at given "
                     "events and one thread first\n",
                x->k, n, x->depth - 1, x->depth == 2 ? "" : "s");
        if (runs > 0)
            fprintf(out, "shows up in a run with probability at least 1/(n k^(d-1)) = 1/%.0f; "
                         "in the %zu runs at depth %" PRIu32 ", at least %.2g%%\n",
                    runs, pct_runs, x->depth,
                    100 * (1 - pow(1 - 1 / runs, (double)pct_runs)));
    }
    fprintf(out, "tracked: %s (%zu objects, locations of %" PRIu64 " bytes)\n", x->objects,
            x->tracked, x->unit);
}

static void objects(FILE *out, const struct explore *x)
{
    fprintf(out, "\nReuse distance per object, over the accesses to the tracked objects only "
                 "(an extreme: the first run with it, +more runs; * depends on the "
                 "interleaving):\n");
    if (x->n_objects == 0) {
        fprintf(out, "  (no tracked object was accessed)\n");
        return;
    }
    fprintf(out, "%-24s %12s %5s  %-26s %-26s  %s\n", "object", "accesses/run", "runs", "min",
            "max", "distances seen (runs) / ranges of one run (runs)");
    for (size_t i = 0; i < x->n_objects; i++) {
        const struct explore_object *o = &x->objects_seen[i];
        char min[96] = "-", max[96] = "-";
        if (o->reused) {
            extreme_text(x, &o->min, min, sizeof min);
            extreme_text(x, &o->max, max, sizeof max);
        }
        uint64_t per_run = o->runs ? o->accesses / o->runs : 0;
        char name[64];
        snprintf(name, sizeof name, "%s%s", o->name, explore_object_varies(o) ? " *" : "");
        fprintf(out, "%-24s %12" PRIu64 " %5" PRIu32 "  %-26s %-26s ", name, per_run, o->runs,
                min, max);
        size_t shown = 0;
        for (size_t d = 0; d < o->n_distances && shown < 12; d++, shown++)
            fprintf(out, " %" PRIu64 " (%" PRIu32 ")", o->distances[d].min, o->distances[d].runs);
        if (o->n_distances > shown)
            fprintf(out, " ... %zu distances", o->n_distances);
        if (o->runs > o->reused)
            fprintf(out, "  cold only in %" PRIu32 " runs", o->runs - o->reused);
        if (o->n_ranges == 0) {
            fputc('\n', out);
            continue;
        }
        fprintf(out, "\n%-24s %9s %5s  %-26s %-26s ", "", "", "", "", "");
        shown = 0;
        for (size_t r = 0; r < o->n_ranges && shown < 8; r++, shown++)
            fprintf(out, " [%" PRIu64 ",%" PRIu64 "] (%" PRIu32 ")", o->ranges[r].min,
                    o->ranges[r].max, o->ranges[r].runs);
        if (o->n_ranges > shown)
            fprintf(out, " ... %zu ranges", o->n_ranges);
        fputc('\n', out);
    }
}

static void routines(FILE *out, const struct explore *x, size_t top)
{
    fprintf(out, "\nInput per routine and RMS over every activation of every run (routines whose "
                 "input depends on the interleaving first):\n");
    fprintf(out, "%-28s %6s %8s %5s  %-22s %-22s %-22s %-22s\n", "routine", "RMS", "calls",
            "runs", "TRMS min", "TRMS max", "thread-induced min", "thread-induced max");
    size_t *order = explore_routine_order(x);
    size_t shown = 0, rows = 0, skipped = 0;
    for (size_t k = 0; k < x->n_routines; k++) {
        const struct explore_routine *r = &x->routines[order[k]];
        if (top && shown >= top) {
            skipped++;
            continue;
        }
        shown++;
        for (size_t j = 0; j < r->n_points; j++) {
            const struct explore_point *p = &r->points[j];
            char a[96], b[96], c[96], d[96];
            extreme_text(x, &p->trms_min, a, sizeof a);
            extreme_text(x, &p->trms_max, b, sizeof b);
            extreme_text(x, &p->induced_min, c, sizeof c);
            extreme_text(x, &p->induced_max, d, sizeof d);
            fprintf(out, "%-28s %6" PRIu64 " %8" PRIu64 " %5" PRIu32 "  %-22s %-22s %-22s %-22s%s\n",
                    j == 0 ? r->name : "", p->rms, p->activations, p->runs, a, b, c, d,
                    explore_point_depends(p) ? "  *" : explore_point_varies(p) ? "  ~" : "");
            rows++;
        }
    }
    if (skipped)
        fprintf(out, "(%zu more routines: --top 0 shows all)\n", skipped);
    fprintf(out, "* depends on the interleaving: some runs did not reach the extremes; ~ differs "
                 "between activations alike in every run\n");
    free(order);
}

int explore_text(FILE *out, const struct explore *x, size_t top)
{
    header(out, x);
    objects(out, x);
    routines(out, x, top);
    return ferror(out) ? -1 : 0;
}
