/* The text report: what a person reads first. Routines ranked by cost, with
 * how many input sizes each was seen with and how much of its input came
 * from other threads or the kernel; then how the program reuses memory. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tools/report.h"

static uint64_t max_n(const struct profile_point *pts, size_t n)
{
    return n ? pts[n - 1].n : 0; /* points are sorted by n */
}

static void routines_table(FILE *out, const struct analysis_result *r,
                           const struct report_options *o)
{
    const struct routine_profile **order = profiles_by_cost(r, o->symbols);
    size_t shown = o->top && o->top < r->n_profiles ? o->top : r->n_profiles;
    size_t width = 7;
    char buf[REPORT_LABEL_MAX];
    for (size_t i = 0; i < shown; i++) {
        size_t len =
            strlen(report_routine_label(&r->routines, o->symbols, order[i]->routine, buf));
        if (len > width)
            width = len < 48 ? len : 48;
    }
    fprintf(out, "routines by cost (instructions, descendants included):\n");
    fprintf(out, "  %-*s %8s %8s %12s %12s %6s %6s %8s %8s %9s %9s\n", (int)width, "routine",
            "thread", "calls", "cost", "self", "#rms", "#trms", "max rms", "max trms",
            "thr-input", "ext-input");
    for (size_t i = 0; i < shown; i++) {
        const struct routine_profile *p = order[i];
        fprintf(out, "  %-*.*s %8" PRIu32 " %8" PRIu64 " %12" PRIu64 " %12" PRIu64
                     " %6zu %6zu %8" PRIu64 " %8" PRIu64 " %9" PRIu64 " %9" PRIu64 "\n",
                (int)width, (int)width,
                report_routine_label(&r->routines, o->symbols, p->routine, buf),
                p->tid, p->calls, p->cost, p->self_cost, p->n_rms_points, p->n_trms_points,
                max_n(p->rms_points, p->n_rms_points), max_n(p->trms_points, p->n_trms_points),
                p->induced_thread, p->induced_external);
    }
    if (shown < r->n_profiles)
        fprintf(out, "  ... %zu more (--top 0 shows all)\n", r->n_profiles - shown);
    fprintf(out, "  #rms/#trms: distinct input sizes seen. thr-input/ext-input: reads counted\n"
                 "  in TRMS whose value another thread / the kernel wrote since the reading\n"
                 "  thread last touched the cell\n");
    free(order);
}

/* Share of accesses a fully associative LRU cache of LINES lines would hit. */
static double hit_ratio(const struct reuse_histogram *h, uint64_t lines)
{
    uint64_t hits = 0;
    for (size_t i = 0; i < h->n_bins && h->bins[i].distance < lines; i++)
        hits += h->bins[i].count;
    return h->accesses ? 100.0 * (double)hits / (double)h->accesses : 0.0;
}

static void reuse_line(FILE *out, const char *label, const struct reuse_histogram *h,
                       uint64_t line_size)
{
    fprintf(out, "  %-12s %10" PRIu64 " accesses, %8" PRIu64 " cold;", label, h->accesses,
            h->cold);
    static const struct {
        const char *name;
        uint64_t bytes;
    } caches[] = {{"32K", 32u << 10}, {"1M", 1u << 20}, {"32M", 32u << 20}};
    fprintf(out, " LRU hits");
    for (size_t c = 0; c < sizeof caches / sizeof *caches; c++) {
        uint64_t lines = caches[c].bytes / line_size;
        fprintf(out, " %s %.1f%%", caches[c].name, hit_ratio(h, lines ? lines : 1));
    }
    fputc('\n', out);
    /* Log2 buckets: 0, 1, 2-3, 4-7, ... */
    fprintf(out, "  %-12s", "");
    size_t i = 0;
    for (unsigned k = 0; i < h->n_bins; k++) {
        uint64_t lo = k ? 1ull << (k - 1) : 0, hi = k ? (1ull << k) - 1 : 0;
        uint64_t count = 0;
        while (i < h->n_bins && h->bins[i].distance <= hi)
            count += h->bins[i++].count;
        if (!count)
            continue;
        if (lo == hi)
            fprintf(out, " [%" PRIu64 "]:%" PRIu64, lo, count);
        else
            fprintf(out, " [%" PRIu64 "-%" PRIu64 "]:%" PRIu64, lo, hi, count);
    }
    fputc('\n', out);
}

static void points_table(FILE *out, const char *metric, const struct profile_point *pts, size_t n)
{
    fprintf(out, "    %-5s %10s %8s %12s %12s %14s\n", metric, "n", "calls", "min cost", "max cost",
            "mean cost");
    for (size_t i = 0; i < n; i++)
        fprintf(out, "          %10" PRIu64 " %8" PRIu64 " %12" PRIu64 " %12" PRIu64 " %14.1f\n",
                pts[i].n, pts[i].calls, pts[i].min, pts[i].max,
                (double)pts[i].sum / (double)pts[i].calls);
}

/* The performance tuples of one routine, per thread: cost against input
 * size, the raw material of a cost plot. */
static int has_routine(const struct analysis_result *r, const struct report_options *o)
{
    for (size_t i = 0; i < r->n_profiles; i++)
        if (report_routine_matches(&r->routines, o->symbols, r->profiles[i].routine, o->routine))
            return 1;
    return 0;
}

static void routine_tuples(FILE *out, const struct analysis_result *r,
                           const struct report_options *o)
{
    for (size_t i = 0; i < r->n_profiles; i++) {
        const struct routine_profile *p = &r->profiles[i];
        char buf[REPORT_LABEL_MAX];
        if (!report_routine_matches(&r->routines, o->symbols, p->routine, o->routine))
            continue;
        fprintf(out, "\n%s in thread %" PRIu32 ": %" PRIu64 " calls; cost by input size (cells)\n",
                report_routine_label(&r->routines, o->symbols, p->routine, buf), p->tid,
                p->calls);
        points_table(out, "RMS", p->rms_points, p->n_rms_points);
        points_table(out, "TRMS", p->trms_points, p->n_trms_points);
    }
}

int report_text(FILE *out, const struct analysis_result *r, const struct report_options *o)
{
    if (o->routine && !has_routine(r, o))
        return -1;
    uint64_t accesses = 0;
    for (int t = EVENT_READ; t <= EVENT_KWRITE; t++)
        accesses += r->events[t];
    fprintf(out, "recording %s: cell size %" PRIu64 " B, line size %" PRIu64 " B\n",
            o->recording, r->cell_size, r->line_size);
    fprintf(out, "%zu threads, %" PRIu64 " activations, %" PRIu64 " memory accesses (%" PRIu64
                 " reads, %" PRIu64 " writes, %" PRIu64 " kernel reads, %" PRIu64
                 " kernel writes)\n\n",
            r->n_threads, r->activations, accesses, r->events[EVENT_READ], r->events[EVENT_WRITE],
            r->events[EVENT_KREAD], r->events[EVENT_KWRITE]);
    routines_table(out, r, o);
    fprintf(out, "\nreuse distance (exact LRU stack distance, %" PRIu64 "-byte lines; loads and "
                 "stores, not the kernel's):\n",
            r->line_size);
    reuse_line(out, "all threads", &r->reuse_global, r->line_size);
    for (size_t i = 0; i < r->n_threads; i++) {
        char label[32];
        snprintf(label, sizeof label, "thread %" PRIu32, r->reuse_threads[i].tid);
        reuse_line(out, label, &r->reuse_threads[i].histogram, r->line_size);
    }
    if (o->routine)
        routine_tuples(out, r, o);
    return 0;
}
