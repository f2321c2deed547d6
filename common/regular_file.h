/* regular_file: opening a file whose name came from outside.
 *
 * A recording may come from anyone, and the paths it holds (its own
 * files, the files its maps name) are names, not orders: opening a FIFO
 * blocks until someone writes to it, and opening a device can act on it
 * (a tape rewinds, a terminal becomes ours). So such a path is looked at
 * first and opened only when it is a regular file, without blocking, and
 * the file opened must be the one looked at. */
#ifndef TRMS_REGULAR_FILE_H
#define TRMS_REGULAR_FILE_H

#include <stdio.h>

/* Also refuse a symbolic link (the recording's own files: a link inside a
 * recording could point anywhere). */
#define REGULAR_FILE_NOFOLLOW 1

/* Opens PATH read-only when it is a regular file: the descriptor, or -1
 * with *WHY (static text) saying why not: "No such file or directory",
 * "a FIFO, not a regular file"... */
int regular_file_open(const char *path, int flags, const char **why);

/* regular_file_open as a stdio stream ("rb"). */
FILE *regular_file_fopen(const char *path, int flags, const char **why);

#endif
