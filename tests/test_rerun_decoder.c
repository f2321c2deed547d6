/* test_rerun_decoder: hand-built rr rerun records through the decoder,
 * against the exact events the ISA says each instruction produces.
 *
 * A fake program supplies code bytes (hand-assembled, the assembly beside
 * them), memory for the few reads the decoder makes (rt_sigaction's
 * handler, clone3's arguments, readv's iovec), and symbols (function
 * entries, a PLT). Each step is a record of the thread's registers after
 * one instruction; the events it caused are compared as text:
 *
 *   t1          thread switch        r0x1000/8   load of 8 bytes
 *   w.. kr.. kw..  store, kernel read, kernel write
 *   c0x401000   call of the routine entered at that address
 *   x           return               $3          3 instructions of cost
 *
 * Expected addresses are computed here from the ISA (base + index * scale
 * + displacement, the next instruction for rip-relative operands, the
 * stack slot below rsp for a push...), never taken from the decoder. */
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/error.h"
#include "replayer/rerun_decoder.h"
#include "replayer/rerun_stream.h"
#include "tests/check.h"
#include "trace/routine_table.h"

#define CODE UINT64_C(0x400000)
#define CODE_SIZE 0x8000
#define STACK UINT64_C(0x7ffd0000)
#define FS_BASE UINT64_C(0x7f0000000000)
#define GS_BASE UINT64_C(0x7e0000000000)

/* Symbols: functions [entry, entry + 0x100), and a PLT. */
#define F1 (CODE + 0x1000)
#define F2 (CODE + 0x2000)
#define PLT (CODE + 0x3000)
#define PLT_END (CODE + 0x3100)
#define F3 (CODE + 0x6000)
#define G (CODE + 0x4000)
#define HANDLER (CODE + 0x5000)
#define RESTORER (CODE + 0x5800)
static const uint64_t function_entries[] = {F1, F2, F3, G, HANDLER};

#define ENOSYS_RESULT ((uint64_t)-38)

struct region {
    uint64_t addr;
    uint8_t bytes[64];
    size_t n;
};

struct fake {
    uint8_t code[CODE_SIZE];
    unsigned code_reads[CODE_SIZE];
    struct region memory[4];
    size_t n_memory;
    struct routine_table routines;
    struct rerun_decoder *d;
    struct rerun_summary summary;
    char text[8192];
    size_t len;
    int sink_budget;  /* events the sink still accepts; negative: no limit */
    struct trms_error err;
};

/* ---- the fake program ---- */

static size_t read_code(void *ctx, uint64_t addr, uint8_t *buf, size_t size)
{
    struct fake *f = ctx;
    if (addr < CODE || addr >= CODE + CODE_SIZE)
        return 0;
    f->code_reads[addr - CODE]++;
    size_t n = CODE + CODE_SIZE - addr < size ? (size_t)(CODE + CODE_SIZE - addr) : size;
    memcpy(buf, f->code + (addr - CODE), n);
    return n;
}

static int read_memory(void *ctx, uint64_t addr, void *buf, uint64_t size)
{
    struct fake *f = ctx;
    for (size_t i = 0; i < f->n_memory; i++) {
        struct region *r = &f->memory[i];
        if (addr >= r->addr && addr + size <= r->addr + r->n) {
            memcpy(buf, r->bytes + (addr - r->addr), size);
            return 0;
        }
    }
    return -1;
}

static void classify(void *ctx, uint64_t addr, struct code_class *out)
{
    (void)ctx;
    out->is_plt = addr >= PLT && addr < PLT_END;
    out->is_function_entry = 0;
    for (size_t i = 0; i < sizeof function_entries / sizeof function_entries[0]; i++)
        out->is_function_entry |= addr == function_entries[i];
}

static uint64_t function_of(void *ctx, uint64_t addr)
{
    (void)ctx;
    for (size_t i = 0; i < sizeof function_entries / sizeof function_entries[0]; i++)
        if (addr >= function_entries[i] && addr < function_entries[i] + 0x100)
            return function_entries[i];
    return 0;
}

static void put_memory(struct fake *f, uint64_t addr, const void *bytes, size_t n)
{
    struct region *r = &f->memory[f->n_memory++];
    r->addr = addr;
    r->n = n;
    memcpy(r->bytes, bytes, n);
}

static void put_u64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* Places the instruction bytes HEX ("48 8b 03") at ADDR; returns the length. */
static uint64_t at(struct fake *f, uint64_t addr, const char *hex)
{
    uint64_t n = 0;
    for (const char *p = hex; *p;) {
        char *end;
        unsigned long byte = strtoul(p, &end, 16);
        if (end == p)
            break;
        f->code[addr - CODE + n++] = (uint8_t)byte;
        p = end;
    }
    return n;
}

/* ---- the event log ---- */

static void log_text(struct fake *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (f->len && f->len < sizeof f->text - 1)
        f->text[f->len++] = ' ';
    int n = vsnprintf(f->text + f->len, sizeof f->text - f->len, fmt, ap);
    va_end(ap);
    if (n > 0)
        f->len += (size_t)n;
    if (f->len >= sizeof f->text)
        f->len = sizeof f->text - 1;
}

static int sink(void *ctx, const struct event *ev, struct trms_error *err)
{
    struct fake *f = ctx;
    if (f->sink_budget == 0)
        return error_set(err, "sink refused");
    if (f->sink_budget > 0)
        f->sink_budget--;
    static const char *access[] = {[EVENT_READ] = "r", [EVENT_WRITE] = "w", [EVENT_KREAD] = "kr",
                                   [EVENT_KWRITE] = "kw"};
    switch (ev->type) {
    case EVENT_THREAD:
        log_text(f, "t%" PRIu32, ev->tid);
        break;
    case EVENT_CALL:
        log_text(f, "c0x%" PRIx64, f->routines.items[ev->routine].addr);
        break;
    case EVENT_RETURN:
        log_text(f, "x");
        break;
    case EVENT_COST:
        log_text(f, "$%" PRIu64, ev->size);
        break;
    default:
        log_text(f, "%s0x%" PRIx64 "/%" PRIu64, access[ev->type], ev->addr, ev->size);
        break;
    }
    return 0;
}

/* The events since the last call; forgets them. */
static const char *drain(struct fake *f)
{
    static char copy[sizeof ((struct fake *)0)->text];
    memcpy(copy, f->text, f->len + 1);
    f->len = 0;
    f->text[0] = '\0';
    return copy;
}

#define EXPECT(f, ...)                                                                     \
    do {                                                                                   \
        char want_[2048];                                                                  \
        snprintf(want_, sizeof want_, __VA_ARGS__);                                        \
        CHECK_STR(drain(f), want_);                                                        \
    } while (0)

/* ---- set-up ---- */

static struct fake *make_with(uint32_t xsave_bytes, int with_memory)
{
    struct fake *f = calloc(1, sizeof *f);
    if (!f)
        abort();
    f->sink_budget = -1;
    routine_table_init(&f->routines);
    struct rerun_decoder_config cfg = {
        .read_code = read_code, .read_memory = with_memory ? read_memory : NULL,
        .classify = classify, .function_of = function_of, .ctx = f,
        .sink = sink, .sink_ctx = f, .routines = &f->routines, .xsave_bytes = xsave_bytes,
    };
    f->d = rerun_decoder_new(&cfg, &f->summary, &f->err);
    if (!f->d) {
        fprintf(stderr, "%s\n", f->err.message);
        abort();
    }
    return f;
}

static struct fake *make(void)
{
    return make_with(0, 1);
}

static void go(struct fake *f, const struct rerun_record *r)
{
    struct trms_error err = {0};
    int rc = rerun_decoder_record(f->d, r, &err);
    if (rc != 0)
        fprintf(stderr, "record failed: %s\n", err.message);
    CHECK_EQ(rc, 0);
}

static void finish(struct fake *f)
{
    struct trms_error err = {0};
    CHECK_EQ(rerun_decoder_finish(f->d, &err), 0);
    f->d = NULL;
}

static void destroy(struct fake *f)
{
    if (f->d)
        finish(f);
    rerun_summary_free(&f->summary);
    routine_table_free(&f->routines);
    free(f);
}

static uint64_t count_at(const struct u64map *m, uint64_t key)
{
    const uint64_t *v = u64map_find(m, key);
    return v ? *v : 0;
}

/* A thread's registers at IP: a stack, TLS bases, flags with DF clear. */
static struct rerun_record state(uint32_t tid, uint64_t ip)
{
    struct rerun_record r = {.tid = tid, .ip = ip, .fsbase = FS_BASE, .gsbase = GS_BASE,
                             .flags = 0x202};
    r.gp[RERUN_RSP] = STACK;
    r.gp[RERUN_RBP] = STACK + 0x100;
    return r;
}

/* Runs the instruction HEX at R's ip from R, with POST's registers but ip
 * moved past it (so: a non-branching instruction); R becomes POST. */
static void run(struct fake *f, struct rerun_record *r, const char *hex,
                const struct rerun_record *post)
{
    uint64_t n = at(f, r->ip, hex);
    struct rerun_record next = post ? *post : *r;
    next.ip = r->ip + n;
    go(f, &next);
    *r = next;
}

/* ---- addressing ---- */

static void test_addressing(void)
{
    struct fake *f = make();
    struct rerun_record r = state(1, CODE + 0x100);
    r.gp[RERUN_RBX] = 0x10000;
    r.gp[RERUN_RCX] = 3;
    r.gp[RERUN_RAX] = 0x20000;
    r.gp[RERUN_RSI] = 0x30000;
    r.gp[RERUN_RDI] = 5;
    go(f, &r);  /* the first record: a state, no instruction */
    EXPECT(f, "%s", "");

    run(f, &r, "48 8b 44 8b 10", NULL);  /* mov rax, [rbx + rcx*4 + 0x10] */
    EXPECT(f, "t1 r0x%x/8", 0x10000 + 3 * 4 + 0x10);
    uint64_t ip = r.ip;
    run(f, &r, "89 05 00 01 00 00", NULL);  /* mov [rip + 0x100], eax */
    EXPECT(f, "w0x%" PRIx64 "/4", ip + 6 + 0x100);
    run(f, &r, "64 48 8b 04 25 28 00 00 00", NULL);  /* mov rax, fs:[0x28] */
    EXPECT(f, "r0x%" PRIx64 "/8", FS_BASE + 0x28);
    run(f, &r, "65 48 89 58 08", NULL);  /* mov gs:[rax + 8], rbx */
    EXPECT(f, "w0x%" PRIx64 "/8", GS_BASE + 0x20000 + 8);
    run(f, &r, "8b 45 fc", NULL);  /* mov eax, [rbp - 4] */
    EXPECT(f, "r0x%" PRIx64 "/4", STACK + 0x100 - 4);
    run(f, &r, "0f b6 04 7e", NULL);  /* movzx eax, byte [rsi + rdi*2] */
    EXPECT(f, "r0x%x/1", 0x30000 + 10);
    run(f, &r, "66 89 4c cb e0", NULL);  /* mov [rbx + rcx*8 - 0x20], cx */
    EXPECT(f, "w0x%x/2", 0x10000 + 24 - 0x20);
    /* A 32-bit address wraps: rax's upper half does not count. */
    struct rerun_record loaded = r;
    loaded.gp[RERUN_RAX] = UINT64_C(0xffffffff00001000);
    run(f, &r, "48 8b 03", &loaded);  /* mov rax, [rbx] */
    EXPECT(f, "r0x10000/8");
    run(f, &r, "67 8b 00", NULL);  /* mov eax, [eax] */
    EXPECT(f, "r0x1000/4");
    finish(f);
    EXPECT(f, "$9");
    CHECK_EQ(f->summary.instructions, 9);
    CHECK_EQ(f->summary.records, 10);
    CHECK_EQ(f->summary.threads, 1);
    destroy(f);
}

/* ---- the stack ---- */

static struct rerun_record with_sp(const struct rerun_record *r, uint64_t sp)
{
    struct rerun_record n = *r;
    n.gp[RERUN_RSP] = sp;
    return n;
}

static void test_stack(void)
{
    struct fake *f = make();
    const uint64_t S = STACK;
    struct rerun_record r = state(1, CODE + 0x100);
    r.gp[RERUN_RAX] = 0x20000;
    go(f, &r);
    struct rerun_record n;

    n = with_sp(&r, S - 8);
    run(f, &r, "50", &n);  /* push rax */
    EXPECT(f, "t1 w0x%" PRIx64 "/8", S - 8);
    n = with_sp(&r, S - 16);
    run(f, &r, "ff 30", &n);  /* push qword [rax]: the operand, then the slot */
    EXPECT(f, "r0x20000/8 w0x%" PRIx64 "/8", S - 16);
    n = with_sp(&r, S - 8);
    run(f, &r, "5b", &n);  /* pop rbx */
    EXPECT(f, "r0x%" PRIx64 "/8", S - 16);
    n = with_sp(&r, S);
    run(f, &r, "8f 44 24 08", &n);  /* pop qword [rsp + 8]: addressed after the pop */
    EXPECT(f, "r0x%" PRIx64 "/8 w0x%" PRIx64 "/8", S - 8, S + 8);
    n = with_sp(&r, S - 8);
    run(f, &r, "6a 05", &n);  /* push 5 */
    EXPECT(f, "w0x%" PRIx64 "/8", S - 8);
    n = with_sp(&r, S - 10);
    run(f, &r, "66 6a 03", &n);  /* pushw 3 */
    EXPECT(f, "w0x%" PRIx64 "/2", S - 10);
    n = with_sp(&r, S - 18);
    run(f, &r, "9c", &n);  /* pushfq */
    EXPECT(f, "w0x%" PRIx64 "/8", S - 18);
    n = with_sp(&r, S - 10);
    run(f, &r, "9d", &n);  /* popfq */
    EXPECT(f, "r0x%" PRIx64 "/8", S - 18);
    n = with_sp(&r, S - 18 - 32);
    n.gp[RERUN_RBP] = S - 18;
    run(f, &r, "c8 20 00 00", &n);  /* enter 32, 0: rbp pushed */
    EXPECT(f, "w0x%" PRIx64 "/8", S - 18);
    n = with_sp(&r, S - 10);
    n.gp[RERUN_RBP] = STACK + 0x100;
    run(f, &r, "c9", &n);  /* leave: rbp popped from the old rbp */
    EXPECT(f, "r0x%" PRIx64 "/8", S - 18);
    CHECK_EQ(f->summary.approximated.count, 0);
    /* enter with a nesting level also copies frame pointers, which the
     * records do not show: rbp's push only, and counted. */
    uint64_t nested = r.ip;
    n = with_sp(&r, S - 10 - 16 - 32);
    n.gp[RERUN_RBP] = S - 18;
    run(f, &r, "c8 20 00 01", &n);  /* enter 32, 1 */
    EXPECT(f, "w0x%" PRIx64 "/8", S - 18);
    CHECK_EQ(count_at(&f->summary.approximated, nested), 1);
    finish(f);
    EXPECT(f, "$11");
    destroy(f);
}

/* ---- calls, returns, jumps ---- */

/* Moves VALUE into REG with `movabs reg, imm64` at R's ip: how a test
 * gives the next instruction its registers (a record's registers are the
 * state after an instruction, so they must come from one). */
static void set(struct fake *f, struct rerun_record *r, int reg, uint64_t value)
{
    char hex[64];
    int n = snprintf(hex, sizeof hex, "%02x %02x", reg >= 8 ? 0x49 : 0x48, 0xb8 + (reg & 7));
    for (int i = 0; i < 8; i++)
        n += snprintf(hex + n, sizeof hex - (size_t)n, " %02x", (unsigned)(value >> (8 * i)) & 0xff);
    struct rerun_record next = *r;
    next.gp[reg] = value;
    run(f, r, hex, &next);
}

/* std / cld: the direction flag for the next string instruction. */
static void direction(struct fake *f, struct rerun_record *r, int down)
{
    struct rerun_record next = *r;
    next.flags = down ? next.flags | 0x400 : next.flags & ~UINT64_C(0x400);
    run(f, r, down ? "fd" : "fc", &next);
}

/* A rel32 displacement from the instruction at FROM (LEN bytes) to TO. */
static void rel32(char *out, size_t size, const char *opcode, uint64_t from, uint64_t len,
                  uint64_t to)
{
    uint32_t d = (uint32_t)(to - (from + len));
    snprintf(out, size, "%s %02x %02x %02x %02x", opcode, d & 0xff, d >> 8 & 0xff,
             d >> 16 & 0xff, d >> 24);
}

/* The control transfer HEX at R's ip to TO with rsp SP; R moves there. */
static void transfer(struct fake *f, struct rerun_record *r, const char *hex, uint64_t to,
                     uint64_t sp)
{
    at(f, r->ip, hex);
    struct rerun_record next = with_sp(r, sp);
    next.ip = to;
    go(f, &next);
    *r = next;
}

static void test_calls(void)
{
    struct fake *f = make();
    const uint64_t S = STACK, S2 = STACK + 16, M = CODE + 0x100;
    char hex[64];
    struct rerun_record r = state(1, M);
    go(f, &r);

    /* call F1; F1: push rbp; pop rbp; ret */
    at(f, F1, "55 5d c3");
    rel32(hex, sizeof hex, "e8", r.ip, 5, F1);
    uint64_t after_call = r.ip + 5;
    transfer(f, &r, hex, F1, S - 8);
    /* The call's cost is the caller's; its return address the callee's. */
    EXPECT(f, "t1 $1 c0x%" PRIx64 " w0x%" PRIx64 "/8", F1, S - 8);
    struct rerun_record n = with_sp(&r, S - 16);
    run(f, &r, "55", &n);
    n = with_sp(&r, S - 8);
    run(f, &r, "5d", &n);
    EXPECT(f, "w0x%" PRIx64 "/8 r0x%" PRIx64 "/8", S - 16, S - 16);
    /* ret: the return, then its read of the return address, which is the
     * caller's (it pushed it): no routine reads its return address as input */
    transfer(f, &r, "c3", after_call, S);
    EXPECT(f, "$3 x r0x%" PRIx64 "/8", S - 8);

    /* call rax (F2); F2: ret 16 */
    set(f, &r, RERUN_RAX, F2);
    after_call = r.ip + 2;
    transfer(f, &r, "ff d0", F2, S - 8);
    EXPECT(f, "$2 c0x%" PRIx64 " w0x%" PRIx64 "/8", F2, S - 8);
    transfer(f, &r, "c2 10 00", after_call, S2);
    EXPECT(f, "$1 x r0x%" PRIx64 "/8", S - 8);

    /* call [rax + 8] (to F3): the pointer is read before the call */
    set(f, &r, RERUN_RAX, 0x20000);
    after_call = r.ip + 3;
    transfer(f, &r, "ff 50 08", F3, S2 - 8);
    EXPECT(f, "r0x20008/8 $2 c0x%" PRIx64 " w0x%" PRIx64 "/8", F3, S2 - 8);

    /* F3: jmp G, with the stack at F3's return address: a tail call, G
     * runs as F3's child */
    rel32(hex, sizeof hex, "e9", F3, 5, G);
    transfer(f, &r, hex, G, S2 - 8);
    EXPECT(f, "$1 c0x%" PRIx64, G);

    /* G: nop; je G (taken: a loop to its own entry, no event); nop;
     * je G (not taken); ret */
    at(f, G, "90 74 fd c3");
    r.ip = G + 1;
    go(f, &r);
    r.ip = G;
    go(f, &r);
    r.ip = G + 1;
    go(f, &r);
    r.ip = G + 3;
    go(f, &r);
    EXPECT(f, "%s", "");
    transfer(f, &r, "c3", after_call, S2);  /* G's ret ends G and F3 */
    EXPECT(f, "$5 x x r0x%" PRIx64 "/8", S2 - 8);

    /* call PLT; the stub jumps through its GOT slot to F1: the activation
     * is the stub's destination's; the return address is written at the
     * call */
    rel32(hex, sizeof hex, "e8", r.ip, 5, PLT);
    after_call = r.ip + 5;
    transfer(f, &r, hex, PLT, S2 - 8);
    EXPECT(f, "$1 w0x%" PRIx64 "/8", S2 - 8);
    transfer(f, &r, "ff 25 00 10 00 00", F1, S2 - 8);  /* jmp [rip + 0x1000] */
    EXPECT(f, "r0x%" PRIx64 "/8 $1 c0x%" PRIx64, PLT + 6 + 0x1000, F1);
    n = with_sp(&r, S2 - 16);
    run(f, &r, "55", &n);
    n = with_sp(&r, S2 - 8);
    run(f, &r, "5d", &n);
    /* F1 ends before its ret's read of the return address the caller
     * pushed before the stub ran: input to neither (the caller wrote it) */
    transfer(f, &r, "c3", after_call, S2);
    EXPECT(f, "w0x%" PRIx64 "/8 r0x%" PRIx64 "/8 $3 x r0x%" PRIx64 "/8", S2 - 16, S2 - 16,
           S2 - 8);

    /* jmp rax inside a function: reported, but not a tail call */
    set(f, &r, RERUN_RAX, M + 0x80);
    transfer(f, &r, "ff e0", M + 0x80, S2);
    EXPECT(f, "$2");

    /* longjmp: HANDLER (called) jumps back with the stack pointer above
     * its frame, which ends. */
    set(f, &r, RERUN_RAX, M + 0xc0);
    rel32(hex, sizeof hex, "e8", r.ip, 5, HANDLER);
    transfer(f, &r, hex, HANDLER, S2 - 8);
    EXPECT(f, "$2 c0x%" PRIx64 " w0x%" PRIx64 "/8", HANDLER, S2 - 8);
    transfer(f, &r, "ff e0", M + 0xc0, S2 + 0x20);
    EXPECT(f, "$1 x");
    finish(f);
    CHECK_EQ(f->summary.tail_calls, 1);
    CHECK_EQ(f->summary.unwound_frames, 1);
    destroy(f);
}

/* ---- string instructions ---- */

/* The string instruction HEX at R's ip, leaving RCX, RSI, RDI and ip AT
 * (0: past it). */
static void string_op(struct fake *f, struct rerun_record *r, const char *hex, uint64_t rcx,
                      uint64_t rsi, uint64_t rdi, uint64_t ip)
{
    uint64_t len = at(f, r->ip, hex);
    struct rerun_record next = *r;
    next.gp[RERUN_RCX] = rcx;
    next.gp[RERUN_RSI] = rsi;
    next.gp[RERUN_RDI] = rdi;
    next.ip = ip ? ip : r->ip + len;
    go(f, &next);
    *r = next;
}

static void test_strings(void)
{
    struct fake *f = make();
    struct rerun_record r = state(1, CODE + 0x100);
    go(f, &r);
    unsigned steps = 0;

    set(f, &r, RERUN_RCX, 10);
    set(f, &r, RERUN_RSI, 0x2000);
    set(f, &r, RERUN_RDI, 0x3000);
    string_op(f, &r, "f3 a4", 0, 0x200a, 0x300a, 0);  /* rep movsb: 10 bytes up */
    EXPECT(f, "t1 r0x2000/10 w0x3000/10");
    steps += 4;

    set(f, &r, RERUN_RCX, 4);
    set(f, &r, RERUN_RSI, 0x2018);
    set(f, &r, RERUN_RDI, 0x3018);
    direction(f, &r, 1);
    string_op(f, &r, "f3 48 a5", 0, 0x2018 - 32, 0x3018 - 32, 0);  /* std; rep movsq: 4 down */
    direction(f, &r, 0);
    EXPECT(f, "r0x2000/32 w0x3000/32");
    steps += 6;

    set(f, &r, RERUN_RCX, 5);
    set(f, &r, RERUN_RDI, 0x4000);
    string_op(f, &r, "f3 ab", 0, r.gp[RERUN_RSI], 0x4014, 0);  /* rep stosd */
    EXPECT(f, "w0x4000/20");
    steps += 3;

    set(f, &r, RERUN_RCX, 8);
    set(f, &r, RERUN_RSI, 0x2000);
    set(f, &r, RERUN_RDI, 0x3000);
    string_op(f, &r, "f3 a6", 5, 0x2003, 0x3003, 0);  /* repe cmpsb: stops at the 3rd */
    EXPECT(f, "r0x2000/3 r0x3000/3");
    steps += 4;

    set(f, &r, RERUN_RCX, 10);
    set(f, &r, RERUN_RDI, 0x5009);
    direction(f, &r, 1);
    string_op(f, &r, "f2 ae", 4, r.gp[RERUN_RSI], 0x5003, 0);  /* std; repne scasb: 6 down */
    direction(f, &r, 0);
    EXPECT(f, "r0x5004/6");
    steps += 5;

    set(f, &r, RERUN_RSI, 0x6000);
    string_op(f, &r, "ac", r.gp[RERUN_RCX], 0x6001, r.gp[RERUN_RDI], 0);  /* lodsb */
    EXPECT(f, "r0x6000/1");
    set(f, &r, RERUN_RCX, 2);
    set(f, &r, RERUN_RSI, 0x6000);
    string_op(f, &r, "f3 48 ad", 0, 0x6010, r.gp[RERUN_RDI], 0);  /* rep lodsq */
    EXPECT(f, "r0x6000/16");
    steps += 5;

    /* The two-operand forms without rep: one element each. */
    set(f, &r, RERUN_RSI, 0x2000);
    set(f, &r, RERUN_RDI, 0x3000);
    string_op(f, &r, "a5", 0, 0x2004, 0x3004, 0);  /* movsd (movs dword) */
    EXPECT(f, "r0x2000/4 w0x3000/4");
    set(f, &r, RERUN_RSI, 0x2000);
    set(f, &r, RERUN_RDI, 0x3000);
    string_op(f, &r, "66 a7", 0, 0x2002, 0x3002, 0);  /* cmpsw */
    EXPECT(f, "r0x2000/2 r0x3000/2");
    set(f, &r, RERUN_RSI, 0x2000);
    set(f, &r, RERUN_RDI, 0x3000);
    string_op(f, &r, "64 a4", 0, 0x2001, 0x3001, 0);  /* movsb [rdi], fs:[rsi] */
    EXPECT(f, "r0x%" PRIx64 "/1 w0x3000/1", FS_BASE + 0x2000);
    steps += 9;

    /* An interrupted rep movsb: 40 of 100 bytes, ip unchanged; then the
     * rest. */
    set(f, &r, RERUN_RCX, 100);
    set(f, &r, RERUN_RSI, 0x2000);
    set(f, &r, RERUN_RDI, 0x3000);
    uint64_t ip = r.ip;
    string_op(f, &r, "f3 a4", 60, 0x2028, 0x3028, ip);
    EXPECT(f, "r0x2000/40 w0x3000/40");
    string_op(f, &r, "f3 a4", 0, 0x2064, 0x3064, 0);
    EXPECT(f, "r0x2028/60 w0x3028/60");
    /* rep with rcx 0 touches nothing. */
    string_op(f, &r, "f3 a4", 0, 0x2064, 0x3064, 0);
    EXPECT(f, "%s", "");
    steps += 6;

    /* With 0x67 the string registers are esi, edi and ecx: their upper
     * halves do not count (rcx's is cleared here; kept, it would cancel
     * out all the same). */
    set(f, &r, RERUN_RCX, UINT64_C(0xdead00000005));
    set(f, &r, RERUN_RSI, UINT64_C(0xffffffff00002000));
    set(f, &r, RERUN_RDI, UINT64_C(0x123400003000));
    string_op(f, &r, "67 f3 a4", 0, 0x2005, 0x3005, 0);  /* rep movsb [edi], [esi] */
    EXPECT(f, "r0x2000/5 w0x3000/5");
    steps += 4;
    finish(f);
    EXPECT(f, "$%u", steps);
    destroy(f);
}

/* ---- read-modify-writes, bit strings, xlat ---- */

static void test_read_modify_write(void)
{
    struct fake *f = make();
    struct rerun_record r = state(1, CODE + 0x100);
    r.gp[RERUN_RAX] = 0x8000;
    r.gp[RERUN_RBX] = 0x9000;
    go(f, &r);
    run(f, &r, "48 87 18", NULL);  /* xchg [rax], rbx */
    EXPECT(f, "t1 r0x8000/8 w0x8000/8");
    run(f, &r, "f0 0f b1 08", NULL);  /* lock cmpxchg [rax], ecx */
    EXPECT(f, "r0x8000/4 w0x8000/4");
    run(f, &r, "f0 01 08", NULL);  /* lock add [rax], ecx */
    EXPECT(f, "r0x8000/4 w0x8000/4");
    run(f, &r, "01 08", NULL);  /* add [rax], ecx */
    EXPECT(f, "r0x8000/4 w0x8000/4");
    run(f, &r, "48 0f c7 08", NULL);  /* cmpxchg16b [rax] */
    EXPECT(f, "r0x8000/16 w0x8000/16");
    run(f, &r, "0f c7 08", NULL);  /* cmpxchg8b [rax] */
    EXPECT(f, "r0x8000/8 w0x8000/8");
    run(f, &r, "f0 48 0f c1 10", NULL);  /* lock xadd [rax], rdx */
    EXPECT(f, "r0x8000/8 w0x8000/8");
    run(f, &r, "d1 00", NULL);  /* rol dword [rax], 1 */
    EXPECT(f, "r0x8000/4 w0x8000/4");
    run(f, &r, "f6 00 01", NULL);  /* test byte [rax], 1: read only */
    EXPECT(f, "r0x8000/1");
    run(f, &r, "89 08", NULL);  /* mov [rax], ecx */
    EXPECT(f, "w0x8000/4");

    /* bt/bts with a register offset: the byte holding the bit, anywhere. */
    set(f, &r, RERUN_RCX, 35);
    run(f, &r, "0f a3 08", NULL);  /* bt [rax], ecx */
    EXPECT(f, "r0x8004/1");
    set(f, &r, RERUN_RCX, 0xffffffff);  /* ecx = -1: the byte below */
    run(f, &r, "0f ab 08", NULL);  /* bts [rax], ecx */
    EXPECT(f, "r0x7fff/1 w0x7fff/1");
    run(f, &r, "0f ba 20 03", NULL);  /* bt dword [rax], 3 */
    EXPECT(f, "r0x8000/4");
    set(f, &r, RERUN_RAX, 0x11);  /* al = 0x11 */
    run(f, &r, "d7", NULL);  /* xlatb: [rbx + al] */
    EXPECT(f, "r0x9011/1");
    set(f, &r, RERUN_RAX, UINT64_C(0x7fff2211));  /* al = 0x11: the rest of rax does not count */
    run(f, &r, "d7", NULL);
    EXPECT(f, "r0x9011/1");
    run(f, &r, "64 d7", NULL);  /* xlatb with fs: */
    EXPECT(f, "r0x%" PRIx64 "/1", FS_BASE + 0x9011);
    finish(f);
    destroy(f);
}
/* ---- vector and state-save instructions ---- */

static void test_vector(void)
{
    struct fake *f = make();
    struct rerun_record r = state(1, CODE + 0x100);
    r.gp[RERUN_RAX] = 0x9000;
    r.gp[RERUN_RDI] = 0xa000;
    go(f, &r);
    static const struct {
        const char *hex, *events;
    } cases[] = {
        {"f3 0f 6f 00", "r0x9000/16"},     /* movdqu xmm0, [rax] */
        {"0f 11 08", "w0x9000/16"},        /* movups [rax], xmm1 */
        {"f3 0f 7e 00", "r0x9000/8"},      /* movq xmm0, [rax] */
        {"66 0f 6e 00", "r0x9000/4"},      /* movd xmm0, [rax] */
        {"66 0f d6 00", "w0x9000/8"},      /* movq [rax], xmm0 */
        {"66 0f 7e 00", "w0x9000/4"},      /* movd [rax], xmm0 */
        {"c5 fe 6f 00", "r0x9000/32"},     /* vmovdqu ymm0, [rax] */
        {"c5 fe 7f 08", "w0x9000/32"},     /* vmovdqu [rax], ymm1 */
        {"c5 fa 6f 10", "r0x9000/16"},     /* vmovdqu xmm2, [rax] */
        {"f3 0f 11 00", "w0x9000/4"},      /* movss [rax], xmm0 */
        {"c4 e2 7d 18 00", "r0x9000/4"},   /* vbroadcastss ymm0, [rax] */
        {"66 0f fe 00", "r0x9000/16"},     /* paddd xmm0, [rax] */
        {"0f ae 00", "w0x9000/512"},       /* fxsave [rax] */
        {"0f ae 08", "r0x9000/512"},       /* fxrstor [rax] */
        {"0f ae 20", "w0x9000/832"},       /* xsave [rax]: x87 + SSE + AVX */
        {"0f ae 28", "r0x9000/832"},       /* xrstor [rax] */
        {"0f ae 30", "w0x9000/832"},       /* xsaveopt [rax] */
        {"48 0f ae 20", "w0x9000/832"},    /* xsave64 [rax] */
        {"0f c7 20", "w0x9000/832"},       /* xsavec [rax] */
        {"0f c7 28", "w0x9000/832"},       /* xsaves [rax] */
        {"0f c7 18", "r0x9000/832"},       /* xrstors [rax] */
        {"dd 20", "r0x9000/108"},          /* frstor [rax] */
        {"d9 30", "w0x9000/28"},           /* fnstenv [rax] */
        {"dd 30", "w0x9000/108"},          /* fnsave [rax] */
        {"d9 28", "r0x9000/2"},            /* fldcw [rax] */
        {"d9 38", "w0x9000/2"},            /* fnstcw [rax] */
        {"dd 18", "w0x9000/8"},            /* fstp qword [rax] */
        {"db 28", "r0x9000/10"},           /* fld tbyte [rax] */
        {"0f ae 18", "w0x9000/4"},         /* stmxcsr [rax] */
        /* No access: hints, address arithmetic, nops. */
        {"0f 18 08", ""},                  /* prefetcht0 [rax] */
        {"48 8d 04 cb", ""},               /* lea rax, [rbx + rcx*8] */
        {"90", ""},                        /* nop */
        {"0f 1f 04 00", ""},               /* nop dword [rax + rax] */
        {"2e 66 0f 1f 04 00", ""},         /* nop word cs:[rax + rax] */
        {"f3 0f 1e fa", ""},               /* endbr64 */
        {"0f ae 38", ""},                  /* clflush [rax] */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        run(f, &r, cases[i].hex, NULL);
        const char *got = drain(f);
        if (i == 0 && strncmp(got, "t1 ", 3) == 0)
            got += 3;
        if (strcmp(got, cases[i].events) != 0) {
            fprintf(stderr, "%s: got \"%s\", expected \"%s\"\n", cases[i].hex, got,
                    cases[i].events);
            check_failures++;
        }
    }
    CHECK_EQ(f->summary.approximated.count, 0);

    /* Masked and gathered: the whole width, or nothing, and counted. */
    uint64_t masked = r.ip;
    run(f, &r, "62 f1 7f 49 7f 00", NULL);  /* vmovdqu8 [rax]{k1}, zmm0 */
    EXPECT(f, "w0x9000/64");
    uint64_t gather = r.ip;
    run(f, &r, "c4 e2 69 90 04 88", NULL);  /* vpgatherdd xmm0, [rax + xmm1*4], xmm2 */
    EXPECT(f, "%s", "");
    uint64_t maskmov = r.ip;
    run(f, &r, "66 0f f7 c1", NULL);  /* maskmovdqu xmm0, xmm1: at rdi */
    EXPECT(f, "w0xa000/16");
    uint64_t vmaskmov = r.ip;
    run(f, &r, "c5 f9 f7 c1", NULL);  /* vmaskmovdqu xmm0, xmm1: at rdi */
    EXPECT(f, "w0xa000/16");
    CHECK_EQ(count_at(&f->summary.approximated, vmaskmov), 1);
    CHECK_EQ(count_at(&f->summary.approximated, masked), 1);
    CHECK_EQ(count_at(&f->summary.approximated, gather), 1);
    CHECK_EQ(count_at(&f->summary.approximated, maskmov), 1);
    destroy(f);

    /* The xsave area is a parameter (here: with AVX-512 state). */
    f = make_with(2688, 1);
    r = state(1, CODE + 0x100);
    r.gp[RERUN_RAX] = 0x9000;
    go(f, &r);
    run(f, &r, "0f ae 20", NULL);
    EXPECT(f, "t1 w0x9000/2688");
    destroy(f);
}

/* ---- undecodable code ---- */

static void test_undecodable(void)
{
    struct fake *f = make();
    struct rerun_record r = state(1, CODE + 0x100);
    r.gp[RERUN_RAX] = 0x8000;
    go(f, &r);
    uint64_t bad = r.ip;
    run(f, &r, "06", NULL);  /* push es: not an x86-64 instruction */
    run(f, &r, "89 08", NULL);  /* mov [rax], ecx: decoding goes on */
    EXPECT(f, "t1 w0x8000/4");
    /* Code the source cannot supply: a jump there, one instruction there,
     * and back to the bad bytes. */
    uint64_t nowhere = UINT64_C(0x123456);
    set(f, &r, RERUN_RAX, nowhere);
    transfer(f, &r, "ff e0", nowhere, STACK);  /* jmp rax */
    EXPECT(f, "$4");
    r.ip = bad;
    go(f, &r);
    r.ip = bad + 1;
    go(f, &r);
    EXPECT(f, "%s", "");
    CHECK_EQ(f->summary.undecodable.count, 2);
    CHECK_EQ(count_at(&f->summary.undecodable, bad), 2);
    CHECK_EQ(count_at(&f->summary.undecodable, nowhere), 1);
    CHECK_EQ(f->summary.signals, 0);
    finish(f);
    EXPECT(f, "$2");
    CHECK_EQ(f->summary.instructions, 6);
    destroy(f);
}

/* ---- system calls ---- */

/* Sets rdi, rsi, rdx and rax (NR) and places the syscall instruction at
 * R's ip: returns its entry record (ip past it, rax -ENOSYS), with R at
 * the syscall. 4 instructions run. */
static struct rerun_record syscall_at(struct fake *f, struct rerun_record *r, uint64_t nr,
                                      uint64_t a0, uint64_t a1, uint64_t a2)
{
    set(f, r, RERUN_RDI, a0);
    set(f, r, RERUN_RSI, a1);
    set(f, r, RERUN_RDX, a2);
    set(f, r, RERUN_RAX, nr);
    at(f, r->ip, "0f 05");
    struct rerun_record entry = *r;
    entry.ip += 2;
    entry.gp[RERUN_RAX] = ENOSYS_RESULT;
    entry.gp[RERUN_RCX] = entry.ip;
    entry.gp[RERUN_R11] = r->flags;
    return entry;
}

static struct rerun_record result(const struct rerun_record *entry, uint64_t rax)
{
    struct rerun_record exit = *entry;
    exit.gp[RERUN_RAX] = rax;
    return exit;
}

static void test_syscalls(void)
{
    struct fake *f = make();
    struct rerun_record r = state(1, CODE + 0x100);
    go(f, &r);

    /* read(3, 0x6000, 100) = 5: the kernel wrote 5 bytes; the cost up to
     * the call is reported at its entry */
    struct rerun_record entry = syscall_at(f, &r, 0, 3, 0x6000, 100);
    go(f, &entry);
    EXPECT(f, "t1 $5");
    r = result(&entry, 5);
    go(f, &r);
    EXPECT(f, "kw0x6000/5");

    /* write(1, 0x7000, 10) = 10: the kernel read 10 */
    entry = syscall_at(f, &r, 1, 1, 0x7000, 10);
    go(f, &entry);
    r = result(&entry, 10);
    go(f, &r);
    EXPECT(f, "$5 kr0x7000/10");

    /* read(-1, ...) = -EBADF: a failed call touches nothing */
    entry = syscall_at(f, &r, 0, (uint64_t)-1, 0x6000, 100);
    go(f, &entry);
    r = result(&entry, (uint64_t)-9);
    go(f, &r);
    EXPECT(f, "$5");

    /* A call that returns -ENOSYS for real: the exit is known by the
     * thread being inside the call, and the next instruction decodes from
     * the exit's registers as usual. */
    entry = syscall_at(f, &r, 0, 3, 0x6000, 100);
    go(f, &entry);
    r = result(&entry, ENOSYS_RESULT);
    go(f, &r);
    set(f, &r, RERUN_RBX, 0x8000);
    run(f, &r, "48 89 03", NULL);  /* mov [rbx], rax */
    EXPECT(f, "$5 w0x8000/8");

    /* readv(3, iov, 2) = 7 with iov = {0x6100, 4}, {0x6200, 16}: the array
     * is read (32 bytes), the buffers written up to the result. */
    uint8_t iov[32] = {0};
    put_u64(iov, 0x6100);
    put_u64(iov + 8, 4);
    put_u64(iov + 16, 0x6200);
    put_u64(iov + 24, 16);
    put_memory(f, 0x6400, iov, sizeof iov);
    entry = syscall_at(f, &r, 19, 3, 0x6400, 2);
    go(f, &entry);
    r = result(&entry, 7);
    go(f, &r);
    EXPECT(f, "$7 kr0x6400/32 kw0x6100/4 kw0x6200/3");

    /* A syscall outside the table: counted, nothing touched */
    entry = syscall_at(f, &r, 999, 0, 0, 0);
    go(f, &entry);
    r = result(&entry, 0);
    go(f, &r);
    EXPECT(f, "$5");
    CHECK_EQ(count_at(&f->summary.unmodeled_syscalls, 999), 1);

    /* Interrupted and restarted: read returns -ERESTARTSYS, the kernel
     * re-executes the syscall instruction, which enters it again; the
     * arguments are still in their registers. */
    entry = syscall_at(f, &r, 0, 3, 0x6000, 100);
    go(f, &entry);
    r = result(&entry, (uint64_t)-512);
    go(f, &r);
    go(f, &entry);
    r = result(&entry, 8);
    go(f, &r);
    EXPECT(f, "$5 $1 kw0x6000/8");
    CHECK_EQ(f->summary.syscalls, 8);
    CHECK_EQ(f->summary.unexpected, 0);

    /* Restarted, by a producer that shows the kernel moving back onto the
     * syscall instruction (ip - 2, rax the call's number again): a record
     * there, then the call entered afresh. */
    entry = syscall_at(f, &r, 0, 3, 0x6000, 100);
    go(f, &entry);
    r = result(&entry, (uint64_t)-512);
    go(f, &r);
    struct rerun_record back = entry;
    back.ip = entry.ip - 2;
    back.gp[RERUN_RAX] = 0;
    go(f, &back);
    go(f, &entry);
    r = result(&entry, 8);
    go(f, &r);
    EXPECT(f, "$5 $1 kw0x6000/8");
    CHECK_EQ(f->summary.syscalls, 10);
    CHECK_EQ(f->summary.signals, 0);
    CHECK_EQ(f->summary.unexpected, 0);

    /* A read that claims more than Linux moves in one call (a corrupt
     * record): cut at MAX_RW_COUNT, and counted. */
    entry = syscall_at(f, &r, 0, 3, 0x6000, UINT64_C(0x200000000));
    go(f, &entry);
    r = result(&entry, UINT64_C(0x100000000));
    go(f, &r);
    EXPECT(f, "$5 kw0x6000/%u", 0x7ffff000u);
    CHECK_EQ(f->summary.unexpected, 1);

    /* sendmmsg(3, 0x6500, 1) = 2: more messages than vlen, which the
     * kernel never returns (the table clips the call): the one message's
     * length is written, and the record counted. */
    entry = syscall_at(f, &r, 307, 3, 0x6500, 1);
    go(f, &entry);
    r = result(&entry, 2);
    go(f, &r);
    EXPECT(f, "$5 kw0x6538/4");
    CHECK_EQ(f->summary.unexpected, 2);
    finish(f);
    destroy(f);

    /* A producer that shows no entry records (one step over `syscall`
     * lands after the call): the same effects; rt_sigreturn still ends
     * the handler, whose exit is elsewhere. */
    f = make();
    r = state(1, CODE + 0x100);
    go(f, &r);
    entry = syscall_at(f, &r, 0, 3, 0x6000, 100);
    r = result(&entry, 5);
    go(f, &r);
    EXPECT(f, "t1 $5 kw0x6000/5");
    uint8_t act[32] = {0};
    put_u64(act, HANDLER);
    put_memory(f, 0x6800, act, sizeof act);
    entry = syscall_at(f, &r, 13, 10, 0x6800, 0);
    r = result(&entry, 0);
    go(f, &r);
    EXPECT(f, "$5 kr0x6800/32");
    uint64_t interrupted = r.ip;
    at(f, interrupted, "90");  /* nop: interrupted before it */
    struct rerun_record h = r;
    h.ip = HANDLER;
    h.gp[RERUN_RSP] = STACK - 0x400;
    go(f, &h);
    EXPECT(f, "c0x%" PRIx64 " kw0x%" PRIx64 "/%d", HANDLER, STACK - 0x400, 0x400 - 128);
    r = h;
    set(f, &r, RERUN_RAX, 15);
    at(f, r.ip, "0f 05");
    struct rerun_record restored = state(1, interrupted);
    go(f, &restored);
    EXPECT(f, "$2 x");
    CHECK_EQ(f->summary.sigreturns, 1);
    CHECK_EQ(f->summary.signals, 1);
    CHECK_EQ(f->summary.unexpected, 0);
    destroy(f);
}

/* ---- threads and processes ---- */

static void test_threads(void)
{
    /* A thread that appears without a clone the decoder saw belongs to
     * another process. */
    struct fake *f = make();
    uint64_t A = CODE + 0x100;
    at(f, A, "48 8b 03");  /* mov rax, [rbx] */
    struct rerun_record t1 = state(1, A), t2 = state(2, A);
    t1.gp[RERUN_RBX] = 0x1000;
    go(f, &t1);
    run(f, &t1, "48 8b 03", NULL);
    EXPECT(f, "t1 r0x1000/8");
    go(f, &t2);
    t2.ip = A + 3;
    go(f, &t2);
    EXPECT(f, "%s", "");
    CHECK_EQ(f->summary.other_process_threads, 1);
    CHECK_EQ(f->summary.other_process_records, 2);
    destroy(f);

    /* Thread 1 creates thread 2: clone(CLONE_VM | CLONE_THREAD |
     * CLONE_SETTLS, stack, 0, 0, tls) = 2. */
    f = make();
    const uint64_t flags = 0x100 | 0x10000 | 0x80000, child_stack = STACK - 0x10000;
    const uint64_t tls = 0x7e000000;
    t1 = state(1, A);
    go(f, &t1);
    set(f, &t1, RERUN_R8, tls);
    struct rerun_record entry = syscall_at(f, &t1, 56, flags, child_stack, 0);
    go(f, &entry);
    t1 = result(&entry, 2);
    go(f, &t1);
    EXPECT(f, "t1 $6");
    /* Both return to E: push rax. Thread 2's first record is after it,
     * on its own stack with its own TLS; each push uses its thread's
     * registers. */
    uint64_t E = entry.ip;
    at(f, E, "50");
    t2 = t1;
    t2.tid = 2;
    t2.gp[RERUN_RAX] = 0;
    t2.gp[RERUN_RSP] = child_stack - 8;
    t2.fsbase = tls;
    t2.ip = E + 1;
    go(f, &t2);
    EXPECT(f, "t2 w0x%" PRIx64 "/8", child_stack - 8);
    struct rerun_record n = with_sp(&t1, STACK - 8);
    run(f, &t1, "50", &n);
    EXPECT(f, "$1 t1 w0x%" PRIx64 "/8", STACK - 8);
    /* thread 1 blocks in read; thread 2 runs; the read completes */
    entry = syscall_at(f, &t1, 0, 3, 0x6000, 64);
    go(f, &entry);
    n = t2;
    run(f, &t2, "48 bf 03 00 00 00 00 00 00 00", &n);  /* thread 2 at E + 1 too */
    t1 = result(&entry, 64);
    go(f, &t1);
    EXPECT(f, "$6 t2 $1 t1 kw0x6000/64");
    CHECK_EQ(f->summary.threads, 2);

    /* fork() = 500: the child is another process, left out */
    entry = syscall_at(f, &t1, 57, 0, 0, 0);
    go(f, &entry);
    t1 = result(&entry, 500);
    go(f, &t1);
    struct rerun_record child = t1;
    child.tid = 500;
    child.gp[RERUN_RAX] = 0;
    go(f, &child);
    child.ip += 1;
    go(f, &child);
    EXPECT(f, "$5");
    CHECK_EQ(f->summary.other_process_threads, 1);
    CHECK_EQ(f->summary.other_process_records, 2);
    CHECK_EQ(f->summary.threads, 2);
    destroy(f);
}

/* clone3, a child that runs before its parent's call returns, a child
 * whose first record comes before its first instruction, exit and
 * exit_group ending the activations of their threads. Parent and child
 * return to the same code and part on rax (test rax, rax; je child). */
static void test_thread_lifecycle(void)
{
    struct fake *f = make();
    const uint64_t vm_thread_tls = 0x100 | 0x10000 | 0x80000, S = STACK;
    const uint64_t stack2 = 0x7ff00000, size2 = 0x10000, tls2 = 0x7e000000, top2 = stack2 + size2;
    char hex[64];
    uint8_t args[64] = {0};  /* struct clone_args: flags, ..., stack, stack_size, tls */
    put_u64(args, vm_thread_tls);
    put_u64(args + 40, stack2);
    put_u64(args + 48, size2);
    put_u64(args + 56, tls2);
    put_memory(f, 0x6a00, args, sizeof args);
    struct rerun_record t1 = state(1, CODE + 0x100);
    go(f, &t1);
    struct rerun_record entry = syscall_at(f, &t1, 435, 0x6a00, 64, 0);  /* clone3 */
    go(f, &entry);
    EXPECT(f, "t1 $5");
    const uint64_t E1 = entry.ip;
    at(f, E1, "50 48 85 c0 74 3a");  /* push rax; test rax, rax; je E1 + 0x40 */
    /* Thread 2's first record, after its push on the stack clone3 gave
     * it, comes before its parent's exit. */
    struct rerun_record t2 = entry;
    t2.tid = 2;
    t2.gp[RERUN_RAX] = 0;
    t2.gp[RERUN_RSP] = top2 - 8;
    t2.fsbase = tls2;
    t2.ip = E1 + 1;
    go(f, &t2);
    EXPECT(f, "t2 w0x%" PRIx64 "/8", top2 - 8);
    t1 = result(&entry, 2);
    go(f, &t1);
    EXPECT(f, "$1 t1 kr0x6a00/64");
    CHECK_EQ(f->summary.threads, 2);

    /* Thread 2 calls F1, which calls exit(0): its activation ends. */
    t2.ip = E1 + 4;
    go(f, &t2);
    t2.ip = E1 + 0x40;
    go(f, &t2);
    rel32(hex, sizeof hex, "e8", t2.ip, 5, F1);
    transfer(f, &t2, hex, F1, top2 - 16);
    EXPECT(f, "t2 $3 c0x%" PRIx64 " w0x%" PRIx64 "/8", F1, top2 - 16);
    entry = syscall_at(f, &t2, 60, 0, 0, 0);
    go(f, &entry);
    EXPECT(f, "$5 x");

    /* Thread 1 clones thread 3 (legacy clone, own stack); thread 3's first
     * record is at the clone's return, before its first instruction. */
    struct rerun_record n = with_sp(&t1, S - 8);
    run(f, &t1, "50", &n);
    EXPECT(f, "t1 w0x%" PRIx64 "/8", S - 8);
    t1.ip = E1 + 4;
    go(f, &t1);
    t1.ip = E1 + 6;
    go(f, &t1);
    const uint64_t stack3 = 0x7fe00000;
    entry = syscall_at(f, &t1, 56, 0x100 | 0x10000, stack3, 0);
    go(f, &entry);
    t1 = result(&entry, 3);
    go(f, &t1);
    EXPECT(f, "$8");
    const uint64_t E2 = entry.ip;
    at(f, E2, "48 85 c0 74 3b");  /* test rax, rax; je E2 + 0x40 */
    struct rerun_record t3 = with_sp(&t1, stack3);
    t3.tid = 3;
    t3.gp[RERUN_RAX] = 0;
    go(f, &t3);
    EXPECT(f, "%s", "");
    t3.ip = E2 + 3;
    go(f, &t3);
    t3.ip = E2 + 0x40;
    go(f, &t3);
    rel32(hex, sizeof hex, "e8", t3.ip, 5, F2);
    transfer(f, &t3, hex, F2, stack3 - 8);
    EXPECT(f, "t3 $3 c0x%" PRIx64 " w0x%" PRIx64 "/8", F2, stack3 - 8);
    CHECK_EQ(f->summary.threads, 3);

    /* exit_group from thread 1 ends every thread of the process: thread
     * 3's pending activation returns. */
    t1.ip = E2 + 3;
    go(f, &t1);
    t1.ip = E2 + 5;
    go(f, &t1);
    entry = syscall_at(f, &t1, 231, 0, 0, 0);
    go(f, &entry);
    EXPECT(f, "t1 $7 t3 x t1");
    finish(f);
    EXPECT(f, "%s", "");
    destroy(f);
}

/* ---- signals ---- */

static void test_signals(void)
{
    struct fake *f = make();
    const uint64_t S = STACK, M = CODE + 0x100;
    struct rerun_record r = state(1, M);
    go(f, &r);

    /* rt_sigaction(SIGUSR1, act, NULL) with act->sa_handler = HANDLER */
    uint8_t act[32] = {0};
    put_u64(act, HANDLER);
    put_memory(f, 0x6800, act, sizeof act);
    struct rerun_record entry = syscall_at(f, &r, 13, 10, 0x6800, 0);
    go(f, &entry);
    r = result(&entry, 0);
    go(f, &r);
    EXPECT(f, "t1 $5 kr0x6800/32");

    /* The signal arrives at `mov [rax], ecx`, which does not run. rr shows
     * the handler's first instruction (push rbp) already executed. The
     * kernel's frame is below the red zone: the handler starts with rsp at
     * its bottom. */
    set(f, &r, RERUN_RAX, 0x8000);
    uint64_t interrupted = r.ip;
    at(f, interrupted, "89 08");
    at(f, HANDLER, "55 5d c3");  /* push rbp; pop rbp; ret */
    const uint64_t frame = 0x1c8, entry_sp = S - 128 - frame;
    struct rerun_record h = with_sp(&r, entry_sp - 8);
    h.ip = HANDLER + 1;
    h.gp[RERUN_RDI] = 10;
    go(f, &h);
    r = h;
    EXPECT(f, "$1 c0x%" PRIx64 " kw0x%" PRIx64 "/%" PRIu64 " w0x%" PRIx64 "/8", HANDLER,
           entry_sp, frame, entry_sp - 8);
    /* pop rbp; ret into the restorer: the handler's activation goes on */
    struct rerun_record n = with_sp(&r, entry_sp);
    run(f, &r, "5d", &n);
    transfer(f, &r, "c3", RESTORER, entry_sp + 8);
    EXPECT(f, "r0x%" PRIx64 "/8 $3 r0x%" PRIx64 "/8", entry_sp - 8, entry_sp);
    /* the restorer: mov eax, 15; syscall. rt_sigreturn's exit is the
     * interrupted state, which then runs. */
    n = r;
    n.gp[RERUN_RAX] = 15;
    run(f, &r, "b8 0f 00 00 00", &n);
    at(f, r.ip, "0f 05");
    entry = r;
    entry.ip += 2;
    entry.gp[RERUN_RAX] = ENOSYS_RESULT;
    go(f, &entry);
    struct rerun_record restored = state(1, interrupted);
    restored.gp[RERUN_RAX] = 0x8000;
    go(f, &restored);
    EXPECT(f, "$2 x");
    r = restored;
    run(f, &r, "89 08", NULL);
    EXPECT(f, "w0x8000/4");

    /* A producer that stops at the handler's entry (the step engine). */
    at(f, r.ip, "90");
    h = with_sp(&r, entry_sp);
    h.ip = HANDLER;
    go(f, &h);
    EXPECT(f, "$1 c0x%" PRIx64 " kw0x%" PRIx64 "/%" PRIu64, HANDLER, entry_sp, frame);
    CHECK_EQ(f->summary.signals, 2);
    CHECK_EQ(f->summary.sigreturns, 1);
    CHECK_EQ(f->summary.unknown_handlers, 0);
    destroy(f);

    /* A signal while the thread is inside a call whose exit record never
     * came (a producer that skips it): counted, delivered from the entry. */
    f = make();
    r = state(1, M);
    go(f, &r);
    entry = syscall_at(f, &r, 13, 10, 0x6800, 0);
    put_memory(f, 0x6800, act, sizeof act);
    go(f, &entry);
    r = result(&entry, 0);
    go(f, &r);
    entry = syscall_at(f, &r, 0, 3, 0x6000, 100);
    go(f, &entry);
    EXPECT(f, "t1 $5 kr0x6800/32 $5");
    h = with_sp(&entry, entry_sp);
    h.ip = HANDLER;
    go(f, &h);
    EXPECT(f, "c0x%" PRIx64 " kw0x%" PRIx64 "/%" PRIu64, HANDLER, entry_sp, frame);
    CHECK_EQ(f->summary.unexpected, 1);
    CHECK_EQ(f->summary.syscalls, 1);
    destroy(f);

    /* Without rt_sigaction seen, the handler is named after the ip. */
    f = make();
    r = state(1, M);
    go(f, &r);
    at(f, M, "90");
    h = with_sp(&r, entry_sp);
    h.ip = CODE + 0x7000;
    go(f, &h);
    EXPECT(f, "t1 c0x%" PRIx64 " kw0x%" PRIx64 "/%" PRIu64, CODE + 0x7000, entry_sp, frame);
    CHECK_EQ(f->summary.unknown_handlers, 1);
    destroy(f);

    /* A failed rt_sigaction (-EINVAL) installs no handler. */
    f = make();
    r = state(1, M);
    go(f, &r);
    put_memory(f, 0x6800, act, sizeof act);
    entry = syscall_at(f, &r, 13, 10, 0x6800, 0);
    go(f, &entry);
    r = result(&entry, (uint64_t)-22);
    go(f, &r);
    EXPECT(f, "t1 $5");
    at(f, r.ip, "90");
    h = with_sp(&r, entry_sp);
    h.ip = HANDLER;
    go(f, &h);
    EXPECT(f, "c0x%" PRIx64 " kw0x%" PRIx64 "/%" PRIu64, HANDLER, entry_sp, frame);
    CHECK_EQ(f->summary.unknown_handlers, 1);
    destroy(f);
}

/* A fake whose thread installed HANDLER for SIGUSR1 (rt_sigaction), at
 * R, with the events so far drained. */
static struct fake *with_handler(struct rerun_record *r)
{
    struct fake *f = make();
    *r = state(1, CODE + 0x100);
    go(f, r);
    uint8_t act[32] = {0};
    put_u64(act, HANDLER);
    put_memory(f, 0x6800, act, sizeof act);
    struct rerun_record entry = syscall_at(f, r, 13, 10, 0x6800, 0);
    go(f, &entry);
    *r = result(&entry, 0);
    go(f, r);
    EXPECT(f, "t1 $5 kr0x6800/32");
    return f;
}

/* jmp [rax] and call [rax] have targets the records cannot check: the
 * stack pointer tells the signal that interrupts them from the transfer. */
static void test_signal_at_transfer_through_memory(void)
{
    static const char *const code[] = {"ff 20", "ff 10"};  /* jmp [rax]; call [rax] */
    const uint64_t entry_sp = STACK - 128 - 0x1c8;
    for (size_t i = 0; i < sizeof code / sizeof code[0]; i++) {
        struct rerun_record r;
        struct fake *f = with_handler(&r);
        set(f, &r, RERUN_RAX, 0x8000);
        at(f, r.ip, code[i]);
        struct rerun_record h = with_sp(&r, entry_sp);
        h.ip = HANDLER;
        go(f, &h);
        EXPECT(f, "$1 c0x%" PRIx64 " kw0x%" PRIx64 "/%d", HANDLER, entry_sp, 0x1c8);
        CHECK_EQ(f->summary.signals, 1);
        destroy(f);
    }
}

/* rr shows a handler after its first instruction: the handler's entry
 * stack pointer (the frame's bottom) is found by undoing it, for each way
 * an instruction moves rsp. */
static void test_handler_first_instruction(void)
{
    const uint64_t entry_sp = STACK - 128 - 0x1c8;
    char call_f1[64], frame[64];
    rel32(call_f1, sizeof call_f1, "e8", HANDLER, 5, F1);
    snprintf(frame, sizeof frame, "c0x%" PRIx64 " kw0x%" PRIx64 "/%d", HANDLER, entry_sp, 0x1c8);
    struct {
        const char *hex;
        uint64_t ip, sp;  /* after it */
        char events[256];
    } cases[] = {
        {"48 83 ec 18", HANDLER + 4, entry_sp - 0x18, ""},  /* sub rsp, 0x18 */
        {"48 83 c4 f0", HANDLER + 4, entry_sp - 0x10, ""},  /* add rsp, -0x10 */
        {call_f1, F1, entry_sp - 8, ""},                    /* call F1 */
        {"c2 08 00", RESTORER, entry_sp + 16, ""},          /* ret 8 */
    };
    snprintf(cases[0].events, sizeof cases[0].events, "%s", frame);
    snprintf(cases[1].events, sizeof cases[1].events, "%s", frame);
    snprintf(cases[2].events, sizeof cases[2].events, "%s $1 c0x%" PRIx64 " w0x%" PRIx64 "/8",
             frame, F1, entry_sp - 8);
    snprintf(cases[3].events, sizeof cases[3].events, "%s $1 r0x%" PRIx64 "/8", frame, entry_sp);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct rerun_record r;
        struct fake *f = with_handler(&r);
        at(f, r.ip, "90");  /* interrupted before it */
        at(f, HANDLER, cases[i].hex);
        struct rerun_record h = with_sp(&r, cases[i].sp);
        h.ip = cases[i].ip;
        go(f, &h);
        const char *got = drain(f);
        if (strcmp(got, cases[i].events) != 0) {
            fprintf(stderr, "handler starting with %s: got \"%s\", expected \"%s\"\n",
                    cases[i].hex, got, cases[i].events);
            check_failures++;
        }
        CHECK_EQ(f->summary.unknown_handlers, 0);
        destroy(f);
    }
}

/* ---- the code cache ---- */

static void test_code_cache(void)
{
    struct fake *f = make();
    uint64_t A = CODE + 0x100, page = A & ~UINT64_C(0xfff);
    at(f, A, "48 8b 03");    /* A:     mov rax, [rbx] */
    at(f, A + 3, "75 fb");   /* A + 3: jne A */
    struct rerun_record r = state(1, A);
    r.gp[RERUN_RBX] = 0x1000;
    go(f, &r);
    for (int i = 0; i < 3; i++) {
        r.ip = A + 3;
        go(f, &r);
        r.ip = A;
        go(f, &r);
    }
    EXPECT(f, "t1 r0x1000/8 r0x1000/8 r0x1000/8");
    CHECK_EQ(f->code_reads[A - CODE], 1);  /* decoded once */
    CHECK_EQ(f->code_reads[A + 3 - CODE], 1);

    /* New code at A: the decoded instruction stands until its range is
     * dropped... */
    at(f, A, "48 89 03");  /* mov [rbx], rax */
    r.ip = A + 3;
    go(f, &r);
    r.ip = A + 5;
    go(f, &r);  /* jne not taken */
    EXPECT(f, "r0x1000/8");
    /* ...by munmap(page, 4096) */
    struct rerun_record entry = syscall_at(f, &r, 11, page, 0x1000, 0);
    go(f, &entry);
    r = result(&entry, 0);
    go(f, &r);
    char hex[64];
    rel32(hex, sizeof hex, "e9", r.ip, 5, A);
    transfer(f, &r, hex, A, STACK);  /* jmp A */
    r.ip = A + 3;
    go(f, &r);
    EXPECT(f, "$13 w0x1000/8");
    CHECK_EQ(f->code_reads[A - CODE], 2);

    /* ...or by the caller's explicit drop. */
    at(f, A, "48 8b 03");
    rerun_decoder_invalidate_code(f->d, A, 3);
    r.ip = A;
    go(f, &r);  /* jne taken */
    r.ip = A + 3;
    go(f, &r);
    EXPECT(f, "r0x1000/8");
    CHECK_EQ(f->code_reads[A - CODE], 3);
    CHECK_EQ(f->code_reads[A + 3 - CODE], 2);  /* the munmap dropped it too */

    /* ...or by mmap(NULL, 4096, ...) placing new code there: the mapping
     * is where the result says, whatever the hint... */
    r.ip = A + 5;
    go(f, &r);  /* jne not taken */
    at(f, A, "48 89 03");  /* mov [rbx], rax */
    entry = syscall_at(f, &r, 9, 0, 0x1000, 5);
    go(f, &entry);
    r = result(&entry, page);
    go(f, &r);
    rel32(hex, sizeof hex, "e9", r.ip, 5, A);
    transfer(f, &r, hex, A, STACK);  /* jmp A */
    r.ip = A + 3;
    go(f, &r);
    EXPECT(f, "$10 w0x1000/8");
    CHECK_EQ(f->code_reads[A - CODE], 4);

    /* ...or by mprotect of its page (code written, then made executable). */
    r.ip = A + 5;
    go(f, &r);
    at(f, A, "48 8b 03");  /* mov rax, [rbx] */
    entry = syscall_at(f, &r, 10, page, 0x1000, 5);
    go(f, &entry);
    r = result(&entry, 0);
    go(f, &r);
    transfer(f, &r, hex, A, STACK);
    r.ip = A + 3;
    go(f, &r);
    EXPECT(f, "$8 r0x1000/8");
    CHECK_EQ(f->code_reads[A - CODE], 5);
    destroy(f);
}

/* ---- execve ---- */

static void test_exec(void)
{
    struct fake *f = make();
    const uint64_t M = CODE + 0x100, S = STACK;
    char hex[64];
    struct rerun_record r = state(1, M);
    go(f, &r);
    rel32(hex, sizeof hex, "e8", M, 5, F1);
    transfer(f, &r, hex, F1, S - 8);
    EXPECT(f, "t1 $1 c0x%" PRIx64 " w0x%" PRIx64 "/8", F1, S - 8);
    /* F1: execve("/bin/x", argv, argv) succeeds: its exit record is the
     * new program at its entry; F1's activation ends with the old
     * program, and the new program's code is decoded afresh. */
    uint8_t path[8] = "/bin/x";
    put_memory(f, 0x6000, path, sizeof path);
    uint8_t argv[8] = {0};
    put_memory(f, 0x6100, argv, sizeof argv);
    at(f, M, "48 8b 03");  /* decoded: mov rax, [rbx] */
    struct rerun_record entry = syscall_at(f, &r, 59, 0x6000, 0x6100, 0x6100);
    go(f, &entry);
    EXPECT(f, "$5");
    at(f, M, "48 89 03");  /* the new program: mov [rbx], rax */
    struct rerun_record fresh = state(1, M);
    fresh.gp[RERUN_RBX] = 0x2000;
    go(f, &fresh);
    EXPECT(f, "x");
    run(f, &fresh, "48 89 03", NULL);
    EXPECT(f, "w0x2000/8");
    CHECK_EQ(f->summary.execs, 1);
    destroy(f);
}

/* ---- the byte stream ---- */

static void test_stream(void)
{
    /* Four records: a first state, mov rax,[rbx]; mov [rbx],rax; mov rax,[rbx] */
    uint64_t A = CODE + 0x100;
    struct rerun_record recs[4];
    recs[0] = state(1, A);
    recs[0].gp[RERUN_RBX] = 0x1000;
    for (int i = 1; i < 4; i++) {
        recs[i] = recs[0];
        recs[i].ip = A + 3 * (uint64_t)i;
    }
    uint8_t bytes[4 * RERUN_RECORD_BYTES];
    for (int i = 0; i < 4; i++)
        rerun_record_encode(&recs[i], bytes + i * RERUN_RECORD_BYTES);

    /* Fed 7 bytes at a time: the same events as whole. */
    struct fake *f = make();
    at(f, A, "48 8b 03");
    at(f, A + 3, "48 89 03");
    at(f, A + 6, "48 8b 03");
    struct rerun_stream s;
    rerun_stream_init(&s, f->d);
    uint8_t window[RERUN_RECORD_BYTES + 7];
    size_t have = 0, fed = 0;
    while (fed < sizeof bytes) {
        size_t k = sizeof bytes - fed < 7 ? sizeof bytes - fed : 7;
        memcpy(window + have, bytes + fed, k);
        have += k;
        fed += k;
        size_t used;
        struct trms_error err;
        CHECK_EQ(rerun_stream_feed(&s, window, have, &used, &err), 0);
        memmove(window, window + used, have - used);
        have -= used;
    }
    struct trms_error err = {0};
    CHECK_EQ(rerun_stream_end(&s, have, &err), 0);
    CHECK_EQ(s.records, 4);
    EXPECT(f, "t1 r0x1000/8 w0x1000/8 r0x1000/8");
    destroy(f);

    /* A file whose last record is cut short: the records before it are
     * decoded, then one error naming the record and offset. */
    char path[] = "/tmp/trms-test-rerun-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    CHECK_EQ(write(fd, bytes, sizeof bytes - 100), (int64_t)(sizeof bytes - 100));
    lseek(fd, 0, SEEK_SET);
    f = make();
    at(f, A, "48 8b 03");
    at(f, A + 3, "48 89 03");
    at(f, A + 6, "48 8b 03");
    rerun_stream_init(&s, f->d);
    CHECK_EQ(rerun_stream_read_fd(&s, fd, &err), (uint64_t)-1);
    CHECK_STR(err.message, "rerun stream: cut short inside record 3 (byte offset 543, 81 of 181 bytes)");
    EXPECT(f, "t1 r0x1000/8 w0x1000/8");
    destroy(f);
    close(fd);

    /* A record whose trailing byte is not '\n' (another field list) */
    bytes[2 * RERUN_RECORD_BYTES - 1] = 'x';
    fd = open(path, O_RDWR | O_TRUNC);
    CHECK_EQ(write(fd, bytes, sizeof bytes), (int64_t)sizeof bytes);
    lseek(fd, 0, SEEK_SET);
    f = make();
    at(f, A, "48 8b 03");
    rerun_stream_init(&s, f->d);
    CHECK_EQ(rerun_stream_read_fd(&s, fd, &err), (uint64_t)-1);
    CHECK_STR(err.message, "rerun stream: record 1 (byte offset 181) does not end with a "
                           "newline: not a tid,event,icount,ip,fsbase,gsbase,flags,gp_x16 "
                           "stream, or corrupt");
    CHECK_EQ(s.records, 1);
    CHECK_EQ(f->summary.records, 1);
    destroy(f);
    close(fd);
    unlink(path);
}

/* A sink that fails stops the decoder with its error. */
static void test_sink_failure(void)
{
    struct fake *f = make();
    struct rerun_record r = state(1, CODE + 0x100);
    r.gp[RERUN_RAX] = 0x8000;
    go(f, &r);
    f->sink_budget = 1;  /* the thread switch, then no more */
    at(f, r.ip, "89 08");
    struct rerun_record n = r;
    n.ip += 2;
    struct trms_error err = {0};
    CHECK_EQ(rerun_decoder_record(f->d, &n, &err), (uint64_t)-1);
    CHECK_STR(err.message, "sink refused");
    f->sink_budget = -1;
    destroy(f);
}

int main(void)
{
    test_addressing();
    test_stack();
    test_calls();
    test_strings();
    test_read_modify_write();
    test_vector();
    test_undecodable();
    test_syscalls();
    test_threads();
    test_thread_lifecycle();
    test_signals();
    test_signal_at_transfer_through_memory();
    test_handler_first_instruction();
    test_code_cache();
    test_exec();
    test_stream();
    test_sink_failure();
    return check_report("test_rerun_decoder");
}
