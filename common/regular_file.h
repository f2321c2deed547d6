/* regular_file: opening a file whose name came from outside.
 *
 * A recording may come from anyone, and the paths it holds (its own
 * files, the files its maps name) are names, not orders: opening a FIFO
 * blocks until someone writes to it, and opening a device can act on it
 * (a tape rewinds, a terminal becomes ours). So such a path is looked at
 * first and opened only when it is a regular file, without blocking, and
 * the file opened must be the one looked at.
 *
 * A recording's own files are opened one way only, regular_file_open_in:
 * from the recording's directory down, no component a symbolic link (a
 * link inside a recording could lead anywhere), and the last one a
 * regular file. Lock files are opened by lock_file_open, which never
 * creates one through a link. */
#ifndef TRMS_REGULAR_FILE_H
#define TRMS_REGULAR_FILE_H

#include <stdio.h>

/* Also refuse a symbolic link (the recording's own files: a link inside a
 * recording could point anywhere). */
#define REGULAR_FILE_NOFOLLOW 1

/* Opens PATH read-only when it is a regular file: the descriptor, or -1
 * with *WHY (static text) saying why not: "No such file or directory",
 * "a FIFO, not a regular file"... and errno set (ENOENT when absent).
 * With REGULAR_FILE_NOFOLLOW, PATH's last component is opened as
 * regular_file_open_in does, inside the directory before it. */
int regular_file_open(const char *path, int flags, const char **why);

/* regular_file_open as a stdio stream ("rb"). */
FILE *regular_file_fopen(const char *path, int flags, const char **why);

/* Opens DIR/NAME read-only, where NAME is one or more plain names joined
 * by '/' (never "." or ".."): each component below DIR a directory that
 * is not a symbolic link, the last a regular file that is not one; never
 * blocks (a FIFO is refused, not waited on) and never opens a device.
 * DIR itself may be a link (the user named it). */
int regular_file_open_in(const char *dir, const char *name, const char **why);
FILE *regular_file_fopen_in(const char *dir, const char *name, const char **why);

/* Opens DIR/NAME read-write as a lock file: an existing regular file
 * (never through a symbolic link, never a FIFO or a device), or, with
 * CREATE, a new one made with O_CREAT|O_EXCL|O_NOFOLLOW, so that a
 * dangling link planted there is refused, not followed to create its
 * target. Falls back to read-only where the file cannot be written (a
 * read-only recording; flock works on either). -1 with *WHY and errno. */
int lock_file_open(const char *dir, const char *name, int create, const char **why);

#endif
