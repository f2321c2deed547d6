/* test_differential: the fast analyses against the naive reference on
 * thousands of random multi-threaded traces.
 *
 * Every activation (in completion order: thread, routine, depth, RMS, TRMS,
 * cost, self cost, induced input, and calling context when kept), the
 * calling context tree, the global and per-thread reuse histograms, and the
 * profiles rebuilt from the activations (per routine, or per context) must
 * be equal, for several cell and line sizes; the profiles come sorted and
 * the events are counted by type. Long traces with thousands of distinct
 * lines push the reuse stacks through many renumberings; a trace longer than
 * the engine's ring of batches reuses its slots. Invalid accesses are
 * refused. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/analysis.h"
#include "common/oom.h"
#include "tests/check.h"
#include "tests/fixture.h"
#include "tests/naive_reference.h"
#include "tests/random_trace.h"

static const uint64_t cell_sizes[] = {1, 2, 4, 8, 16, 64, 4096};
static const uint64_t line_sizes[] = {1, 4, 16, 64, 256};

static int failed_traces;

static void describe(uint64_t seed, uint64_t cell, uint64_t line, const char *what)
{
    if (failed_traces++ < 10)
        fprintf(stderr, "seed %" PRIu64 " cell %" PRIu64 " line %" PRIu64 ": %s\n", seed, cell,
                line, what);
    check_failures++;
}

/* B is the naive one, which always knows its context. */
static int same_activation(const struct activation *a, const struct activation *b, int contexts)
{
    if (a->context != (contexts ? b->context : CONTEXT_NONE))
        return 0;
    return a->tid == b->tid && a->routine == b->routine && a->depth == b->depth &&
           a->recursive == b->recursive && a->rms == b->rms && a->trms == b->trms &&
           a->cost == b->cost && a->self_cost == b->self_cost &&
           a->induced_thread == b->induced_thread && a->induced_external == b->induced_external;
}

static int same_histogram(const struct reuse_histogram *fast, const struct naive_histogram *naive)
{
    if (fast->accesses != naive->accesses || fast->cold != naive->cold)
        return 0;
    size_t bins = 0;
    for (size_t d = 0; d < naive->length; d++) {
        if (!naive->count_by_distance[d])
            continue;
        if (bins >= fast->n_bins || fast->bins[bins].distance != d ||
            fast->bins[bins].count != naive->count_by_distance[d])
            return 0;
        bins++;
    }
    return bins == fast->n_bins;
}

/* Whether activation A belongs to profile P: its routine's, or its
 * context's when P is a context's. */
static int belongs(const struct activation *a, const struct routine_profile *p)
{
    if (a->tid != p->tid || a->routine != p->routine)
        return 0;
    return p->context == CONTEXT_NONE || a->context == p->context;
}

/* The profile of (routine or context, tid) rebuilt from the activations:
 * one tuple per distinct n, summed the obvious way. */
static int profile_matches(const struct routine_profile *p, const struct activation *acts,
                           size_t n_acts, int trms)
{
    const struct profile_point *pts = trms ? p->trms_points : p->rms_points;
    size_t n_pts = trms ? p->n_trms_points : p->n_rms_points;
    uint64_t calls = 0;
    for (size_t i = 0; i < n_pts; i++) {
        struct profile_point want = {.n = pts[i].n, .min = UINT64_MAX, .self_min = UINT64_MAX};
        if (i > 0 && pts[i - 1].n >= pts[i].n)
            return 0; /* sorted, distinct */
        for (size_t k = 0; k < n_acts; k++) {
            const struct activation *a = &acts[k];
            if (!belongs(a, p) || (trms ? a->trms : a->rms) != want.n)
                continue;
            want.calls++;
            want.real_sum += a->recursive ? 0 : a->cost;
            want.min = a->cost < want.min ? a->cost : want.min;
            want.max = a->cost > want.max ? a->cost : want.max;
            want.sum += a->cost;
            want.sumsq += (unsigned __int128)a->cost * a->cost;
            want.self_min = a->self_cost < want.self_min ? a->self_cost : want.self_min;
            want.self_max = a->self_cost > want.self_max ? a->self_cost : want.self_max;
            want.self_sum += a->self_cost;
            want.self_sumsq += (unsigned __int128)a->self_cost * a->self_cost;
        }
        if (want.calls == 0 || want.calls != pts[i].calls || want.min != pts[i].min ||
            want.max != pts[i].max || want.sum != pts[i].sum || want.sumsq != pts[i].sumsq ||
            want.self_min != pts[i].self_min || want.self_max != pts[i].self_max ||
            want.self_sum != pts[i].self_sum || want.self_sumsq != pts[i].self_sumsq ||
            want.real_sum != pts[i].real_sum)
            return 0;
        calls += want.calls;
    }
    return calls == p->calls;
}

static void check_profiles(uint64_t seed, uint64_t cell, uint64_t line, const struct run *run)
{
    const struct analysis_result *r = run->result;
    uint64_t calls = 0;
    for (size_t i = 0; i < r->n_profiles; i++) {
        const struct routine_profile *p = &r->profiles[i];
        if (i > 0) { /* by routine, context, thread */
            const struct routine_profile *q = &r->profiles[i - 1];
            if (q->routine > p->routine ||
                (q->routine == p->routine &&
                 (q->context > p->context || (q->context == p->context && q->tid >= p->tid))))
                describe(seed, cell, line, "profiles out of order");
        }
        uint64_t thr = 0, ext = 0, self = 0, cost = 0;
        for (size_t k = 0; k < run->n_activations; k++) {
            const struct activation *a = &run->activations[k];
            if (!belongs(a, p))
                continue;
            thr += a->induced_thread;
            ext += a->induced_external;
            self += a->self_cost;
            cost += a->recursive ? 0 : a->cost;
        }
        if (p->induced_thread != thr || p->induced_external != ext || p->self_cost != self ||
            p->cost != cost || !profile_matches(p, run->activations, run->n_activations, 0) ||
            !profile_matches(p, run->activations, run->n_activations, 1))
            describe(seed, cell, line, "profile differs from its activations");
        calls += p->calls;
        if ((p->context != CONTEXT_NONE) != (r->n_contexts > 0) ||
            (p->context != CONTEXT_NONE &&
             (p->context >= r->n_contexts || r->contexts[p->context].routine != p->routine)))
            describe(seed, cell, line, "profile's context is not its routine's");
    }
    if (calls != run->n_activations)
        describe(seed, cell, line, "profiles do not cover every activation");
}

static void check_contexts(uint64_t seed, uint64_t cell, uint64_t line,
                           const struct analysis_result *r, const struct naive_result *naive,
                           int contexts)
{
    if (!contexts) {
        if (r->n_contexts)
            describe(seed, cell, line, "contexts kept when not asked for");
        return;
    }
    if (r->n_contexts != naive->n_contexts) {
        describe(seed, cell, line, "different number of calling contexts");
        return;
    }
    for (size_t i = 0; i < r->n_contexts; i++)
        if (r->contexts[i].parent != naive->contexts[i].parent ||
            r->contexts[i].routine != naive->contexts[i].routine)
            describe(seed, cell, line, "calling context tree differs");
}

static uint64_t renumberings;

static void compare(uint64_t seed, const struct event_list *events,
                    const struct routine_table *routines, const struct analysis_options *opt)
{
    uint64_t cell = opt->cell_size, line = opt->line_size;
    struct run run;
    fixture_run_with(events->items, events->count, routines, opt, &run);
    renumberings += run.renumberings;
    struct naive_result naive;
    if (naive_analyze(events->items, events->count, cell, line, &naive) != 0) {
        describe(seed, cell, line, "the naive reference rejected the trace");
        run_free(&run);
        return;
    }
    if (run.n_activations != naive.n_activations) {
        describe(seed, cell, line, "different number of activations");
    } else {
        for (size_t i = 0; i < run.n_activations; i++) {
            const struct activation *a = &run.activations[i], *b = &naive.activations[i];
            if (!same_activation(a, b, opt->contexts)) {
                char what[400];
                snprintf(what, sizeof what,
                         "activation %zu differs: fast rms %" PRIu64 " trms %" PRIu64
                         " thr %" PRIu64 " ext %" PRIu64 " cost %" PRIu64 ", naive rms %" PRIu64
                         " trms %" PRIu64 " thr %" PRIu64 " ext %" PRIu64 " cost %" PRIu64,
                         i, a->rms, a->trms, a->induced_thread, a->induced_external, a->cost,
                         b->rms, b->trms, b->induced_thread, b->induced_external, b->cost);
                describe(seed, cell, line, what);
                break;
            }
            if (a->trms < a->rms) /* Inequality 1 of the paper */
                describe(seed, cell, line, "TRMS < RMS");
        }
    }
    if (!same_histogram(&run.result->reuse_global, &naive.global))
        describe(seed, cell, line, "global reuse histogram differs");
    if (run.result->n_threads != naive.n_threads) {
        describe(seed, cell, line, "different number of threads");
    } else {
        for (size_t t = 0; t < naive.n_threads; t++)
            if (run.result->reuse_threads[t].tid != naive.thread_tids[t] ||
                !same_histogram(&run.result->reuse_threads[t].histogram, &naive.threads[t]))
                describe(seed, cell, line, "per-thread reuse histogram differs");
    }
    uint64_t by_type[EVENT_TYPE_COUNT] = {0};
    for (size_t i = 0; i < events->count; i++)
        by_type[events->items[i].type]++;
    for (int t = 0; t < EVENT_TYPE_COUNT; t++)
        if (run.result->events[t] != by_type[t])
            describe(seed, cell, line, "events counted by type differ from the trace's");
    check_profiles(seed, cell, line, &run);
    check_contexts(seed, cell, line, run.result, &naive, opt->contexts);
    naive_result_free(&naive);
    run_free(&run);
}

/* Each trace runs in several configurations, all of which must equal the
 * reference: one shard on the calling thread with the full timestamp range
 * and reuse window; two shards on worker threads with a timestamp range so
 * small that the timestamps are renumbered (Figure 13) every few dozen
 * calls, and reuse windows so small that the reuse stacks renumber every
 * few hundred accesses, keeping calling contexts for every other trace;
 * and, for some, four shards without threads, with contexts. */
static void random_case(uint64_t seed, const struct random_trace_shape *shape, uint64_t cell,
                        uint64_t line)
{
    struct event_list events = {0};
    struct routine_table routines;
    routine_table_init(&routines);
    random_trace(seed, shape, &events, &routines);
    struct analysis_options opt;
    analysis_options_default(&opt);
    opt.cell_size = cell;
    opt.line_size = line;
    opt.shards = 1;
    opt.threads = 0;
    compare(seed, &events, &routines, &opt);
    /* Renumbering needs room for 3 slots per pending activation. */
    uint64_t most_pending = (uint64_t)shape->threads * (shape->max_depth + 1);
    opt.time_limit = 3 * most_pending + 8 + seed % 16;
    opt.reuse_window = 64 * (1 + seed % 4);
    opt.shards = 2;
    opt.threads = 1;
    opt.contexts = (seed / 7919) % 2;
    /* Batches of a few events: calls, returns and thread switches fall on
     * batch edges, and the ring wraps, on the workers. */
    opt.batch_events = 1 + (uint32_t)(seed % 509);
    compare(seed, &events, &routines, &opt);
    if (seed % 4 == 0) {
        opt.contexts = 1;
        opt.shards = 4;
        opt.threads = 0;
        opt.time_limit = 0;
        opt.reuse_window = 0;
        opt.batch_events = 0;
        compare(seed, &events, &routines, &opt);
    }
    event_list_free(&events);
    routine_table_free(&routines);
}

/* One thread for thousands of events, then three: the per-thread reuse
 * stack of the first thread is the global one until the second appears,
 * and forks from it there (in the middle of a batch, on workers or not). */
static void late_threads(void)
{
    for (uint64_t seed = 1; seed <= 8; seed++) {
        struct random_trace_shape alone = {.threads = 1, .events = 3000 + 20000 * (seed % 2),
                                           .routines = 4, .regions = 3, .region_span = 900,
                                           .max_depth = 6};
        struct random_trace_shape three = alone;
        three.threads = 3;
        three.events = 2500;
        struct event_list events = {0};
        struct routine_table routines;
        routine_table_init(&routines);
        random_trace(seed * 31337, &alone, &events, &routines);
        random_trace(seed * 31337 + 1, &three, &events, &routines);
        struct analysis_options opt;
        analysis_options_default(&opt);
        opt.cell_size = seed % 3 ? 4 : 1;
        opt.line_size = seed % 2 ? 16 : 64;
        opt.shards = 1;
        opt.threads = 0;
        compare(seed, &events, &routines, &opt);
        opt.threads = 1;
        opt.reuse_window = seed % 4 ? 0 : 64;
        compare(seed, &events, &routines, &opt);
        event_list_free(&events);
        routine_table_free(&routines);
    }
}

/* One thread alone, then a second whose first event is the last of a
 * batch, the first of the next or the one after (batches of BATCH events
 * here, opt.batch_events; every event is one batch event): the per-thread
 * reuse job passes over the batches that hold no thread event while the one
 * thread's stack is the global one (engine_mark_thread), and must not
 * miss the one that holds the switch, wherever in the batch it is. */
static void second_thread_at_batch_edges(void)
{
    enum { BATCH = 16384 };
    const size_t edges[] = {BATCH - 2,     BATCH - 1, BATCH, BATCH + 1,
                            2 * BATCH - 1, 2 * BATCH, 3 * BATCH + 1};
    for (size_t k = 0; k < sizeof edges / sizeof *edges; k++) {
        struct event_list events = {0};
        struct routine_table routines;
        routine_table_init(&routines);
        uint64_t rng = 1000 + k;
        struct event ev = {.type = EVENT_THREAD, .tid = 1};
        event_list_push(&events, &ev);
        while (events.count < edges[k]) {
            ev = (struct event){.type = random_below(&rng, 4) ? EVENT_READ : EVENT_WRITE,
                                .addr = 0x1000 + 8 * random_below(&rng, 256), .size = 8};
            event_list_push(&events, &ev);
        }
        /* The second thread's switch, alone in its batch: a whole batch
         * of its accesses follows, then switches back and forth. */
        for (unsigned round = 0; round < 6; round++) {
            ev = (struct event){.type = EVENT_THREAD, .tid = 1 + (round + 1) % 2};
            event_list_push(&events, &ev);
            for (unsigned i = 0; i < (round ? 1 + round * 7 : BATCH + 16); i++) {
                ev = (struct event){.type = EVENT_READ,
                                    .addr = 0x1000 + 8 * random_below(&rng, 256), .size = 8};
                event_list_push(&events, &ev);
            }
        }
        struct analysis_options opt;
        analysis_options_default(&opt);
        opt.cell_size = 8;
        opt.line_size = 64;
        opt.batch_events = BATCH;
        opt.threads = 0;
        compare(k, &events, &routines, &opt);
        opt.threads = 1;
        compare(k, &events, &routines, &opt);
        event_list_free(&events);
        routine_table_free(&routines);
    }
}

/* More events than the engine's ring of batches holds (its 8 batches of
 * 4096 events here: 32768), so that its slots are reused many times over:
 * the activations still arrive in completion order, as a walk of the calls
 * and returns gives it (thread, routine, depth, cost), with and without
 * worker threads. */
static void ring_wraps(void)
{
    struct random_trace_shape shape = {.threads = 3, .events = 400000, .routines = 5,
                                       .regions = 2, .region_span = 4096, .max_depth = 6};
    struct event_list events = {0};
    struct routine_table routines;
    routine_table_init(&routines);
    random_trace(4242, &shape, &events, &routines);
    struct activation *want = xcalloc(events.count + 3, sizeof *want);
    size_t n_want = 0;
    struct {
        uint32_t routine[16];
        uint64_t entry[16];
        size_t depth; /* frames, the root's included */
        uint64_t cost;
    } threads[3] = {0};
    uint32_t order[3], n_seen = 0, t = 0;
    for (size_t i = 0; i < events.count; i++) {
        const struct event *ev = &events.items[i];
        if (ev->type == EVENT_THREAD) {
            t = ev->tid - 100;
            if (threads[t].depth == 0) {
                order[n_seen++] = t;
                threads[t].routine[0] = ROUTINE_ROOT;
                threads[t].depth = 1;
            }
        } else if (ev->type == EVENT_COST) {
            threads[t].cost += ev->size;
        } else if (ev->type == EVENT_CALL) {
            threads[t].routine[threads[t].depth] = ev->routine;
            threads[t].entry[threads[t].depth++] = threads[t].cost;
        } else if (ev->type == EVENT_RETURN) {
            size_t d = --threads[t].depth;
            want[n_want++] = (struct activation){.tid = 100 + t, .routine = threads[t].routine[d],
                                                 .depth = (uint32_t)d,
                                                 .cost = threads[t].cost - threads[t].entry[d]};
        }
    }
    for (uint32_t k = 0; k < n_seen; k++)
        for (size_t d = threads[order[k]].depth; d-- > 0;)
            want[n_want++] = (struct activation){
                .tid = 100 + order[k], .routine = threads[order[k]].routine[d],
                .depth = (uint32_t)d, .cost = threads[order[k]].cost - threads[order[k]].entry[d]};
    for (int workers = 0; workers < 2; workers++) {
        struct analysis_options opt;
        analysis_options_default(&opt);
        opt.shards = workers ? 2 : 1;
        opt.threads = workers;
        opt.batch_events = 4096;
        struct run run;
        fixture_run_with(events.items, events.count, &routines, &opt, &run);
        size_t i = 0;
        while (i < run.n_activations && i < n_want && run.activations[i].tid == want[i].tid &&
               run.activations[i].routine == want[i].routine &&
               run.activations[i].depth == want[i].depth && run.activations[i].cost == want[i].cost)
            i++;
        if (i != n_want || run.n_activations != n_want) {
            fprintf(stderr, "%zu events, %s: activation %zu of %zu (%zu expected) out of order\n",
                    events.count, workers ? "workers" : "no workers", i, run.n_activations, n_want);
            check_failures++;
        }
        run_free(&run);
    }
    free(want);
    event_list_free(&events);
    routine_table_free(&routines);
}

/* The driver refuses an access of no byte, of more than
 * EVENT_MAX_ACCESS_SIZE bytes or past the end of the address space, on its
 * fast path (after the first thread event) as on its slow one; the refused
 * events are not counted. */
static void invalid_accesses(void)
{
    static const enum event_type types[] = {EVENT_READ, EVENT_WRITE, EVENT_KREAD, EVENT_KWRITE};
    for (size_t k = 0; k < sizeof types / sizeof *types; k++) {
        struct analysis_options opt;
        analysis_options_default(&opt);
        struct trms_error err;
        struct analysis *a = analysis_new(&opt, &err);
        struct event ev = {.type = EVENT_THREAD, .tid = 1};
        CHECK(analysis_event(a, &ev, &err) == 0);
        ev = (struct event){.type = types[k], .addr = 0x1000, .size = 0};
        CHECK(analysis_event(a, &ev, &err) != 0);
        ev.size = EVENT_MAX_ACCESS_SIZE + 1;
        CHECK(analysis_event(a, &ev, &err) != 0);
        ev.addr = UINT64_MAX;
        ev.size = 2;
        CHECK(analysis_event(a, &ev, &err) != 0);
        ev.size = 1;
        CHECK(analysis_event(a, &ev, &err) == 0);
        struct analysis_result *r = analysis_finish(a, NULL);
        CHECK_EQ(r->events[types[k]], 1);
        analysis_result_free(r);
        analysis_free(a);
    }
}

/* Accesses of megabytes (a read(2) or recv into a large buffer, a copy of
 * a large object), unaligned, overlapping each other and the random
 * trace's regions, by two threads and the kernel, among calls: the same
 * cells and lines, induced or not, as the naive reference counts them.
 * Large cells and lines keep the naive reference's sets small. */
static void large_accesses(void)
{
    static const enum event_type types[] = {EVENT_KWRITE, EVENT_READ, EVENT_WRITE,
                                            EVENT_KREAD};
    for (uint64_t seed = 1; seed <= 6; seed++) {
        uint64_t rng = seed * 65537;
        struct random_trace_shape shape = {.threads = 2, .events = 300, .routines = 3,
                                           .regions = 2, .region_span = 4096, .max_depth = 4};
        struct event_list events = {0};
        struct routine_table routines;
        routine_table_init(&routines);
        random_trace(seed * 7, &shape, &events, &routines);
        uint32_t routine;
        routine_table_intern_name(&routines, "big", 3, &routine);
        for (int k = 0; k < 10; k++) {
            uint32_t tid = 100 + (uint32_t)random_below(&rng, 2);
            struct event ev = {.type = EVENT_THREAD, .tid = tid};
            event_list_push(&events, &ev);
            ev = (struct event){.type = EVENT_CALL, .tid = tid, .routine = routine};
            event_list_push(&events, &ev);
            ev = (struct event){.type = types[random_below(&rng, 4)], .tid = tid,
                                .addr = 0x10000 + random_below(&rng, 3 << 20),
                                .size = 1 + random_below(&rng, 4 << 20)};
            event_list_push(&events, &ev);
            ev = (struct event){.type = EVENT_READ, .tid = tid,
                                .addr = 0x10000 + random_below(&rng, 8 << 20),
                                .size = 1 + random_below(&rng, 64)};
            event_list_push(&events, &ev);
            ev = (struct event){.type = EVENT_RETURN, .tid = tid};
            event_list_push(&events, &ev);
        }
        struct analysis_options opt;
        analysis_options_default(&opt);
        opt.cell_size = seed % 2 ? 16384 : 4096;
        opt.line_size = seed % 3 ? 262144 : 65536;
        opt.shards = 1;
        opt.threads = 0;
        compare(seed, &events, &routines, &opt);
        opt.shards = seed % 2 ? 2 : 4;
        opt.threads = 1;
        opt.time_limit = 3 * 2 * (shape.max_depth + 2) + 8;
        compare(seed, &events, &routines, &opt);
        event_list_free(&events);
        routine_table_free(&routines);
    }
}

static int same_points(const struct profile_point *a, const struct profile_point *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (a[i].n != b[i].n || a[i].calls != b[i].calls || a[i].min != b[i].min ||
            a[i].max != b[i].max || a[i].sum != b[i].sum || a[i].sumsq != b[i].sumsq ||
            a[i].real_sum != b[i].real_sum || a[i].self_min != b[i].self_min ||
            a[i].self_max != b[i].self_max || a[i].self_sum != b[i].self_sum ||
            a[i].self_sumsq != b[i].self_sumsq)
            return 0;
    return 1;
}

/* Without a sink of the caller's (as `trms record` and a plain `trms
 * analyze` run), the profiles take the activations on the input-size
 * pass's worker (engine_collect_in_job): the same profiles, point for
 * point, and the same count of activations, as when the feeding thread
 * takes them, over traces longer than the engine's ring. */
/* The profiles EVENTS make when the worker collects them against those
 * the feeding thread collects; returns the points they hold. */
static size_t collect_on_worker_equal(const struct event_list *events,
                                      const struct routine_table *routines)
{
    struct analysis_options opt;
    analysis_options_default(&opt);
    opt.shards = 1;
    opt.threads = 1;
    struct run fed;
    fixture_run_with(events->items, events->count, routines, &opt, &fed);
    struct trms_error err;
    struct analysis *a = analysis_new(&opt, &err);
    CHECK(a != NULL);
    if (!a)
        return 0;
    for (size_t i = 0; i < events->count; i++)
        CHECK(analysis_event(a, &events->items[i], &err) == 0);
    struct analysis_result *r = analysis_finish(a, routines);
    analysis_free(a);
    const struct analysis_result *f = fed.result;
    CHECK_EQ(r->activations, f->activations);
    CHECK_EQ(r->activations, fed.n_activations);
    CHECK_EQ(r->n_profiles, f->n_profiles);
    size_t points = 0;
    for (size_t i = 0; i < r->n_profiles && r->n_profiles == f->n_profiles; i++) {
        const struct routine_profile *x = &r->profiles[i], *y = &f->profiles[i];
        CHECK(x->routine == y->routine && x->tid == y->tid && x->calls == y->calls &&
              x->cost == y->cost && x->self_cost == y->self_cost &&
              x->induced_thread == y->induced_thread &&
              x->induced_external == y->induced_external);
        CHECK(x->n_rms_points == y->n_rms_points && x->n_trms_points == y->n_trms_points &&
              same_points(x->rms_points, y->rms_points, x->n_rms_points) &&
              same_points(x->trms_points, y->trms_points, x->n_trms_points));
        points += x->n_rms_points + x->n_trms_points;
    }
    analysis_result_free(r);
    run_free(&fed);
    return points;
}

static void collect_on_worker(void)
{
    for (uint64_t seed = 1; seed <= 4; seed++) {
        struct random_trace_shape shape = {.threads = 1 + (unsigned)(seed % 4),
                                           .events = 150000 + 50000 * (unsigned)seed,
                                           .routines = 6, .regions = 3, .region_span = 4000,
                                           .max_depth = 7};
        struct event_list events = {0};
        struct routine_table routines;
        routine_table_init(&routines);
        random_trace(seed * 104729, &shape, &events, &routines);
        collect_on_worker_equal(&events, &routines);
        event_list_free(&events);
        routine_table_free(&routines);
    }
}

/* Past 65,536 points the worker asks for the next activations' points
 * ahead as it adds them (analysis.c's collect_all): the same profiles
 * still. 400 routines, each activated once at every input size 0..120
 * (its reads of fresh cells), make 96,800 points; the last third of the
 * trace runs past the threshold. */
static void collect_on_worker_scattered(void)
{
    struct event_list events = {0};
    struct routine_table routines;
    routine_table_init(&routines);
    struct event ev = {.type = EVENT_THREAD, .tid = 1};
    event_list_push(&events, &ev);
    uint64_t addr = 0x100000;
    for (unsigned r = 0; r < 400; r++) {
        char name[16];
        int len = snprintf(name, sizeof name, "r%u", r);
        uint32_t id;
        routine_table_intern_name(&routines, name, (size_t)len, &id);
        for (uint64_t size = 0; size <= 120; size++) {
            event_list_push(&events, &(struct event){.type = EVENT_CALL, .routine = id});
            for (uint64_t k = 0; k < size; k++, addr += 4)
                event_list_push(&events, &(struct event){.type = EVENT_READ, .addr = addr,
                                                         .size = 4});
            event_list_push(&events, &(struct event){.type = EVENT_COST, .size = 1 + size});
            event_list_push(&events, &(struct event){.type = EVENT_RETURN});
        }
    }
    CHECK(collect_on_worker_equal(&events, &routines) >= 65536);
    event_list_free(&events);
    routine_table_free(&routines);
}

static void keep(void *ctx, const struct activation *act)
{
    struct run *run = ctx;
    size_t n = run->n_activations;
    if ((n & (n - 1)) == 0)
        run->activations = xrealloc(run->activations, (n ? 2 * n : 1) * sizeof *run->activations);
    run->activations[run->n_activations++] = *act;
}

/* EVENTS through analysis_events in runs of RUN_MAX at most (its fast
 * paths: loads and stores, calls, returns and costs straight into the
 * batch), into OUT; *FAILED_AT the index of the event refused, or N. */
static void run_in_runs(const struct event *events, size_t n, const struct routine_table *routines,
                        const struct analysis_options *opt, uint64_t seed, size_t run_max,
                        struct run *out, size_t *failed_at)
{
    memset(out, 0, sizeof *out);
    struct trms_error err;
    struct analysis *a = analysis_new(opt, &err);
    CHECK(a != NULL);
    if (!a)
        return;
    analysis_on_activation(a, keep, out);
    *failed_at = n;
    for (size_t i = 0; i < n;) {
        size_t len = 1 + (size_t)random_below(&seed, run_max);
        if (len > n - i)
            len = n - i;
        size_t done;
        if (analysis_events(a, &events[i], len, &done, &err) != 0) {
            *failed_at = i + done;
            break;
        }
        i += len;
    }
    out->result = analysis_finish(a, routines);
    analysis_free(a);
}

/* The same events one at a time (analysis_event: every call, return and
 * cost through the general path); *FAILED_AT as above. */
static void run_one_by_one(const struct event *events, size_t n,
                           const struct routine_table *routines,
                           const struct analysis_options *opt, struct run *out, size_t *failed_at)
{
    memset(out, 0, sizeof *out);
    struct trms_error err;
    struct analysis *a = analysis_new(opt, &err);
    CHECK(a != NULL);
    if (!a)
        return;
    analysis_on_activation(a, keep, out);
    *failed_at = n;
    for (size_t i = 0; i < n; i++)
        if (analysis_event(a, &events[i], &err) != 0) {
            *failed_at = i;
            break;
        }
    out->result = analysis_finish(a, routines);
    analysis_free(a);
}

static int same_results(const struct run *x, const struct run *y)
{
    if (x->n_activations != y->n_activations || x->result->activations != y->result->activations)
        return 0;
    for (size_t i = 0; i < x->n_activations; i++)
        if (!same_activation(&x->activations[i], &y->activations[i], 1))
            return 0;
    for (int t = 0; t < EVENT_TYPE_COUNT; t++)
        if (x->result->events[t] != y->result->events[t])
            return 0;
    const struct reuse_histogram *g = &x->result->reuse_global, *h = &y->result->reuse_global;
    if (g->accesses != h->accesses || g->cold != h->cold || g->n_bins != h->n_bins)
        return 0;
    for (size_t i = 0; i < g->n_bins; i++)
        if (g->bins[i].distance != h->bins[i].distance || g->bins[i].count != h->bins[i].count)
            return 0;
    if (x->result->n_profiles != y->result->n_profiles)
        return 0;
    for (size_t i = 0; i < x->result->n_profiles; i++) {
        const struct routine_profile *p = &x->result->profiles[i], *q = &y->result->profiles[i];
        if (p->routine != q->routine || p->tid != q->tid || p->calls != q->calls ||
            p->cost != q->cost || p->self_cost != q->self_cost ||
            p->n_rms_points != q->n_rms_points || p->n_trms_points != q->n_trms_points ||
            !same_points(p->rms_points, q->rms_points, p->n_rms_points) ||
            !same_points(p->trms_points, q->trms_points, p->n_trms_points))
            return 0;
    }
    return 1;
}

/* analysis_events (what `trms record` and `trms analyze` feed) against
 * analysis_event one at a time: the same activations, counts, histograms
 * and profiles, with one shard (the fast paths) and with two (none), over
 * runs of every length; and a trace made invalid by a return with no
 * pending call, or by an instruction count past 2^64, refused at the same
 * event either way. */
static void runs_as_one_by_one(void)
{
    for (uint64_t seed = 1; seed <= 24; seed++) {
        struct random_trace_shape shape = {.threads = 1 + (unsigned)(seed % 3),
                                           .events = 3000 + 400 * (unsigned)seed,
                                           .routines = 5, .regions = 3, .region_span = 700,
                                           .max_depth = 6};
        struct event_list events = {0};
        struct routine_table routines;
        routine_table_init(&routines);
        random_trace(seed * 7717, &shape, &events, &routines);
        size_t bad = events.count;
        if (seed % 4 == 1 || seed % 4 == 2) {
            /* past the first thread event: a return with no pending call
             * (after a thread switch to a new thread), or a huge cost twice */
            bad = events.count / 2;
            if (seed % 4 == 1) {
                events.items[bad] = (struct event){.type = EVENT_THREAD, .tid = 999999};
                events.items[bad + 1] = (struct event){.type = EVENT_RETURN};
            } else {
                events.items[bad] = (struct event){.type = EVENT_COST, .size = UINT64_MAX / 2 + 1};
                events.items[bad + 1] = events.items[bad];
            }
        }
        struct analysis_options opt;
        analysis_options_default(&opt);
        opt.cell_size = seed % 2 ? 4 : 1;
        opt.shards = seed % 5 == 0 ? 2 : 1;
        opt.threads = seed % 3 == 0;
        struct run one, runs;
        size_t one_failed, runs_failed;
        run_one_by_one(events.items, events.count, &routines, &opt, &one, &one_failed);
        run_in_runs(events.items, events.count, &routines, &opt, seed, 1 + seed * seed, &runs,
                    &runs_failed);
        CHECK_EQ(runs_failed, one_failed);
        if (seed % 4 == 1 || seed % 4 == 2)
            CHECK(one_failed < events.count); /* the invalid event was refused */
        if (one.result && runs.result && !same_results(&one, &runs))
            describe(seed, opt.cell_size, opt.line_size,
                     "analysis_events differs from analysis_event one at a time");
        run_free(&one);
        run_free(&runs);
        event_list_free(&events);
        routine_table_free(&routines);
    }
}

int main(int argc, char **argv)
{
    /* How many short traces: the argument, else TRMS_DIFFERENTIAL_TRACES,
     * else 4000. */
    invalid_accesses();
    ring_wraps();
    late_threads();
    second_thread_at_batch_edges();
    collect_on_worker();
    collect_on_worker_scattered();
    runs_as_one_by_one();
    large_accesses();
    const char *env = getenv("TRMS_DIFFERENTIAL_TRACES");
    unsigned traces = argc > 1 ? (unsigned)atoi(argv[1]) : env ? (unsigned)atoi(env) : 4000;
    for (uint64_t seed = 1; seed <= traces; seed++) {
        uint64_t rng = seed;
        struct random_trace_shape shape = {
            /* (past four threads, the evicted times of the fifth on are in
             * maps of their own, not beside the cells' records) */
            .threads = 1 + (unsigned)random_below(&rng, 7),
            .events = 20 + (unsigned)random_below(&rng, 400),
            .routines = 1 + (unsigned)random_below(&rng, 6),
            .regions = 1 + (unsigned)random_below(&rng, 4),
            .region_span = 16 + random_below(&rng, 256),
            .max_depth = (unsigned)random_below(&rng, 8),
        };
        uint64_t cell = cell_sizes[random_below(&rng, sizeof cell_sizes / sizeof *cell_sizes)];
        uint64_t line = line_sizes[random_below(&rng, sizeof line_sizes / sizeof *line_sizes)];
        random_case(seed * 7919, &shape, cell, line);
    }
    /* Long traces over thousands of lines: the reuse stacks renumber many
     * times, grow their window, and see distances past the short-scan
     * limit. Large cells keep the naive TRMS sets small. */
    for (uint64_t seed = 1; seed <= 6; seed++) {
        struct random_trace_shape shape = {
            .threads = 1 + (unsigned)(seed % 3) + (seed > 4 ? 3 : 0),
            .events = 15000,
            .routines = 5,
            .regions = 3,
            .region_span = 1024 + 1024 * (seed % 3),
            .max_depth = 12,
        };
        random_case(seed * 104729, &shape, seed < 4 ? 4096 : 64, seed % 2 ? 1 : 4);
    }
    printf("compared %u short and 6 long random traces; %" PRIu64 " renumberings\n", traces,
           renumberings);
    CHECK(renumberings > traces); /* the small ranges did force renumbering */
    return check_report("test_differential");
}
