#include "common/error.h"

#include <stdarg.h>
#include <stdio.h>

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
