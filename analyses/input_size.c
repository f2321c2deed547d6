#include "analyses/input_size.h"

#include <stdlib.h>

#include "analyses/shadow_map.h"
#include "common/oom.h"
#include "common/u64map.h"

/* Timestamps are 64-bit and never renumbered (the paper's Figure 13 is not
 * needed): `count` grows by one per call, thread switch and kernel write,
 * so even at 10^9 such events per second it would take centuries to reach
 * the 2^63 that the write-timestamp encoding below leaves. */

/* Global write timestamps keep the writer's kind in bit 0, so that an
 * induced first read can be told apart as thread-induced or external. */
#define WRITER_KERNEL 1u
#define WRITE_STAMP(count, kind) (((count) << 1) | (kind))
#define WRITE_TIME(stamp) ((stamp) >> 1)

/* One pending activation on a thread's shadow run-time stack. The partial
 * sizes may go negative: Invariant 2 of the paper holds for the sums from an
 * entry to the top, not for each entry. */
struct frame {
    uint32_t routine;
    uint32_t recursive;
    uint64_t ts;
    int64_t rms;
    int64_t trms;
    uint64_t induced_thread;
    uint64_t induced_external;
    uint64_t cost_at_entry;
    uint64_t children_cost;
};

struct thread {
    uint32_t tid;
    struct frame *stack;        /* stack[0] is the root activation */
    size_t top;
    size_t capacity;
    struct shadow_map last_access; /* ts_t: time of the thread's latest access */
    struct u64map pending;      /* routine -> pending activations of it */
    uint64_t cost;
};

struct input_size {
    unsigned cell_shift;
    activation_sink sink;
    void *sink_ctx;
    uint64_t count;
    struct shadow_map last_write; /* wts: stamp of the latest write by anyone */
    struct thread *threads;
    size_t n_threads;
    size_t threads_capacity;
    struct thread *current;
};

struct input_size *input_size_new(unsigned cell_shift, activation_sink sink, void *ctx)
{
    struct input_size *is = xcalloc(1, sizeof *is);
    is->cell_shift = cell_shift;
    is->sink = sink;
    is->sink_ctx = ctx;
    shadow_map_init(&is->last_write);
    return is;
}

void input_size_free(struct input_size *is)
{
    if (!is)
        return;
    for (size_t i = 0; i < is->n_threads; i++) {
        free(is->threads[i].stack);
        shadow_map_free(&is->threads[i].last_access);
        u64map_free(&is->threads[i].pending);
    }
    free(is->threads);
    shadow_map_free(&is->last_write);
    free(is);
}

static struct frame *push_frame(struct input_size *is, struct thread *t, uint32_t routine)
{
    if (t->top + 1 >= t->capacity) {
        t->capacity = t->capacity ? t->capacity * 2 : 64;
        t->stack = xrealloc(t->stack, t->capacity * sizeof *t->stack);
    }
    struct frame *f = &t->stack[++t->top];
    *f = (struct frame){.routine = routine, .ts = ++is->count, .cost_at_entry = t->cost};
    return f;
}

void input_size_switch(struct input_size *is, uint32_t index, uint32_t tid)
{
    if (index == is->n_threads) {
        if (is->n_threads == is->threads_capacity) {
            is->threads_capacity = is->threads_capacity ? is->threads_capacity * 2 : 8;
            is->threads = xrealloc(is->threads, is->threads_capacity * sizeof *is->threads);
        }
        struct thread *t = &is->threads[is->n_threads++];
        *t = (struct thread){.tid = tid};
        shadow_map_init(&t->last_access);
        u64map_init(&t->pending);
        /* The root sits at index 0; push_frame pre-increments top. */
        t->top = (size_t)-1;
        is->count++;
        push_frame(is, t, ROUTINE_ROOT);
    } else {
        is->count++; /* switchThread() */
    }
    is->current = &is->threads[index];
}

void input_size_call(struct input_size *is, uint32_t routine)
{
    struct thread *t = is->current;
    uint64_t *pending = u64map_upsert(&t->pending, routine, NULL);
    struct frame *f = push_frame(is, t, routine);
    f->recursive = (*pending)++ > 0;
}

static void complete_top(struct input_size *is, struct thread *t)
{
    struct frame *f = &t->stack[t->top];
    uint64_t cost = t->cost - f->cost_at_entry;
    struct activation a = {
        .tid = t->tid,
        .routine = f->routine,
        .depth = (uint32_t)t->top,
        .recursive = f->recursive,
        .rms = (uint64_t)f->rms,
        .trms = (uint64_t)f->trms,
        .cost = cost,
        .self_cost = cost - f->children_cost,
        .induced_thread = f->induced_thread,
        .induced_external = f->induced_external,
    };
    if (f->routine != ROUTINE_ROOT)
        (*u64map_find(&t->pending, f->routine))--;
    if (t->top > 0) {
        struct frame *parent = f - 1;
        parent->rms += f->rms;
        parent->trms += f->trms;
        parent->induced_thread += f->induced_thread;
        parent->induced_external += f->induced_external;
        parent->children_cost += cost;
    }
    t->top--;
    is->sink(is->sink_ctx, &a);
}

int input_size_return(struct input_size *is)
{
    struct thread *t = is->current;
    if (!t || t->top == 0)
        return -1;
    complete_top(is, t);
    return 0;
}

/* The deepest pending activation that started at or before time TS: the
 * one whose partial sizes hold the thread's latest access at TS. */
static struct frame *frame_at(struct thread *t, uint64_t ts)
{
    size_t lo = 0, hi = t->top; /* stack[0].ts <= ts always */
    while (lo < hi) {
        size_t mid = lo + (hi - lo + 1) / 2;
        if (t->stack[mid].ts <= ts)
            lo = mid;
        else
            hi = mid - 1;
    }
    return &t->stack[lo];
}

static inline void read_cell(struct input_size *is, struct thread *t, uint64_t cell)
{
    uint64_t *own = shadow_map_slot(&t->last_access, cell);
    uint64_t last = *own;
    uint64_t stamp = *shadow_map_slot(&is->last_write, cell);
    struct frame *top = &t->stack[t->top];
    /* Written by another thread or the kernel since this thread's latest
     * access: new input for every pending activation (Figure 11, line 1). */
    int induced = last < WRITE_TIME(stamp);
    if (last < top->ts) {
        /* First access for the activations above the latest access. */
        top->rms++;
        top->trms++;
        if (last != 0) {
            struct frame *owner = frame_at(t, last);
            owner->rms--;
            if (!induced)
                owner->trms--;
        }
    } else if (induced) {
        top->trms++;
    }
    if (induced) {
        if (stamp & WRITER_KERNEL)
            top->induced_external++;
        else
            top->induced_thread++;
    }
    *own = is->count;
}

void input_size_access(struct input_size *is, enum event_type type, uint64_t addr,
                       uint64_t size)
{
    struct thread *t = is->current;
    uint64_t first = addr >> is->cell_shift;
    uint64_t last = (addr + size - 1) >> is->cell_shift;
    switch (type) {
    case EVENT_READ:
    case EVENT_KREAD: /* kernelRead(l, t) = read(l, t) (Figure 12) */
        for (uint64_t c = first;; c++) {
            read_cell(is, t, c);
            if (c == last)
                break;
        }
        break;
    case EVENT_WRITE:
        for (uint64_t c = first;; c++) {
            *shadow_map_slot(&t->last_access, c) = is->count;
            *shadow_map_slot(&is->last_write, c) = WRITE_STAMP(is->count, 0);
            if (c == last)
                break;
        }
        break;
    case EVENT_KWRITE:
        /* A stamp newer than any thread's latest access makes the next
         * read of each cell an induced one (Figure 12). */
        is->count++;
        for (uint64_t c = first;; c++) {
            *shadow_map_slot(&is->last_write, c) = WRITE_STAMP(is->count, WRITER_KERNEL);
            if (c == last)
                break;
        }
        break;
    default:
        break;
    }
}

void input_size_cost(struct input_size *is, uint64_t instructions)
{
    is->current->cost += instructions;
}

void input_size_finish(struct input_size *is)
{
    for (size_t i = 0; i < is->n_threads; i++) {
        struct thread *t = &is->threads[i];
        while (t->top != (size_t)-1)
            complete_top(is, t);
    }
}

size_t input_size_bytes(const struct input_size *is)
{
    size_t bytes = sizeof *is + shadow_map_bytes(&is->last_write) +
                   is->threads_capacity * sizeof *is->threads;
    for (size_t i = 0; i < is->n_threads; i++)
        bytes += is->threads[i].capacity * sizeof(struct frame) +
                 shadow_map_bytes(&is->threads[i].last_access) +
                 u64map_bytes(&is->threads[i].pending);
    return bytes;
}
