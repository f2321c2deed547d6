/* record_progress: the progress line of `trms record`, drawn from a thread
 * of its own that looks at the growing recording a few times a second
 * (every engine's, and the engines' hot paths are left alone), on the
 * terminal's last row, below the program's own output (progress.h).
 * Nothing at all when stderr is not a terminal. */
#ifndef TRMS_RECORD_PROGRESS_H
#define TRMS_RECORD_PROGRESS_H

struct record_progress;

/* Starts watching PATH, a file or a directory (its files' sizes added up);
 * NULL when stderr is not a terminal (the functions below accept it). */
struct record_progress *record_progress_start(const char *path);

/* Stops the thread and erases the line. */
void record_progress_finish(struct record_progress *rp);

#endif
