/* raw_decoder: the Valgrind tool's raw stream (raw_stream.h) becomes the
 * event trace. Accesses, costs and kernel accesses map one to one; calls,
 * returns, jumps and signals go through the call tracker; memory maps go
 * to the caller, which needs them for symbols. */
#ifndef TRMS_RAW_DECODER_H
#define TRMS_RAW_DECODER_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "common/u64map.h"
#include "recorder/call_tracker.h"
#include "trace/event.h"
#include "trace/routine_table.h"

struct raw_mapping {
    uint64_t start, length, offset;
    unsigned prot;          /* bit 0 read, 1 write, 2 execute */
    const char *path;
};

/* Receives events in batches, in order; non-zero (ERR filled) stops. */
typedef int (*event_batch_sink)(void *ctx, const struct event *evs, size_t n,
                                struct trms_error *err);

struct raw_decoder_callbacks {
    event_batch_sink sink;
    code_classifier classify;
    /* A file mapping appeared or went (UNMAP: path NULL, prot 0). */
    int (*map)(void *ctx, const struct raw_mapping *m, struct trms_error *err);
    void (*unmap)(void *ctx, uint64_t start, uint64_t length);
    void *ctx;              /* passed to all of the above */
};

struct raw_summary {
    uint64_t words;
    uint64_t events[EVENT_TYPE_COUNT];
    uint64_t threads;
    struct u64map unmodeled_syscalls;   /* syscall number -> calls */
    uint64_t tail_calls, unwound_frames;
    int ended;              /* the tool finished normally (RAW_END seen) */
    uint64_t exit_code;     /* the tool's view of the exit code, when ended */
};

void raw_summary_free(struct raw_summary *s);

/* Reads the raw stream from FD until end of file. A stream that stops
 * early (the program was killed) is not an error: SUMMARY->ended says. A
 * stream that does not start with RAW_MAGIC, or has a word no tool
 * writes, is. */
int raw_decode_fd(int fd, struct routine_table *routines, const struct raw_decoder_callbacks *cb,
                  struct raw_summary *summary, struct trms_error *err);

#endif
