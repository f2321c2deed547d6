/* naive_reference: slow reference implementation of the analyses.
 *
 * Spec followed (literally, one event and one cell at a time):
 *
 *  - EVENT_THREAD sets the current thread.  A tid seen for the first time
 *    gets a root activation (ROUTINE_ROOT, depth 0) pending until the end.
 *    EVENT_CALL pushes an activation (depth = stack position, root = 0);
 *    EVENT_RETURN completes the innermost pending non-root activation.  At
 *    the end, pending activations complete thread by thread in order of first
 *    appearance, innermost first, root last.
 *  - Each thread has an instruction counter advanced by its EVENT_COST
 *    events.  cost = counter at completion - counter at start; self_cost =
 *    cost - sum of the costs of the direct children.
 *  - An access of size bytes at addr touches cells addr / cell_size ...
 *    (addr + size - 1) / cell_size in increasing order, each processed as an
 *    access of the same kind.
 *  - RMS: cells whose first access in the activation's subtree (i.e. by its
 *    thread while it is pending) is a READ or KREAD.  KWRITE is ignored.
 *  - TRMS (TRMS paper, Figure 10): one set L_r per pending activation.
 *    READ/KREAD of c by t: for every pending r of t, if c is not in L_r then
 *    trms_r++; then add c to L_r.  WRITE of c by t: add c to every L_r of t,
 *    remove c from every L_r of every other thread.  KWRITE of c: remove c
 *    from every L_r of every thread.
 *  - A READ/KREAD of c by t is induced when the most recent among (a) any
 *    READ/WRITE/KREAD of c by t, (b) any WRITE of c by another thread,
 *    (c) any KWRITE of c, exists and is (b) (thread-induced) or (c)
 *    (external).  Found by scanning the whole history backwards.  Counted
 *    reads that are induced increment induced_thread / induced_external.
 *  - Reuse distance: READ and WRITE only, lines addr / line_size ...
 *    (addr + size - 1) / line_size in increasing order.  A move-to-front list
 *    for the global stream and one per thread; distance = position in the
 *    list (0 = most recent), cold when absent.
 *
 * Calling contexts: the context of an activation is the sequence of
 * routines from its thread's root to it. Context 0 is the root's; every
 * other gets the next number the first time its sequence is called,
 * identified by (its caller's context, its routine), found by linear
 * search.
 *
 * Recursive flag (not in the brief's spec; taken from activation.h): 1 when
 * an activation of the same routine is already pending below it on the same
 * thread's stack (the root never counts, and is never recursive).
 *
 * Address overflow: if addr + size - 1 exceeds UINT64_MAX the access is
 * clamped to end at UINT64_MAX.  An access of size 0 touches nothing. */
#include "tests/naive_reference.h"

#include <stdlib.h>
#include <string.h>

/* ---- growable array of uint64_t, used as a set and as an LRU list ---- */

struct u64vec {
    uint64_t *items;
    size_t n;
    size_t cap;
};

static void vec_free(struct u64vec *v)
{
    free(v->items);
    v->items = NULL;
    v->n = 0;
    v->cap = 0;
}

static int vec_reserve_one(struct u64vec *v)
{
    if (v->n < v->cap)
        return 0;
    size_t cap = v->cap ? v->cap * 2 : 8;
    uint64_t *items = realloc(v->items, cap * sizeof *items);
    if (items == NULL)
        return -1;
    v->items = items;
    v->cap = cap;
    return 0;
}

/* Index of value in v, or -1 when absent (linear search). */
static long vec_find(const struct u64vec *v, uint64_t value)
{
    for (size_t i = 0; i < v->n; i++)
        if (v->items[i] == value)
            return (long)i;
    return -1;
}

static int set_contains(const struct u64vec *s, uint64_t value)
{
    return vec_find(s, value) >= 0;
}

/* Adds value unless already present.  0, or -1 on allocation failure. */
static int set_add(struct u64vec *s, uint64_t value)
{
    if (set_contains(s, value))
        return 0;
    if (vec_reserve_one(s) != 0)
        return -1;
    s->items[s->n++] = value;
    return 0;
}

static void set_remove(struct u64vec *s, uint64_t value)
{
    long i = vec_find(s, value);
    if (i < 0)
        return;
    s->items[i] = s->items[s->n - 1];
    s->n--;
}

/* ---- state ---- */

struct pending {
    struct activation a;
    uint64_t start;          /* thread counter when the activation began */
    uint64_t children_cost;  /* sum of cost of completed direct children */
    struct u64vec seen;      /* cells read/written by the subtree (for RMS) */
    struct u64vec L;         /* Figure 10's L_r (for TRMS) */
};

struct thread {
    uint32_t tid;
    uint64_t counter;        /* instructions executed so far */
    struct pending *stack;   /* stack[0] is the root */
    size_t depth;            /* entries in stack */
    size_t cap;
    struct u64vec lru;       /* lines, items[0] most recent */
};

struct cell_event {
    uint64_t cell;
    enum event_type type;
    uint32_t tid;
};

struct state {
    uint64_t cell_size;
    uint64_t line_size;

    struct thread *threads;  /* order of first appearance */
    size_t n_threads;
    size_t cap_threads;
    struct naive_histogram *thread_hists; /* parallel to threads */
    size_t current;          /* index into threads; valid if have_current */
    int have_current;

    struct cell_event *history;
    size_t n_history;
    size_t cap_history;

    struct u64vec global_lru;
    struct naive_histogram global_hist;

    struct activation *activations;
    size_t n_activations;
    size_t cap_activations;

    struct calling_context *contexts;
    size_t n_contexts;
};

static void pending_free(struct pending *p)
{
    vec_free(&p->seen);
    vec_free(&p->L);
}

static void histogram_free(struct naive_histogram *h)
{
    free(h->count_by_distance);
    memset(h, 0, sizeof *h);
}

static void state_free(struct state *s)
{
    for (size_t i = 0; i < s->n_threads; i++) {
        struct thread *t = &s->threads[i];
        for (size_t k = 0; k < t->depth; k++)
            pending_free(&t->stack[k]);
        free(t->stack);
        vec_free(&t->lru);
        histogram_free(&s->thread_hists[i]);
    }
    free(s->threads);
    free(s->thread_hists);
    free(s->history);
    vec_free(&s->global_lru);
    histogram_free(&s->global_hist);
    free(s->activations);
    free(s->contexts);
    memset(s, 0, sizeof *s);
}

/* ---- activations ---- */

/* The context of ROUTINE called from PARENT, numbered when new; -1 on
 * allocation failure. */
static long context_of(struct state *s, uint32_t parent, uint32_t routine)
{
    for (size_t i = 0; i < s->n_contexts; i++)
        if (s->contexts[i].parent == parent && s->contexts[i].routine == routine)
            return (long)i;
    struct calling_context *c = realloc(s->contexts, (s->n_contexts + 1) * sizeof *c);
    if (c == NULL)
        return -1;
    s->contexts = c;
    s->contexts[s->n_contexts] = (struct calling_context){.parent = parent, .routine = routine};
    return (long)s->n_contexts++;
}

static int push_activation(struct state *s, struct thread *t, uint32_t routine)
{
    if (t->depth == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 8;
        struct pending *stack = realloc(t->stack, cap * sizeof *stack);
        if (stack == NULL)
            return -1;
        t->stack = stack;
        t->cap = cap;
    }
    struct pending *p = &t->stack[t->depth];
    memset(p, 0, sizeof *p);
    p->a.tid = t->tid;
    p->a.routine = routine;
    p->a.depth = (uint32_t)t->depth;
    p->a.recursive = 0;
    if (routine != ROUTINE_ROOT) {
        for (size_t k = 1; k < t->depth; k++)
            if (t->stack[k].a.routine == routine)
                p->a.recursive = 1;
    }
    long context = routine == ROUTINE_ROOT
                       ? context_of(s, CONTEXT_NONE, ROUTINE_ROOT)
                       : context_of(s, t->stack[t->depth - 1].a.context, routine);
    if (context < 0)
        return -1;
    p->a.context = (uint32_t)context;
    p->start = t->counter;
    p->children_cost = 0;
    t->depth++;
    return 0;
}

/* Completes the innermost pending activation of t (root included). */
static int complete_top(struct state *s, struct thread *t)
{
    if (s->n_activations == s->cap_activations) {
        size_t cap = s->cap_activations ? s->cap_activations * 2 : 16;
        struct activation *a = realloc(s->activations, cap * sizeof *a);
        if (a == NULL)
            return -1;
        s->activations = a;
        s->cap_activations = cap;
    }
    struct pending *p = &t->stack[t->depth - 1];
    p->a.cost = t->counter - p->start;
    p->a.self_cost = p->a.cost - p->children_cost;
    if (t->depth >= 2)
        t->stack[t->depth - 2].children_cost += p->a.cost;
    s->activations[s->n_activations++] = p->a;
    pending_free(p);
    t->depth--;
    return 0;
}

/* Index of the thread with this tid, creating it (with its root activation
 * and histogram) on first appearance.  -1 on allocation failure. */
static long find_or_add_thread(struct state *s, uint32_t tid)
{
    for (size_t i = 0; i < s->n_threads; i++)
        if (s->threads[i].tid == tid)
            return (long)i;

    if (s->n_threads == s->cap_threads) {
        size_t cap = s->cap_threads ? s->cap_threads * 2 : 4;
        struct thread *threads = realloc(s->threads, cap * sizeof *threads);
        if (threads == NULL)
            return -1;
        s->threads = threads;
        struct naive_histogram *hists =
            realloc(s->thread_hists, cap * sizeof *hists);
        if (hists == NULL)
            return -1;
        s->thread_hists = hists;
        s->cap_threads = cap;
    }
    struct thread *t = &s->threads[s->n_threads];
    memset(t, 0, sizeof *t);
    memset(&s->thread_hists[s->n_threads], 0, sizeof s->thread_hists[0]);
    t->tid = tid;
    s->n_threads++;  /* counted now so state_free frees its parts */
    if (push_activation(s, t, ROUTINE_ROOT) != 0)
        return -1;
    return (long)(s->n_threads - 1);
}

/* ---- memory cells: RMS, TRMS, induced ---- */

static int history_append(struct state *s, uint64_t cell,
                          enum event_type type, uint32_t tid)
{
    if (s->n_history == s->cap_history) {
        size_t cap = s->cap_history ? s->cap_history * 2 : 64;
        struct cell_event *h = realloc(s->history, cap * sizeof *h);
        if (h == NULL)
            return -1;
        s->history = h;
        s->cap_history = cap;
    }
    s->history[s->n_history].cell = cell;
    s->history[s->n_history].type = type;
    s->history[s->n_history].tid = tid;
    s->n_history++;
    return 0;
}

enum induced_kind { NOT_INDUCED, INDUCED_THREAD, INDUCED_EXTERNAL };

/* Classifies a read of cell by thread tid, looking at the history before it. */
static enum induced_kind classify_read(const struct state *s, uint64_t cell,
                                       uint32_t tid)
{
    for (size_t i = s->n_history; i-- > 0;) {
        const struct cell_event *e = &s->history[i];
        if (e->cell != cell)
            continue;
        if (e->type == EVENT_KWRITE)
            return INDUCED_EXTERNAL;               /* kind (c) */
        if (e->tid == tid)
            return NOT_INDUCED;                    /* kind (a) */
        if (e->type == EVENT_WRITE)
            return INDUCED_THREAD;                 /* kind (b) */
        /* a READ/KREAD by another thread does not concern this thread */
    }
    return NOT_INDUCED;                            /* never touched */
}

static int cell_read(struct state *s, struct thread *t, uint64_t cell,
                     enum event_type type)
{
    enum induced_kind kind = classify_read(s, cell, t->tid);
    for (size_t k = 0; k < t->depth; k++) {
        struct pending *p = &t->stack[k];
        if (!set_contains(&p->seen, cell)) {
            p->a.rms++;
            if (set_add(&p->seen, cell) != 0)
                return -1;
        }
        if (!set_contains(&p->L, cell)) {
            p->a.trms++;
            if (kind == INDUCED_THREAD)
                p->a.induced_thread++;
            else if (kind == INDUCED_EXTERNAL)
                p->a.induced_external++;
        }
        if (set_add(&p->L, cell) != 0)
            return -1;
    }
    return history_append(s, cell, type, t->tid);
}

static int cell_write(struct state *s, struct thread *t, uint64_t cell)
{
    for (size_t k = 0; k < t->depth; k++) {
        if (set_add(&t->stack[k].seen, cell) != 0)
            return -1;
        if (set_add(&t->stack[k].L, cell) != 0)
            return -1;
    }
    for (size_t i = 0; i < s->n_threads; i++) {
        struct thread *other = &s->threads[i];
        if (other == t)
            continue;
        for (size_t k = 0; k < other->depth; k++)
            set_remove(&other->stack[k].L, cell);
    }
    return history_append(s, cell, EVENT_WRITE, t->tid);
}

static int cell_kwrite(struct state *s, struct thread *t, uint64_t cell)
{
    for (size_t i = 0; i < s->n_threads; i++) {
        struct thread *any = &s->threads[i];
        for (size_t k = 0; k < any->depth; k++)
            set_remove(&any->stack[k].L, cell);
    }
    return history_append(s, cell, EVENT_KWRITE, t->tid);
}

/* Last byte of an access, clamped to the top of the address space. */
static uint64_t last_byte(uint64_t addr, uint64_t size)
{
    if (size - 1 > UINT64_MAX - addr)
        return UINT64_MAX;
    return addr + (size - 1);
}

static int process_cells(struct state *s, struct thread *t,
                         const struct event *e)
{
    if (e->size == 0)
        return 0;
    uint64_t first = e->addr / s->cell_size;
    uint64_t last = last_byte(e->addr, e->size) / s->cell_size;
    for (uint64_t c = first;; c++) {
        int rc = 0;
        switch (e->type) {
        case EVENT_READ:
        case EVENT_KREAD:
            rc = cell_read(s, t, c, e->type);
            break;
        case EVENT_WRITE:
            rc = cell_write(s, t, c);
            break;
        case EVENT_KWRITE:
            rc = cell_kwrite(s, t, c);
            break;
        default:
            break;
        }
        if (rc != 0)
            return -1;
        if (c == last)
            break;
    }
    return 0;
}

/* ---- reuse distance ---- */

static int histogram_count(struct naive_histogram *h, uint64_t distance)
{
    if (distance >= h->length) {
        size_t length = (size_t)distance + 1;
        uint64_t *counts = realloc(h->count_by_distance,
                                   length * sizeof *counts);
        if (counts == NULL)
            return -1;
        for (size_t i = h->length; i < length; i++)
            counts[i] = 0;
        h->count_by_distance = counts;
        h->length = length;
    }
    h->count_by_distance[distance]++;
    return 0;
}

/* One line access against one move-to-front list and its histogram. */
static int lru_access(struct u64vec *lru, struct naive_histogram *h,
                      uint64_t line)
{
    h->accesses++;
    long pos = vec_find(lru, line);
    if (pos < 0) {
        h->cold++;
        if (vec_reserve_one(lru) != 0)
            return -1;
        memmove(&lru->items[1], &lru->items[0],
                lru->n * sizeof lru->items[0]);
        lru->items[0] = line;
        lru->n++;
        return 0;
    }
    if (histogram_count(h, (uint64_t)pos) != 0)
        return -1;
    memmove(&lru->items[1], &lru->items[0],
            (size_t)pos * sizeof lru->items[0]);
    lru->items[0] = line;
    return 0;
}

static int process_lines(struct state *s, size_t thread_index,
                         const struct event *e)
{
    if (e->size == 0)
        return 0;
    struct thread *t = &s->threads[thread_index];
    uint64_t first = e->addr / s->line_size;
    uint64_t last = last_byte(e->addr, e->size) / s->line_size;
    for (uint64_t line = first;; line++) {
        if (lru_access(&s->global_lru, &s->global_hist, line) != 0)
            return -1;
        if (lru_access(&t->lru, &s->thread_hists[thread_index], line) != 0)
            return -1;
        if (line == last)
            break;
    }
    return 0;
}

/* ---- driver ---- */

static int process_event(struct state *s, const struct event *e)
{
    if (e->type == EVENT_THREAD) {
        long i = find_or_add_thread(s, e->tid);
        if (i < 0)
            return -1;
        s->current = (size_t)i;
        s->have_current = 1;
        return 0;
    }
    if (!s->have_current)
        return -1;  /* event before any EVENT_THREAD */
    struct thread *t = &s->threads[s->current];

    switch (e->type) {
    case EVENT_CALL:
        return push_activation(s, t, e->routine);
    case EVENT_RETURN:
        if (t->depth <= 1)
            return -1;  /* only the root is pending */
        return complete_top(s, t);
    case EVENT_COST:
        t->counter += e->size;
        return 0;
    case EVENT_READ:
    case EVENT_WRITE:
        if (process_cells(s, t, e) != 0)
            return -1;
        return process_lines(s, s->current, e);
    case EVENT_KREAD:
    case EVENT_KWRITE:
        return process_cells(s, t, e);
    default:
        return -1;  /* unknown event type */
    }
}

int naive_analyze(const struct event *events, size_t n_events,
                  uint64_t cell_size, uint64_t line_size,
                  struct naive_result *out)
{
    memset(out, 0, sizeof *out);
    if (cell_size == 0 || line_size == 0)
        return -1;

    struct state s;
    memset(&s, 0, sizeof s);
    s.cell_size = cell_size;
    s.line_size = line_size;

    for (size_t i = 0; i < n_events; i++) {
        if (process_event(&s, &events[i]) != 0) {
            state_free(&s);
            return -1;
        }
    }
    for (size_t i = 0; i < s.n_threads; i++) {
        struct thread *t = &s.threads[i];
        while (t->depth > 0) {
            if (complete_top(&s, t) != 0) {
                state_free(&s);
                return -1;
            }
        }
    }

    /* Hand the results over, then free the rest. */
    uint32_t *tids = NULL;
    if (s.n_threads > 0) {
        tids = malloc(s.n_threads * sizeof *tids);
        if (tids == NULL) {
            state_free(&s);
            return -1;
        }
        for (size_t i = 0; i < s.n_threads; i++)
            tids[i] = s.threads[i].tid;
    }
    out->activations = s.activations;
    out->n_activations = s.n_activations;
    out->contexts = s.contexts;
    out->n_contexts = s.n_contexts;
    s.contexts = NULL;
    out->global = s.global_hist;
    out->thread_tids = tids;
    out->threads = s.thread_hists;
    out->n_threads = s.n_threads;

    s.activations = NULL;
    s.n_activations = 0;
    memset(&s.global_hist, 0, sizeof s.global_hist);
    for (size_t i = 0; i < s.n_threads; i++) {
        struct thread *t = &s.threads[i];
        free(t->stack);  /* empty: every activation completed */
        vec_free(&t->lru);
    }
    free(s.threads);
    free(s.history);
    vec_free(&s.global_lru);
    return 0;
}

void naive_result_free(struct naive_result *r)
{
    free(r->activations);
    free(r->contexts);
    histogram_free(&r->global);
    for (size_t i = 0; i < r->n_threads; i++)
        histogram_free(&r->threads[i]);
    free(r->threads);
    free(r->thread_tids);
    memset(r, 0, sizeof *r);
}

/* ---- reuse over the accesses to chosen objects ---- */

struct unit_access {
    size_t object;
    uint64_t unit;
    size_t id;      /* the unit's number among the distinct units, by first access */
};

static long object_holding(const struct naive_object *objects, size_t n, uint64_t byte)
{
    for (size_t i = 0; i < n; i++)
        if (byte >= objects[i].start && byte - objects[i].start < objects[i].size)
            return (long)i;
    return -1;
}

int naive_object_reuse(const struct event *events, size_t n_events,
                       const struct naive_object *objects, size_t n_objects,
                       uint64_t unit, struct naive_histogram *per_object)
{
    struct unit_access *stream = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    for (size_t e = 0; e < n_events && rc == 0; e++) {
        const struct event *ev = &events[e];
        if (ev->type != EVENT_READ && ev->type != EVENT_WRITE)
            continue;
        size_t first_of_access = n;
        for (uint64_t k = 0; k < ev->size && rc == 0; k++) {
            uint64_t byte = ev->addr + k;
            long o = object_holding(objects, n_objects, byte);
            if (o < 0)
                continue;
            struct unit_access u = {(size_t)o, (byte - objects[o].start) / unit, n};
            if (n > first_of_access && stream[n - 1].object == u.object &&
                stream[n - 1].unit == u.unit)
                continue;  /* the same unit again in this access */
            for (size_t j = 0; j < n; j++)
                if (stream[j].object == u.object && stream[j].unit == u.unit) {
                    u.id = stream[j].id;
                    break;
                }
            if (n == cap) {
                cap = cap ? 2 * cap : 64;
                struct unit_access *grown = realloc(stream, cap * sizeof *stream);
                if (!grown) {
                    rc = -1;
                    break;
                }
                stream = grown;
            }
            stream[n++] = u;
        }
    }
    /* Each access against the stream before it: the distinct others since
     * the previous access to the same unit (seen[id] == i + 1: counted). */
    size_t *seen = rc == 0 ? calloc(n ? n : 1, sizeof *seen) : NULL;
    if (!seen)
        rc = -1;
    for (size_t i = 0; i < n && rc == 0; i++) {
        struct naive_histogram *h = &per_object[stream[i].object];
        h->accesses++;
        size_t distinct = 0;
        long j = (long)i - 1;
        for (; j >= 0; j--) {
            if (stream[j].id == stream[i].id)
                break;
            if (seen[stream[j].id] != i + 1) {
                seen[stream[j].id] = i + 1;
                distinct++;
            }
        }
        if (j < 0)
            h->cold++;
        else if (histogram_count(h, distinct) != 0)
            rc = -1;
    }
    free(seen);
    free(stream);
    return rc;
}

void naive_histogram_free(struct naive_histogram *h)
{
    histogram_free(h);
}
