/* output_file: where a command writes what -o names (or standard output).
 *
 * The file is written beside its final name and renamed over it once
 * whole: a failure (a full disk) or a stop signal leaves whatever was
 * there before, never half a report (stop_signals.h removes the partial
 * one on its way out). Text formats, meant to be read on a terminal, are
 * escaped wherever they go (common/visible.h); the others keep their
 * bytes, escaped only when standard output is a terminal. */
#ifndef TRMS_OUTPUT_FILE_H
#define TRMS_OUTPUT_FILE_H

#include <stdio.h>

#include "common/error.h"

struct output_file {
    FILE *fp;           /* what the command writes to */
    const char *path;   /* -o's, or NULL for standard output */
    char *tmp;          /* written there, then renamed to PATH */
    FILE *raw;          /* under FP when FP escapes */
};

/* Opens PATH (NULL: standard output); TEXT for a text format. */
int output_file_open(struct output_file *o, const char *path, int text, struct trms_error *err);

/* Flushes and closes O: with RC 0 the file takes its name (a write that
 * failed is -1 with ERR), else it is removed. Returns RC, or -1. */
int output_file_close(struct output_file *o, int rc, struct trms_error *err);

#endif
