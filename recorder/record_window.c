/* record_window: the windows of a recording (see record_window.h). */
#include "recorder/record_window.h"

#include <stdlib.h>
#include <string.h>

#include "common/oom.h"
#include "common/u64map.h"

struct window_thread {
    uint32_t tid;
    uint32_t *stack;        /* the routines of every pending activation */
    size_t depth, capacity;
    size_t base;            /* frames from here on are in the trace */
    size_t matches;         /* pending activations of a matching routine */
    int open;
};

enum { UNKNOWN = 0, MATCHES = 1, DIFFERS = 2 };

struct record_window {
    struct record_window_options o;
    struct trace_writer *writer;
    struct routine_table *routines;
    routine_matcher match;
    void *match_ctx;
    unsigned char *matched;         /* by routine id: UNKNOWN, MATCHES, DIFFERS */
    size_t matched_capacity;
    struct u64map index;            /* tid -> thread index */
    struct window_thread *threads;
    size_t n_threads, threads_capacity;
    struct window_thread *current;
    int has_trace_thread;           /* the trace's current thread, as written */
    uint32_t trace_tid;
    int on;                         /* collection on */
    int stopped;                    /* a limit was reached: off for good */
    int configured_start;           /* START_AFTER was given */
    uint64_t instructions;
    struct record_window_summary s;
};

struct record_window *record_window_new(const struct record_window_options *o,
                                        struct trace_writer *w, struct routine_table *routines,
                                        routine_matcher match, void *match_ctx)
{
    struct record_window *win = xcalloc(1, sizeof *win);
    win->o = *o;
    win->writer = w;
    win->routines = routines;
    win->match = match;
    win->match_ctx = match_ctx;
    win->on = !o->off_at_start && !o->start_after;
    win->configured_start = o->start_after != 0;
    u64map_init(&win->index);
    return win;
}

void record_window_free(struct record_window *win)
{
    if (!win)
        return;
    for (size_t i = 0; i < win->n_threads; i++)
        free(win->threads[i].stack);
    free(win->threads);
    free(win->matched);
    u64map_free(&win->index);
    free(win);
}

static int routine_matches(struct record_window *win, uint32_t routine)
{
    if (!win->o.routine_pattern)
        return 0;
    if (routine >= win->matched_capacity) {
        size_t capacity = win->matched_capacity ? win->matched_capacity : 256;
        while (capacity <= routine)
            capacity *= 2;
        win->matched = xrealloc(win->matched, capacity);
        memset(win->matched + win->matched_capacity, UNKNOWN, capacity - win->matched_capacity);
        win->matched_capacity = capacity;
    }
    if (win->matched[routine] == UNKNOWN)
        win->matched[routine] =
            win->match(win->match_ctx, win->o.routine_pattern, routine) ? MATCHES : DIFFERS;
    return win->matched[routine] == MATCHES;
}

/* Writes EV for thread T, the thread switch first when the trace is on
 * another thread. */
static int put(struct record_window *win, struct window_thread *t, const struct event *ev,
               struct trms_error *err)
{
    if (!win->has_trace_thread || win->trace_tid != t->tid) {
        struct event sw = {.type = EVENT_THREAD, .tid = t->tid};
        if (trace_writer_event(win->writer, &sw, win->routines, err) != 0)
            return -1;
        win->has_trace_thread = 1;
        win->trace_tid = t->tid;
        win->s.written++;
    }
    if (ev->type == EVENT_THREAD)
        return 0;
    win->s.written++;
    return trace_writer_event(win->writer, ev, win->routines, err);
}

static int should_be_open(const struct record_window *win, const struct window_thread *t)
{
    return win->on && !win->stopped && (!win->o.routine_pattern || t->matches > 0);
}

/* T's window opens or closes as it should now; a closing one returns the
 * activations it holds. */
static int update(struct record_window *win, struct window_thread *t, struct trms_error *err)
{
    int open = should_be_open(win, t);
    if (open == t->open)
        return 0;
    t->open = open;
    if (open) {
        /* The pending activations stay out of the trace (a routine's own
         * activation, whose call opens its window, comes next). */
        win->s.opened++;
        win->s.begun_before += t->depth;
        t->base = t->depth;
        if (t == win->current)
            return put(win, t, &(struct event){.type = EVENT_THREAD}, err);
        return 0;
    }
    struct event ret = {.type = EVENT_RETURN};
    for (size_t d = t->depth; d > t->base; d--) {
        if (put(win, t, &ret, err) != 0)
            return -1;
        win->s.cut++;
    }
    t->base = t->depth;
    return 0;
}

static struct window_thread *thread_of(struct record_window *win, uint32_t tid)
{
    int inserted;
    uint64_t *index = u64map_upsert(&win->index, tid, &inserted);
    if (inserted) {
        if (win->n_threads == win->threads_capacity) {
            win->threads_capacity = win->threads_capacity ? win->threads_capacity * 2 : 8;
            win->threads = xrealloc(win->threads, win->threads_capacity * sizeof *win->threads);
            /* the current thread moved with the array */
        }
        *index = win->n_threads;
        win->threads[win->n_threads++] = (struct window_thread){.tid = tid};
    }
    return &win->threads[*index];
}

static int update_all(struct record_window *win, struct trms_error *err)
{
    for (size_t i = 0; i < win->n_threads; i++)
        if (update(win, &win->threads[i], err) != 0)
            return -1;
    /* The trace goes on with the current thread when its window is open. */
    if (win->current && win->current->open)
        return put(win, win->current, &(struct event){.type = EVENT_THREAD}, err);
    return 0;
}

static void stop(struct record_window *win)
{
    win->stopped = 1;
    win->s.limit_reached = 1;
}

/* Whether EV is a call, a return or a cost that T's window passes as is:
 * open, and unable to close on it (no routine pattern, no event limit; an
 * open window means collection is on, so a pending START_AFTER is past),
 * with the trace already on T. Then it is accounted for as the general
 * path (window_event) would, without its tests: call-heavy programs send
 * one event in three this way. */
static inline int passes_flow_event(struct record_window *win, struct window_thread *t,
                                    const struct event *ev)
{
    if (win->o.routine_pattern || win->o.max_events || !t->open || win->trace_tid != t->tid ||
        !win->has_trace_thread)
        return 0;
    switch (ev->type) {
    case EVENT_CALL:
        if (t->depth == t->capacity)
            return 0;
        t->stack[t->depth++] = ev->routine;
        return 1;
    case EVENT_RETURN:
        if (t->depth <= t->base) /* not in the trace, or no pending call */
            return 0;
        t->depth--;
        return 1;
    case EVENT_COST:
        win->instructions += ev->size;
        return 1;
    default:
        return 0;
    }
}

static int window_event(struct record_window *win, const struct event *ev,
                        struct trms_error *err);

int record_window_event(struct record_window *win, const struct event *ev,
                        struct trms_error *err)
{
    struct window_thread *t = win->current;
    if (t && passes_flow_event(win, t, ev)) {
        win->s.written++;
        return trace_writer_event(win->writer, ev, win->routines, err);
    }
    return window_event(win, ev, err);
}

/* Every event as the window says (record_window.h). */
static __attribute__((noinline)) int window_event(struct record_window *win,
                                                  const struct event *ev,
                                                  struct trms_error *err)
{
    if (ev->type == EVENT_THREAD) {
        uint32_t tid = ev->tid;
        win->current = thread_of(win, tid);
        if (update(win, win->current, err) != 0)
            return -1;
        return win->current->open ? put(win, win->current, ev, err) : 0;
    }
    struct window_thread *t = win->current;
    if (!t)
        return error_set(err, "an event before any thread");
    if (win->o.max_events && win->s.written >= win->o.max_events && !win->stopped) {
        stop(win);
        if (update_all(win, err) != 0)
            return -1;
    }
    switch (ev->type) {
    case EVENT_CALL:
        if (t->depth == t->capacity) {
            t->capacity = t->capacity ? t->capacity * 2 : 64;
            t->stack = xrealloc(t->stack, t->capacity * sizeof *t->stack);
        }
        t->stack[t->depth++] = ev->routine;
        if (routine_matches(win, ev->routine)) {
            t->matches++;
            if (!t->open) {
                /* the window opens with this activation in it */
                t->depth--;
                if (update(win, t, err) != 0)
                    return -1;
                t->depth++;
            }
        }
        break;
    case EVENT_RETURN: {
        if (t->depth == 0)
            return error_set(err, "a return with no pending call in thread %u", t->tid);
        int written = t->open && t->depth > t->base;
        uint32_t routine = t->stack[--t->depth];
        if (t->depth < t->base)
            t->base = t->depth;
        if (written && put(win, t, ev, err) != 0)
            return -1;
        if (!written)
            win->s.left_out[EVENT_RETURN]++;
        if (routine_matches(win, routine)) {
            t->matches--;
            if (update(win, t, err) != 0)
                return -1;
        }
        return 0;
    }
    case EVENT_COST:
        win->instructions += ev->size;
        if (win->o.start_after && !win->on && !win->o.off_at_start &&
            win->instructions >= win->o.start_after) {
            win->on = 1;
            win->o.start_after = 0;
            if (update_all(win, err) != 0)
                return -1;
        }
        break;
    default:
        break;
    }
    if (!t->open) {
        win->s.left_out[ev->type]++;
        return 0;
    }
    return put(win, t, ev, err);
}

int record_window_sync(struct record_window *win, const struct sync_event *ev,
                       uint64_t *left_out, struct trms_error *err)
{
    struct window_thread *t = win->current;
    if (!t)
        return error_set(err, "a sync record before any thread");
    if (!t->open) {
        ++*left_out;
        return 0;
    }
    if (put(win, t, &(struct event){.type = EVENT_THREAD}, err) != 0)
        return -1;
    return trace_writer_sync(win->writer, ev, err);
}

uint64_t record_window_room(const struct record_window *win)
{
    if (!win->current || !win->current->open)
        return 0;
    if (!win->o.max_events)
        return UINT64_MAX;
    return win->s.written < win->o.max_events ? win->o.max_events - win->s.written : 0;
}

void record_window_wrote(struct record_window *win, uint64_t n)
{
    win->s.written += n;
}

void record_window_left_out(struct record_window *win, enum event_type type, uint64_t n)
{
    win->s.left_out[type] += n;
}

int record_window_set(struct record_window *win, int on, struct trms_error *err)
{
    if (win->on == on)
        return 0;
    win->on = on;
    win->s.turned++;
    win->o.start_after = 0; /* a command overrides it */
    return update_all(win, err);
}

int record_window_check(struct record_window *win, struct trms_error *err)
{
    if (win->stopped)
        return 0;
    if ((win->o.max_events && win->s.written >= win->o.max_events) ||
        (win->o.max_bytes && trace_writer_bytes(win->writer) >= win->o.max_bytes)) {
        stop(win);
        return update_all(win, err);
    }
    return 0;
}

int record_window_active(const struct record_window *win)
{
    const struct record_window_options *o = &win->o;
    uint64_t left_out = 0;
    for (int t = 0; t < EVENT_TYPE_COUNT; t++)
        left_out += win->s.left_out[t];
    return left_out || o->routine_pattern || o->off_at_start || win->configured_start ||
           o->max_events || o->max_bytes || win->s.begun_before || win->s.cut || win->s.turned;
}

void record_window_summary(const struct record_window *win, struct record_window_summary *s)
{
    *s = win->s;
}
