/* progress: the redrawn status line (see progress.h). */
#include "tools/progress.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "common/oom.h"

#define REDRAW_SECONDS 0.25

struct progress {
    const char *what, *unit;
    uint64_t total;
    double started, drawn;
    int bottom;           /* on the last row, under a scroll region */
    unsigned rows, cols;  /* the terminal's size when last drawn (bottom) */
};

double progress_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Text for the terminal, built up and written with one write(2): a write
 * reaches the terminal whole, so the program's output never lands inside
 * a cursor movement of ours. */
struct line {
    char text[512];
    size_t len;
};

static void add(struct line *l, const char *format, ...)
{
    if (l->len >= sizeof l->text)
        return;
    va_list ap;
    va_start(ap, format);
    int n = vsnprintf(l->text + l->len, sizeof l->text - l->len, format, ap);
    va_end(ap);
    if (n > 0)
        l->len += (size_t)n < sizeof l->text - l->len ? (size_t)n : sizeof l->text - l->len - 1;
}

static void emit(const struct line *l)
{
    size_t done = 0;
    while (done < l->len) {
        ssize_t n = write(STDERR_FILENO, l->text + done, l->len - done);
        if (n <= 0)
            return; /* a progress line is not worth failing for */
        done += (size_t)n;
    }
}

static int terminal_size(unsigned *rows, unsigned *cols)
{
    struct winsize ws;
    if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) != 0 || ws.ws_row < 3 || ws.ws_col < 20)
        return -1;
    *rows = ws.ws_row;
    *cols = ws.ws_col;
    return 0;
}

/* The scroll region over every row but the last; the cursor stays where
 * it was (setting a region sends it home: saved and restored around). */
static void reserve_last_row(struct line *l, unsigned rows)
{
    add(l, "\0337\033[1;%ur\0338", rows - 1);
}

static struct progress *start(const char *what, const char *unit, uint64_t total, int bottom)
{
    if (!isatty(STDERR_FILENO))
        return NULL;
    unsigned rows = 0, cols = 0;
    if (bottom && terminal_size(&rows, &cols) != 0)
        return NULL;
    struct progress *p = xcalloc(1, sizeof *p);
    *p = (struct progress){.what = what, .unit = unit, .total = total, .bottom = bottom,
                           .rows = rows, .cols = cols};
    p->started = progress_now();
    p->drawn = p->started - REDRAW_SECONDS;  /* the first update draws */
    if (bottom) {
        /* A new line first, then back up to it: the cursor leaves the last
         * row (where a shell leaves it) for the region above. */
        struct line l = {.len = 0};
        add(&l, "\n\033[1A");
        reserve_last_row(&l, rows);
        emit(&l);
    }
    return p;
}

struct progress *progress_start(const char *what, const char *unit, uint64_t total)
{
    return start(what, unit, total, 0);
}

struct progress *progress_start_status(const char *what, const char *unit, uint64_t total)
{
    return start(what, unit, total, 1);
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

const char *progress_summary(double started, uint64_t count, const char *unit, char *buf,
                             size_t len)
{
    double elapsed = progress_now() - started;
    char rate[16];
    if (elapsed > 0 && unit)
        snprintf(buf, len, "in %.2f s (%s %s/s)", elapsed,
                 progress_short_count((double)count / elapsed, rate), unit);
    else
        snprintf(buf, len, "in %.2f s", elapsed);
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
    double t = progress_now();
    if (t - p->drawn < REDRAW_SECONDS)
        return;
    p->drawn = t;
    double elapsed = t - p->started, rate = elapsed > 0 ? (double)done / elapsed : 0;
    char a[16], b[16], r[16], left[32];
    struct line text = {.len = 0};
    add(&text, "%s: %s", p->what, progress_short_count((double)done, a));
    if (p->total && done <= p->total)
        add(&text, " of %s %s (%.0f%%)", progress_short_count((double)p->total, b), p->unit,
            100.0 * (double)done / (double)p->total);
    else
        add(&text, " %s", p->unit);
    if (detail)
        add(&text, ", %s", detail);
    add(&text, ", %s/s", progress_short_count(rate, r));
    if (p->total && done <= p->total && rate > 0)
        add(&text, ", %s left", duration((double)(p->total - done) / rate, left));
    struct line l = {.len = 0};
    if (p->bottom) {
        unsigned rows, cols;
        if (terminal_size(&rows, &cols) == 0 && (rows != p->rows || cols != p->cols)) {
            p->rows = rows; /* resized: the region follows */
            p->cols = cols;
            reserve_last_row(&l, rows);
        }
        /* Never wider than the row: a wrapped line would scroll. */
        if (text.len > p->cols - 1)
            text.len = p->cols - 1;
        add(&l, "\0337\033[%u;1H\033[K%.*s\0338", p->rows, (int)text.len, text.text);
    } else {
        /* \r and erase-to-end-of-line: the line is redrawn in place. */
        add(&l, "\r\033[K%.*s", (int)text.len, text.text);
    }
    emit(&l);
}

void progress_finish(struct progress *p)
{
    if (!p)
        return;
    struct line l = {.len = 0};
    if (p->bottom)
        /* The whole screen scrolls again; the last row is cleared. */
        add(&l, "\0337\033[r\033[%u;1H\033[K\0338", p->rows);
    else
        add(&l, "\r\033[K");
    emit(&l);
    free(p);
}
