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
#include "trace/sync_event.h"
#include "trace/trace_reader.h"

int text_trace_read(FILE *fp, const char *path, struct routine_table *routines,
                    event_sink sink, void *ctx, struct trms_error *err);

/* A line "#@WORD REST" (to other readers, a comment): what it says beside
 * the events (store/symbol_text.h: names of routines known by address).
 * Non-zero stops the read at that line, with the message ERR holds. */
typedef int (*text_annotation)(void *ctx, const char *word, size_t word_len, const char *rest,
                               struct trms_error *err);

/* text_trace_read, passing annotations to ANNOTATE (NULL: comments). */
int text_trace_read_annotated(FILE *fp, const char *path, struct routine_table *routines,
                              event_sink sink, void *ctx, text_annotation annotate,
                              void *annotate_ctx, struct trms_error *err);

/* A line "#@sync KIND OPERANDS" (trace/sync_event.h; to other readers a
 * comment) says what orders the threads:
 *
 *   #@sync create CHILD_TID CLEAR_TID_ADDR   #@sync start    #@sync exit
 *   #@sync futex_wait ADDR    #@sync futex_resume ADDR ERRNO
 *   #@sync futex_wake ADDR WOKEN    #@sync blocking SYSCALL NANOSECONDS
 *   #@sync atomic ADDR 1 (a lock: it found 0)   #@sync atomic ADDR 2 (an unlock)
 *
 * of the current thread. text_trace_read_annotated, with these lines to
 * SYNC (NULL: they go to ANNOTATE, like any other). */
int text_trace_read_sync(FILE *fp, const char *path, struct routine_table *routines,
                         event_sink sink, void *ctx, text_annotation annotate,
                         void *annotate_ctx, sync_sink sync, void *sync_ctx,
                         struct trms_error *err);

/* Parses the operands of a "#@sync" line (REST: after "#@sync ") into EV
 * (tid not set); non-zero with ERR saying what is wrong. */
int text_sync_parse(const char *rest, struct sync_event *ev, struct trms_error *err);

#endif
