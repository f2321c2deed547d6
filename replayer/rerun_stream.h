/* rerun_stream: the raw bytes of `rr rerun --raw` (or of the step engine,
 * which writes the same layout) to the decoder, record by record.
 *
 * A stream is whole records of RERUN_RECORD_BYTES; one that does not end
 * with '\n' means the stream is corrupt or was made with other fields, and
 * a stream that stops inside a record was cut short: both are errors that
 * name the record and its byte offset, after every record before them has
 * been decoded (their events are delivered, not withdrawn). */
#ifndef TRMS_RERUN_STREAM_H
#define TRMS_RERUN_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "replayer/rerun_decoder.h"

struct rerun_stream {
    struct rerun_decoder *decoder;
    uint64_t offset;  /* bytes of the stream consumed */
    uint64_t records;
    /* Called with each record before the decoder sees it (a producer that
     * must act first, e.g. make a frame's new mappings visible); may be
     * NULL. */
    void (*before)(void *ctx, const struct rerun_record *r);
    void *before_ctx;
};

void rerun_stream_init(struct rerun_stream *s, struct rerun_decoder *decoder);

/* Decodes the whole records at the start of BYTES[0..N); *USED says how
 * many bytes they took (a record cut at the end is left for the next
 * call). */
int rerun_stream_feed(struct rerun_stream *s, const uint8_t *bytes, size_t n, size_t *used,
                      struct trms_error *err);

/* The stream ended with LEFTOVER bytes unconsumed: an error unless 0. */
int rerun_stream_end(const struct rerun_stream *s, size_t leftover, struct trms_error *err);

/* Reads FD to its end through S. */
int rerun_stream_read_fd(struct rerun_stream *s, int fd, struct trms_error *err);

#endif
