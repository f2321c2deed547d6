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

#include "common/error.h"
#include "trace/event.h"
#include "trace/routine_table.h"

struct trace_stats {
    uint64_t events;
    uint64_t blocks;
    uint64_t bytes;
};

int trace_read(const char *path, struct routine_table *routines, event_sink sink,
               void *ctx, struct trace_stats *stats, struct trms_error *err);

#endif
