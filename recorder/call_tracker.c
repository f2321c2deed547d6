/* call_tracker: shadow stacks from control flow (see call_tracker.h). */
#include "recorder/call_tracker.h"

#include <stdlib.h>

#include "common/oom.h"

enum frame_kind {
    FRAME_CALL,     /* an activation that has begun */
    FRAME_PENDING,  /* a call into a PLT stub: no activation until it leaves */
    FRAME_RESOLVER, /* the dynamic linker's lazy-binding resolver, entered from
                       the stubs: its jump to the bound routine replaces it */
    FRAME_SIGNAL,   /* a signal handler's activation */
    FRAME_HIDDEN,   /* a call into the recorder's own code: no activation */
};

struct frame {
    uint64_t sp;        /* where the return address is (signal: sp at delivery) */
    uint64_t target;    /* entry address of the activation's routine */
    enum frame_kind kind;
    int tail;           /* entered by a tail call: shares the return address of
                           the frame below, and returns with it */
};

void call_tracker_init(struct call_tracker *t, struct routine_table *routines,
                       code_classifier classify, void *classify_ctx, event_sink sink,
                       void *sink_ctx)
{
    *t = (struct call_tracker){.classify = classify, .classify_ctx = classify_ctx,
                               .sink = sink, .sink_ctx = sink_ctx, .routines = routines};
    u64map_init(&t->stacks);
}

void call_tracker_free(struct call_tracker *t)
{
    for (size_t i = 0; i < t->n_threads; i++)
        free(t->threads[i].frames);
    free(t->threads);
    u64map_free(&t->stacks);
}

/* Calls and returns come in long runs of one thread: its stack is kept at
 * hand (index + 1 in LAST_INDEX), not looked up for each. */
static struct thread_stack *stack_of(struct call_tracker *t, uint32_t tid)
{
    if (t->last_index && t->last_tid == tid)
        return &t->threads[t->last_index - 1];
    int inserted;
    uint64_t *index = u64map_upsert(&t->stacks, tid, &inserted);
    if (inserted) {
        t->threads = xrealloc(t->threads, (t->n_threads + 1) * sizeof *t->threads);
        t->threads[t->n_threads] = (struct thread_stack){0};
        *index = t->n_threads++;
    }
    t->last_tid = tid;
    t->last_index = *index + 1;
    return &t->threads[*index];
}

static struct code_class classify(struct call_tracker *t, uint64_t addr)
{
    struct code_class c = {0};
    if (t->classify)
        t->classify(t->classify_ctx, addr, &c);
    return c;
}

static int emit_call(struct call_tracker *t, uint64_t target, struct trms_error *err)
{
    struct event ev = {.type = EVENT_CALL};
    if (routine_table_intern_addr(t->routines, target, &ev.routine) != 0)
        return error_set(err, "too many routines");
    return t->sink(t->sink_ctx, &ev, err);
}

static int emit_return(struct call_tracker *t, struct trms_error *err)
{
    struct event ev = {.type = EVENT_RETURN};
    return t->sink(t->sink_ctx, &ev, err);
}

static int pop(struct call_tracker *t, struct thread_stack *s, struct trms_error *err)
{
    struct frame *f = &s->frames[--s->depth];
    return f->kind == FRAME_PENDING || f->kind == FRAME_HIDDEN ? 0 : emit_return(t, err);
}

/* Pops the frames the stack pointer has moved above; returns through
 * *POPPED how many return addresses that passed (a tail-called frame shares
 * the return address of the frame below it). */
static int pop_passed(struct call_tracker *t, struct thread_stack *s, uint64_t sp,
                      size_t *popped, struct trms_error *err)
{
    *popped = 0;
    while (s->depth > 0 && s->frames[s->depth - 1].sp < sp) {
        int tail = s->frames[s->depth - 1].tail;
        if (pop(t, s, err) != 0)
            return -1;
        *popped += !tail;
    }
    return 0;
}

static int unwind(struct call_tracker *t, struct thread_stack *s, uint64_t sp,
                  struct trms_error *err)
{
    size_t popped;
    if (pop_passed(t, s, sp, &popped, err) != 0)
        return -1;
    t->unwound += popped;
    return 0;
}

static void push(struct thread_stack *s, uint64_t sp, uint64_t target, enum frame_kind kind,
                 int tail)
{
    if (s->depth == s->capacity) {
        s->capacity = s->capacity ? 2 * s->capacity : 64;
        s->frames = xrealloc(s->frames, s->capacity * sizeof *s->frames);
    }
    s->frames[s->depth++] =
        (struct frame){.sp = sp, .target = target, .kind = kind, .tail = tail};
}

int call_tracker_call(struct call_tracker *t, uint32_t tid, uint64_t target, uint64_t sp,
                      struct trms_error *err)
{
    struct thread_stack *s = stack_of(t, tid);
    if (unwind(t, s, sp, err) != 0)
        return -1;
    struct code_class c = classify(t, target);
    if (c.is_plt || c.is_recorder) {
        push(s, sp, target, c.is_plt ? FRAME_PENDING : FRAME_HIDDEN, 0);
        return 0;
    }
    push(s, sp, target, FRAME_CALL, 0);
    return emit_call(t, target, err);
}

int call_tracker_return(struct call_tracker *t, uint32_t tid, uint64_t sp,
                        struct trms_error *err)
{
    struct thread_stack *s = stack_of(t, tid);
    size_t popped;
    if (pop_passed(t, s, sp, &popped, err) != 0)
        return -1;
    if (popped > 1)  /* one is the return itself */
        t->unwound += popped - 1;
    return 0;
}

/* Control leaves the PLT stubs for TARGET. The stubs push nothing when
 * the symbol is bound; lazy binding pushes the relocation's index and the
 * link map and enters the dynamic linker's resolver with the stack below
 * the return address. */
static int leave_stubs(struct call_tracker *t, struct frame *top, uint64_t target, uint64_t sp,
                       struct trms_error *err)
{
    top->kind = sp < top->sp ? FRAME_RESOLVER : FRAME_CALL;
    top->target = target;
    return emit_call(t, target, err);
}

int call_tracker_jump(struct call_tracker *t, uint32_t tid, uint64_t target, uint64_t sp,
                      struct trms_error *err)
{
    struct thread_stack *s = stack_of(t, tid);
    if (unwind(t, s, sp, err) != 0)
        return -1;
    if (s->depth == 0)
        return 0;
    struct frame *top = &s->frames[s->depth - 1];
    struct code_class c = classify(t, target);
    if (top->kind == FRAME_PENDING)
        return c.is_plt ? 0 /* still in the stubs (PLT0, lazy binding) */
                        : leave_stubs(t, top, target, sp, err);
    if (top->sp != sp || !(c.is_function_entry || c.is_plt))
        return 0; /* a jump inside the function */
    if (top->kind == FRAME_RESOLVER) {
        /* The resolver bound the symbol and jumps to it: the routine the
         * program called begins in the resolver's place. */
        if (emit_return(t, err) != 0)
            return -1;
        top->kind = c.is_plt ? FRAME_PENDING : FRAME_CALL;
        top->target = target;
        return c.is_plt ? 0 : emit_call(t, target, err);
    }
    if (top->kind != FRAME_CALL)
        return 0;
    /* A tail call: the target runs as a child of the jumping activation,
     * as the source reads it, and both end at the one return. */
    t->tail_calls++;
    push(s, sp, target, c.is_plt ? FRAME_PENDING : FRAME_CALL, 1);
    return c.is_plt ? 0 : emit_call(t, target, err);
}

int call_tracker_signal(struct call_tracker *t, uint32_t tid, uint64_t handler, uint64_t sp,
                        struct trms_error *err)
{
    struct thread_stack *s = stack_of(t, tid);
    if (unwind(t, s, sp, err) != 0)
        return -1;
    push(s, sp, handler, FRAME_SIGNAL, 0);
    return emit_call(t, handler, err);
}

int call_tracker_sigreturn(struct call_tracker *t, uint32_t tid, struct trms_error *err)
{
    struct thread_stack *s = stack_of(t, tid);
    size_t signal_depth = s->depth;
    while (signal_depth > 0 && s->frames[signal_depth - 1].kind != FRAME_SIGNAL)
        signal_depth--;
    if (signal_depth == 0)
        return 0;  /* the handler was left by a longjmp and already popped */
    while (s->depth >= signal_depth)
        if (pop(t, s, err) != 0)
            return -1;
    return 0;
}

int call_tracker_thread_exit(struct call_tracker *t, uint32_t tid, struct trms_error *err)
{
    struct thread_stack *s = stack_of(t, tid);
    while (s->depth > 0)
        if (pop(t, s, err) != 0)
            return -1;
    return 0;
}
