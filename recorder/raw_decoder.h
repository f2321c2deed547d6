/* raw_decoder: the Valgrind tool's raw stream (raw_stream.h) becomes the
 * event trace. Accesses, costs and kernel accesses map one to one; calls,
 * returns, jumps and signals go through the call tracker; memory maps go
 * to the caller, which needs them for symbols. Events go straight into a
 * trace writer: the per-event path is the recorder's bottleneck, and the
 * compiler can inline it only without a callback in between. */
#ifndef TRMS_RAW_DECODER_H
#define TRMS_RAW_DECODER_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "common/u64map.h"
#include "recorder/call_tracker.h"
#include "trace/event.h"
#include "trace/routine_table.h"
#include "trace/trace_writer.h"

struct raw_mapping {
    uint64_t start, length, offset;
    unsigned prot;          /* bit 0 read, 1 write, 2 execute */
    const char *path;
};

struct raw_decoder_callbacks {
    code_classifier classify;
    /* A file mapping appeared or went (UNMAP: path NULL, prot 0). */
    int (*map)(void *ctx, const struct raw_mapping *m, struct trms_error *err);
    void (*unmap)(void *ctx, uint64_t start, uint64_t length);
    /* NULL, or called before each piece of the stream is decoded (the
     * recording window's limits are looked at there). */
    int (*poll)(void *ctx, struct trms_error *err);
    void *ctx;              /* passed to all of the above */
};

struct raw_summary {
    uint64_t words;
    uint64_t events[EVENT_TYPE_COUNT];
    uint64_t threads;
    struct u64map unmodeled_syscalls;   /* syscall number -> calls */
    uint64_t tail_calls, unwound_frames;
    int ended;              /* the tool finished normally (RAW_END seen) */
    char *exec_path;        /* the program exec'd this, ending the recording */
    uint64_t exit_code;     /* the tool's view of the exit code, when ended */
    uint64_t window_requests;   /* `trms control` requests the tool answered */
    uint64_t sync_records;      /* seen (trace/sync_event.h) */
    uint64_t sync_left_out;     /* of those, not written: outside the recording window */
    struct u64map channels_written; /* inodes of the pipes, FIFOs and sockets the
                                       program wrote to -> 1 (RAW_CHANNEL_WRITE) */
};

void raw_summary_free(struct raw_summary *s);

struct raw_decoder;

/* A decoder writing into WRITER; SUMMARY is filled as it goes. */
struct raw_decoder *raw_decoder_new(struct trace_writer *writer, struct routine_table *routines,
                                    const struct raw_decoder_callbacks *cb,
                                    struct raw_summary *summary);

/* Events go through WIN (a recording window) to the writer from now on. */
struct record_window;
void raw_decoder_set_window(struct raw_decoder *d, struct record_window *win);

/* Decodes the whole records at the start of WORDS[0..N); *USED says how
 * many words they took (a record cut at the end is left for the next
 * call). */
int raw_decoder_feed(struct raw_decoder *d, const uint64_t *words, size_t n, size_t *used,
                     struct trms_error *err);

/* Completes SUMMARY and frees D; fails when no stream came at all. */
int raw_decoder_finish(struct raw_decoder *d, struct trms_error *err);

/* Reads the raw stream from FD until end of file. A stream that stops
 * early (the program was killed) is not an error: SUMMARY->ended says. A
 * stream that does not start with RAW_MAGIC, or has a word no tool
 * writes, is. */
int raw_decode_fd(int fd, struct trace_writer *writer, struct routine_table *routines,
                  const struct raw_decoder_callbacks *cb, struct raw_summary *summary,
                  struct trms_error *err);

#endif
