#include "analyses/analysis.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyses/analysis_internal.h"
#include "analyses/analysis_parts.h"
#include "analyses/batch_event.h"
#include "analyses/engine.h"
#include "analyses/profiles.h"
#include "common/compiler.h"
#include "common/oom.h"
#include "common/u64map.h"

void analysis_options_default(struct analysis_options *opt)
{
    opt->cell_size = ANALYSIS_DEFAULT_CELL_SIZE;
    opt->line_size = ANALYSIS_DEFAULT_LINE_SIZE;
    opt->passes = PASS_ALL;
    opt->time_limit = 0;
    opt->reuse_window = 0;
    opt->batch_events = 0;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    /* One input-size shard: with the workers taking whichever job is behind,
     * the input-size pass and the reuse stacks already share the cores, and
     * a second shard costs every event a second look (a fifth more CPU on
     * real programs). */
    opt->shards = 1;
    opt->threads = cores > 1;
    opt->contexts = 0;
}

static int log2_exact(uint64_t v, unsigned *shift)
{
    if (v == 0 || (v & (v - 1)) != 0)
        return -1;
    *shift = (unsigned)__builtin_ctzll(v);
    return 0;
}

/* ---- calling contexts ---- */

static void push_context(struct thread_contexts *tc, uint32_t context)
{
    if (tc->depth == tc->pending_capacity) {
        tc->pending_capacity = tc->pending_capacity ? tc->pending_capacity * 2 : 16;
        tc->pending = xrealloc(tc->pending, tc->pending_capacity * sizeof *tc->pending);
    }
    tc->pending[tc->depth++] = context;
}

static void queue_completed(struct thread_contexts *tc, uint32_t context)
{
    if (tc->head + tc->count == tc->completed_capacity) {
        if (tc->head > tc->completed_capacity / 2) { /* the front is free: reuse it */
            memmove(tc->completed, tc->completed + tc->head, tc->count * sizeof *tc->completed);
            tc->head = 0;
        } else {
            tc->completed_capacity = tc->completed_capacity ? tc->completed_capacity * 2 : 64;
            tc->completed = xrealloc(tc->completed,
                                     tc->completed_capacity * sizeof *tc->completed);
        }
    }
    tc->completed[tc->head + tc->count++] = context;
}

/* The node for ROUTINE called from PARENT, added when new; CONTEXT_NONE
 * when the tree is full. */
static uint32_t child_context(struct analysis *a, uint32_t parent, uint32_t routine)
{
    int inserted;
    uint64_t *id = u64map_upsert(&a->context_children, (uint64_t)parent << 32 | routine,
                                 &inserted);
    if (!inserted)
        return (uint32_t)*id;
    if (a->n_contexts == CONTEXT_NONE)
        return CONTEXT_NONE;
    if (a->n_contexts == a->contexts_capacity) {
        a->contexts_capacity = a->contexts_capacity ? a->contexts_capacity * 2 : 256;
        a->contexts = xrealloc(a->contexts, a->contexts_capacity * sizeof *a->contexts);
    }
    a->contexts[a->n_contexts] = (struct calling_context){.parent = parent, .routine = routine};
    *id = a->n_contexts;
    return (uint32_t)a->n_contexts++;
}

/* How many activations ahead the profiles are asked for what an
 * activation will touch (and half as many, the second time). */
#define COLLECT_AHEAD 8

/* A batch's activations in the input-size job (which collects them only
 * without contexts and extra sinks: analysis_collect adds each to the
 * profiles). While the profiles' points are past the caches, the points
 * of the activations a few ahead are asked for; else the plain loop. */
static void collect_all(void *ctx, const struct activation *acts, size_t n)
{
    struct analysis *a = ctx;
    size_t i = 0;
    if (profiles_scattered(a->profiles))
        for (; i < n; i++) {
            if (i + COLLECT_AHEAD < n)
                profiles_prefetch(a->profiles, &acts[i + COLLECT_AHEAD], 0);
            if (i + COLLECT_AHEAD / 2 < n)
                profiles_prefetch(a->profiles, &acts[i + COLLECT_AHEAD / 2], 1);
            analysis_collect(a, &acts[i]);
        }
    for (; i < n; i++)
        analysis_collect(a, &acts[i]);
}

/* The profiles take the completed activations on the input-size pass's
 * worker, off the thread that feeds the events, unless the calling
 * contexts (which that thread assigns as it goes) or a sink of the
 * caller's need them on the feeding thread. */
void analysis_choose_collector(struct analysis *a)
{
    engine_collect_in_job(a->engine, !a->options.contexts && !a->extra_sink);
    engine_collect_all(a->engine, collect_all);
}

void analysis_collect(void *ctx, const struct activation *act)
{
    struct analysis *a = ctx;
    struct activation with_context;
    if (a->options.contexts) {
        struct thread_contexts *tc =
            &a->thread_contexts[*u64map_find(&a->thread_index, act->tid)];
        with_context = *act;
        with_context.context = tc->completed[tc->head++];
        tc->count--;
        act = &with_context;
    }
    a->activations++;
    profiles_add(a->profiles, act);
    if (a->extra_sink)
        a->extra_sink(a->extra_ctx, act);
}

int analysis_engine_config(const struct analysis_options *opt, struct engine_config *config,
                           struct trms_error *err)
{
    *config = (struct engine_config){
        .input_size = (opt->passes & PASS_INPUT_SIZE) != 0,
        .kernel_writes = !(opt->passes & PASS_NO_TRMS),
        .reuse = (opt->passes & PASS_REUSE) != 0,
        .time_limit = opt->time_limit,
        .reuse_window = opt->reuse_window,
        .threads = opt->threads,
        .batch_events = opt->batch_events,
    };
    if (log2_exact(opt->cell_size, &config->cell_shift) != 0)
        return error_set(err, "cell size %" PRIu64 " is not a power of two", opt->cell_size);
    if (log2_exact(opt->line_size, &config->line_shift) != 0)
        return error_set(err, "line size %" PRIu64 " is not a power of two", opt->line_size);
    if (log2_exact(opt->shards, &config->shard_shift) != 0 || opt->shards > ENGINE_MAX_SHARDS)
        return error_set(err, "%u shards: a power of two up to %d is needed", opt->shards,
                         ENGINE_MAX_SHARDS);
    /* Larger windows would be allocated whole, and near 2^64 one rounds up
     * to nothing at all (an option a checkpoint carries, too). */
    if (opt->reuse_window > ANALYSIS_MAX_REUSE_WINDOW)
        return error_set(err, "a first reuse window of %" PRIu64 " times: at most %u",
                         opt->reuse_window, ANALYSIS_MAX_REUSE_WINDOW);
    return 0;
}

struct analysis *analysis_new(const struct analysis_options *opt, struct trms_error *err)
{
    struct engine_config config;
    if (analysis_engine_config(opt, &config, err) != 0)
        return NULL;
    struct analysis *a = xcalloc(1, sizeof *a);
    a->options = *opt;
    a->profiles = profiles_new();
    u64map_init(&a->thread_index);
    u64map_init(&a->context_children);
    if (opt->contexts) {
        a->contexts = xmalloc(sizeof *a->contexts);
        a->contexts[0] = (struct calling_context){.parent = CONTEXT_NONE, .routine = ROUTINE_ROOT};
        a->n_contexts = a->contexts_capacity = 1;
    }
    a->engine = engine_new(&config, analysis_collect, a);
    analysis_choose_collector(a);
    a->fill = engine_fill(a->engine);
    return a;
}

void analysis_free(struct analysis *a)
{
    if (!a)
        return;
    engine_free(a->engine);
    profiles_free(a->profiles);
    free(a->tids);
    free(a->depth);
    free(a->cost);
    for (size_t i = 0; a->thread_contexts && i < a->n_threads; i++) {
        free(a->thread_contexts[i].pending);
        free(a->thread_contexts[i].completed);
    }
    free(a->thread_contexts);
    free(a->contexts);
    u64map_free(&a->context_children);
    u64map_free(&a->thread_index);
    free(a);
}

void analysis_on_activation(struct analysis *a, activation_sink sink, void *ctx)
{
    a->extra_sink = sink;
    a->extra_ctx = ctx;
    analysis_choose_collector(a);
}

static uint32_t thread_index_of(struct analysis *a, uint32_t tid)
{
    int inserted;
    uint64_t *index = u64map_upsert(&a->thread_index, tid, &inserted);
    if (inserted) {
        if (a->n_threads == a->threads_capacity) {
            a->threads_capacity = a->threads_capacity ? a->threads_capacity * 2 : 8;
            a->tids = xrealloc(a->tids, a->threads_capacity * sizeof *a->tids);
            a->depth = xrealloc(a->depth, a->threads_capacity * sizeof *a->depth);
            a->cost = xrealloc(a->cost, a->threads_capacity * sizeof *a->cost);
            if (a->options.contexts)
                a->thread_contexts = xrealloc(a->thread_contexts,
                                              a->threads_capacity * sizeof *a->thread_contexts);
        }
        *index = a->n_threads;
        a->tids[a->n_threads] = tid;
        a->depth[a->n_threads] = 0;
        a->cost[a->n_threads] = 0;
        if (a->options.contexts) {
            memset(&a->thread_contexts[a->n_threads], 0, sizeof *a->thread_contexts);
            push_context(&a->thread_contexts[a->n_threads], 0); /* the root's */
        }
        a->n_threads++;
    }
    return (uint32_t)*index;
}

/* Every event but the common valid access (analysis_event). */
static __attribute__((noinline)) int other_event(struct analysis *a, const struct event *ev,
                                                 struct trms_error *err)
{
    if ((unsigned)ev->type >= EVENT_TYPE_COUNT)
        return error_set(err, "unknown event type %d", (int)ev->type);
    struct batch_event be = {.type = (uint8_t)ev->type, .value = ev->addr,
                             .size = (uint32_t)ev->size, .shards = 0xff};
    uint32_t t = a->current_index;
    switch (ev->type) {
    case EVENT_THREAD:
        a->events[EVENT_THREAD]++;
        if (a->has_thread && ev->tid == a->tids[t])
            return 0; /* not a switch */
        a->has_thread = 1;
        a->current_index = be.size = thread_index_of(a, ev->tid);
        be.value = ev->tid;
        break;
    case EVENT_CALL:
        if (!a->has_thread)
            break;
        a->depth[t]++;
        be.value = ev->routine;
        break;
    case EVENT_RETURN:
        if (a->has_thread && a->depth[t]-- == 0) {
            a->depth[t] = 0;
            return error_set(err, "return with no pending call in thread %" PRIu32, a->tids[t]);
        }
        break;
    case EVENT_COST:
        if (a->has_thread && a->cost[t] + ev->size < a->cost[t])
            return error_set(err, "the instruction count of thread %" PRIu32 " passes 2^64",
                             a->tids[t]);
        if (a->has_thread)
            a->cost[t] += ev->size;
        be.value = ev->size;
        break;
    default:
        if (ev->size == 0 || ev->size > EVENT_MAX_ACCESS_SIZE || ev->addr + (ev->size - 1) < ev->addr)
            return error_set(err, "%s of %" PRIu64 " bytes at 0x%" PRIx64 " is not a valid access",
                             event_type_name(ev->type), ev->size, ev->addr);
        break;
    }
    if (!a->has_thread)
        return error_set(err, "%s event before any thread event", event_type_name(ev->type));
    if (ev->type == EVENT_KWRITE && ev->routine) /* in the same call as the write */
        engine_put(a->engine, a->fill,
                   (struct batch_event){.type = BATCH_KSOURCE, .value = ev->routine,
                                        .shards = 0xff});
    if (a->options.contexts && (ev->type == EVENT_CALL || ev->type == EVENT_RETURN)) {
        struct thread_contexts *tc = &a->thread_contexts[a->current_index];
        if (ev->type == EVENT_RETURN) {
            queue_completed(tc, tc->pending[--tc->depth]);
        } else {
            uint32_t context = child_context(a, tc->pending[tc->depth - 1], ev->routine);
            if (context == CONTEXT_NONE) {
                a->depth[t]--;
                return error_set(err, "more than %" PRIu32 " calling contexts", CONTEXT_NONE - 1);
            }
            push_context(tc, context);
        }
    }
    if (ev->type != EVENT_THREAD)
        a->events[ev->type]++;
    engine_put(a->engine, a->fill, be);
    if (ev->type == EVENT_THREAD)
        engine_mark_thread(a->fill);
    return 0;
}

static ALWAYS_INLINE int one_event(struct analysis *a, const struct event *ev,
                                   struct trms_error *err)
{
    /* Nine events in ten: a valid access, after the first thread event. */
    if (event_is_access(ev->type) && a->has_thread && ev->size - 1 < EVENT_MAX_ACCESS_SIZE &&
        ev->addr + (ev->size - 1) >= ev->addr && !(ev->type == EVENT_KWRITE && ev->routine)) {
        a->events[ev->type]++;
        engine_put(a->engine, a->fill,
                   (struct batch_event){.type = (uint8_t)ev->type, .value = ev->addr,
                                        .size = (uint32_t)ev->size, .shards = 0xff});
        return 0;
    }
    return other_event(a, ev, err);
}

int analysis_event(struct analysis *a, const struct event *ev, struct trms_error *err)
{
    return one_event(a, ev, err);
}

/* A call, return or cost of the current thread into SLOT, with no calling
 * contexts to keep: what other_event does, without its tests. Returns 1,
 * having done nothing, for anything else (a return with no pending call,
 * an instruction count past 2^64), which other_event then takes. */
static ALWAYS_INLINE int flow_event(struct analysis *a, const struct event *ev,
                                    struct batch_event *slot)
{
    uint32_t t = a->current_index;
    switch (ev->type) {
    case EVENT_CALL:
        a->depth[t]++;
        break;
    case EVENT_RETURN:
        if (a->depth[t] == 0)
            return 1;
        a->depth[t]--;
        break;
    case EVENT_COST:
        if (a->cost[t] + ev->size < a->cost[t])
            return 1;
        a->cost[t] += ev->size;
        break;
    default:
        return 1;
    }
    a->events[ev->type]++;
    batch_event_store(slot, batch_flow_event(ev));
    return 0;
}

int analysis_events(struct analysis *a, const struct event *events, size_t n, size_t *done,
                    struct trms_error *err)
{
    /* The common valid loads and stores go straight into the batch, the
     * cursor and the counts in registers (the batch's stores could alias
     * them otherwise); the rest, and a full batch, take the general path. */
    _Static_assert(EVENT_WRITE == EVENT_READ + 1, "loads and stores are counted as one range");
    struct engine_fill *f = a->fill;
    struct batch_event *next = f->next, *end = f->end;
    /* (a->has_thread, kept here: the batch's stores could alias it) */
    int fast = f->shard_shift == 0 && a->has_thread;
    uint64_t accesses = 0, writes = 0;
    int rc = 0;
    size_t i = 0;
    for (; i < n; i++) {
        const struct event *ev = &events[i];
        uint32_t store = (uint32_t)ev->type - EVENT_READ; /* 0 load, 1 store */
        if (store <= 1 && next != end && fast && ev->size - 1 < EVENT_MAX_ACCESS_SIZE &&
            ev->addr + (ev->size - 1) >= ev->addr) {
            accesses++;
            writes += store;
            batch_event_store(next++, (struct batch_event){.type = (uint8_t)ev->type,
                                                           .value = ev->addr,
                                                           .size = (uint32_t)ev->size,
                                                           .shards = 0xff});
            continue;
        }
        /* Calls, returns and costs: one in three events of call-heavy
         * programs. */
        if (fast && next != end && !a->options.contexts && flow_event(a, ev, next) == 0) {
            next++;
            continue;
        }
        f->next = next;
        rc = one_event(a, ev, err);
        next = f->next;
        end = f->end;
        fast = f->shard_shift == 0 && a->has_thread;
        if (rc != 0)
            break;
    }
    f->next = next;
    a->events[EVENT_READ] += accesses - writes;
    a->events[EVENT_WRITE] += writes;
    *done = i;
    return rc;
}

int analysis_access_room(struct analysis *a, struct batch_event **next,
                         struct batch_event **end, int *flows)
{
    struct engine_fill *f = a->fill;
    if (f->shard_shift != 0 || !a->has_thread)
        return 1;
    *flows = !a->options.contexts; /* flow_event's condition */
    if (f->next == f->end)
        engine_publish_full(a->engine);
    *next = f->next;
    *end = f->end;
    return 0;
}

void analysis_accesses_written(struct analysis *a, struct batch_event *next, uint64_t accesses,
                               uint64_t writes)
{
    a->fill->next = next;
    a->events[EVENT_READ] += accesses - writes;
    a->events[EVENT_WRITE] += writes;
}

int analysis_flows(struct analysis *a, const struct flow_note *flows, size_t n, size_t *done,
                   struct trms_error *err)
{
    /* flow_event's bookkeeping, the batch events already written. */
    uint32_t t = a->current_index;
    uint64_t depth = a->depth[t], cost = a->cost[t];
    uint64_t counts[EVENT_TYPE_COUNT] = {0};
    size_t i = 0;
    int rc = 0;
    for (; i < n; i++) {
        const struct flow_note *fl = &flows[i];
        if (fl->type == EVENT_CALL) {
            depth++;
        } else if (fl->type == EVENT_RETURN && depth > 0) {
            depth--;
        } else if (fl->type == EVENT_COST && cost + fl->value >= cost) {
            cost += fl->value;
        } else {
            /* The general path says what is wrong, as for an event. */
            a->depth[t] = depth;
            a->cost[t] = cost;
            struct event ev = {.type = (enum event_type)fl->type, .addr = fl->value,
                               .size = fl->value};
            rc = other_event(a, &ev, err);
            depth = a->depth[t];
            cost = a->cost[t];
            if (rc != 0)
                break;
            continue;
        }
        counts[fl->type]++;
    }
    a->depth[t] = depth;
    a->cost[t] = cost;
    a->events[EVENT_CALL] += counts[EVENT_CALL];
    a->events[EVENT_RETURN] += counts[EVENT_RETURN];
    a->events[EVENT_COST] += counts[EVENT_COST];
    *done = i;
    return rc;
}

void analysis_accesses_copy(struct analysis *a, const struct batch_event *from, size_t n,
                            uint64_t accesses, uint64_t writes)
{
    struct batch_event *to = a->fill->next;
    memcpy(to, from, n * sizeof *to);
    analysis_accesses_written(a, to + n, accesses, writes);
}

/* The input-size pass computes RMS and TRMS together: what was not asked
 * for goes, so that the result holds exactly its parts (R->analyses). */
static void leave_out_parts(struct analysis_result *r)
{
    for (size_t i = 0; i < r->n_profiles; i++) {
        struct routine_profile *p = &r->profiles[i];
        if (!(r->analyses & ANALYSIS_RMS)) {
            free(p->rms_points);
            p->rms_points = NULL;
            p->n_rms_points = 0;
        }
        if (!(r->analyses & ANALYSIS_TRMS)) {
            free(p->trms_points);
            p->trms_points = NULL;
            p->n_trms_points = 0;
            p->induced_thread = p->induced_external = p->induced_channel = 0;
            p->channel = 0;
        }
    }
}

struct analysis_result *analysis_finish(struct analysis *a, const struct routine_table *routines)
{
    /* The engine completes what is pending: innermost first, the root last. */
    for (size_t i = 0; a->options.contexts && i < a->n_threads; i++) {
        struct thread_contexts *tc = &a->thread_contexts[i];
        while (tc->depth)
            queue_completed(tc, tc->pending[--tc->depth]);
    }
    engine_finish(a->engine);
    struct analysis_result *r = xcalloc(1, sizeof *r);
    r->cell_size = a->options.cell_size;
    r->line_size = a->options.line_size;
    memcpy(r->events, a->events, sizeof r->events);
    r->activations = a->activations;
    if (routines)
        routine_table_copy(&r->routines, routines);
    else
        routine_table_init(&r->routines);
    profiles_export(a->profiles, r);
    r->contexts = a->contexts;
    r->n_contexts = a->n_contexts;
    a->contexts = NULL;
    a->n_contexts = a->contexts_capacity = 0;
    r->n_threads = a->n_threads;
    r->reuse_threads = xcalloc(a->n_threads, sizeof *r->reuse_threads);
    for (size_t i = 0; i < a->n_threads; i++)
        r->reuse_threads[i].tid = a->tids[i];
    engine_export_reuse(a->engine, &r->reuse_global, r->reuse_threads, a->n_threads);
    r->analyses = analysis_passes_parts(a->options.passes);
    leave_out_parts(r);
    return r;
}

uint64_t analysis_renumberings(const struct analysis *a)
{
    return engine_renumberings(a->engine);
}

void analysis_memory(const struct analysis *a, struct analysis_memory *m)
{
    engine_memory(a->engine, &m->input_size, &m->reuse, &m->engine);
    m->engine += sizeof *a + u64map_bytes(&a->thread_index);
    m->profiles = profiles_bytes(a->profiles) + a->contexts_capacity * sizeof *a->contexts +
                  u64map_bytes(&a->context_children);
}
