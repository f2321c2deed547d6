/* rerun-decode-bench: records per second through the rerun decoder, on a
 * synthetic record stream (see bench/README.md for the command and the
 * figures).
 *
 *   rerun-decode-bench [--records N] [--body N] [--stream] [--trace FILE]
 *
 * The program is a loop of BODY distinct instructions (default 300) drawn
 * in turn from a mix of loads, stores, read-modify-writes, SSE loads,
 * address arithmetic, rip-relative and %fs: loads, push/pop pairs, and a
 * call of a one-instruction function every 40 instructions; a jmp closes
 * the loop. Registers stay fixed but for ip and rsp, so one pass of
 * records repeats for as long as asked. Only the decoding is timed: the
 * records are built first. --stream feeds them as the raw 181-byte
 * records through rerun_stream; --trace writes the events into a trace
 * file instead of counting them. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/error.h"
#include "common/oom.h"
#include "common/parse_number.h"
#include "replayer/rerun_decoder.h"
#include "replayer/rerun_stream.h"
#include "trace/routine_table.h"
#include "trace/trace_writer.h"

#define CODE UINT64_C(0x400000)
#define CODE_BYTES (1 << 16)
#define FUNCTION (CODE + CODE_BYTES - 16)
#define STACK UINT64_C(0x7ffd0000)

struct op {
    const char *name;
    uint8_t bytes[10];
    uint8_t length;
    int8_t rsp;  /* rsp after - rsp before */
};

/* Each reads or writes at rbx + disp8 (rbx fixed), or touches nothing. */
static const struct op mix[] = {
    {"mov rax, [rbx+8]", {0x48, 0x8b, 0x43, 0x08}, 4, 0},
    {"mov [rbx+16], rcx", {0x48, 0x89, 0x4b, 0x10}, 4, 0},
    {"add [rbx+24], ecx", {0x01, 0x4b, 0x18}, 3, 0},
    {"movdqu xmm0, [rbx+32]", {0xf3, 0x0f, 0x6f, 0x43, 0x20}, 5, 0},
    {"lea rdx, [rbx+rcx*4]", {0x48, 0x8d, 0x14, 0x8b}, 4, 0},
    {"cmp ecx, [rbx+40]", {0x3b, 0x4b, 0x28}, 3, 0},
    {"mov eax, [rip+0x100]", {0x8b, 0x05, 0x00, 0x01, 0x00, 0x00}, 6, 0},
    {"mov rax, fs:[0x28]", {0x64, 0x48, 0x8b, 0x04, 0x25, 0x28, 0x00, 0x00, 0x00}, 9, 0},
    {"push rax", {0x50}, 1, -8},
    {"pop rax", {0x58}, 1, 8},
    {"add rdx, 1", {0x48, 0x83, 0xc2, 0x01}, 4, 0},
};
#define MIX (sizeof mix / sizeof mix[0])
#define CALL_EVERY 40

static uint8_t code[CODE_BYTES];

static size_t read_code(void *ctx, uint64_t addr, uint8_t *buf, size_t size)
{
    (void)ctx;
    if (addr < CODE || addr >= CODE + CODE_BYTES)
        return 0;
    size_t n = CODE + CODE_BYTES - addr < size ? (size_t)(CODE + CODE_BYTES - addr) : size;
    memcpy(buf, code + (addr - CODE), n);
    return n;
}

static void put_rel32(uint8_t *p, uint64_t from_next, uint64_t to)
{
    uint32_t d = (uint32_t)(to - from_next);
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(d >> (8 * i));
}

/* One pass of the loop as records: the state after each instruction. */
static struct rerun_record *build(unsigned body, size_t *count)
{
    struct rerun_record *recs = xmalloc((2 * body + 4) * sizeof *recs);
    struct rerun_record r = {.tid = 1, .ip = CODE, .fsbase = UINT64_C(0x7f0000000000),
                             .flags = 0x202};
    r.gp[RERUN_RBX] = 0x600000;
    r.gp[RERUN_RCX] = 3;
    r.gp[RERUN_RSP] = STACK;
    code[FUNCTION - CODE] = 0xc3;  /* ret */
    size_t n = 0;
    uint64_t ip = CODE;
    for (unsigned i = 0; i < body; i++) {
        if (i % CALL_EVERY == CALL_EVERY - 1) {
            code[ip - CODE] = 0xe8;  /* call FUNCTION */
            put_rel32(&code[ip - CODE + 1], ip + 5, FUNCTION);
            r.ip = FUNCTION;
            r.gp[RERUN_RSP] -= 8;
            recs[n++] = r;
            ip += 5;
            r.ip = ip;
            r.gp[RERUN_RSP] += 8;
            recs[n++] = r;
            continue;
        }
        /* push/pop stay paired: a push is always followed by its pop */
        const struct op *o = &mix[i % MIX];
        if (o->rsp > 0 && r.gp[RERUN_RSP] == STACK)
            o = &mix[0];
        memcpy(&code[ip - CODE], o->bytes, o->length);
        ip += o->length;
        r.ip = ip;
        r.gp[RERUN_RSP] += (uint64_t)(int64_t)o->rsp;
        recs[n++] = r;
    }
    if (r.gp[RERUN_RSP] != STACK) {  /* an unpaired push: pop it */
        code[ip - CODE] = 0x58;
        ip += 1;
        r.ip = ip;
        r.gp[RERUN_RSP] += 8;
        recs[n++] = r;
    }
    code[ip - CODE] = 0xe9;  /* jmp CODE */
    put_rel32(&code[ip - CODE + 1], ip + 5, CODE);
    r.ip = CODE;
    recs[n++] = r;
    *count = n;
    return recs;
}

static uint64_t events;

static int count_event(void *ctx, const struct event *ev, struct trms_error *err)
{
    (void)ctx;
    (void)ev;
    (void)err;
    events++;
    return 0;
}

struct writer_sink {
    struct trace_writer *w;
    struct routine_table *routines;
};

static int write_event(void *ctx, const struct event *ev, struct trms_error *err)
{
    struct writer_sink *s = ctx;
    events++;
    return trace_writer_event(s->w, ev, s->routines, err);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void usage(void)
{
    fprintf(stderr, "usage: rerun-decode-bench [--records N] [--body N] [--stream] "
                    "[--trace FILE]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    uint64_t total = 20000000, body = 300;
    int stream = 0;
    const char *trace = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--records") == 0 && i + 1 < argc) {
            if (parse_u64_cstr(argv[++i], &total) != PARSE_NUMBER_OK)
                usage();
        } else if (strcmp(argv[i], "--body") == 0 && i + 1 < argc) {
            if (parse_u64_cstr(argv[++i], &body) != PARSE_NUMBER_OK || body < 2 || body > 4000)
                usage();
        } else if (strcmp(argv[i], "--stream") == 0) {
            stream = 1;
        } else if (strcmp(argv[i], "--trace") == 0 && i + 1 < argc) {
            trace = argv[++i];
        } else {
            usage();
        }
    }
    size_t n;
    struct rerun_record *recs = build((unsigned)body, &n);
    uint8_t *bytes = xmalloc(n * RERUN_RECORD_BYTES);
    for (size_t i = 0; i < n; i++)
        rerun_record_encode(&recs[i], bytes + i * RERUN_RECORD_BYTES);

    struct trms_error err = {0};
    struct routine_table routines;
    routine_table_init(&routines);
    struct writer_sink ws = {.routines = &routines};
    if (trace && !(ws.w = trace_writer_create(trace, &err))) {
        fprintf(stderr, "rerun-decode-bench: %s\n", err.message);
        return 1;
    }
    struct rerun_decoder_config cfg = {.read_code = read_code, .routines = &routines,
                                       .sink = trace ? write_event : count_event,
                                       .sink_ctx = &ws};
    struct rerun_summary summary;
    struct rerun_decoder *d = rerun_decoder_new(&cfg, &summary, &err);
    if (!d) {
        fprintf(stderr, "rerun-decode-bench: %s\n", err.message);
        return 1;
    }
    struct rerun_stream s;
    rerun_stream_init(&s, d);
    /* The first record of the stream is a state: the loop's end. */
    struct rerun_record first = recs[n - 1];
    int rc = rerun_decoder_record(d, &first, &err);
    double start = now();
    uint64_t done = 0;
    while (rc == 0 && done < total) {
        size_t k = total - done < n ? (size_t)(total - done) : n;
        if (stream) {
            size_t used;
            rc = rerun_stream_feed(&s, bytes, k * RERUN_RECORD_BYTES, &used, &err);
        } else {
            for (size_t i = 0; i < k && rc == 0; i++)
                rc = rerun_decoder_record(d, &recs[i], &err);
        }
        done += k;
    }
    if (rc == 0)
        rc = rerun_decoder_finish(d, &err);
    if (rc == 0 && trace)
        rc = trace_writer_close(ws.w, &routines, &err);
    double seconds = now() - start;
    if (rc != 0) {
        fprintf(stderr, "rerun-decode-bench: %s\n", err.message);
        return 1;
    }
    printf("records=%" PRIu64 " distinct_instructions=%zu events=%" PRIu64
           " seconds=%.3f records_per_s=%.2fM events_per_s=%.2fM undecodable=%zu "
           "unexpected=%" PRIu64 " mode=%s\n",
           done, n, events, seconds, (double)done / seconds / 1e6,
           (double)events / seconds / 1e6, summary.undecodable.count, summary.unexpected,
           trace ? "trace" : stream ? "stream" : "records");
    rerun_summary_free(&summary);
    routine_table_free(&routines);
    free(recs);
    free(bytes);
    return 0;
}
