/* trace_writer: writes a binary event trace (layout in event_codec.h).
 *
 * Events are buffered into blocks, each written with its checksum as soon
 * as it fills, so a writer that dies still leaves every finished block
 * readable. The file is complete only once trace_writer_close() has written
 * the end block. */
#ifndef TRMS_TRACE_WRITER_H
#define TRMS_TRACE_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "trace/event.h"
#include "trace/event_codec.h"
#include "trace/routine_table.h"

struct trace_writer;

struct trace_writer *trace_writer_create(const char *path, struct trms_error *err);

/* Writes EV; a call to a routine of ROUTINES not yet written is preceded by
 * the definitions of every routine up to it. */
int trace_writer_event(struct trace_writer *w, const struct event *ev,
                       const struct routine_table *routines, struct trms_error *err);

/* Writes a load, store or kernel access, as trace_writer_event would, on
 * the recorder's fast path. */
int trace_writer_access(struct trace_writer *w, enum event_type type, uint64_t addr,
                        uint64_t size, struct trms_error *err);

/* The recorder's fast path: the rest of the current block, for a run of
 * accesses encoded in place (event_encode_access or its parts, with
 * ENCODER). Records may start anywhere up to END: the block has room for
 * one more record there. The caller gives the window back with NEXT past
 * what it wrote and the number of records; nothing else may be written to
 * the trace in between. */
struct trace_window {
    uint8_t *next;
    uint8_t *end;
    struct event_encoder encoder;
};

/* Opens a window of at least one record (writing out a full block). */
int trace_writer_open_window(struct trace_writer *w, struct trace_window *win,
                             struct trms_error *err);
void trace_writer_close_window(struct trace_writer *w, const struct trace_window *win,
                               uint32_t records);

/* Writes the end block and closes; the writer is freed either way. */
int trace_writer_close(struct trace_writer *w, const struct routine_table *routines,
                       struct trms_error *err);

/* The errno of a write that failed (the disk filled), or 0. The file
 * then holds the whole blocks written before it, and nothing after. */
int trace_writer_failed(const struct trace_writer *w);

/* After a failed write: ends the file after its whole blocks (events in
 * the block that could not be written are left out; *EVENTS receives the
 * count kept) and closes; the writer is freed either way. */
int trace_writer_salvage(struct trace_writer *w, uint64_t *events, struct trms_error *err);

/* Closes without completing the file (after an error elsewhere). */
void trace_writer_abandon(struct trace_writer *w);

#endif
