/* causal_model: segments, edges and the what-if simulation (see the
 * header). */
#include "analyses/causal_model.h"

#include <stdlib.h>
#include <string.h>

#include "common/oom.h"
#include "common/u64map.h"

#define NONE UINT32_MAX

struct segment {
    uint32_t prev;      /* the thread's previous segment, or NONE */
    uint32_t dep;       /* the release it acquired, or NONE */
    uint64_t cost;      /* instructions */
    double delay;       /* before it starts: blocking, in instructions */
};

struct frame {
    uint32_t routine;
    int outermost;      /* no frame of the routine below it: it counts */
    uint64_t pending;   /* inclusive instructions not yet given to a segment */
};

struct thread {
    uint32_t tid;
    struct frame *stack;
    size_t depth, capacity;
    struct u64map active;   /* routine -> its frames on the stack */
    struct u64map acc;      /* routine -> inclusive instructions, open segment */
    /* The open segment. */
    uint64_t cost;
    uint32_t dep;
    double delay;
    uint32_t last;          /* the thread's last closed segment, or NONE */
};

struct routine_entry {
    uint32_t segment;
    uint64_t cost;
};

struct causal_model {
    struct causal_model_options o;
    struct thread *threads;
    size_t n_threads, threads_capacity;
    struct u64map thread_index;     /* tid -> index */
    struct thread *current;
    struct segment *segments;
    size_t n_segments, segments_capacity;
    /* (routine, segment, cost), as segments close; by routine once built. */
    struct {
        uint32_t routine;
        struct routine_entry e;
    } *costs;
    size_t n_costs, costs_capacity;
    struct u64map releases;         /* address -> last segment releasing it | thread << 32 */
    struct u64map start_after;      /* child tid -> creating segment + 1 */
    struct u64map clear_tid;        /* tid -> the address its exit clears */
    struct u64map joinable;         /* addresses an exit cleared, not yet joined */
    uint32_t n_routines;
    size_t *routine_start;          /* n_routines + 1 offsets into by_routine */
    struct routine_entry *by_routine;
    uint64_t *routine_total;
    double *finish, *shrink;        /* per segment, for the simulation */
    double *cores;                  /* a min-heap of when each core is free */
    /* With fewer cores than threads: who waits for each segment. */
    uint32_t *next_in_thread;
    size_t *waiter_start;           /* n_segments + 1 offsets into waiters */
    uint32_t *waiters;              /* segments whose dep it is */
    double *ready;
    uint32_t *pending;              /* predecessors not yet finished */
    uint32_t *queue;                /* a min-heap of segments by ready time */
    struct causal_model_stats stats;
    uint8_t *progress_known;        /* by routine: 0 unknown, else is_progress + 1 */
    size_t progress_known_capacity;
    uint32_t *completions;          /* the segments a progress point's completion ends */
    uint8_t *completion_kind;       /* CAUSAL_PROGRESS or CAUSAL_END, of each */
    size_t n_completions, completions_capacity;
};

struct causal_model *causal_model_new(const struct causal_model_options *options)
{
    struct causal_model *m = xcalloc(1, sizeof *m);
    m->o = *options;
    u64map_init(&m->thread_index);
    u64map_init(&m->releases);
    u64map_init(&m->start_after);
    u64map_init(&m->clear_tid);
    u64map_init(&m->joinable);
    return m;
}

void causal_model_free(struct causal_model *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->n_threads; i++) {
        free(m->threads[i].stack);
        u64map_free(&m->threads[i].active);
        u64map_free(&m->threads[i].acc);
    }
    free(m->threads);
    u64map_free(&m->thread_index);
    u64map_free(&m->releases);
    u64map_free(&m->start_after);
    u64map_free(&m->clear_tid);
    u64map_free(&m->joinable);
    free(m->segments);
    free(m->costs);
    free(m->routine_start);
    free(m->by_routine);
    free(m->routine_total);
    free(m->finish);
    free(m->shrink);
    free(m->cores);
    free(m->next_in_thread);
    free(m->waiter_start);
    free(m->waiters);
    free(m->ready);
    free(m->pending);
    free(m->queue);
    free(m->progress_known);
    free(m->completions);
    free(m->completion_kind);
    free(m);
}

static struct thread *thread_of(struct causal_model *m, uint32_t tid)
{
    int inserted;
    uint64_t *index = u64map_upsert(&m->thread_index, tid, &inserted);
    if (inserted) {
        if (m->n_threads == m->threads_capacity) {
            size_t current = m->current ? (size_t)(m->current - m->threads) : 0;
            m->threads_capacity = m->threads_capacity ? 2 * m->threads_capacity : 16;
            m->threads = xrealloc(m->threads, m->threads_capacity * sizeof *m->threads);
            if (m->current)
                m->current = &m->threads[current];
        }
        *index = m->n_threads;
        struct thread *t = &m->threads[m->n_threads++];
        *t = (struct thread){.tid = tid, .dep = NONE, .last = NONE};
        u64map_init(&t->active);
        u64map_init(&t->acc);
    }
    return &m->threads[*index];
}

static uint32_t index_of(const struct causal_model *m, const struct thread *t)
{
    return (uint32_t)(t - m->threads);
}

static int add_routine_cost(void *ctx, uint64_t routine, uint64_t cost)
{
    struct causal_model *m = ctx;
    if (cost == 0)
        return 0;
    if (m->n_costs == m->costs_capacity) {
        m->costs_capacity = m->costs_capacity ? 2 * m->costs_capacity : 1024;
        m->costs = xrealloc(m->costs, m->costs_capacity * sizeof *m->costs);
    }
    m->costs[m->n_costs].routine = (uint32_t)routine;
    m->costs[m->n_costs].e = (struct routine_entry){(uint32_t)m->n_segments, cost};
    m->n_costs++;
    return 0;
}

/* Ends T's open segment; returns the segment that ends where it stood
 * (the last one, when the open one holds nothing). */
static uint32_t close_segment(struct causal_model *m, struct thread *t)
{
    if (t->cost == 0 && t->dep == NONE && t->delay == 0)
        return t->last;
    /* The inclusive instructions of the routines on the stack, whose
     * frames have not returned yet. */
    uint64_t running = 0;
    for (size_t i = t->depth; i-- > 0;) {
        running += t->stack[i].pending;
        t->stack[i].pending = 0;
        if (t->stack[i].outermost && running)
            *u64map_upsert(&t->acc, t->stack[i].routine, NULL) += running;
    }
    if (m->n_segments == m->segments_capacity) {
        m->segments_capacity = m->segments_capacity ? 2 * m->segments_capacity : 1024;
        m->segments = xrealloc(m->segments, m->segments_capacity * sizeof *m->segments);
    }
    u64map_each(&t->acc, add_routine_cost, m);
    u64map_free(&t->acc);
    u64map_init(&t->acc);
    m->segments[m->n_segments] =
        (struct segment){.prev = t->last, .dep = t->dep, .cost = t->cost, .delay = t->delay};
    t->last = (uint32_t)m->n_segments++;
    t->cost = 0;
    t->dep = NONE;
    t->delay = 0;
    return t->last;
}

/* T goes on after SOURCE (a segment | its thread << 32) ends. */
static void acquire(struct causal_model *m, struct thread *t, const uint64_t *source)
{
    if (!source || (uint32_t)(*source >> 32) == index_of(m, t))
        return;
    close_segment(m, t);
    t->dep = (uint32_t)*source;
    m->stats.edges++;
}

static void release(struct causal_model *m, struct thread *t, uint64_t addr)
{
    uint32_t segment = close_segment(m, t);
    if (segment != NONE)
        *u64map_upsert(&m->releases, addr, NULL) =
            segment | (uint64_t)index_of(m, t) << 32;
}

static void call(struct thread *t, uint32_t routine)
{
    if (t->depth == t->capacity) {
        t->capacity = t->capacity ? 2 * t->capacity : 64;
        t->stack = xrealloc(t->stack, t->capacity * sizeof *t->stack);
    }
    uint64_t *active = u64map_upsert(&t->active, routine, NULL);
    t->stack[t->depth++] = (struct frame){.routine = routine, .outermost = *active == 0};
    ++*active;
}

static void ret(struct thread *t)
{
    if (t->depth == 0)
        return;
    struct frame *f = &t->stack[--t->depth];
    --*u64map_upsert(&t->active, f->routine, NULL);
    if (f->outermost && f->pending)
        *u64map_upsert(&t->acc, f->routine, NULL) += f->pending;
    if (t->depth)
        t->stack[t->depth - 1].pending += f->pending;
}

static int is_progress(struct causal_model *m, uint32_t routine)
{
    if (!m->o.is_progress)
        return 0;
    if (routine >= m->progress_known_capacity) {
        size_t capacity = m->progress_known_capacity ? m->progress_known_capacity : 256;
        while (capacity <= routine)
            capacity *= 2;
        m->progress_known = xrealloc(m->progress_known, capacity);
        memset(m->progress_known + m->progress_known_capacity, 0,
               capacity - m->progress_known_capacity);
        m->progress_known_capacity = capacity;
    }
    if (!m->progress_known[routine])
        m->progress_known[routine] = (uint8_t)(m->o.is_progress(m->o.progress_ctx, routine) + 1);
    return m->progress_known[routine] - 1;
}

/* A progress point completed: its time is the end of the segment so far. */
static void completed(struct causal_model *m, struct thread *t, int kind)
{
    uint32_t segment = close_segment(m, t);
    if (segment == NONE)
        return;
    if (m->n_completions == m->completions_capacity) {
        m->completions_capacity = m->completions_capacity ? 2 * m->completions_capacity : 256;
        m->completions = xrealloc(m->completions, m->completions_capacity * sizeof *m->completions);
        m->completion_kind = xrealloc(m->completion_kind, m->completions_capacity);
    }
    m->completion_kind[m->n_completions] = (uint8_t)kind;
    m->completions[m->n_completions++] = segment;
}

/* A read of the address an exited thread's exit cleared, by another
 * thread: pthread_join seeing the thread gone without waiting. */
static void joined_by_read(struct causal_model *m, struct thread *t, uint64_t addr)
{
    uint64_t *waiting = u64map_find(&m->joinable, addr);
    if (!waiting || !*waiting)
        return;
    const uint64_t *source = u64map_find(&m->releases, addr);
    if (source && (uint32_t)(*source >> 32) != index_of(m, t)) {
        acquire(m, t, source);
        *waiting = 0;
    }
}

/* T executed N more instructions. */
static inline void executed(struct causal_model *m, struct thread *t, uint64_t n)
{
    t->cost += n;
    m->stats.instructions += n;
    if (t->depth)
        t->stack[t->depth - 1].pending += n;
}

int causal_model_event(void *ctx, const struct event *ev, struct trms_error *err)
{
    struct causal_model *m = ctx;
    if (ev->type == EVENT_THREAD) {
        m->current = thread_of(m, ev->tid);
        return 0;
    }
    struct thread *t = m->current;
    if (!t)
        return error_set(err, "%s event before any thread", event_type_name(ev->type));
    switch (ev->type) {
    case EVENT_CALL:
        call(t, ev->routine);
        if (ev->routine >= m->n_routines)
            m->n_routines = ev->routine + 1;
        break;
    case EVENT_RETURN: {
        int progress = t->depth && t->stack[t->depth - 1].outermost
                           ? is_progress(m, t->stack[t->depth - 1].routine)
                           : 0;
        ret(t);
        if (progress)
            completed(m, t, progress);
        break;
    }
    case EVENT_COST:
        executed(m, t, ev->size);
        break;
    case EVENT_READ:
        if (m->joinable.count)
            joined_by_read(m, t, ev->addr);
        break;
    default:
        break;
    }
    return 0;
}

int causal_model_events(void *ctx, const struct event *events, size_t n,
                        struct trms_error *err)
{
    struct causal_model *m = ctx;
    for (size_t i = 0; i < n; i++) {
        const struct event *ev = &events[i];
        /* Most events are memory accesses, and only a read of an address
         * an exit cleared matters: pass over the rest here, not through
         * the dispatch of causal_model_event. */
        if (ev->type == EVENT_COST && m->current) {
            executed(m, m->current, ev->size);
            continue;
        }
        if (event_is_access(ev->type) && m->current &&
            (ev->type != EVENT_READ || !m->joinable.count))
            continue;
        if (causal_model_event(ctx, ev, err) != 0)
            return -1;
    }
    return 0;
}

int causal_model_sync(void *ctx, const struct sync_event *ev, struct trms_error *err)
{
    (void)err;
    struct causal_model *m = ctx;
    struct thread *t = thread_of(m, ev->tid);
    m->current = t;
    m->stats.sync_records++;
    switch (ev->kind) {
    case SYNC_CREATE: {
        uint32_t segment = close_segment(m, t);
        if (segment != NONE)
            *u64map_upsert(&m->start_after, ev->value, NULL) =
                (segment | (uint64_t)index_of(m, t) << 32) + 1;
        if (ev->addr) {
            /* A new thread's clear-tid address: an older thread's exit
             * there is joined already. */
            *u64map_upsert(&m->clear_tid, ev->value, NULL) = ev->addr;
            uint64_t *waiting = u64map_find(&m->joinable, ev->addr);
            if (waiting)
                *waiting = 0;
        }
        break;
    }
    case SYNC_START: {
        uint64_t *after = u64map_find(&m->start_after, t->tid);
        if (after && *after) {
            uint64_t source = *after - 1;
            acquire(m, t, &source);
            *after = 0;
        }
        break;
    }
    case SYNC_EXIT: {
        uint64_t *addr = u64map_find(&m->clear_tid, t->tid);
        if (addr && *addr) {
            release(m, t, *addr);
            *u64map_upsert(&m->joinable, *addr, NULL) = 1;
        } else {
            close_segment(m, t);
        }
        break;
    }
    case SYNC_FUTEX_RESUME: {
        uint64_t *waiting = u64map_find(&m->joinable, ev->addr);
        const uint64_t *source = u64map_find(&m->releases, ev->addr);
        if (waiting && source && (uint32_t)(*source >> 32) != index_of(m, t))
            *waiting = 0;
        acquire(m, t, source);
        break;
    }
    case SYNC_FUTEX_WAKE:
        release(m, t, ev->addr);
        break;
    case SYNC_ATOMIC:
        /* A lock acquires the last unlock; an unlock is a release. */
        if (ev->value == SYNC_ATOMIC_FOUND_ZERO)
            acquire(m, t, u64map_find(&m->releases, ev->addr));
        else if (ev->value == SYNC_ATOMIC_LEFT_ZERO)
            release(m, t, ev->addr);
        break;
    case SYNC_BLOCKING:
        close_segment(m, t);
        t->delay += (double)ev->value * m->o.instructions_per_ns;
        m->stats.blocking += (double)ev->value * m->o.instructions_per_ns;
        break;
    default: /* SYNC_FUTEX_WAIT: its resume is what orders */
        break;
    }
    return 0;
}

void causal_model_finish(struct causal_model *m)
{
    for (size_t i = 0; i < m->n_threads; i++) {
        struct thread *t = &m->threads[i];
        /* Pending activations count to the thread's last segment. */
        while (t->depth)
            ret(t);
        close_segment(m, t);
    }
    /* The costs by routine, in segment order within each. */
    m->routine_start = xcalloc((size_t)m->n_routines + 1, sizeof *m->routine_start);
    m->routine_total = xcalloc((size_t)m->n_routines + 1, sizeof *m->routine_total);
    for (size_t i = 0; i < m->n_costs; i++) {
        m->routine_start[m->costs[i].routine + 1]++;
        m->routine_total[m->costs[i].routine] += m->costs[i].e.cost;
    }
    for (uint32_t r = 0; r < m->n_routines; r++)
        m->routine_start[r + 1] += m->routine_start[r];
    m->by_routine = xmalloc((m->n_costs + 1) * sizeof *m->by_routine);
    size_t *fill = xcalloc((size_t)m->n_routines + 1, sizeof *fill);
    for (size_t i = 0; i < m->n_costs; i++) {
        uint32_t r = m->costs[i].routine;
        m->by_routine[m->routine_start[r] + fill[r]++] = m->costs[i].e;
    }
    free(fill);
    free(m->costs);
    m->costs = NULL;
    /* The successors of each segment, for the simulation on few cores. */
    size_t n = m->n_segments;
    m->next_in_thread = xmalloc((n + 1) * sizeof *m->next_in_thread);
    m->waiter_start = xcalloc(n + 2, sizeof *m->waiter_start);
    m->waiters = xmalloc((n + 1) * sizeof *m->waiters);
    for (size_t i = 0; i < n; i++)
        m->next_in_thread[i] = NONE;
    for (size_t i = 0; i < n; i++) {
        if (m->segments[i].prev != NONE)
            m->next_in_thread[m->segments[i].prev] = (uint32_t)i;
        if (m->segments[i].dep != NONE)
            m->waiter_start[m->segments[i].dep + 1]++;
    }
    for (size_t i = 0; i < n; i++)
        m->waiter_start[i + 1] += m->waiter_start[i];
    size_t *fill_waiters = xcalloc(n + 1, sizeof *fill_waiters);
    for (size_t i = 0; i < n; i++) {
        uint32_t d = m->segments[i].dep;
        if (d != NONE)
            m->waiters[m->waiter_start[d] + fill_waiters[d]++] = (uint32_t)i;
    }
    free(fill_waiters);
    m->ready = xmalloc((n + 1) * sizeof *m->ready);
    m->pending = xmalloc((n + 1) * sizeof *m->pending);
    m->queue = xmalloc((n + 1) * sizeof *m->queue);
    m->finish = xcalloc(m->n_segments + 1, sizeof *m->finish);
    m->shrink = xcalloc(m->n_segments + 1, sizeof *m->shrink);
    m->stats.segments = m->n_segments;
    m->stats.threads = m->n_threads;
}

void causal_model_stats(const struct causal_model *m, struct causal_model_stats *s)
{
    *s = m->stats;
}

uint32_t causal_model_routines(const struct causal_model *m)
{
    return m->n_routines;
}

uint64_t causal_model_routine_cost(const struct causal_model *m, uint32_t routine)
{
    return routine < m->n_routines && m->routine_total ? m->routine_total[routine] : 0;
}

/* The min-heap of core free times: replaces the earliest with T. */
static void cores_replace_min(double *heap, unsigned n, double t)
{
    unsigned i = 0;
    for (;;) {
        unsigned l = 2 * i + 1, r = l + 1, least = i;
        double v = t;
        if (l < n && heap[l] < v) {
            least = l;
            v = heap[l];
        }
        if (r < n && heap[r] < v)
            least = r;
        if (least == i)
            break;
        heap[i] = heap[least];
        i = least;
    }
    heap[i] = t;
}

/* The queue of ready segments: earliest ready first, then recorded order. */
static int before(const struct causal_model *m, uint32_t a, uint32_t b)
{
    return m->ready[a] < m->ready[b] || (m->ready[a] == m->ready[b] && a < b);
}

static void queue_push(struct causal_model *m, size_t *n, uint32_t s)
{
    size_t i = (*n)++;
    while (i > 0 && before(m, s, m->queue[(i - 1) / 2])) {
        m->queue[i] = m->queue[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    m->queue[i] = s;
}

static uint32_t queue_pop(struct causal_model *m, size_t *n)
{
    uint32_t top = m->queue[0], last = m->queue[--*n];
    size_t i = 0;
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, least = i;
        uint32_t v = last;
        if (l < *n && before(m, m->queue[l], v)) {
            least = l;
            v = m->queue[l];
        }
        if (r < *n && before(m, m->queue[r], v))
            least = r;
        if (least == i)
            break;
        m->queue[i] = m->queue[least];
        i = least;
    }
    if (*n)
        m->queue[i] = last;
    return top;
}

/* A predecessor of S finished at T. */
static void resolve(struct causal_model *m, size_t *queued, uint32_t s, double t)
{
    if (t > m->ready[s])
        m->ready[s] = t;
    if (--m->pending[s] == 0) {
        m->ready[s] += m->segments[s].delay;
        queue_push(m, queued, s);
    }
}

/* On CORES cores, fewer than the threads: segments start as they become
 * ready (earliest first) on the core free first, and run to their end. */
static double simulate_on_cores(struct causal_model *m, unsigned cores)
{
    m->cores = xrealloc(m->cores, cores * sizeof *m->cores);
    memset(m->cores, 0, cores * sizeof *m->cores);
    size_t queued = 0;
    for (size_t i = 0; i < m->n_segments; i++) {
        const struct segment *s = &m->segments[i];
        m->ready[i] = 0;
        m->pending[i] = (s->prev != NONE) + (s->dep != NONE);
        if (m->pending[i] == 0) {
            m->ready[i] = s->delay;
            queue_push(m, &queued, (uint32_t)i);
        }
    }
    double makespan = 0;
    while (queued) {
        uint32_t i = queue_pop(m, &queued);
        double work = (double)m->segments[i].cost - m->shrink[i];
        double start = m->ready[i];
        if (work > 0) {
            if (m->cores[0] > start)
                start = m->cores[0];
            cores_replace_min(m->cores, cores, start + work);
        } else {
            work = 0;
        }
        m->finish[i] = start + work;
        if (m->finish[i] > makespan)
            makespan = m->finish[i];
        if (m->next_in_thread[i] != NONE)
            resolve(m, &queued, m->next_in_thread[i], m->finish[i]);
        for (size_t w = m->waiter_start[i]; w < m->waiter_start[i + 1]; w++)
            resolve(m, &queued, m->waiters[w], m->finish[i]);
    }
    return makespan;
}

double causal_model_time(struct causal_model *m, uint32_t routine, double speedup,
                         unsigned cores)
{
    const struct routine_entry *e = NULL, *end = NULL;
    if (routine < m->n_routines) {
        e = m->by_routine + m->routine_start[routine];
        end = m->by_routine + m->routine_start[routine + 1];
        for (const struct routine_entry *p = e; p < end; p++)
            m->shrink[p->segment] = (double)p->cost * speedup;
    }
    double makespan = 0;
    int limited = cores > 0 && cores < m->n_threads;
    if (limited)
        makespan = simulate_on_cores(m, cores);
    for (size_t i = 0; !limited && i < m->n_segments; i++) {
        const struct segment *s = &m->segments[i];
        double ready = s->prev != NONE ? m->finish[s->prev] : 0;
        if (s->dep != NONE && m->finish[s->dep] > ready)
            ready = m->finish[s->dep];
        ready += s->delay;
        double work = (double)s->cost - m->shrink[i];
        if (work < 0)
            work = 0;
        m->finish[i] = ready + work;
        if (m->finish[i] > makespan)
            makespan = m->finish[i];
    }
    for (const struct routine_entry *p = e; p && p < end; p++)
        m->shrink[p->segment] = 0;
    return makespan;
}

double causal_model_period(const struct causal_model *m, uint64_t *completions)
{
    uint64_t n = 0;
    double first = 0, last = 0;
    for (size_t i = 0; i < m->n_completions; i++) {
        if (m->completion_kind[i] != CAUSAL_PROGRESS)
            continue;
        double t = m->finish[m->completions[i]];
        if (n == 0 || t < first)
            first = t;
        if (n == 0 || t > last)
            last = t;
        n++;
    }
    if (completions)
        *completions = n;
    return n < 2 ? -1 : (last - first) / (double)(n - 1);
}

double causal_model_latency(const struct causal_model *m, uint64_t *pairs)
{
    /* The k-th end goes with the k-th begin: two cursors over the list. */
    size_t b = 0, e = 0;
    uint64_t n = 0;
    double sum = 0;
    for (;;) {
        while (b < m->n_completions && m->completion_kind[b] != CAUSAL_PROGRESS)
            b++;
        while (e < m->n_completions && m->completion_kind[e] != CAUSAL_END)
            e++;
        if (b == m->n_completions || e == m->n_completions)
            break;
        sum += m->finish[m->completions[e]] - m->finish[m->completions[b]];
        n++;
        b++;
        e++;
    }
    if (pairs)
        *pairs = n;
    return n ? sum / (double)n : -1;
}
