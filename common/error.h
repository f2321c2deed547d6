/* error: how library code reports a failure to its caller.
 *
 * Functions that can fail return non-zero and fill a struct trms_error with
 * one line of text; only the CLI prints it, so every failure reaches the
 * user exactly once, as one line on stderr. */
#ifndef TRMS_ERROR_H
#define TRMS_ERROR_H

struct trms_error {
    char message[1024];
};

/* printf-style; always returns -1 so callers can `return error_set(...)`. */
int error_set(struct trms_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Replaces every FROM in ERR's message by TO (a staging directory by the
 * recording it becomes: the user knows that name, not the other). */
void error_rename(struct trms_error *err, const char *from, const char *to);

#endif
