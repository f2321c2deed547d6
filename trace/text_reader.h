/* text_reader: parses the text event format, one event per line:
 *
 *   thread TID        call NAME         return
 *   read ADDR SIZE    write ADDR SIZE   kread ADDR SIZE   kwrite ADDR SIZE
 *   cost N
 *
 * `#` starts a comment; numbers are decimal or 0x hex; NAME is the rest of
 * the line (so demangled C++ names may hold spaces), a 0x number naming a
 * routine by address. Events before the first `thread` line belong to
 * thread 1. Any malformed line stops the read with "FILE:LINE: what is
 * wrong"; the caller discards whatever it built. */
#ifndef TRMS_TEXT_READER_H
#define TRMS_TEXT_READER_H

#include <stdio.h>

#include "common/error.h"
#include "trace/routine_table.h"
#include "trace/trace_reader.h"

int text_trace_read(FILE *fp, const char *path, struct routine_table *routines,
                    event_sink sink, void *ctx, struct trms_error *err);

#endif
