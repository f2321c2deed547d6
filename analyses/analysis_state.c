/* analysis_state: the driver's state, saved and loaded, around the
 * profiles' and the engine's.
 *
 *   u64: version cell_size line_size passes time_limit reuse_window shards
 *        contexts
 *   u64: activations, u64:EVENT_TYPE_COUNT and the event counts
 *   u64:threads, per thread u64: tid depth cost
 *   u64: has_thread current_index
 *   with calling contexts: per thread u64:pending and their contexts
 *       (root first), u64:returned and theirs (oldest first); u64:contexts,
 *       per context u64: parent routine (context 0 is the root's)
 *   the profiles, then the engine's jobs */
#include "analyses/analysis_state.h"

#include <inttypes.h>
#include <stdlib.h>

#include "analyses/analysis_internal.h"
#include "analyses/engine.h"
#include "analyses/profiles.h"
#include "analyses/state_parts.h"
#include "common/oom.h"

/* The calling context tree and, per thread, the contexts of its pending
 * activations and of those returned that the engine has not completed
 * (none once quiesced, but saved all the same). */
static void save_contexts(const struct analysis *a, struct state_writer *w)
{
    for (size_t i = 0; i < a->n_threads; i++) {
        const struct thread_contexts *tc = &a->thread_contexts[i];
        state_put_u64(w, tc->depth);
        for (size_t k = 0; k < tc->depth; k++)
            state_put_u64(w, tc->pending[k]);
        state_put_u64(w, tc->count);
        for (size_t k = 0; k < tc->count; k++)
            state_put_u64(w, tc->completed[tc->head + k]);
    }
    state_put_u64(w, a->n_contexts);
    for (size_t i = 0; i < a->n_contexts; i++) {
        state_put_u64(w, a->contexts[i].parent);
        state_put_u64(w, a->contexts[i].routine);
    }
}

/* A list of contexts (each below LIMIT) into *ITEMS, with room to grow. */
static size_t load_context_list(struct state_reader *r, uint32_t **items, size_t *capacity)
{
    uint64_t n = state_get_count(r, 1);
    *capacity = n < 16 ? 16 : (size_t)n;
    *items = xcalloc(*capacity, sizeof **items);
    for (uint64_t k = 0; k < n && !r->failed; k++) {
        uint64_t c = state_get_u64(r);
        if (c >= CONTEXT_NONE)
            state_reader_fail(r, "a calling context that cannot be");
        (*items)[k] = (uint32_t)c;
    }
    return r->failed ? 0 : (size_t)n;
}

/* Each thread's pending contexts are a path down the tree from the root,
 * one per pending call the driver counts (a return pops one, a call
 * extends the innermost); the returned ones wait for activations the
 * engine completes, and once quiesced it has completed them all. */
static void check_thread_contexts(const struct analysis *a, struct state_reader *r)
{
    for (size_t i = 0; i < a->n_threads && !r->failed; i++) {
        const struct thread_contexts *tc = &a->thread_contexts[i];
        if (tc->depth != a->depth[i] + 1 || tc->pending[0] != 0) {
            state_reader_fail(r, "pending calling contexts that are not the thread's calls");
            break;
        }
        for (size_t k = 1; k < tc->depth; k++)
            if (a->contexts[tc->pending[k]].parent != tc->pending[k - 1]) {
                state_reader_fail(r, "pending calling contexts that are not a path");
                break;
            }
        if (tc->count && (a->options.passes & PASS_INPUT_SIZE))
            state_reader_fail(r, "returned calling contexts the engine has not completed");
    }
}

static void load_contexts(struct analysis *a, uint64_t routines, struct state_reader *r)
{
    a->thread_contexts = xcalloc(a->threads_capacity ? a->threads_capacity : 1,
                                 sizeof *a->thread_contexts);
    for (size_t i = 0; i < a->n_threads && !r->failed; i++) {
        struct thread_contexts *tc = &a->thread_contexts[i];
        tc->depth = load_context_list(r, &tc->pending, &tc->pending_capacity);
        tc->count = load_context_list(r, &tc->completed, &tc->completed_capacity);
        if (!r->failed && tc->depth == 0)
            state_reader_fail(r, "a thread without its root's calling context");
    }
    uint64_t n = state_get_count(r, 2);
    if (!r->failed && (n == 0 || n >= CONTEXT_NONE))
        state_reader_fail(r, "a calling context tree without its root");
    if (r->failed)
        return;
    a->contexts_capacity = a->n_contexts = (size_t)n;
    a->contexts = xcalloc(n, sizeof *a->contexts);
    for (uint64_t i = 0; i < n && !r->failed; i++) {
        uint64_t parent = state_get_u64(r), routine = state_get_u64(r);
        int root = i == 0, inserted = 0;
        /* Nodes are numbered as created: a parent comes before its children. */
        if (root ? parent != CONTEXT_NONE || routine != ROUTINE_ROOT
                 : parent >= i || routine >= ROUTINE_ROOT) {
            state_reader_fail(r, "a calling context tree out of order");
            break;
        }
        if (!root && routine >= routines) {
            state_reader_fail(r, "a calling context of a routine never defined");
            break;
        }
        a->contexts[i] = (struct calling_context){(uint32_t)parent, (uint32_t)routine};
        if (!root)
            *u64map_upsert(&a->context_children, parent << 32 | routine, &inserted) = i;
        if (!root && !inserted)
            state_reader_fail(r, "a calling context saved twice");
    }
    for (size_t i = 0; i < a->n_threads && !r->failed; i++) {
        const struct thread_contexts *tc = &a->thread_contexts[i];
        for (size_t k = 0; k < tc->depth; k++)
            if (tc->pending[k] >= n)
                state_reader_fail(r, "a pending activation of an unknown calling context");
        for (size_t k = 0; k < tc->count; k++)
            if (tc->completed[k] >= n)
                state_reader_fail(r, "a returned activation of an unknown calling context");
    }
    if (!r->failed)
        check_thread_contexts(a, r);
}

void analysis_quiesce(struct analysis *a)
{
    engine_quiesce(a->engine);
}

void analysis_save(struct analysis *a, struct state_writer *w)
{
    engine_quiesce(a->engine);
    const struct analysis_options *o = &a->options;
    const uint64_t header[] = {ANALYSIS_STATE_VERSION, o->cell_size, o->line_size, o->passes,
                               o->time_limit, o->reuse_window, o->shards, (uint64_t)o->contexts,
                               a->activations, EVENT_TYPE_COUNT};
    for (size_t i = 0; i < sizeof header / sizeof *header; i++)
        state_put_u64(w, header[i]);
    for (int t = 0; t < EVENT_TYPE_COUNT; t++)
        state_put_u64(w, a->events[t]);
    state_put_u64(w, a->n_threads);
    for (size_t i = 0; i < a->n_threads; i++) {
        state_put_u64(w, a->tids[i]);
        state_put_u64(w, a->depth[i]);
        state_put_u64(w, a->cost[i]);
    }
    state_put_u64(w, (uint64_t)a->has_thread);
    state_put_u64(w, a->current_index);
    if (o->contexts)
        save_contexts(a, w);
    profiles_save(a->profiles, w);
    engine_save(a->engine, w);
}

const struct analysis_options *analysis_get_options(const struct analysis *a)
{
    return &a->options;
}

static void load_threads(struct analysis *a, struct state_reader *r)
{
    uint64_t n = state_get_count(r, 3);
    if (r->failed || n == 0)
        return;
    a->threads_capacity = n;
    a->tids = xcalloc(n, sizeof *a->tids);
    a->depth = xcalloc(n, sizeof *a->depth);
    a->cost = xcalloc(n, sizeof *a->cost);
    for (uint64_t i = 0; i < n && !r->failed; i++) {
        uint64_t tid = state_get_u64(r);
        int inserted;
        uint64_t *index = u64map_upsert(&a->thread_index, tid, &inserted);
        if (tid > UINT32_MAX || !inserted) {
            state_reader_fail(r, "a thread saved twice");
            return;
        }
        *index = i;
        a->tids[i] = (uint32_t)tid;
        a->depth[i] = state_get_u64(r);
        a->cost[i] = state_get_u64(r);
        a->n_threads++;
    }
}

struct analysis *analysis_load(struct state_reader *r, int threads, uint64_t routines,
                               struct trms_error *err)
{
    uint64_t version = state_get_u64(r);
    if (!r->failed && version != ANALYSIS_STATE_VERSION) {
        error_set(err, "the saved analysis has layout %" PRIu64 ", this trms reads %d", version,
                  ANALYSIS_STATE_VERSION);
        return NULL;
    }
    struct analysis_options opt = {0};
    opt.cell_size = state_get_u64(r);
    opt.line_size = state_get_u64(r);
    opt.passes = (unsigned)state_get_u64(r);
    opt.time_limit = state_get_u64(r);
    opt.reuse_window = state_get_u64(r);
    opt.shards = (unsigned)state_get_u64(r);
    opt.contexts = state_get_u64(r) != 0;
    opt.threads = threads;
    struct engine_config config;
    if (r->failed || opt.passes & ~(unsigned)PASS_VALID) {
        error_set(err, "%s", r->failed ? r->error : "the saved options are not valid");
        return NULL;
    }
    if (analysis_engine_config(&opt, &config, err) != 0)
        return NULL; /* ERR says which option */
    struct analysis *a = xcalloc(1, sizeof *a);
    a->options = opt;
    a->profiles = profiles_new();
    u64map_init(&a->thread_index);
    u64map_init(&a->context_children);
    a->activations = state_get_u64(r);
    if (state_get_u64(r) != EVENT_TYPE_COUNT)
        state_reader_fail(r, "the saved analysis counts other event types");
    for (int t = 0; t < EVENT_TYPE_COUNT; t++)
        a->events[t] = state_get_u64(r);
    load_threads(a, r);
    a->has_thread = state_get_u64(r) != 0;
    a->current_index = (uint32_t)state_get_u64(r);
    if (a->has_thread ? a->current_index >= a->n_threads : a->n_threads != 0)
        state_reader_fail(r, "a current thread past the threads");
    if (opt.contexts && !r->failed)
        load_contexts(a, routines, r);
    const struct state_bounds bounds = {
        .routines = routines, .contexts = a->n_contexts, .threads = a->n_threads,
        .tids = a->tids, .depth = a->depth, .cost = a->cost, .has_current = a->has_thread,
        .current = a->current_index};
    if (!r->failed)
        profiles_load(a->profiles, &bounds, r);
    if (!r->failed)
        a->engine = engine_load(&config, &bounds, analysis_collect, a, r);
    if (a->engine) {
        analysis_choose_collector(a);
        a->fill = engine_fill(a->engine);
    }
    if (r->failed) {
        error_set(err, "%s", r->error ? r->error : "the saved analysis is damaged");
        analysis_free(a);
        return NULL;
    }
    return a;
}
