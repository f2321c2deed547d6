/* progress: one line on stderr, redrawn in place, saying how far a long
 * command (record, analyze) has come: amount done, of how much when known,
 * rate, and time left. Shown only when stderr is a terminal, so logs and
 * pipes stay clean. */
#ifndef TRMS_PROGRESS_H
#define TRMS_PROGRESS_H

#include <stdint.h>

struct progress;

/* Starts a progress line about WHAT ("analyzing"), counting UNIT ("events")
 * up to TOTAL (0 when unknown). NULL, which the functions below accept,
 * when stderr is not a terminal. */
struct progress *progress_start(const char *what, const char *unit, uint64_t total);

/* DONE so far; redraws at most a few times a second. Cheap enough to call
 * every few thousand units. */
void progress_update(struct progress *p, uint64_t done);

/* The same with DETAIL ("12.3M instructions") after the amount. */
void progress_update_detail(struct progress *p, uint64_t done, const char *detail);

/* V in three significant digits and a suffix ("12.3M"), for details. */
const char *progress_short_count(double v, char buf[static 16]);

/* Erases the line (the command prints its own summary) and frees P. */
void progress_finish(struct progress *p);

#endif
