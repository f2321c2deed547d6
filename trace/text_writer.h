/* text_writer: prints events in the text format that text_reader parses,
 * so `trms export` round-trips a recording for bug reports and diffs. */
#ifndef TRMS_TEXT_WRITER_H
#define TRMS_TEXT_WRITER_H

#include <stdio.h>

#include "trace/event.h"
#include "trace/routine_table.h"
#include "trace/sync_event.h"

void text_write_event(FILE *out, const struct event *ev, const struct routine_table *routines);

/* A sync record as a "#@sync" line (text_reader.h). */
void text_write_sync(FILE *out, const struct sync_event *ev);

#endif
