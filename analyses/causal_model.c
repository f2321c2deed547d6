/* causal_model: segments, edges and the what-if simulation (see the
 * header). */
#include "analyses/causal_model.h"

#include <stdlib.h>
#include <string.h>

#include "analyses/held_locks.h"
#include "common/oom.h"
#include "common/u64map.h"

#define NONE UINT32_MAX

struct segment {
    uint32_t prev;      /* the thread's previous segment, or NONE */
    uint32_t dep;       /* the release it acquired, or NONE */
    uint32_t thread;
    uint32_t dep_addr;  /* the address whose recorded order gave DEP, or NONE */
    uint8_t dep_by_order;   /* DEP is the last give-back before a take from 0 */
    uint32_t lock;      /* the lock (address id) it takes at its start, or NONE */
    uint32_t unlock;    /* the lock it releases at its end, or NONE */
    uint64_t cost;      /* instructions */
    double delay;       /* before it starts: blocking, in instructions */
};

/* An address that locked read-modify-writes took from or to 0, or that a
 * futex wait returned from. It is a lock when every take from 0 came with
 * no holder and was given back to 0 by the same thread, and no holder
 * blocked in a futex wait (other than for another lock) while holding it:
 * then the simulation grants it in simulated-time order. */
struct sync_addr {
    uint32_t holder;    /* thread index + 1 while taken, in the recording */
    uint32_t holds;     /* takes from 0 */
    uint8_t invalid;
    uint8_t handed_over;    /* given back by a thread that had not taken it */
    uint8_t is_lock;    /* decided by causal_model_finish */
};

/* A critical section read what another thread's critical section wrote
 * and did not write it itself (a message, not a shared counter): it may
 * not take its lock before that writer's segment ends. Thread-local
 * segment numbers (thread << 32 | n), made global at the end. */
struct flow {
    uint64_t target, source;
    uint32_t lock;
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
    uint32_t dep, dep_addr, lock, unlock;
    uint8_t dep_by_order;
    double delay;
    uint32_t last;          /* the thread's last closed segment, or NONE */
    uint32_t *segments;     /* its closed segments, in order */
    size_t n_segments, segments_capacity;
    /* The addresses it holds (held_locks.h, by address id) and whose
     * accesses it follows; at the same index, the critical section each
     * opened. */
    struct held_locks held;
    struct critical_section {
        uint32_t first;         /* its first segment, thread-local number */
        size_t reads;           /* cs_reads from here on are its */
        uint64_t writes;        /* write_clock when it opened */
    } *sections;
    size_t sections_capacity;
    /* What it read and wrote while holding an address. */
    struct {
        uint64_t addr;
        uint64_t source;    /* the writer's segment, thread << 32 | n */
    } *cs_reads;
    size_t n_cs_reads, cs_reads_capacity;
    struct u64map cs_writes;    /* address -> write_clock of its last write */
    uint64_t write_clock;
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
    int threaded;                   /* a create, or a second thread, was seen */
    struct segment *segments;
    size_t n_segments, segments_capacity;
    /* (routine, segment, cost), as segments close; by routine once built. */
    struct {
        uint32_t routine;
        struct routine_entry e;
    } *costs;
    size_t n_costs, costs_capacity;
    struct u64map releases;         /* address -> last segment releasing it | thread << 32 */
    struct u64map posts;            /* address -> the segment before its last take from 0 */
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
    /* Locks: the addresses of sync records, and what critical sections
     * read of each other. */
    struct u64map addr_ids;         /* address -> index into addrs */
    struct sync_addr *addrs;
    size_t n_addrs, addrs_capacity;
    struct u64map last_writer;      /* address -> (thread << 32 | n) + 1, in a critical section */
    struct flow *flows;
    size_t n_flows, flows_capacity;
    uint32_t n_locks;
    /* The simulation of locks: who holds each, who waits, what was granted. */
    uint32_t *lock_holder;          /* by address id: thread index, or NONE */
    uint32_t *lock_waiters;         /* by address id: a list through next_waiter */
    uint32_t *next_waiter;
    uint8_t *granted;
    uint32_t *flows_in;             /* by segment: flows into it */
    uint64_t forced_grants;         /* deadlocks the last simulation broke */
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
    u64map_init(&m->posts);
    u64map_init(&m->start_after);
    u64map_init(&m->clear_tid);
    u64map_init(&m->joinable);
    u64map_init(&m->addr_ids);
    u64map_init(&m->last_writer);
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
        free(m->threads[i].segments);
        held_locks_free(&m->threads[i].held);
        free(m->threads[i].sections);
        free(m->threads[i].cs_reads);
        u64map_free(&m->threads[i].cs_writes);
    }
    free(m->threads);
    u64map_free(&m->thread_index);
    u64map_free(&m->releases);
    u64map_free(&m->posts);
    u64map_free(&m->start_after);
    u64map_free(&m->clear_tid);
    u64map_free(&m->joinable);
    u64map_free(&m->addr_ids);
    u64map_free(&m->last_writer);
    free(m->addrs);
    free(m->flows);
    free(m->lock_holder);
    free(m->lock_waiters);
    free(m->next_waiter);
    free(m->granted);
    free(m->flows_in);
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
        m->threaded |= m->n_threads > 0;
        struct thread *t = &m->threads[m->n_threads++];
        *t = (struct thread){.tid = tid, .dep = NONE, .dep_addr = NONE, .lock = NONE,
                             .unlock = NONE, .last = NONE};
        u64map_init(&t->active);
        u64map_init(&t->acc);
        u64map_init(&t->cs_writes);
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
    if (t->cost == 0 && t->dep == NONE && t->delay == 0 && t->lock == NONE &&
        t->unlock == NONE)
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
    m->segments[m->n_segments] = (struct segment){
        .prev = t->last, .dep = t->dep, .thread = index_of(m, t), .dep_addr = t->dep_addr,
        .dep_by_order = t->dep_by_order,
        .lock = t->lock, .unlock = t->unlock, .cost = t->cost, .delay = t->delay};
    t->last = (uint32_t)m->n_segments++;
    if (t->n_segments == t->segments_capacity) {
        t->segments_capacity = t->segments_capacity ? 2 * t->segments_capacity : 64;
        t->segments = xrealloc(t->segments, t->segments_capacity * sizeof *t->segments);
    }
    t->segments[t->n_segments++] = t->last;
    t->cost = 0;
    t->dep = NONE;
    t->dep_addr = NONE;
    t->dep_by_order = 0;
    t->lock = NONE;
    t->unlock = NONE;
    t->delay = 0;
    return t->last;
}

/* T goes on after SOURCE (a segment | its thread << 32) ends; 1 when that
 * is an edge from another thread. */
static int acquire(struct causal_model *m, struct thread *t, const uint64_t *source)
{
    if (!source || (uint32_t)(*source >> 32) == index_of(m, t))
        return 0;
    close_segment(m, t);
    t->dep = (uint32_t)*source;
    m->stats.edges++;
    return 1;
}

static void release(struct causal_model *m, struct thread *t, uint64_t addr)
{
    uint32_t segment = close_segment(m, t);
    if (segment != NONE)
        *u64map_upsert(&m->releases, addr, NULL) =
            segment | (uint64_t)index_of(m, t) << 32;
}

static uint32_t addr_id(struct causal_model *m, uint64_t addr)
{
    int inserted;
    uint64_t *id = u64map_upsert(&m->addr_ids, addr, &inserted);
    if (inserted) {
        if (m->n_addrs == m->addrs_capacity) {
            m->addrs_capacity = m->addrs_capacity ? 2 * m->addrs_capacity : 64;
            m->addrs = xrealloc(m->addrs, m->addrs_capacity * sizeof *m->addrs);
        }
        m->addrs[m->n_addrs] = (struct sync_addr){0};
        *id = m->n_addrs++;
    }
    return (uint32_t)*id;
}

/* T took ADDR from 0: a new segment takes the lock (if it is one), after
 * the last unlock of it by another thread (if it is not, and no thread
 * gave it back that had not taken it). */
static void take(struct causal_model *m, struct thread *t, uint64_t addr)
{
    uint32_t id = addr_id(m, addr);
    struct sync_addr *a = &m->addrs[id];
    if (a->holder)
        a->invalid = 1;
    a->holder = index_of(m, t) + 1;
    a->holds++;
    uint32_t before = close_segment(m, t);
    if (before != NONE)
        *u64map_upsert(&m->posts, addr, NULL) = before | (uint64_t)index_of(m, t) << 32;
    if (acquire(m, t, u64map_find(&m->releases, addr))) {
        t->dep_addr = id;
        t->dep_by_order = 1;
    }
    t->lock = id;
    if (!held_locks_take(&t->held, id))
        return;
    if (t->sections_capacity < t->held.capacity) {
        t->sections_capacity = t->held.capacity;
        t->sections = xrealloc(t->sections, t->sections_capacity * sizeof *t->sections);
    }
    t->sections[t->held.n - 1] =
        (struct critical_section){(uint32_t)t->n_segments, t->n_cs_reads, t->write_clock};
}

/* T no longer holds its Ith address. */
static void drop_held(struct thread *t, size_t i)
{
    memmove(&t->sections[i], &t->sections[i + 1],
            (t->held.n - i - 1) * sizeof *t->sections);
    held_locks_drop(&t->held, i);
    if (t->held.n == 0) {
        t->n_cs_reads = 0;
        u64map_free(&t->cs_writes);
        u64map_init(&t->cs_writes);
        t->write_clock = 0;
    }
}

/* The critical section of T's Ith held address ends: the flows into its
 * first segment, one per writing thread (its latest segment), from what
 * it read and did not write. */
static void close_critical_section(struct causal_model *m, struct thread *t, size_t i)
{
    const struct critical_section *h = &t->sections[i];
    uint32_t lock = (uint32_t)t->held.addrs[i];
    size_t first_flow = m->n_flows;
    for (size_t r = h->reads; r < t->n_cs_reads; r++) {
        /* What it wrote itself is shared, not sent (a count both sides
         * change); a synchronization word (a condition variable's count of
         * waiters) orders through its own records. */
        const uint64_t *written = u64map_find(&t->cs_writes, t->cs_reads[r].addr);
        if ((written && *written > h->writes) || u64map_find(&m->addr_ids, t->cs_reads[r].addr))
            continue;
        uint64_t source = t->cs_reads[r].source;
        size_t f = first_flow;
        while (f < m->n_flows && m->flows[f].source >> 32 != source >> 32)
            f++;
        if (f < m->n_flows) {
            if (source > m->flows[f].source)
                m->flows[f].source = source;
            continue;
        }
        if (m->n_flows == m->flows_capacity) {
            m->flows_capacity = m->flows_capacity ? 2 * m->flows_capacity : 256;
            m->flows = xrealloc(m->flows, m->flows_capacity * sizeof *m->flows);
        }
        m->flows[m->n_flows++] =
            (struct flow){(uint64_t)index_of(m, t) << 32 | h->first, source, lock};
    }
    /* The innermost section's reads are no other's. */
    if (i == t->held.n - 1)
        t->n_cs_reads = h->reads;
}

/* T took ADDR to 0: the segment that ends here releases the lock, if T
 * held it. A word that another thread took from 0 and T gives back is
 * handed over (a condition variable's signals: one thread posts, the
 * waiter consumes): T goes on after the post. Such a word orders nothing
 * the other way: a post does not wait for the last one to be consumed,
 * its recorded order is only the schedule's (the waiter came first). */
static void give_back(struct causal_model *m, struct thread *t, uint64_t addr)
{
    uint32_t id = addr_id(m, addr);
    struct sync_addr *a = &m->addrs[id];
    size_t i = held_locks_find(&t->held, id);
    int mine = a->holder == index_of(m, t) + 1 && i < t->held.n;
    if (mine) {
        a->holder = 0;
        t->unlock = id;
    } else {
        a->invalid = 1;
        if (a->holder && a->holder != index_of(m, t) + 1)
            a->handed_over = 1;
    }
    release(m, t, addr);
    if (!mine && acquire(m, t, u64map_find(&m->posts, addr)))
        t->dep_addr = id;
    if (i < t->held.n) {
        if (mine)
            close_critical_section(m, t, i);
        drop_held(t, i);
    }
}

/* Memory accesses inside a critical section (T holds an address). */
static void cs_write(struct causal_model *m, struct thread *t, uint64_t addr)
{
    *u64map_upsert(&m->last_writer, addr, NULL) =
        ((uint64_t)index_of(m, t) << 32 | t->n_segments) + 1;
    *u64map_upsert(&t->cs_writes, addr, NULL) = ++t->write_clock;
}

static void cs_read(struct causal_model *m, struct thread *t, uint64_t addr)
{
    const uint64_t *w = u64map_find(&m->last_writer, addr);
    if (!w)
        return;
    uint64_t source = *w - 1;
    uint32_t writer = (uint32_t)(source >> 32);
    /* Only a writer's closed segment: what it wrote in its open one it
     * has not released yet. */
    if (writer == index_of(m, t) || (uint32_t)source >= m->threads[writer].n_segments)
        return;
    if (t->n_cs_reads && t->cs_reads[t->n_cs_reads - 1].addr == addr &&
        t->cs_reads[t->n_cs_reads - 1].source == source)
        return;
    if (t->n_cs_reads == t->cs_reads_capacity) {
        t->cs_reads_capacity = t->cs_reads_capacity ? 2 * t->cs_reads_capacity : 16;
        t->cs_reads = xrealloc(t->cs_reads, t->cs_reads_capacity * sizeof *t->cs_reads);
    }
    t->cs_reads[t->n_cs_reads].addr = addr;
    t->cs_reads[t->n_cs_reads++].source = source;
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
        if (m->threaded && held_locks_follow_access(&t->held))
            cs_read(m, t, ev->addr);
        break;
    case EVENT_WRITE:
        if (m->threaded && held_locks_follow_access(&t->held))
            cs_write(m, t, ev->addr);
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
            !(m->threaded && m->current->held.follow) &&
            (ev->type != EVENT_READ || !m->joinable.count))
            continue;
        if (causal_model_event(ctx, ev, err) != 0)
            return -1;
    }
    return 0;
}

/* T blocks in a futex wait: what it holds is no lock (a condition
 * variable's counter, taken from 0 and never given back; or a mutex held
 * while waiting for another, which then keeps its recorded order). Its
 * resume is what orders. */
static void blocked_holding(struct causal_model *m, struct thread *t)
{
    while (t->held.n) {
        struct sync_addr *a = &m->addrs[t->held.addrs[t->held.n - 1]];
        a->invalid = 1;
        a->holder = 0;
        drop_held(t, t->held.n - 1);
    }
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
        m->threaded = 1;
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
        /* On a lock, the wait is the simulation's to decide. */
        if (acquire(m, t, source))
            t->dep_addr = addr_id(m, ev->addr);
        break;
    }
    case SYNC_FUTEX_WAKE:
        release(m, t, ev->addr);
        break;
    case SYNC_BLOCKING:
        close_segment(m, t);
        t->delay += (double)ev->value * m->o.instructions_per_ns;
        m->stats.blocking += (double)ev->value * m->o.instructions_per_ns;
        break;
    default:
        break;
    }
    /* What it holds (held_locks.h): a lock acquires the last unlock; an
     * unlock is a release. */
    switch (held_change_of(ev)) {
    case HELD_TAKE:
        take(m, t, ev->addr);
        break;
    case HELD_GIVE_BACK:
        give_back(m, t, ev->addr);
        break;
    case HELD_BLOCK:
        blocked_holding(m, t);
        break;
    case HELD_UNCHANGED:
        break;
    }
    return 0;
}

/* Which addresses are locks (struct sync_addr); for those, the recorded
 * order goes (the simulation grants them), for the others the lock and
 * unlock marks go. Flows become global segment numbers; those into a
 * critical section of no lock go. */
static void decide_locks(struct causal_model *m)
{
    for (size_t i = 0; i < m->n_addrs; i++) {
        const struct sync_addr *a = &m->addrs[i];
        m->addrs[i].is_lock = !a->invalid && a->holds > 0 && a->holder == 0;
    }
    m->n_locks = 0;
    for (size_t i = 0; i < m->n_addrs; i++)
        m->n_locks += m->addrs[i].is_lock;
    for (size_t i = 0; i < m->n_segments; i++) {
        struct segment *s = &m->segments[i];
        if (s->dep_addr != NONE && (m->addrs[s->dep_addr].is_lock ||
                                    (s->dep_by_order && m->addrs[s->dep_addr].handed_over)))
            s->dep = NONE;
        if (s->lock != NONE && !m->addrs[s->lock].is_lock)
            s->lock = NONE;
        if (s->unlock != NONE && !m->addrs[s->unlock].is_lock)
            s->unlock = NONE;
    }
    size_t kept = 0;
    for (size_t f = 0; f < m->n_flows; f++) {
        const struct flow *fl = &m->flows[f];
        const struct thread *target = &m->threads[fl->target >> 32];
        const struct thread *source = &m->threads[fl->source >> 32];
        if (!m->addrs[fl->lock].is_lock || (uint32_t)fl->target >= target->n_segments)
            continue;
        m->flows[kept].target = target->segments[(uint32_t)fl->target];
        m->flows[kept].source = source->segments[(uint32_t)fl->source];
        m->flows[kept++].lock = fl->lock;
    }
    m->n_flows = kept;
    m->stats.locks = m->n_locks;
    m->stats.flows = kept;
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
    decide_locks(m);
    /* The successors of each segment: its thread's next, the segments
     * whose dep it is, the critical sections that flow from it. */
    size_t n = m->n_segments;
    m->next_in_thread = xmalloc((n + 1) * sizeof *m->next_in_thread);
    m->waiter_start = xcalloc(n + 2, sizeof *m->waiter_start);
    m->waiters = xmalloc((n + m->n_flows + 1) * sizeof *m->waiters);
    m->flows_in = xcalloc(n + 1, sizeof *m->flows_in);
    for (size_t i = 0; i < n; i++)
        m->next_in_thread[i] = NONE;
    for (size_t i = 0; i < n; i++) {
        if (m->segments[i].prev != NONE)
            m->next_in_thread[m->segments[i].prev] = (uint32_t)i;
        if (m->segments[i].dep != NONE)
            m->waiter_start[m->segments[i].dep + 1]++;
    }
    for (size_t f = 0; f < m->n_flows; f++) {
        m->waiter_start[m->flows[f].source + 1]++;
        m->flows_in[m->flows[f].target]++;
    }
    for (size_t i = 0; i < n; i++)
        m->waiter_start[i + 1] += m->waiter_start[i];
    size_t *fill_waiters = xcalloc(n + 1, sizeof *fill_waiters);
    for (size_t i = 0; i < n; i++) {
        uint32_t d = m->segments[i].dep;
        if (d != NONE)
            m->waiters[m->waiter_start[d] + fill_waiters[d]++] = (uint32_t)i;
    }
    for (size_t f = 0; f < m->n_flows; f++) {
        size_t d = m->flows[f].source;
        m->waiters[m->waiter_start[d] + fill_waiters[d]++] = (uint32_t)m->flows[f].target;
    }
    free(fill_waiters);
    m->ready = xmalloc((n + 1) * sizeof *m->ready);
    m->pending = xmalloc((n + 1) * sizeof *m->pending);
    /* Arrivals (a segment may arrive twice: blocked, then granted) and
     * releases of locks. */
    m->queue = xmalloc((3 * n + 1) * sizeof *m->queue);
    m->next_waiter = xmalloc((n + 1) * sizeof *m->next_waiter);
    m->granted = xmalloc(n + 1);
    m->lock_holder = xmalloc((m->n_addrs + 1) * sizeof *m->lock_holder);
    m->lock_waiters = xmalloc((m->n_addrs + 1) * sizeof *m->lock_waiters);
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

/* The queue of the simulation: segments that arrive (become ready, or
 * are granted a lock they waited for) at ready[s], and, marked RELEASE,
 * the release of the lock a segment gives back when it finishes. Earliest
 * first; at equal times arrivals before releases, then recorded order. */
#define RELEASE 0x80000000u

static double key_of(const struct causal_model *m, uint32_t e)
{
    return e & RELEASE ? m->finish[e & ~RELEASE] : m->ready[e];
}

static int before(const struct causal_model *m, uint32_t a, uint32_t b)
{
    double ka = key_of(m, a), kb = key_of(m, b);
    if (ka != kb)
        return ka < kb;
    if ((a & RELEASE) != (b & RELEASE))
        return !(a & RELEASE);
    return (a & ~RELEASE) < (b & ~RELEASE);
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

/* The waiter for LOCK that arrived first (then recorded order), taken off
 * its list; NONE when none waits. */
static uint32_t first_waiter(struct causal_model *m, uint32_t lock)
{
    uint32_t *best = NULL;
    for (uint32_t *w = &m->lock_waiters[lock]; *w != NONE; w = &m->next_waiter[*w])
        if (!best || m->ready[*w] < m->ready[*best] ||
            (m->ready[*w] == m->ready[*best] && *w < *best))
            best = w;
    if (!best)
        return NONE;
    uint32_t s = *best;
    *best = m->next_waiter[s];
    return s;
}

/* LOCK goes to its first waiter at T (which arrives again, granted). */
static void grant_next(struct causal_model *m, size_t *queued, uint32_t lock, double t)
{
    uint32_t s = first_waiter(m, lock);
    m->lock_holder[lock] = s == NONE ? NONE : m->segments[s].thread;
    if (s == NONE)
        return;
    m->granted[s] = 1;
    if (t > m->ready[s])
        m->ready[s] = t;
    queue_push(m, queued, s);
}

/* A deadlock of the simulation (it reordered two threads' locks into a
 * cycle the recording did not have): the earliest waiter of any lock
 * takes it anyway. */
static int break_deadlock(struct causal_model *m, size_t *queued)
{
    uint32_t best = NONE;
    for (size_t l = 0; l < m->n_addrs; l++)
        for (uint32_t w = m->lock_waiters[l]; w != NONE; w = m->next_waiter[w])
            if (best == NONE || m->ready[w] < m->ready[best] ||
                (m->ready[w] == m->ready[best] && w < best))
                best = w;
    if (best == NONE)
        return 0;
    uint32_t lock = m->segments[best].lock;
    uint32_t *w = &m->lock_waiters[lock];
    while (*w != best)
        w = &m->next_waiter[*w];
    *w = m->next_waiter[best];
    m->lock_holder[lock] = m->segments[best].thread;
    m->granted[best] = 1;
    m->forced_grants++;
    queue_push(m, queued, best);
    return 1;
}

/* The simulation in time order: a segment starts when what it waits for
 * has ended, its lock (if it takes one) is free or given to it (contended
 * locks go to the waiter that arrived first), and, on CORES cores (0: one
 * per thread), a core is free (segments take the core free first in the
 * order they start, and run to their end). */
static double simulate(struct causal_model *m, unsigned cores)
{
    if (cores) {
        m->cores = xrealloc(m->cores, cores * sizeof *m->cores);
        memset(m->cores, 0, cores * sizeof *m->cores);
    }
    for (size_t l = 0; l < m->n_addrs; l++) {
        m->lock_holder[l] = NONE;
        m->lock_waiters[l] = NONE;
    }
    m->forced_grants = 0;
    size_t queued = 0;
    for (size_t i = 0; i < m->n_segments; i++) {
        const struct segment *s = &m->segments[i];
        m->ready[i] = 0;
        m->granted[i] = 0;
        m->pending[i] = (s->prev != NONE) + (s->dep != NONE) + m->flows_in[i];
        if (m->pending[i] == 0) {
            m->ready[i] = s->delay;
            queue_push(m, &queued, (uint32_t)i);
        }
    }
    double makespan = 0;
    for (;;) {
        if (!queued && !break_deadlock(m, &queued))
            break;
        uint32_t e = queue_pop(m, &queued);
        if (e & RELEASE) {
            uint32_t lock = m->segments[e & ~RELEASE].unlock;
            grant_next(m, &queued, lock, m->finish[e & ~RELEASE]);
            continue;
        }
        uint32_t i = e, lock = m->segments[i].lock;
        if (lock != NONE && !m->granted[i]) {
            if (m->lock_holder[lock] != NONE) {
                m->next_waiter[i] = m->lock_waiters[lock];
                m->lock_waiters[lock] = i;
                continue;
            }
            m->lock_holder[lock] = m->segments[i].thread;
        }
        double work = (double)m->segments[i].cost - m->shrink[i];
        double start = m->ready[i];
        if (work > 0) {
            if (cores) {
                if (m->cores[0] > start)
                    start = m->cores[0];
                cores_replace_min(m->cores, cores, start + work);
            }
        } else {
            work = 0;
        }
        m->finish[i] = start + work;
        if (m->finish[i] > makespan)
            makespan = m->finish[i];
        if (m->segments[i].unlock != NONE)
            queue_push(m, &queued, i | RELEASE);
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
    /* Locks or few cores need the simulation in time order; without
     * them, recorded order is a topological order of the graph: one pass. */
    if (limited || m->n_locks)
        makespan = simulate(m, limited ? cores : 0);
    for (size_t i = 0; !limited && !m->n_locks && i < m->n_segments; i++) {
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
