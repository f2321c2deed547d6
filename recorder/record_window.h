/* record_window: which parts of a long run a recording keeps.
 *
 * Sits between an engine's events and the trace writer. Events are written
 * while the window is open and counted, by type, as left out while it is
 * closed. The window is open for a thread while collection is on (from the
 * start, or after START_AFTER instructions, or between `trms control on`
 * and `off`: callgrind's --instr-atstart=no and callgrind_control, and
 * DynamoRIO drmemtrace's -trace_after_instrs) and, with a routine pattern,
 * while the thread runs a routine whose name matches it (callgrind's
 * --toggle-collect); collection stops for good once MAX_EVENTS events or
 * MAX_BYTES bytes of trace are written (drmemtrace's -max_trace_size).
 *
 * The trace stays well formed: activations that began before their
 * thread's window opened are not in it (what they do inside counts to
 * the activations around, up to the thread's root), and those pending when
 * a window closes return there, with what they did inside it. The calls
 * and returns of the whole run are followed all the time, so that a window
 * that opens knows where the thread is. */
#ifndef TRMS_RECORD_WINDOW_H
#define TRMS_RECORD_WINDOW_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "trace/event.h"
#include "trace/routine_table.h"
#include "trace/trace_writer.h"

struct record_window_options {
    const char *routine_pattern;  /* shell pattern on routine names, or NULL */
    int off_at_start;             /* collection off until turned on */
    uint64_t start_after;         /* instructions (all threads) before it turns on; 0 */
    uint64_t max_events;          /* events written, then off for good; 0: no limit */
    uint64_t max_bytes;           /* bytes of trace file, then off for good; 0 */
};

/* Whether the name of ROUTINE (of the routine table) matches the pattern. */
typedef int (*routine_matcher)(void *ctx, const char *pattern, uint32_t routine);

struct record_window;

struct record_window *record_window_new(const struct record_window_options *o,
                                        struct trace_writer *w, struct routine_table *routines,
                                        routine_matcher match, void *match_ctx);
void record_window_free(struct record_window *win);

/* Every event but the loads and stores of the engine's fast path: written
 * (or not) as the window says. Returns non-zero when the writer failed. */
int record_window_event(struct record_window *win, const struct event *ev,
                        struct trms_error *err);

/* Loads and stores of the current thread the fast path may write now: 0
 * while its window is closed, else how many before the event limit. */
uint64_t record_window_room(const struct record_window *win);

/* The fast path wrote N loads and stores, or left them out. */
void record_window_wrote(struct record_window *win, uint64_t n);
void record_window_left_out(struct record_window *win, enum event_type type, uint64_t n);

/* Turns collection on or off (a control command); the byte limit and a
 * reached event limit are looked at here too. Returns non-zero when the
 * writer failed. */
int record_window_set(struct record_window *win, int on, struct trms_error *err);
int record_window_check(struct record_window *win, struct trms_error *err);

/* Writes a sync record of the current thread while its window is open,
 * else counts it in *LEFT_OUT. */
int record_window_sync(struct record_window *win, const struct sync_event *ev,
                       uint64_t *left_out, struct trms_error *err);

/* Whether anything was left out; what, for the meta. */
int record_window_active(const struct record_window *win);
struct record_window_summary {
    uint64_t opened;                    /* windows opened, over all threads */
    uint64_t left_out[EVENT_TYPE_COUNT];
    uint64_t begun_before;              /* activations left out: begun before a window */
    uint64_t cut;                       /* activations returned where a window closed */
    uint64_t written;                   /* events written, those of the fast path too */
    int limit_reached;                  /* MAX_EVENTS or MAX_BYTES stopped it */
    uint64_t turned;                    /* times a request turned collection on or off */
};
void record_window_summary(const struct record_window *win, struct record_window_summary *s);

#endif
