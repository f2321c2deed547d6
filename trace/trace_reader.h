/* trace_reader: reads a binary event trace, checking every block.
 *
 * Events go to a sink in order; routine definitions go into a routine
 * table. A missing end block, a bad checksum, an undecodable record or a
 * count that does not add up fails the whole read with a message naming
 * the file and the byte offset: a recording is analyzed whole or not at
 * all. */
#ifndef TRMS_TRACE_READER_H
#define TRMS_TRACE_READER_H

#include <stdint.h>
#include <stdio.h>

#include "common/error.h"
#include "trace/event.h"
#include "trace/routine_table.h"
#include "trace/sync_event.h"

struct batch_event;
struct flow_note;

struct trace_stats {
    uint64_t sync_records;  /* not events: not in EVENTS */
    int has_sync;           /* the header says the trace may hold them */
    uint64_t events;
    uint64_t blocks;
    uint64_t bytes;
};

int trace_read(const char *path, struct routine_table *routines, event_sink sink,
               void *ctx, struct trace_stats *stats, struct trms_error *err);

/* trace_read, with the sync records to SYNC (trace/sync_event.h). */
int trace_read_synced(const char *path, struct routine_table *routines, event_sink sink,
                      void *ctx, sync_sink sync, void *sync_ctx, struct trms_error *err);

/* Where a read stands: what it takes to continue from there (a checkpoint
 * of `trms analyze`), without reading what came before. */
struct trace_position {
    uint64_t offset;        /* byte offset of the block holding the next event */
    uint64_t skip;          /* records of that block already delivered */
    uint64_t events;        /* events delivered before that block */
    uint64_t blocks;        /* event blocks before it */
    uint64_t routines;      /* routines defined before it */
    uint32_t thread;        /* the current thread at its start */
    int has_thread;
};

struct trace_read_options {
    /* NULL to read from the start; else where to continue, with ROUTINES
     * holding exactly the routines defined before FROM's block. Every
     * block from there on is checked as usual, and the end block's totals
     * against the whole trace. */
    const struct trace_position *from;
    /* NULL, or kept up to date: when an event reaches the sink, AT is
     * where the read continues after it (with BATCH: after a run's last). */
    struct trace_position *at;
    /* NULL, or where the events go, in runs of at most TRACE_READ_RUN and
     * never across a block, instead of the event sink. */
    event_batch_sink batch;
    /* NULL, or (with BATCH) the common records of a version 4 trace are
     * decoded straight into the batches of BATCH's consumer, with no
     * struct event on the way: ROOM as struct trace_event_tap's
     * access_room (trace_writer.h) gives room, or returns non-zero when
     * the events must come through BATCH for now; WRITTEN then says where
     * the read stopped, ACCESSES loads and stores of which WRITES stores,
     * and the N_FLOWS calls, returns and costs among them (with ROOM's
     * *FLOWS) in order; it may fail, which ends the read. Both get
     * BATCH's context. */
    batch_room_sink room;
    int (*written)(void *ctx, struct batch_event *next, uint64_t accesses, uint64_t writes,
                   const struct flow_note *flows, size_t n_flows, struct trms_error *err);
    /* NULL, or where the sync records go, in order with the events
     * (trace/sync_event.h); without it they are passed over. */
    sync_sink sync;
    void *sync_ctx;
};

#define TRACE_READ_RUN 256

/* trace_read of an open stream (NAME for messages), with OPTIONS (may be
 * NULL). The stream must be seekable when OPTIONS->from is given. */
int trace_read_stream(FILE *fp, const char *name, struct routine_table *routines,
                      event_sink sink, void *ctx, const struct trace_read_options *options,
                      struct trace_stats *stats, struct trms_error *err);

/* Whether the event trace open in FP may hold sync records: its header's
 * flag, which the writer sets whenever it wrote one (trace_writer_sync).
 * Read without moving FP; 1 when the header cannot be read (the read
 * itself then says why). A pass that only wants sync records, or writes
 * what is only kept with them (the causal input), can skip a trace
 * without. */
int trace_may_hold_sync(FILE *fp);


#endif
