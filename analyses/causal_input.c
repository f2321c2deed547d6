/* causal_input: the causal model's part of a trace (see the header). */
#include "analyses/causal_input.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyses/held_locks.h"
#include "common/oom.h"
#include "common/u64map.h"
#include "trace/recording.h"
#include "trace/trace_writer.h"

/* REC/.causal.trms.PID.partial until complete: hidden, and one per
 * writer, so that two analyses of one recording (other options) or one
 * killed before do not stand in each other's way. */
#define PARTIAL_MAX 64

/* A bit per hash of the cleared addresses: a run of accesses looks an
 * address up in CLEARED only when its bit is set (a few threads' clear
 * addresses, often on the same page offset, hence the hash). */
#define CLEARED_FILTER_BITS 4096

static inline unsigned cleared_bit(uint64_t addr)
{
    return (unsigned)((addr * UINT64_C(0x9e3779b97f4a7c15)) >> 52);
}

struct causal_input {
    struct trace_writer *w;
    const struct routine_table *routines;
    char *path, *partial;
    struct u64map cleared;      /* addresses a thread's exit clears (create's ADDR) */
    uint64_t cleared_filter[CLEARED_FILTER_BITS / 64]; /* CLEARED's, by cleared_bit */
    struct u64map thread_index; /* tid -> index + 1 in THREADS */
    struct held_locks *threads; /* what the model follows of each (held_locks.h) */
    size_t n_threads, threads_capacity;
    size_t current;             /* THREADS' index of THREAD */
    uint64_t cost;              /* instructions not yet written, of THREAD */
    uint32_t thread;
    int has_thread;
    int threaded;               /* a create, or a second thread, was seen */
    int wrote_sync;
};

struct causal_input *causal_input_create(const char *rec_path,
                                         const struct routine_table *routines,
                                         struct trms_error *err)
{
    struct causal_input *ci = xcalloc(1, sizeof *ci);
    ci->routines = routines;
    ci->path = recording_file(rec_path, CAUSAL_INPUT_FILE);
    char name[PARTIAL_MAX];
    snprintf(name, sizeof name, "." CAUSAL_INPUT_FILE ".%ld.partial", (long)getpid());
    ci->partial = recording_file(rec_path, name);
    unlink(ci->partial); /* left by a killed trms whose pid this was */
    u64map_init(&ci->cleared);
    u64map_init(&ci->thread_index);
    ci->w = trace_writer_create(ci->partial, err);
    if (!ci->w) {
        causal_input_abandon(ci);
        return NULL;
    }
    return ci;
}

/* Whether the current thread's accesses may be followed: the model
 * counts them only once the program is threaded (causal_model.h). */
static inline int following(const struct causal_input *ci)
{
    return ci->has_thread && ci->threaded;
}

/* TID's index in THREADS, made on first sight (a second thread makes the
 * program threaded, as in the model). */
static size_t thread_of(struct causal_input *ci, uint64_t tid)
{
    uint64_t *index = u64map_upsert(&ci->thread_index, tid, NULL);
    if (*index)
        return *index - 1;
    if (ci->n_threads == ci->threads_capacity) {
        ci->threads_capacity = ci->threads_capacity ? 2 * ci->threads_capacity : 8;
        ci->threads = xrealloc(ci->threads, ci->threads_capacity * sizeof *ci->threads);
    }
    ci->threads[ci->n_threads] = (struct held_locks){0};
    ci->threaded |= ci->n_threads > 0;
    *index = ++ci->n_threads;
    return ci->n_threads - 1;
}

static int write_event(struct causal_input *ci, const struct event *ev, struct trms_error *err)
{
    return trace_writer_event(ci->w, ev, ci->routines, err);
}

/* The instructions since the last record written, as one cost event. */
static int flush_cost(struct causal_input *ci, struct trms_error *err)
{
    if (ci->cost == 0)
        return 0;
    struct event ev = {.type = EVENT_COST, .size = ci->cost};
    ci->cost = 0;
    return write_event(ci, &ev, err);
}

int causal_input_event(void *ctx, const struct event *ev, struct trms_error *err)
{
    struct causal_input *ci = ctx;
    switch (ev->type) {
    case EVENT_COST:
        if (ci->has_thread) {
            ci->cost += ev->size;
            return 0;
        }
        break;
    case EVENT_THREAD:
        if (ci->has_thread && ev->tid == ci->thread)
            return 0;
        if (flush_cost(ci, err) != 0)
            return -1;
        ci->current = thread_of(ci, ev->tid);
        ci->thread = ev->tid;
        ci->has_thread = 1;
        break;
    case EVENT_CALL:
    case EVENT_RETURN:
        break;
    case EVENT_READ:
    case EVENT_WRITE:
        /* The accesses the model follows after a take (causal_model.h). */
        if (following(ci) && held_locks_follow_access(&ci->threads[ci->current]))
            break;
        /* Only a read of a cleared address can be a join (causal_model.c). */
        if (ev->type == EVENT_READ && ci->cleared.count && u64map_find(&ci->cleared, ev->addr))
            break;
        return 0;
    default:
        return 0;
    }
    if (flush_cost(ci, err) != 0)
        return -1;
    return write_event(ci, ev, err);
}

int causal_input_events(void *ctx, const struct event *events, size_t n,
                        struct trms_error *err)
{
    struct causal_input *ci = ctx;
    for (size_t i = 0; i < n; i++) {
        const struct event *ev = &events[i];
        /* Most events are accesses and costs: summed or passed over here. */
        if (ev->type == EVENT_COST && ci->has_thread) {
            ci->cost += ev->size;
            continue;
        }
        if (event_is_access(ev->type) && !(following(ci) && ci->threads[ci->current].follow) &&
            (ev->type != EVENT_READ || !ci->cleared.count))
            continue;
        if (causal_input_event(ctx, ev, err) != 0)
            return -1;
    }
    return 0;
}

int causal_input_flows(void *ctx, const struct flow_note *flows, size_t n,
                       struct trms_error *err)
{
    struct causal_input *ci = ctx;
    for (size_t i = 0; i < n; i++) {
        const struct flow_note *fl = &flows[i];
        if (fl->type == EVENT_COST && ci->has_thread) {
            ci->cost += fl->value;
            continue;
        }
        /* As the decoder's struct event of it; a call or return is
         * written as causal_input_event does, without its switch. */
        struct event ev = {.type = (enum event_type)fl->type,
                           .routine = fl->type == EVENT_CALL ? (uint32_t)fl->value : 0,
                           .addr = fl->type == EVENT_RETURN ? fl->value : 0,
                           .size = fl->type == EVENT_COST ? fl->value : 0};
        if (fl->type == EVENT_COST ? causal_input_event(ci, &ev, err) != 0
                                   : flush_cost(ci, err) != 0 || write_event(ci, &ev, err) != 0)
            return -1;
    }
    return 0;
}

enum causal_access_need causal_input_access_need(const struct causal_input *ci)
{
    /* As causal_input_events decides for a load or store. */
    if (following(ci) && ci->threads[ci->current].follow)
        return CAUSAL_FOLLOWS_ACCESSES;
    return ci->cleared.count ? CAUSAL_KEEPS_SOME_READS : CAUSAL_PASSES_ACCESSES;
}

int causal_input_access_run(void *ctx, const struct batch_event *run, size_t n,
                            struct trms_error *err)
{
    struct causal_input *ci = ctx;
    if (!ci->cleared.count)
        return 0;
    for (size_t i = 0; i < n; i++) {
        unsigned bit = cleared_bit(run[i].value);
        if (run[i].type != EVENT_READ || !(ci->cleared_filter[bit / 64] >> (bit % 64) & 1))
            continue;
        /* As the decoder's struct event of it (causal_input_event decides). */
        struct event ev = {.type = EVENT_READ, .addr = run[i].value, .size = run[i].size};
        if (causal_input_event(ci, &ev, err) != 0)
            return -1;
    }
    return 0;
}

int causal_input_sync(void *ctx, const struct sync_event *ev, struct trms_error *err)
{
    struct causal_input *ci = ctx;
    /* The writer names the thread of a sync record by the last switch. */
    struct event thread = {.type = EVENT_THREAD, .tid = ev->tid};
    if (causal_input_event(ci, &thread, err) != 0 || flush_cost(ci, err) != 0)
        return -1;
    if (ev->kind == SYNC_CREATE)
        ci->threaded = 1;
    if (ev->kind == SYNC_CREATE && ev->addr) {
        *u64map_upsert(&ci->cleared, ev->addr, NULL) = 1;
        unsigned bit = cleared_bit(ev->addr);
        ci->cleared_filter[bit / 64] |= UINT64_C(1) << (bit % 64);
    }
    held_locks_sync(&ci->threads[ci->current], ev);
    ci->wrote_sync = 1;
    return trace_writer_sync(ci->w, ev, err);
}

int causal_input_finish(struct causal_input *ci, int *written, struct trms_error *err)
{
    *written = 0;
    int rc = flush_cost(ci, err);
    if (rc != 0 || !ci->wrote_sync) {
        causal_input_abandon(ci);
        return rc;
    }
    struct trace_writer *w = ci->w;
    ci->w = NULL;
    rc = trace_writer_close(w, ci->routines, err);
    if (rc == 0 && rename(ci->partial, ci->path) != 0)
        rc = error_set(err, "%s: cannot rename to %s: %s", ci->partial, ci->path,
                       strerror(errno));
    *written = rc == 0;
    causal_input_abandon(ci);
    return rc;
}

void causal_input_abandon(struct causal_input *ci)
{
    if (!ci)
        return;
    if (ci->w)
        trace_writer_abandon(ci->w);
    remove(ci->partial);
    u64map_free(&ci->cleared);
    u64map_free(&ci->thread_index);
    for (size_t i = 0; i < ci->n_threads; i++)
        held_locks_free(&ci->threads[i]);
    free(ci->threads);
    free(ci->path);
    free(ci->partial);
    free(ci);
}
