#include "common/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int error_set(struct trms_error *err, const char *fmt, ...)
{
    if (!err)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    /* Keep it one line whatever the pieces contained. */
    for (char *p = err->message; *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    return -1;
}

void error_rename(struct trms_error *err, const char *from, const char *to)
{
    size_t from_len = strlen(from);
    if (!err || from_len == 0 || !strstr(err->message, from))
        return;
    char out[sizeof err->message];
    size_t n = 0;
    for (const char *p = err->message; *p && n + 1 < sizeof out;) {
        if (strncmp(p, from, from_len) == 0) {
            n += (size_t)snprintf(out + n, sizeof out - n, "%s", to);
            if (n >= sizeof out)
                n = sizeof out - 1;
            p += from_len;
        } else {
            out[n++] = *p++;
        }
    }
    out[n] = '\0';
    memcpy(err->message, out, n + 1);
}
