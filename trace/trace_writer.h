/* trace_writer: writes a binary event trace (layout in event_codec.h).
 *
 * Events are buffered into blocks; each full block goes to a thread of the
 * writer's own, which compresses it, checksums it and writes it, so the
 * caller (the recorder's decoder, on the recording's critical path) only
 * encodes. A writer that dies still leaves every block written readable.
 * The file is complete only once trace_writer_close() has written the end
 * block. A failed write is reported by the next call that seals a block,
 * or by trace_writer_close(). */
#ifndef TRMS_TRACE_WRITER_H
#define TRMS_TRACE_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "trace/event.h"
#include "trace/event_codec.h"
#include "trace/routine_table.h"
#include "trace/sync_event.h"

struct trace_writer;
struct batch_event;
struct flow_note;

/* The current format, events blocks compressed (TRACE_ZSTD_LEVEL). */
struct trace_writer *trace_writer_create(const char *path, struct trms_error *err);

/* Sees every event the writer writes, in order, in runs (a run never
 * holds events the file does not: no thread event that switches to the
 * current thread): the events a read of the finished file delivers. An
 * error it returns is the writer's. */
struct trace_event_tap {
    event_batch_sink run;
    void *ctx;
    /* NULL, or sees every sync record written, in order with the events
     * (its TID the current thread's), with CTX. */
    sync_sink sync;
    /* NULL, or the recorder's hot loop writes its loads and stores
     * straight into the consumer's batches (struct batch_event,
     * analyses/batch_event.h), in place of RUN: no event is copied on the
     * way. ACCESS_ROOM returns 0 with room for at least one in
     * [*NEXT, *END), or non-zero when the consumer wants them through RUN
     * for now;
     * ACCESSES_WRITTEN says where the producer stopped and how many it
     * wrote, WRITES of them stores. Called through
     * trace_writer_access_room, which gives the tap its pending run first.
     * *FLOWS non-zero (ACCESS_ROOM sets it, 0 before): the writer keeps the
     * room past the run and puts the calls, returns and costs written next
     * there too, as the analysis's batches hold them (analysis.h,
     * analysis_access_room), in place of RUN: ACCESSES_WRITTEN then comes
     * once for all the runs and flow events that went there, before any
     * other event or sync record reaches the tap, with N_FLOWS notes of the
     * flow events in order (ACCESSES counts the loads and stores only). */
    batch_room_sink access_room;
    void (*accesses_written)(void *ctx, struct batch_event *next, uint64_t accesses,
                             uint64_t writes, const struct flow_note *flows, size_t n_flows);
};

struct trace_writer_options {
    int level;                      /* zstd level; 0 stores blocks plain */
    struct trace_event_tap tap;     /* .run NULL for none */
    int discard;                    /* keep nothing (`record --trace none`): no
                                       file is made, blocks are only encoded,
                                       for the tap; PATH may be NULL */
};

/* Whether LEVEL is a level trace_writer_options takes (0: blocks stored
 * plain; else zstd's, negative ones included, up to its maximum); 0 if
 * so, else -1 with a line in ERR that names the range. */
int trace_writer_check_level(int level, struct trms_error *err);

struct trace_writer *trace_writer_create_with(const char *path,
                                              const struct trace_writer_options *options,
                                              struct trms_error *err);

/* Writes EV; a call to a routine of ROUTINES not yet written is preceded by
 * the definitions of every routine up to it. */
int trace_writer_event(struct trace_writer *w, const struct event *ev,
                       const struct routine_table *routines, struct trms_error *err);

/* Writes a sync record of the current thread (EV->tid is not written:
 * the last thread event says whose it is); the file's header gets
 * TRACE_FLAG_SYNC when it is closed. Not an event: no count includes it. */
int trace_writer_sync(struct trace_writer *w, const struct sync_event *ev,
                      struct trms_error *err);

/* Writes a load, store or kernel access, as trace_writer_event would, on
 * the recorder's fast path. */
int trace_writer_access(struct trace_writer *w, enum event_type type, uint64_t addr,
                        uint64_t size, struct trms_error *err);

/* The recorder's fast path: the rest of the current block, for a run of
 * accesses encoded in place (event_encode_access or its parts, with
 * ENCODER, the writer's own: its slots are too large to copy per run). Records may start anywhere up to END: the block has room for
 * one more record there. The caller gives the window back with NEXT past
 * what it wrote and the number of records; nothing else may be written to
 * the trace in between. */
struct trace_window {
    uint8_t *next;
    uint8_t *end;
    struct event_encoder *encoder;
};

/* Opens a window of at least one record (writing out a full block). */
int trace_writer_open_window(struct trace_writer *w, struct trace_window *win,
                             struct trms_error *err);
void trace_writer_close_window(struct trace_writer *w, const struct trace_window *win,
                               uint32_t records);

/* For a producer that encodes events itself (trace_writer_open_window):
 * whether the writer has a tap, and the events it wrote, for the tap,
 * after the events written through the writer before them. */
int trace_writer_tapped(const struct trace_writer *w);
int trace_writer_tap(struct trace_writer *w, const struct event *events, size_t n,
                     struct trms_error *err);

/* Whether W keeps nothing (`record --trace none`): a producer that feeds
 * the tap's batches may then skip encoding its accesses, and says how many
 * it gave the tap with trace_writer_count_unencoded, so that the writer's
 * count of events stays whole. */
int trace_writer_discards(const struct trace_writer *w);
void trace_writer_count_unencoded(struct trace_writer *w, uint64_t records);

/* For such a producer: 0 and room in the tap's own batches (its
 * ACCESS_ROOM), after the events before; 1 when the accesses go through
 * trace_writer_tap instead; -1 when giving the tap its pending run failed
 * (*ERR says). trace_writer_accesses_written: the tap's ACCESSES_WRITTEN. */
int trace_writer_access_room(struct trace_writer *w, struct batch_event **next,
                             struct batch_event **end, struct trms_error *err);
void trace_writer_accesses_written(struct trace_writer *w, struct batch_event *next,
                                   uint64_t accesses, uint64_t writes);

/* Events written so far: those given, less the thread records that switch
 * to the thread already current (the block says it; no record is kept). */
uint64_t trace_writer_events(const struct trace_writer *w);

/* Bytes of the file written so far (the writer thread's progress: the
 * blocks still queued come later). */
uint64_t trace_writer_bytes(const struct trace_writer *w);

/* Hands the events so far to the writer thread and waits until it has
 * written them: -1 when a write failed (trace_writer_failed says why),
 * which the blocks still queued would otherwise hide until
 * trace_writer_close, too late to keep the whole ones. */
int trace_writer_drain(struct trace_writer *w, struct trms_error *err);

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
