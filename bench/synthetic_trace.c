#include "bench/synthetic_trace.h"

#include <stdlib.h>

#include "common/oom.h"

#define HEAP_BASE 0x10000000ull
#define SHARED_BASE 0x8000000ull
#define SHARED_SPAN (1ull << 20)  /* data all threads share */
#define IO_BASE 0x7f0000000000ull
#define SLOTS_BASE 0x7e0000000000ull
#define STACK_TOP 0x7ffff0000000ull
#define STACK_SPAN 0x100000ull   /* per thread */
#define IO_SPAN 0x10000ull       /* per thread */
#define MAX_DEPTH 8

struct synthetic_trace {
    struct synthetic_shape shape;
    uint64_t rng;
    struct event *pending;
    size_t n_pending;
    size_t next_pending;
    size_t capacity;
    unsigned current;
    uint64_t *heap_cursor;   /* per thread: where its next array scan starts */
    unsigned *depth;         /* hostile: per thread, its pending calls */
};

static uint64_t next(struct synthetic_trace *s)
{
    uint64_t z = (s->rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint64_t below(struct synthetic_trace *s, uint64_t n)
{
    return next(s) % n;
}

static void push(struct synthetic_trace *s, enum event_type type, uint64_t a, uint64_t b)
{
    if (s->n_pending == s->capacity) {
        s->capacity = s->capacity ? s->capacity * 2 : 1 << 16;
        s->pending = xrealloc(s->pending, s->capacity * sizeof *s->pending);
    }
    struct event *e = &s->pending[s->n_pending++];
    *e = (struct event){.type = type};
    if (type == EVENT_THREAD)
        e->tid = (uint32_t)a;
    else if (type == EVENT_CALL)
        e->routine = (uint32_t)a;
    else if (type == EVENT_COST)
        e->size = a;
    else {
        e->addr = a;
        e->size = b;
    }
}

static uint64_t frame(unsigned thread, unsigned depth)
{
    return STACK_TOP - thread * STACK_SPAN - (depth + 1) * 256;
}

static void activation(struct synthetic_trace *s, unsigned t, unsigned depth)
{
    unsigned routine = (unsigned)below(s, s->shape.routines);
    uint64_t sp = frame(t, depth);
    push(s, EVENT_CALL, routine, 0);
    for (unsigned i = 0; i < 4; i++) /* prologue: save registers */
        push(s, EVENT_WRITE, sp + 8 * i, 8);
    push(s, EVENT_COST, 6, 0);
    switch (routine % 5) {
    case 0: { /* scan an array (in the thread's own part of the heap) whose
               * length depends on the routine */
        uint64_t n = 1 + below(s, 16ull << (routine % 7));
        uint64_t share = s->shape.working_set / s->shape.threads;
        uint64_t base = HEAP_BASE + t * share + (s->heap_cursor[t] % (share - 8 * n));
        base &= ~7ull;
        s->heap_cursor[t] += 8 * n + 64 * below(s, 64);
        for (uint64_t i = 0; i < n; i++) {
            push(s, EVENT_READ, base + 8 * i, 8);
            if (i % 4 == 3) {
                push(s, EVENT_READ, sp + 32, 8);
                push(s, EVENT_WRITE, sp + 32, 8);
                push(s, EVENT_COST, 12, 0);
            }
        }
        break;
    }
    case 1: { /* lookups: in the thread's own data, mostly in a hot eighth of
               * it, and sometimes in the data all threads share */
        unsigned k = 8 + (unsigned)below(s, 128);
        uint64_t share = s->shape.working_set / s->shape.threads;
        for (unsigned i = 0; i < k; i++) {
            uint64_t roll = below(s, 16), a;
            if (roll == 0)
                a = SHARED_BASE + below(s, SHARED_SPAN / 8) * 8;
            else if (roll < 12)
                a = HEAP_BASE + t * share + below(s, share / 64) * 8;
            else
                a = HEAP_BASE + t * share + below(s, share / 8) * 8;
            push(s, below(s, 4) ? EVENT_READ : EVENT_WRITE, a, 8);
            push(s, EVENT_READ, sp + 40, 8);
            push(s, EVENT_COST, 5, 0);
        }
        break;
    }
    case 2: /* calls deeper */
        if (depth + 1 < MAX_DEPTH) {
            unsigned children = 1 + (unsigned)below(s, 3);
            for (unsigned c = 0; c < children; c++) {
                activation(s, t, depth + 1);
                push(s, EVENT_READ, sp + 48, 8);
            }
        }
        break;
    case 3: { /* read(2) into a buffer and parse it, or format and write(2) */
        uint64_t buf = IO_BASE + t * IO_SPAN, len = 512 + below(s, 3584);
        if (below(s, 2)) {
            /* Parsed a byte at a time, or a word at a time. */
            uint64_t step = below(s, 2) ? 1 : 8;
            push(s, EVENT_KWRITE, buf, len);
            for (uint64_t i = 0; i < len; i += step) {
                push(s, EVENT_READ, buf + i, step);
                if (step == 1 && i % 16 == 15)
                    push(s, EVENT_WRITE, sp + 56, 8); /* a token found */
            }
        } else {
            for (uint64_t i = 0; i < len; i += 8)
                push(s, EVENT_WRITE, buf + i, 8);
            push(s, EVENT_KREAD, buf, len);
        }
        push(s, EVENT_COST, len / 2, 0);
        break;
    }
    default: { /* hand values to other threads through shared slots */
        uint64_t slot = SLOTS_BASE + 64 * below(s, 64);
        push(s, t % 2 ? EVENT_READ : EVENT_WRITE, slot, 8);
        push(s, EVENT_READ, slot + 8, 8);
        push(s, EVENT_COST, 20, 0);
        break;
    }
    }
    for (unsigned i = 0; i < 4; i++) /* epilogue */
        push(s, EVENT_READ, sp + 8 * i, 8);
    push(s, EVENT_RETURN, 0, 0);
}

struct synthetic_trace *synthetic_new(const struct synthetic_shape *shape)
{
    struct synthetic_trace *s = xcalloc(1, sizeof *s);
    s->shape = *shape;
    s->rng = shape->seed;
    s->heap_cursor = xcalloc(shape->threads, sizeof *s->heap_cursor);
    s->depth = xcalloc(shape->threads, sizeof *s->depth);
    return s;
}

void synthetic_free(struct synthetic_trace *s)
{
    if (!s)
        return;
    free(s->pending);
    free(s->heap_cursor);
    free(s->depth);
    free(s);
}

/* The hostile shape's quantum: one thread, 100 to 600 events of skewed
 * random 8-byte accesses over the working set (the product of two uniform
 * draws: low addresses hot, the whole set touched), 2% calls (up to a depth
 * of 64), 2% returns, and a cost event every eighth event. */
static void hostile_quantum(struct synthetic_trace *s)
{
    unsigned t = s->current = (unsigned)below(s, s->shape.threads);
    push(s, EVENT_THREAD, 1000 + t, 0);
    uint64_t words = s->shape.working_set / 8, events = 100 + below(s, 501);
    for (uint64_t i = 0; i < events; i++) {
        uint64_t roll = below(s, 100);
        if (roll < 2 && s->depth[t] < 64) {
            push(s, EVENT_CALL, below(s, s->shape.routines), 0);
            s->depth[t]++;
        } else if (roll < 4 && s->depth[t] > 0) {
            push(s, EVENT_RETURN, 0, 0);
            s->depth[t]--;
        } else if (i % 8 == 7) {
            push(s, EVENT_COST, 8, 0);
        } else {
            uint64_t word = below(s, words) * (below(s, words) + 1) / words;
            push(s, below(s, 4) ? EVENT_READ : EVENT_WRITE, HEAP_BASE + 8 * word, 8);
        }
    }
}

/* A scheduling quantum: one thread runs a few top-level activations. */
static void quantum(struct synthetic_trace *s)
{
    if (s->shape.hostile) {
        s->n_pending = s->next_pending = 0;
        hostile_quantum(s);
        return;
    }
    s->n_pending = s->next_pending = 0;
    s->current = (unsigned)below(s, s->shape.threads);
    push(s, EVENT_THREAD, 1000 + s->current, 0);
    unsigned activations = 1 + (unsigned)below(s, 8);
    for (unsigned i = 0; i < activations; i++)
        activation(s, s->current, 0);
}

size_t synthetic_fill(struct synthetic_trace *s, struct event *events, size_t n)
{
    size_t accesses = 0;
    for (size_t i = 0; i < n; i++) {
        if (s->next_pending == s->n_pending)
            quantum(s);
        events[i] = s->pending[s->next_pending++];
        accesses += event_is_access(events[i].type);
    }
    return accesses;
}

void synthetic_regions(const struct synthetic_trace *s,
                       void (*visit)(void *ctx, uint64_t base, uint64_t size), void *ctx)
{
    visit(ctx, HEAP_BASE, s->shape.working_set);
    visit(ctx, SHARED_BASE, SHARED_SPAN);
    visit(ctx, SLOTS_BASE, 64 * 64 + 16);
    for (unsigned t = 0; t < s->shape.threads; t++) {
        visit(ctx, IO_BASE + t * IO_SPAN, 4096);
        visit(ctx, frame(t, MAX_DEPTH), (MAX_DEPTH + 1) * 256);
    }
}
