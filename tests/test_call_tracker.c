/* test_call_tracker: the shadow stacks against hand-written control flow.
 *
 * A fake classifier knows a PLT section and a few function entries; a sink
 * records the events as a compact string ("C(0x100) C(0x200) R R", calls
 * named by the address their routine id stands for), so every check
 * compares the exact sequence, and the statistics and stack depths beside
 * it. Stack pointers follow x86-64: a call's sp points at the pushed return
 * address, the matching `ret` leaves sp 8 above it. */
#include <inttypes.h>
#include <stdlib.h>

#include "common/error.h"
#include "recorder/call_tracker.h"
#include "tests/check.h"
#include "trace/routine_table.h"

/* PLT stubs live in [PLT_LO, PLT_HI); PLT0 (lazy binding) is its start. */
#define PLT_LO 0x1000u
#define PLT_HI 0x1100u
#define PLT0 0x1000u

/* The recorder's own code (Valgrind's preload): [RECORDER_LO, RECORDER_HI). */
#define RECORDER_LO 0x2000u
#define RECORDER_HI 0x2100u

/* Function entries; 0x110, 0x210, ... are instructions inside functions. */
static const uint64_t entries[] = {0x100, 0x200, 0x300, 0x400, 0x500,
                                   0x600, 0x700, 0x800, 0x900, 0xa00};

/* Stack tops: main thread, a second thread (higher, so that a shared stack
 * would let one thread's calls unwind the other's frames), an alternate
 * signal stack far below. */
#define S UINT64_C(0x7fff0000)
#define S2 UINT64_C(0x7fffff00)
#define ALT UINT64_C(0x50000000)

static void classify(void *ctx, uint64_t addr, struct code_class *out)
{
    int *calls = ctx;
    ++*calls;
    out->is_plt = addr >= PLT_LO && addr < PLT_HI;
    out->is_recorder = addr >= RECORDER_LO && addr < RECORDER_HI;
    out->is_function_entry = 0;
    for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++)
        if (entries[i] == addr)
            out->is_function_entry = 1;
}

struct recorded {
    enum event_type type;
    uint64_t addr;  /* EVENT_CALL: the routine's address, UINT64_MAX if bad */
};

struct fixture {
    struct routine_table routines;
    struct call_tracker t;
    int classify_calls;
    struct recorded *events;
    size_t n, cap;
    long budget;  /* events the sink still accepts; negative: no limit */
    char *text;
    struct trms_error err;
};

static int sink(void *ctx, const struct event *ev, struct trms_error *err)
{
    struct fixture *f = ctx;
    if (f->budget == 0)
        return error_set(err, "sink refused");
    if (f->budget > 0)
        f->budget--;
    struct recorded r = {.type = ev->type};
    if (ev->type == EVENT_CALL) {
        /* Address-only routines: the id must lead back to the target. */
        if (ev->routine < f->routines.count && f->routines.items[ev->routine].name == NULL)
            r.addr = f->routines.items[ev->routine].addr;
        else
            r.addr = UINT64_MAX;
    }
    if (f->n == f->cap) {
        f->cap = f->cap ? 2 * f->cap : 64;
        f->events = realloc(f->events, f->cap * sizeof *f->events);
        if (!f->events)
            abort();
    }
    f->events[f->n++] = r;
    return 0;
}

static void setup(struct fixture *f, int with_classifier)
{
    *f = (struct fixture){.budget = -1};
    routine_table_init(&f->routines);
    call_tracker_init(&f->t, &f->routines, with_classifier ? classify : NULL,
                      &f->classify_calls, sink, f);
}

static void teardown(struct fixture *f)
{
    call_tracker_free(&f->t);
    routine_table_free(&f->routines);
    free(f->events);
    free(f->text);
}

/* The events since the last drain, as text; forgets them. */
static const char *drain(struct fixture *f)
{
    free(f->text);
    f->text = malloc(f->n * 24 + 1);
    if (!f->text)
        abort();
    char *p = f->text;
    *p = '\0';
    for (size_t i = 0; i < f->n; i++) {
        const char *sep = i ? " " : "";
        if (f->events[i].type == EVENT_CALL)
            p += sprintf(p, "%sC(0x%" PRIx64 ")", sep, f->events[i].addr);
        else if (f->events[i].type == EVENT_RETURN)
            p += sprintf(p, "%sR", sep);
        else
            p += sprintf(p, "%s?%d", sep, (int)f->events[i].type);
    }
    f->n = 0;
    return f->text;
}

/* Frames on TID's shadow stack (0 for a thread never seen). */
static size_t depth(const struct fixture *f, uint32_t tid)
{
    const uint64_t *index = u64map_find(&f->t.stacks, tid);
    return index ? f->t.threads[*index].depth : 0;
}

/* Each operation must succeed; the macros keep the caller's line. */
#define CALL(tid, target, sp) CHECK_EQ(call_tracker_call(&f.t, (tid), (target), (sp), &f.err), 0)
#define RET(tid, sp) CHECK_EQ(call_tracker_return(&f.t, (tid), (sp), &f.err), 0)
#define JUMP(tid, target, sp) CHECK_EQ(call_tracker_jump(&f.t, (tid), (target), (sp), &f.err), 0)
#define SIGNAL(tid, handler, sp)                                                           \
    CHECK_EQ(call_tracker_signal(&f.t, (tid), (handler), (sp), &f.err), 0)
#define SIGRETURN(tid) CHECK_EQ(call_tracker_sigreturn(&f.t, (tid), &f.err), 0)
#define EXIT(tid) CHECK_EQ(call_tracker_thread_exit(&f.t, (tid), &f.err), 0)
#define EXPECT(text) CHECK_STR(drain(&f), (text))

static void nested_calls(void)
{
    struct fixture f;
    setup(&f, 1);
    CALL(1, 0x100, S);
    CALL(1, 0x200, S - 0x20);
    CALL(1, 0x300, S - 0x40);
    EXPECT("C(0x100) C(0x200) C(0x300)");
    CHECK_EQ(depth(&f, 1), 3);
    RET(1, S - 0x40 + 8);
    EXPECT("R");
    /* A sibling at the same depth, then everything returns one by one. */
    CALL(1, 0x400, S - 0x40);
    EXPECT("C(0x400)");
    RET(1, S - 0x38);
    EXPECT("R");
    RET(1, S - 0x18);
    EXPECT("R");
    CHECK_EQ(depth(&f, 1), 1);
    RET(1, S + 8);
    EXPECT("R");
    CHECK_EQ(depth(&f, 1), 0);
    /* The outermost function (no frame) returning pops nothing. */
    RET(1, S + 0x100);
    EXPECT("");
    /* Routines are interned once per address. */
    CHECK_EQ(f.routines.count, 4);
    CALL(1, 0x200, S);
    CALL(1, 0x200, S - 0x10);
    EXPECT("C(0x200) C(0x200)");
    CHECK_EQ(f.routines.count, 4);
    RET(1, S - 8);
    RET(1, S + 8);
    EXPECT("R R");
    CHECK_EQ(f.t.unwound, 0);
    CHECK_EQ(f.t.tail_calls, 0);
    teardown(&f);
}

static void push_ret_is_a_jump(void)
{
    struct fixture f;
    setup(&f, 1);
    CALL(1, 0x100, S);
    CALL(1, 0x200, S - 0x20);
    EXPECT("C(0x100) C(0x200)");
    /* `push x; ret` inside 0x200 with a local frame: sp below the frame. */
    RET(1, S - 0x30);
    EXPECT("");
    /* ... and in a frameless 0x200: sp back exactly at its return address,
     * which is still on the stack. */
    RET(1, S - 0x20);
    EXPECT("");
    CHECK_EQ(depth(&f, 1), 2);
    /* The real returns still match their frames. */
    RET(1, S - 0x18);
    EXPECT("R");
    RET(1, S + 8);
    EXPECT("R");
    CHECK_EQ(f.t.unwound, 0);
    teardown(&f);
}

static void longjmp_by_jump(void)
{
    struct fixture f;
    setup(&f, 1);
    CALL(1, 0x100, S);
    CALL(1, 0x200, S - 0x20);
    CALL(1, 0x300, S - 0x40);
    CALL(1, 0x400, S - 0x60);
    EXPECT("C(0x100) C(0x200) C(0x300) C(0x400)");
    /* longjmp back into 0x100 (its sp, below 0x100's return address). */
    JUMP(1, 0x110, S - 0x18);
    EXPECT("R R R");
    CHECK_EQ(f.t.unwound, 3);
    CHECK_EQ(f.t.tail_calls, 0);
    CHECK_EQ(depth(&f, 1), 1);
    /* The next call is a child of 0x100: one return closes it, the next
     * closes 0x100, and nothing is left. */
    CALL(1, 0x500, S - 0x20);
    EXPECT("C(0x500)");
    RET(1, S - 0x18);
    EXPECT("R");
    RET(1, S + 8);
    EXPECT("R");
    RET(1, S + 0x1000);
    EXPECT("");
    CHECK_EQ(f.t.unwound, 3);

    /* A longjmp that lands between frames pops only those below it. */
    CALL(1, 0x100, S);
    CALL(1, 0x200, S - 0x20);
    CALL(1, 0x300, S - 0x40);
    EXPECT("C(0x100) C(0x200) C(0x300)");
    JUMP(1, 0x210, S - 0x38);
    EXPECT("R");
    CHECK_EQ(f.t.unwound, 4);
    CHECK_EQ(depth(&f, 1), 2);
    RET(1, S - 0x18);
    RET(1, S + 8);
    EXPECT("R R");
    teardown(&f);
}

static void longjmp_by_call_and_return(void)
{
    struct fixture f;
    setup(&f, 1);
    CALL(1, 0x100, S);
    CALL(1, 0x200, S - 0x20);
    CALL(1, 0x300, S - 0x40);
    CALL(1, 0x400, S - 0x60);
    EXPECT("C(0x100) C(0x200) C(0x300) C(0x400)");
    /* A call whose sp is above two frames (the stack was cut back without
     * a jump being seen): they return before the new activation, which is
     * then a child of 0x200. */
    CALL(1, 0x500, S - 0x30);
    EXPECT("R R C(0x500)");
    CHECK_EQ(f.t.unwound, 2);
    CHECK_EQ(depth(&f, 1), 3);
    RET(1, S - 0x28);
    EXPECT("R");
    /* A return that pops three frames: 0x200, 0x100 and nothing more;
     * unwound counts the two beyond the return itself. */
    CALL(1, 0x600, S - 0x40);
    EXPECT("C(0x600)");
    RET(1, S + 8);
    EXPECT("R R R");
    CHECK_EQ(f.t.unwound, 4);
    CHECK_EQ(depth(&f, 1), 0);
    /* A plain return adds nothing to unwound. */
    CALL(1, 0x100, S);
    RET(1, S + 8);
    EXPECT("C(0x100) R");
    CHECK_EQ(f.t.unwound, 4);
    CHECK_EQ(f.t.tail_calls, 0);
    teardown(&f);
}

static void plt(void)
{
    struct fixture f;
    setup(&f, 1);
    CALL(1, 0x100, S);
    EXPECT("C(0x100)");
    /* Eager binding: call the stub, which jumps to the target. */
    CALL(1, PLT_LO + 0x10, S - 0x20);
    EXPECT("");
    CHECK_EQ(depth(&f, 1), 2);
    JUMP(1, 0x300, S - 0x20);
    EXPECT("C(0x300)");
    RET(1, S - 0x18);
    EXPECT("R");
    CHECK_EQ(depth(&f, 1), 1);

    /* Lazy binding: stub -> PLT0 (after pushing the index) -> resolver,
     * which calls _dl_fixup and then tail-calls the resolved function. */
    CALL(1, PLT_LO + 0x20, S - 0x20);
    JUMP(1, PLT0, S - 0x28);
    EXPECT("");
    JUMP(1, 0x980, S - 0x30);  /* the resolver: not PLT, not an entry */
    EXPECT("C(0x980)");
    CALL(1, 0xa00, S - 0x100);
    RET(1, S - 0xf8);
    EXPECT("C(0xa00) R");
    JUMP(1, 0x400, S - 0x20);
    EXPECT("R C(0x400)");
    CHECK_EQ(f.t.tail_calls, 0);
    RET(1, S - 0x18);
    EXPECT("R");
    CHECK_EQ(depth(&f, 1), 1);

    /* A pending stub frame popped by sp (longjmp from the resolver before
     * it chose a target) returns nothing: it never began. */
    CALL(1, PLT_LO + 0x30, S - 0x20);
    JUMP(1, PLT0, S - 0x28);
    EXPECT("");
    JUMP(1, 0x110, S - 0x18);
    EXPECT("");
    CHECK_EQ(f.t.unwound, 1);
    CHECK_EQ(depth(&f, 1), 1);
    /* ... also among other frames: only the begun ones return. */
    CALL(1, 0x200, S - 0x20);
    CALL(1, PLT_LO + 0x40, S - 0x40);
    EXPECT("C(0x200)");
    RET(1, S - 0x18);
    EXPECT("R");
    CHECK_EQ(f.t.unwound, 2);
    RET(1, S + 8);
    EXPECT("R");
    CHECK_EQ(depth(&f, 1), 0);

    /* No stub address was ever named as a routine. */
    for (size_t i = 0; i < f.routines.count; i++)
        CHECK(f.routines.items[i].addr < PLT_LO || f.routines.items[i].addr >= PLT_HI);
    CHECK_EQ(f.t.tail_calls, 0);
    teardown(&f);
}

/* A call into the recorder's code is no activation: what it calls are the
 * caller's children, its return returns nothing, and an unwinding past it
 * returns only the activations that began. */
static void recorder_code(void)
{
    struct fixture f;
    setup(&f, 1);
    CALL(1, 0x100, S);
    CALL(1, RECORDER_LO + 0x10, S - 0x20);
    EXPECT("C(0x100)");
    CHECK_EQ(depth(&f, 1), 2);
    CALL(1, 0x300, S - 0x40);  /* __libc_freeres, called from the preload */
    RET(1, S - 0x38);
    EXPECT("C(0x300) R");
    JUMP(1, RECORDER_LO + 0x80, S - 0x20);  /* a jump inside it */
    EXPECT("");
    RET(1, S - 0x18);  /* back in 0x100 */
    EXPECT("");
    CHECK_EQ(depth(&f, 1), 1);
    CALL(1, RECORDER_LO, S - 0x20);
    CALL(1, 0x400, S - 0x40);
    EXPECT("C(0x400)");
    RET(1, S + 8);  /* unwound past 0x400, the preload's frame and 0x100 */
    EXPECT("R R");
    CHECK_EQ(depth(&f, 1), 0);
    for (size_t i = 0; i < f.routines.count; i++)
        CHECK(f.routines.items[i].addr < RECORDER_LO || f.routines.items[i].addr >= RECORDER_HI);
    teardown(&f);
}

static void tail_calls(void)
{
    struct fixture f;
    setup(&f, 1);
    CALL(1, 0x100, S);
    CALL(1, 0x200, S - 0x20);
    EXPECT("C(0x100) C(0x200)");
    /* 0x200 tears down its frame and jumps to 0x300's entry: 0x300 runs as
     * its child, as the source reads it. */
    JUMP(1, 0x300, S - 0x20);
    EXPECT("C(0x300)");
    CHECK_EQ(f.t.tail_calls, 1);
    CHECK_EQ(depth(&f, 1), 3);
    /* 0x300 in turn tail-calls 0x400 from the same frame: a grandchild. */
    JUMP(1, 0x400, S - 0x20);
    EXPECT("C(0x400)");
    CHECK_EQ(f.t.tail_calls, 2);
    CHECK_EQ(depth(&f, 1), 4);
    /* Not tail calls: an entry with sp below the frame (a jump inside a
     * function that has a frame), a non-entry at the frame's sp (a loop in
     * a frameless function) or below it... */
    JUMP(1, 0x300, S - 0x30);
    JUMP(1, 0x410, S - 0x20);
    JUMP(1, 0x420, S - 0x28);
    EXPECT("");
    CHECK_EQ(f.t.tail_calls, 2);
    CHECK_EQ(depth(&f, 1), 4);
    /* ... and the one `ret` ends the three activations, innermost first;
     * nothing was unwound. */
    RET(1, S - 0x18);
    EXPECT("R R R");
    CHECK_EQ(depth(&f, 1), 1);
    CHECK_EQ(f.t.unwound, 0);

    /* A tail call into a PLT stub: the frame waits in the stubs, and the
     * jump out names the child. */
    CALL(1, 0x200, S - 0x20);
    EXPECT("C(0x200)");
    JUMP(1, PLT_LO + 0x50, S - 0x20);
    EXPECT("");
    CHECK_EQ(f.t.tail_calls, 3);
    CHECK_EQ(depth(&f, 1), 3);
    JUMP(1, PLT_LO + 0x60, S - 0x20);  /* still in the stubs */
    EXPECT("");
    JUMP(1, 0x500, S - 0x20);
    EXPECT("C(0x500)");
    CHECK_EQ(f.t.tail_calls, 3);
    RET(1, S - 0x18);
    EXPECT("R R");
    CHECK_EQ(depth(&f, 1), 1);

    /* ... through lazy binding: the resolver is the child until it jumps to
     * the routine it bound, which takes its place. */
    CALL(1, 0x200, S - 0x20);
    JUMP(1, PLT_LO + 0x50, S - 0x20);
    JUMP(1, PLT0, S - 0x28);
    JUMP(1, 0x980, S - 0x30);
    EXPECT("C(0x200) C(0x980)");
    JUMP(1, 0x600, S - 0x20);
    EXPECT("R C(0x600)");
    CHECK_EQ(f.t.tail_calls, 4);
    CHECK_EQ(depth(&f, 1), 3);
    RET(1, S - 0x18);
    EXPECT("R R");

    /* A longjmp past a tail-called chain ends it all, and counts its
     * return addresses, not its activations. */
    CALL(1, 0x200, S - 0x20);
    JUMP(1, 0x300, S - 0x20);
    CALL(1, 0x700, S - 0x40);
    JUMP(1, 0x800, S - 0x40);
    EXPECT("C(0x200) C(0x300) C(0x700) C(0x800)");
    CHECK_EQ(depth(&f, 1), 5);
    JUMP(1, 0x110, S - 0x10);
    EXPECT("R R R R");
    CHECK_EQ(f.t.unwound, 2);
    RET(1, S + 8);
    EXPECT("R");

    /* With no frame there is nothing to nest under. */
    JUMP(1, 0x300, S);
    JUMP(1, 0x300, S + 8);
    EXPECT("");
    CHECK_EQ(depth(&f, 1), 0);
    CHECK_EQ(f.t.tail_calls, 6);
    CHECK_EQ(f.t.unwound, 2);
    teardown(&f);
}

static void signals(void)
{
    struct fixture f;
    setup(&f, 1);
    CALL(1, 0x100, S);
    CALL(1, 0x200, S - 0x20);
    EXPECT("C(0x100) C(0x200)");
    /* Delivered inside 0x200: the handler is its child. */
    SIGNAL(1, 0x700, S - 0x40);
    EXPECT("C(0x700)");
    CHECK_EQ(depth(&f, 1), 3);
    CALL(1, 0x300, S - 0x400);
    CALL(1, 0x400, S - 0x420);
    RET(1, S - 0x418);
    RET(1, S - 0x3f8);
    EXPECT("C(0x300) C(0x400) R R");
    /* The handler's own `ret` (into the restorer) is below the delivery
     * sp: the handler's activation goes on until sigreturn. */
    RET(1, S - 0x200);
    EXPECT("");
    CHECK_EQ(depth(&f, 1), 3);
    SIGRETURN(1);
    EXPECT("R");
    CHECK_EQ(depth(&f, 1), 2);
    /* The interrupted frames are intact. */
    RET(1, S - 0x18);
    EXPECT("R");
    RET(1, S + 8);
    EXPECT("R");

    /* sigreturn pops the handler's callees that never returned too, and
     * nothing below the signal frame. */
    CALL(1, 0x100, S);
    SIGNAL(1, 0x700, S - 0x40);
    CALL(1, 0x300, S - 0x400);
    CALL(1, 0x400, S - 0x420);
    EXPECT("C(0x100) C(0x700) C(0x300) C(0x400)");
    SIGRETURN(1);
    EXPECT("R R R");
    CHECK_EQ(depth(&f, 1), 1);
    /* No signal frame left: sigreturn changes nothing. */
    SIGRETURN(1);
    EXPECT("");
    CHECK_EQ(depth(&f, 1), 1);
    RET(1, S + 8);
    EXPECT("R");
    CHECK_EQ(f.t.unwound, 0);

    /* A signal at a function's first instruction (sp at its return
     * address) leaves that frame. */
    CALL(1, 0x100, S);
    SIGNAL(1, 0x700, S);
    EXPECT("C(0x100) C(0x700)");
    /* The signal frame's sp is where the program stopped, not a return
     * address: a jump to an entry at that sp does not replace the handler. */
    JUMP(1, 0x300, S);
    EXPECT("");
    CHECK_EQ(f.t.tail_calls, 0);
    CHECK_EQ(depth(&f, 1), 2);
    SIGRETURN(1);
    EXPECT("R");
    RET(1, S + 8);
    EXPECT("R");
    CHECK_EQ(f.t.unwound, 0);
    teardown(&f);
}

static void signal_longjmp_and_nesting(void)
{
    struct fixture f;
    setup(&f, 1);
    /* siglongjmp out of a handler back into 0x100: the handler's callee,
     * the handler and 0x200 return, in that order. */
    CALL(1, 0x100, S);
    CALL(1, 0x200, S - 0x20);
    SIGNAL(1, 0x700, S - 0x40);
    CALL(1, 0x300, S - 0x400);
    EXPECT("C(0x100) C(0x200) C(0x700) C(0x300)");
    JUMP(1, 0x110, S - 0x18);
    EXPECT("R R R");
    CHECK_EQ(f.t.unwound, 3);
    CHECK_EQ(depth(&f, 1), 1);
    /* No sigreturn follows; if one came it must not pop 0x100. */
    SIGRETURN(1);
    EXPECT("");
    CHECK_EQ(depth(&f, 1), 1);

    /* A signal during a handler: each sigreturn ends its own handler. */
    SIGNAL(1, 0x700, S - 0x40);
    CALL(1, 0x300, S - 0x400);
    SIGNAL(1, 0x800, S - 0x480);
    CALL(1, 0x400, S - 0x800);
    EXPECT("C(0x700) C(0x300) C(0x800) C(0x400)");
    RET(1, S - 0x7f8);
    EXPECT("R");
    SIGRETURN(1);
    EXPECT("R");
    CHECK_EQ(depth(&f, 1), 3);
    RET(1, S - 0x3f8);
    EXPECT("R");
    SIGRETURN(1);
    EXPECT("R");
    CHECK_EQ(depth(&f, 1), 1);

    /* A handler on an alternate stack far below: its calls and returns do
     * not touch the main stack's frames. */
    CALL(1, 0x200, S - 0x20);
    SIGNAL(1, 0x700, S - 0x40);
    CALL(1, 0x300, ALT - 0x200);
    CALL(1, 0x400, ALT - 0x220);
    RET(1, ALT - 0x218);
    RET(1, ALT - 0x1f8);
    RET(1, ALT - 0x100);  /* the handler's own `ret` */
    EXPECT("C(0x200) C(0x700) C(0x300) C(0x400) R R");
    CHECK_EQ(depth(&f, 1), 3);
    SIGRETURN(1);
    EXPECT("R");
    RET(1, S - 0x18);
    RET(1, S + 8);
    EXPECT("R R");
    CHECK_EQ(depth(&f, 1), 0);

    /* A signal while in a PLT stub: the pending frame survives the
     * handler, and the stub's jump still names the callee. */
    CALL(1, 0x100, S);
    CALL(1, PLT_LO + 0x10, S - 0x20);
    SIGNAL(1, 0x700, S - 0x20);
    EXPECT("C(0x100) C(0x700)");
    SIGRETURN(1);
    EXPECT("R");
    JUMP(1, 0x300, S - 0x20);
    EXPECT("C(0x300)");
    RET(1, S - 0x18);
    RET(1, S + 8);
    EXPECT("R R");

    /* A signal delivered with sp above frames (their return was not seen)
     * pops them first. */
    CALL(1, 0x100, S);
    CALL(1, 0x200, S - 0x20);
    SIGNAL(1, 0x700, S - 0x10);
    EXPECT("C(0x100) C(0x200) R C(0x700)");
    CHECK_EQ(f.t.unwound, 4);
    SIGRETURN(1);
    EXPECT("R");
    RET(1, S + 8);
    EXPECT("R");
    CHECK_EQ(f.t.unwound, 4);
    CHECK_EQ(f.t.tail_calls, 0);
    teardown(&f);
}

static void threads(void)
{
    struct fixture f;
    setup(&f, 1);
    /* Interleaved: thread 2's stack is above thread 1's, so any sharing
     * would let one's calls unwind the other's frames. */
    CALL(1, 0x100, S);
    CALL(2, 0x200, S2);
    CALL(1, 0x300, S - 0x20);
    CALL(2, 0x400, S2 - 0x20);
    EXPECT("C(0x100) C(0x200) C(0x300) C(0x400)");
    CHECK_EQ(depth(&f, 1), 2);
    CHECK_EQ(depth(&f, 2), 2);
    RET(1, S - 0x18);
    EXPECT("R");
    CHECK_EQ(depth(&f, 2), 2);
    RET(2, S2 - 0x18);
    EXPECT("R");
    CALL(1, 0x500, S - 0x20);
    CALL(1, PLT_LO + 0x10, S - 0x40);  /* pending at exit: no return */
    CALL(2, 0x600, S2 - 0x20);
    EXPECT("C(0x500) C(0x600)");
    CHECK_EQ(f.t.unwound, 0);
    /* Thread 1 exits: its begun activations return, thread 2's stay. */
    EXIT(1);
    EXPECT("R R");
    CHECK_EQ(depth(&f, 1), 0);
    CHECK_EQ(depth(&f, 2), 2);
    RET(2, S2 - 0x18);
    RET(2, S2 + 8);
    EXPECT("R R");
    /* Exits of threads with no frames, or never seen, emit nothing. */
    EXIT(2);
    EXIT(9);
    EXPECT("");
    /* A reused tid starts from an empty stack. */
    CALL(1, 0x100, S);
    RET(1, S + 8);
    EXPECT("C(0x100) R");
    CHECK_EQ(f.t.unwound, 0);

    /* Many threads (the thread table grows under the stacks), each with
     * its own frames, unwound independently. */
    enum { THREADS = 300 };
    for (uint32_t tid = 0; tid < THREADS; tid++) {
        uint64_t top = S2 - (uint64_t)tid * 0x100000;
        CALL(tid, 0x100 + 0x100 * (tid % 3), top);
        CALL(tid, 0x400, top - 0x20);
    }
    CHECK_EQ(f.n, 2 * THREADS);
    drain(&f);
    CALL(UINT32_MAX, 0x500, S);  /* the largest tid is a tid too */
    EXPECT("C(0x500)");
    for (uint32_t tid = 0; tid < THREADS; tid++)
        CHECK_EQ(depth(&f, tid), 2);
    for (uint32_t tid = 0; tid < THREADS; tid += 2)
        RET(tid, S2 - (uint64_t)tid * 0x100000 - 0x18);
    CHECK_EQ(f.n, THREADS / 2);
    drain(&f);
    for (uint32_t tid = 0; tid < THREADS; tid++)
        CHECK_EQ(depth(&f, tid), tid % 2 ? 2 : 1);
    for (uint32_t tid = 0; tid < THREADS; tid++)
        EXIT(tid);
    CHECK_EQ(f.n, THREADS / 2 * 2 + THREADS / 2);
    drain(&f);
    CHECK_EQ(depth(&f, UINT32_MAX), 1);
    EXIT(UINT32_MAX);
    EXPECT("R");
    CHECK_EQ(f.t.unwound, 0);
    teardown(&f);
}

/* Every operation that emits an event reports the sink's failure; those
 * that emit nothing do not call it. */
static void failing_sink(void)
{
    struct fixture f;
    setup(&f, 1);
#define FAILS(expr)                                                                        \
    do {                                                                                   \
        f.err.message[0] = '\0';                                                           \
        CHECK_EQ((expr), -1);                                                              \
        CHECK_STR(f.err.message, "sink refused");                                          \
    } while (0)
    f.budget = 0;
    FAILS(call_tracker_call(&f.t, 1, 0x100, S, &f.err));
    /* Emitting nothing succeeds even so. */
    CALL(1, PLT_LO + 0x10, S - 0x20);
    JUMP(1, PLT0, S - 0x28);
    RET(1, S - 0x30);
    SIGRETURN(1);
    EXIT(5);
    /* The jump out of the stub names its callee: that fails. */
    FAILS(call_tracker_jump(&f.t, 1, 0x300, S - 0x20, &f.err));
    JUMP(1, 0x310, S - 0x30);
    FAILS(call_tracker_return(&f.t, 1, S - 0x18, &f.err));
    FAILS(call_tracker_signal(&f.t, 1, 0x700, S - 0x40, &f.err));
    FAILS(call_tracker_sigreturn(&f.t, 1, &f.err));
    FAILS(call_tracker_thread_exit(&f.t, 1, &f.err));
    CHECK_EQ(f.n, 0);

    /* The resolver's jump to the bound routine fails on the resolver's
     * return, or on the routine's call once that went through. */
    f.budget = -1;
    CALL(3, 0x100, S);
    CALL(3, PLT_LO + 0x10, S - 0x20);
    JUMP(3, PLT0, S - 0x28);
    JUMP(3, 0x980, S - 0x30);
    EXPECT("C(0x100) C(0x980)");
    f.budget = 0;
    FAILS(call_tracker_jump(&f.t, 3, 0x300, S - 0x20, &f.err));
    f.budget = -1;
    RET(3, S - 0x18);
    RET(3, S + 8);
    EXPECT("R R");
    CALL(3, 0x100, S);
    CALL(3, PLT_LO + 0x10, S - 0x20);
    JUMP(3, PLT0, S - 0x28);
    JUMP(3, 0x980, S - 0x30);
    EXPECT("C(0x100) C(0x980)");
    f.budget = 1;
    FAILS(call_tracker_jump(&f.t, 3, 0x300, S - 0x20, &f.err));
    EXPECT("R");

    /* A tail call fails on its call, and on its returns. */
    f.budget = -1;
    CALL(2, 0x100, S);
    CALL(2, 0x200, S - 0x20);
    EXPECT("C(0x100) C(0x200)");
    f.budget = 0;
    FAILS(call_tracker_jump(&f.t, 2, 0x300, S - 0x20, &f.err));
    EXPECT("");
    FAILS(call_tracker_jump(&f.t, 2, 0x400, S - 0x20, &f.err));
    FAILS(call_tracker_call(&f.t, 2, 0x400, S - 0x10, &f.err));  /* unwinds */
    FAILS(call_tracker_jump(&f.t, 2, 0x110, S + 0x100, &f.err)); /* longjmp */
    CHECK_EQ(f.n, 0);
#undef FAILS
    /* A tracker left mid-way by failures is still freed cleanly. */
    teardown(&f);
}

/* With no symbols every address is plain code: calls begin at once and
 * jumps are never tail calls. */
static void no_classifier(void)
{
    struct fixture f;
    setup(&f, 0);
    CALL(1, 0x100, S);
    CALL(1, PLT_LO + 0x10, S - 0x20);
    EXPECT("C(0x100) C(0x1010)");
    JUMP(1, 0x300, S - 0x20);
    JUMP(1, PLT0, S - 0x20);
    EXPECT("");
    RET(1, S - 0x18);
    RET(1, S + 8);
    EXPECT("R R");
    CHECK_EQ(f.t.tail_calls, 0);
    CHECK_EQ(f.classify_calls, 0);
    teardown(&f);
}

static void deep_recursion(void)
{
    struct fixture f;
    setup(&f, 1);
    enum { N = 100000 };
    for (uint64_t i = 0; i < N; i++)
        CALL(1, 0x100 + 0x100 * (i % 2), S - 0x20 * i);
    CHECK_EQ(f.n, N);
    size_t bad = 0;
    for (size_t i = 0; i < f.n; i++)
        bad += f.events[i].type != EVENT_CALL || f.events[i].addr != 0x100 + 0x100 * (i % 2);
    CHECK_EQ(bad, 0);
    CHECK_EQ(f.routines.count, 2);
    CHECK_EQ(depth(&f, 1), N);
    f.n = 0;
    /* Each return pops exactly its own frame. */
    for (uint64_t i = N; i-- > 0;) {
        RET(1, S - 0x20 * i + 8);
        if (f.n != N - i || depth(&f, 1) != i) {
            CHECK_EQ(f.n, N - i);
            break;
        }
    }
    CHECK_EQ(depth(&f, 1), 0);
    bad = 0;
    for (size_t i = 0; i < f.n; i++)
        bad += f.events[i].type != EVENT_RETURN;
    CHECK_EQ(bad, 0);
    CHECK_EQ(f.t.unwound, 0);
    f.n = 0;

    /* Again, then one longjmp to the top unwinds every frame. */
    for (uint64_t i = 0; i < N; i++)
        CALL(1, 0x300, S - 0x10 * i);
    f.n = 0;
    JUMP(1, 0x110, S + 8);
    CHECK_EQ(f.n, N);
    CHECK_EQ(f.t.unwound, N);
    CHECK_EQ(depth(&f, 1), 0);
    teardown(&f);
}

int main(void)
{
    nested_calls();
    push_ret_is_a_jump();
    longjmp_by_jump();
    longjmp_by_call_and_return();
    plt();
    recorder_code();
    tail_calls();
    signals();
    signal_longjmp_and_nesting();
    threads();
    failing_sink();
    no_classifier();
    deep_recursion();
    return check_report("test_call_tracker");
}
