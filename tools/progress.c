/* progress: the redrawn status line (see progress.h). */
#include "tools/progress.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "common/oom.h"

#define REDRAW_SECONDS 0.25

struct progress {
    const char *what, *unit;
    uint64_t total;
    double started, drawn;
};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct progress *progress_start(const char *what, const char *unit, uint64_t total)
{
    if (!isatty(STDERR_FILENO))
        return NULL;
    struct progress *p = xcalloc(1, sizeof *p);
    *p = (struct progress){.what = what, .unit = unit, .total = total};
    p->started = now();
    p->drawn = p->started - REDRAW_SECONDS;  /* the first update draws */
    return p;
}

/* 12.3M, 4.56G: counts at a glance. */
const char *progress_short_count(double v, char buf[static 16])
{
    static const char suffix[] = " kMGTP";
    int i = 0;
    while (v >= 1000 && suffix[i + 1]) {
        v /= 1000;
        i++;
    }
    if (i == 0)
        snprintf(buf, 16, "%.0f", v);
    else
        snprintf(buf, 16, "%.*f%c", v < 10 ? 2 : v < 100 ? 1 : 0, v, suffix[i]);
    return buf;
}

static const char *duration(double s, char buf[static 32])
{
    unsigned long t = s < 1e9 ? (unsigned long)(s + 0.5) : 999999999ul;
    if (t >= 3600)
        snprintf(buf, 32, "%luh%02lum", t / 3600, t / 60 % 60);
    else
        snprintf(buf, 32, "%lum%02lus", t / 60, t % 60);
    return buf;
}

void progress_update(struct progress *p, uint64_t done)
{
    progress_update_detail(p, done, NULL);
}

void progress_update_detail(struct progress *p, uint64_t done, const char *detail)
{
    if (!p)
        return;
    double t = now();
    if (t - p->drawn < REDRAW_SECONDS)
        return;
    p->drawn = t;
    double elapsed = t - p->started, rate = elapsed > 0 ? (double)done / elapsed : 0;
    char a[16], b[16], r[16], left[32];
    /* \r and erase-to-end-of-line: the line is redrawn in place. */
    fprintf(stderr, "\r\033[K%s: %s", p->what, progress_short_count((double)done, a));
    if (p->total && done <= p->total)
        fprintf(stderr, " of %s %s (%.0f%%)", progress_short_count((double)p->total, b), p->unit,
                100.0 * (double)done / (double)p->total);
    else
        fprintf(stderr, " %s", p->unit);
    if (detail)
        fprintf(stderr, ", %s", detail);
    fprintf(stderr, ", %s/s", progress_short_count(rate, r));
    if (p->total && done <= p->total && rate > 0)
        fprintf(stderr, ", %s left", duration((double)(p->total - done) / rate, left));
    fflush(stderr);
}

void progress_finish(struct progress *p)
{
    if (!p)
        return;
    fputs("\r\033[K", stderr);
    fflush(stderr);
    free(p);
}
