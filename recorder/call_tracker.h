/* call_tracker: routine activations from what a program's control flow did.
 *
 * Engines that watch machine code (the Valgrind tool, the instruction
 * decoder) see calls, returns and jumps with the stack pointer; this turns
 * them into the event trace's call and return events, one shadow stack per
 * thread, robust to what real binaries do:
 *  - a frame is popped once the stack pointer has moved above the address
 *    its return address was pushed to: an ordinary `ret`, but also
 *    `longjmp`, C++ exception unwinding and threads' stacks being cut back;
 *    a `ret` that pops nothing (`push; ret` as a jump) changes nothing;
 *  - a call into a PLT stub stays pending until control leaves the stub,
 *    and the activation is named after where it went; lazy binding (the
 *    stubs leave for the dynamic linker's resolver with their two words
 *    pushed) makes the resolver an activation of its own, which the bound
 *    routine replaces when the resolver jumps to it (trms record binds
 *    every symbol at start, so this is for programs recorded otherwise);
 *  - a jump to another function's entry with the stack pointer exactly at
 *    the current frame's return address is a tail call: the target's
 *    activation begins as a child of the jumping one, and both return at
 *    the one `ret`, so a wrapper that ends in `jmp qsort` has qsort's input
 *    and cost, as the source reads it;
 *  - a signal handler is an activation from delivery to its sigreturn (or
 *    until a longjmp out of it moves the stack pointer past the delivery
 *    point);
 *  - a call into the recorder's own code (Valgrind's preload library, whose
 *    initializers the dynamic linker runs) is no activation: what it does
 *    counts to the caller, and the routines it calls are the caller's
 *    children;
 *  - a thread's pending frames return when it exits.
 * Events go to the sink for the current thread: the caller has already
 * emitted the thread switch. */
#ifndef TRMS_CALL_TRACKER_H
#define TRMS_CALL_TRACKER_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "common/u64map.h"
#include "trace/event.h"
#include "trace/routine_table.h"

struct code_class {
    int is_plt;             /* inside a PLT stub */
    int is_function_entry;  /* the first instruction of a function */
    int is_recorder;        /* the recorder's, not the program's (Valgrind's preload) */
};

/* What the engine knows about code at ADDR (from symbols; all 0 when none). */
typedef void (*code_classifier)(void *ctx, uint64_t addr, struct code_class *out);

struct frame;

struct thread_stack {
    struct frame *frames;
    size_t depth;
    size_t capacity;
};

struct call_tracker {
    code_classifier classify;
    void *classify_ctx;
    event_sink sink;
    void *sink_ctx;
    struct routine_table *routines;  /* routines are interned by entry address */
    struct u64map stacks;            /* tid -> index into threads */
    struct thread_stack *threads;
    size_t n_threads;
    uint32_t last_tid;               /* the thread of the last lookup */
    size_t last_index;               /* its index + 1, 0 before any */
    uint64_t tail_calls;             /* statistics, for the recording's meta */
    uint64_t unwound;                /* frames popped by a stack pointer jump */
};

void call_tracker_init(struct call_tracker *t, struct routine_table *routines,
                       code_classifier classify, void *classify_ctx, event_sink sink,
                       void *sink_ctx);
void call_tracker_free(struct call_tracker *t);

/* SP is the stack pointer after the instruction: for a call, it points at
 * the pushed return address. Each returns non-zero when the sink failed. */
int call_tracker_call(struct call_tracker *t, uint32_t tid, uint64_t target, uint64_t sp,
                      struct trms_error *err);
int call_tracker_return(struct call_tracker *t, uint32_t tid, uint64_t sp,
                        struct trms_error *err);
int call_tracker_jump(struct call_tracker *t, uint32_t tid, uint64_t target, uint64_t sp,
                      struct trms_error *err);
/* SP is the stack pointer when the signal arrived, before its frame. */
int call_tracker_signal(struct call_tracker *t, uint32_t tid, uint64_t handler, uint64_t sp,
                        struct trms_error *err);
int call_tracker_sigreturn(struct call_tracker *t, uint32_t tid, struct trms_error *err);
int call_tracker_thread_exit(struct call_tracker *t, uint32_t tid, struct trms_error *err);

#endif
