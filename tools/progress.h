/* progress: one line on stderr, redrawn in place, saying how far a long
 * command (record, analyze) has come: amount done, of how much when known,
 * rate, and time left. Shown only when stderr is a terminal, so logs and
 * pipes stay clean.
 *
 * A command whose program writes to the same terminal (record) keeps the
 * line on the terminal's last row instead, out of the program's way: the
 * rows above it become a scroll region (as apt's progress bar does), so
 * the program's output scrolls there and never runs into the line. */
#ifndef TRMS_PROGRESS_H
#define TRMS_PROGRESS_H

#include <stddef.h>
#include <stdint.h>

struct progress;

/* Starts a progress line about WHAT ("analyzing"), counting UNIT ("events")
 * up to TOTAL (0 when unknown). NULL, which the functions below accept,
 * when stderr is not a terminal. */
struct progress *progress_start(const char *what, const char *unit, uint64_t total);

/* The same, on the terminal's last row, the rows above scrolling on
 * their own; NULL also when the terminal's size is unknown or under 3
 * rows. Drawing and finishing may come from another thread than the
 * command's, which may print to stderr meanwhile: its lines scroll above. */
struct progress *progress_start_status(const char *what, const char *unit, uint64_t total);

/* DONE so far; redraws at most a few times a second. Cheap enough to call
 * every few thousand units. */
void progress_update(struct progress *p, uint64_t done);

/* The same with DETAIL ("12.3M instructions") after the amount. */
void progress_update_detail(struct progress *p, uint64_t done, const char *detail);

/* V in three significant digits and a suffix ("12.3M"), for details. */
const char *progress_short_count(double v, char buf[static 16]);

/* Seconds since an arbitrary start (CLOCK_MONOTONIC), for summaries. */
double progress_now(void);

/* "in 3.61 s (7.79M events/s)": a summary's wall time since STARTED and
 * rate of COUNT UNIT (none when UNIT is NULL), into BUF. */
const char *progress_summary(double started, uint64_t count, const char *unit, char *buf,
                             size_t len);

/* Erases the line (the command prints its own summary), gives the
 * terminal its whole height back, and frees P. */
void progress_finish(struct progress *p);

#endif
