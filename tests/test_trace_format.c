/* test_trace_format: the text and binary event trace formats.
 *
 *  - random traces survive text -> binary -> events unchanged, across many
 *    blocks, with named, spaced and address-only routines;
 *  - every single-byte corruption and every truncation of a binary trace is
 *    refused with a message naming the file;
 *  - malformed text lines are refused with FILE:LINE and the exact reason,
 *    and the accepted forms parse as documented;
 *  - version 2's one-byte short access: the exact bytes the writer chooses,
 *    long sequential runs across blocks at about a byte an access, and the
 *    reader refusing a short access where none may be (a block's first
 *    access, a version 1 file), while still reading version 1;
 *  - version 3's compressed blocks: the events of plain ones, every
 *    corruption refused (plain and compressed alike), and each way a
 *    compressed block can be malformed refused with its reason;
 *  - a writer's tap sees exactly what a read of the file delivers; a read
 *    into a batch sink delivers the per-event read's events, and its
 *    positions resume exactly;
 *  - trace_may_hold_sync: 0 for a trace written without sync records (so
 *    that `trms analyze` writes no causal input for it), 1 for one with,
 *    and for what is no trace; the stream's position stays. */
#include <stdlib.h>
#include <fcntl.h>
#include <unistd.h>
#include <zstd.h>

#include "tests/check.h"
#include "tests/fixture.h"
#include "tests/random_trace.h"
#include "analyses/batch_event.h"
#include "common/cpu_features.h"
#include "trace/crc32.h"
#include "common/oom.h"
#include "trace/event_codec.h"
#include "trace/text_reader.h"
#include "trace/trace_reader.h"
#include "trace/trace_writer.h"

static char tmpdir[] = "/tmp/trms-test-format-XXXXXX";

static int collect(void *ctx, const struct event *ev, struct trms_error *err)
{
    (void)err;
    event_list_push(ctx, ev);
    return 0;
}

static void write_trace_with(const char *path, const struct event_list *events,
                             const struct routine_table *routines,
                             const struct trace_writer_options *options)
{
    struct trms_error err;
    unlink(path);
    struct trace_writer *w = trace_writer_create_with(path, options, &err);
    CHECK(w != NULL);
    for (size_t i = 0; w && i < events->count; i++)
        CHECK(trace_writer_event(w, &events->items[i], routines, &err) == 0);
    CHECK(w && trace_writer_close(w, routines, &err) == 0);
}

static void write_trace(const char *path, const struct event_list *events,
                        const struct routine_table *routines)
{
    struct trace_writer_options compressed = {.level = TRACE_ZSTD_LEVEL};
    write_trace_with(path, events, routines, &compressed);
}

/* The events a reader must return: thread events that do not change the
 * thread are no switch and are dropped. */
static void without_repeated_threads(const struct event_list *in, struct event_list *out)
{
    int has = 0;
    uint32_t tid = 0;
    for (size_t i = 0; i < in->count; i++) {
        const struct event *ev = &in->items[i];
        if (ev->type == EVENT_THREAD) {
            if (has && ev->tid == tid)
                continue;
            has = 1;
            tid = ev->tid;
        }
        event_list_push(out, ev);
    }
}

static int same_event(const struct event *a, const struct event *b)
{
    if (a->type != b->type)
        return 0;
    switch (a->type) {
    case EVENT_THREAD:
        return a->tid == b->tid;
    case EVENT_CALL:
        return a->routine == b->routine;
    case EVENT_RETURN:
        return 1;
    case EVENT_COST:
        return a->size == b->size;
    default:
        return a->addr == b->addr && a->size == b->size;
    }
}

static void roundtrip(uint64_t seed, unsigned n_events)
{
    struct random_trace_shape shape = {.threads = 3, .events = n_events, .routines = 7,
                                       .regions = 4, .region_span = 1 << 20, .max_depth = 6};
    struct event_list events = {0}, expected = {0}, back = {0};
    struct routine_table routines, read_routines;
    routine_table_init(&routines);
    routine_table_init(&read_routines);
    uint32_t id;
    routine_table_intern_name(&routines, "std::vector<int>::push_back(int const&)", 39, &id);
    routine_table_intern_addr(&routines, 0x401000, &id);
    random_trace(seed, &shape, &events, &routines);
    struct event extra[] = {{.type = EVENT_THREAD, .tid = 100}, {.type = EVENT_THREAD, .tid = 100},
                            {.type = EVENT_CALL, .routine = 0}, {.type = EVENT_CALL, .routine = 1},
                            {.type = EVENT_READ, .addr = 0, .size = 1},
                            {.type = EVENT_WRITE, .addr = UINT64_MAX, .size = 1},
                            {.type = EVENT_KWRITE, .addr = 5, .size = EVENT_MAX_ACCESS_SIZE},
                            {.type = EVENT_COST, .size = UINT64_MAX}};
    for (size_t i = 0; i < sizeof extra / sizeof *extra; i++)
        event_list_push(&events, &extra[i]);
    char path[128];
    snprintf(path, sizeof path, "%s/roundtrip.trms", tmpdir);
    write_trace(path, &events, &routines);
    without_repeated_threads(&events, &expected);
    struct trms_error err;
    struct trace_stats stats;
    CHECK(trace_read(path, &read_routines, collect, &back, &stats, &err) == 0);
    CHECK_EQ(back.count, expected.count);
    CHECK_EQ(stats.events, expected.count);
    for (size_t i = 0; i < back.count && i < expected.count; i++)
        if (!same_event(&back.items[i], &expected.items[i])) {
            fprintf(stderr, "seed %" PRIu64 ": event %zu differs after the round trip\n", seed, i);
            check_failures++;
            break;
        }
    CHECK_EQ(read_routines.count, routines.count);
    for (size_t i = 0; i < routines.count && i < read_routines.count; i++) {
        char a[19], b[19];
        CHECK_STR(routine_table_label(&read_routines, (uint32_t)i, a),
                  routine_table_label(&routines, (uint32_t)i, b));
    }
    if (n_events > 100000)
        CHECK(stats.blocks > 4); /* several blocks, each restating its thread */
    event_list_free(&events);
    event_list_free(&expected);
    event_list_free(&back);
    routine_table_free(&routines);
    routine_table_free(&read_routines);
}

/* DST (uninitialized): the first N routines of ALL, as a read resumed at
 * a position defines them. */
static void routines_before(const struct routine_table *all, uint64_t n,
                            struct routine_table *dst)
{
    routine_table_init(dst);
    for (uint64_t i = 0; i < n; i++) {
        uint32_t id;
        const struct routine *rt = &all->items[i];
        routine_table_append(dst, rt->name, rt->name ? strlen(rt->name) : 0, rt->addr, &id);
    }
}

/* Positions kept while reading, at chosen events. */
struct position_log {
    struct event_list events;
    struct trace_position at;           /* the reader keeps it current */
    struct trace_position *kept;
    size_t *kept_index;                 /* the event each was kept at */
    size_t n_kept;
    uint64_t rng;
};

static int keep_positions(void *ctx, const struct event *ev, struct trms_error *err)
{
    (void)err;
    struct position_log *log = ctx;
    event_list_push(&log->events, ev);
    if (random_below(&log->rng, 5000) == 0 || log->events.count == 1) {
        log->kept = xrealloc(log->kept, (log->n_kept + 1) * sizeof *log->kept);
        log->kept_index = xrealloc(log->kept_index, (log->n_kept + 1) * sizeof *log->kept_index);
        log->kept[log->n_kept] = log->at;
        log->kept_index[log->n_kept++] = log->events.count;
    }
    return 0;
}

/* A read resumed at a kept position delivers exactly the events after it
 * and ends with every routine and the trace's totals, having read only the
 * blocks from there on. */
static void resumed_reads(void)
{
    struct random_trace_shape shape = {.threads = 4, .events = 800000, .routines = 300,
                                       .regions = 4, .region_span = 1 << 16, .max_depth = 9};
    struct event_list events = {0};
    struct routine_table routines, all;
    routine_table_init(&routines);
    routine_table_init(&all);
    random_trace(5, &shape, &events, &routines);
    char path[128];
    snprintf(path, sizeof path, "%s/resume.trms", tmpdir);
    write_trace(path, &events, &routines);
    struct position_log log = {.rng = 17};
    struct trace_read_options keep = {.at = &log.at};
    struct trms_error err;
    struct trace_stats whole;
    FILE *fp = fopen(path, "rb");
    CHECK(trace_read_stream(fp, path, &all, keep_positions, &log, &keep, &whole, &err) == 0);
    CHECK(log.n_kept > 10);
    CHECK(whole.blocks > 4);
    size_t later_blocks = 0;
    for (size_t k = 0; k < log.n_kept; k++) {
        const struct trace_position *from = &log.kept[k];
        later_blocks += from->blocks > 0;
        struct routine_table defined;
        routines_before(&all, from->routines, &defined);
        struct event_list rest = {0};
        struct trace_read_options resume = {.from = from};
        struct trace_stats stats;
        CHECK(trace_read_stream(fp, path, &defined, collect, &rest, &resume, &stats, &err) == 0);
        size_t skipped = log.kept_index[k];
        CHECK_EQ(rest.count + skipped, log.events.count);
        CHECK_EQ(stats.events, whole.events);
        CHECK_EQ(defined.count, all.count);
        for (size_t i = 0; i < rest.count && skipped + i < log.events.count; i++)
            if (!same_event(&rest.items[i], &log.events.items[skipped + i])) {
                fprintf(stderr, "resumed at event %zu: event %zu differs\n", skipped, i);
                check_failures++;
                break;
            }
        event_list_free(&rest);
        routine_table_free(&defined);
    }
    CHECK(later_blocks > 5);
    /* Resumed with the wrong routines: refused, not misread. */
    struct event_list rest = {0};
    struct trace_read_options resume = {.from = &log.kept[log.n_kept - 1]};
    CHECK(trace_read_stream(fp, path, &routines, collect, &rest, &resume, NULL, &err) != 0 ||
          log.kept[log.n_kept - 1].routines == routines.count);
    fclose(fp);
    free(log.kept);
    free(log.kept_index);
    event_list_free(&rest);
    event_list_free(&log.events);
    event_list_free(&events);
    routine_table_free(&routines);
    routine_table_free(&all);
}

static int ignore(void *ctx, const struct event *ev, struct trms_error *err)
{
    (void)ctx, (void)ev, (void)err;
    return 0;
}

static unsigned char *slurp(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    fseek(fp, 0, SEEK_END);
    *len = (size_t)ftell(fp);
    rewind(fp);
    unsigned char *data = malloc(*len);
    CHECK(fread(data, 1, *len, fp) == *len);
    fclose(fp);
    return data;
}

static void spill(const char *path, const unsigned char *data, size_t len)
{
    FILE *fp = fopen(path, "wb");
    CHECK(fwrite(data, 1, len, fp) == len);
    fclose(fp);
}

/* Reading PATH must fail, with a message that names it. */
static int refused(const char *path)
{
    struct routine_table routines;
    routine_table_init(&routines);
    struct trms_error err = {{0}};
    int rc = trace_read(path, &routines, ignore, NULL, NULL, &err);
    routine_table_free(&routines);
    return rc != 0 && strstr(err.message, path) != NULL;
}

/* The kinds of the blocks of the trace at PATH, a bit each. */
static unsigned block_kinds(const char *path)
{
    size_t len;
    unsigned char *data = slurp(path, &len);
    unsigned kinds = 0;
    for (size_t at = TRACE_FILE_HEADER_SIZE; at + TRACE_BLOCK_HEADER_SIZE <= len;
         at += TRACE_BLOCK_HEADER_SIZE + get_le32(data + at + 4))
        kinds |= 1u << (get_le32(data + at) & 31);
    free(data);
    return kinds;
}

/* LEVEL: the writer's zstd level, 0 for plain blocks. */
static void corruption(int level)
{
    struct event_list events = {0};
    struct routine_table routines;
    routine_table_init(&routines);
    /* Version 4 packs 60 such events too tightly for zstd to gain on:
     * the compressed case takes more. */
    struct random_trace_shape shape = {.threads = 2, .events = level ? 200 : 60, .routines = 3,
                                       .regions = 2, .region_span = 300, .max_depth = 4};
    random_trace(42, &shape, &events, &routines);
    char good[128], bad[128];
    snprintf(good, sizeof good, "%s/good.trms", tmpdir);
    snprintf(bad, sizeof bad, "%s/bad.trms", tmpdir);
    struct trace_writer_options options = {.level = level};
    write_trace_with(good, &events, &routines, &options);
    /* The case at hand: a compressed block, or a plain one. */
    CHECK_EQ(block_kinds(good), (1u << (level ? TRACE_BLOCK_ZSTD : TRACE_BLOCK_EVENTS)) |
                                    (1u << TRACE_BLOCK_END));
    size_t len;
    unsigned char *data = slurp(good, &len);
    unsigned missed = 0;
    for (size_t i = 0; i < len; i++) {
        static const unsigned char flips[] = {0x01, 0x80, 0xff};
        for (size_t f = 0; f < sizeof flips; f++) {
            data[i] ^= flips[f];
            spill(bad, data, len);
            if (!refused(bad)) {
                fprintf(stderr, "byte %zu ^ 0x%02x was not detected\n", i, flips[f]);
                missed++;
            }
            data[i] ^= flips[f];
        }
    }
    CHECK_EQ(missed, 0);
    for (size_t cut = 0; cut < len; cut++) {
        spill(bad, data, cut);
        if (!refused(bad)) {
            fprintf(stderr, "truncation to %zu bytes was not detected\n", cut);
            check_failures++;
        }
    }
    unsigned char *longer = malloc(len + 1);
    memcpy(longer, data, len);
    longer[len] = 0;
    spill(bad, longer, len + 1);
    CHECK(refused(bad));
    free(longer);
    free(data);
    event_list_free(&events);
    routine_table_free(&routines);
}

/* Parses TEXT; returns the error message, or "" when it parsed. */
static const char *parse_error(const char *text, struct event_list *events)
{
    static struct trms_error err;
    struct routine_table routines;
    routine_table_init(&routines);
    FILE *fp = fmemopen((void *)text, strlen(text), "r");
    int rc = text_trace_read(fp, "t.txt", &routines, collect, events, &err);
    fclose(fp);
    routine_table_free(&routines);
    return rc ? err.message : "";
}

static void malformed_text(void)
{
    static const struct {
        const char *text;
        const char *message;
    } cases[] = {
        {"thread 1\nfrobnicate 3\n",
         "t.txt:2: unknown event 'frobnicate' (expected thread, call, return, read, write, "
         "kread, kwrite or cost)"},
        {"read 0x10\n", "t.txt:1: read needs an address and a size"},
        {"read 0x10 4 5\n", "t.txt:1: unexpected '5' after read"},
        {"write zz 4\n", "t.txt:1: address 'zz' is not a number (decimal or 0x hex)"},
        {"read 16 -4\n", "t.txt:1: size '-4' is not a number (decimal or 0x hex)"},
        {"read 0x 4\n", "t.txt:1: address '0x' is not a number (decimal or 0x hex)"},
        {"kread 0x10000000000000000 1\n",
         "t.txt:1: address 0x10000000000000000 does not fit in 64 bits"},
        {"kwrite 5 0\n", "t.txt:1: kwrite of 0 bytes"},
        {"read 5 0x100000000\n", "t.txt:1: read of 4 GiB or more"},
        {"read 0xffffffffffffffff 2\n", "t.txt:1: read runs past the end of the address space"},
        {"thread 4294967296\n", "t.txt:1: thread id 4294967296 does not fit in 32 bits"},
        {"thread\n", "t.txt:1: thread needs a number"},
        {"cost 1.5\n", "t.txt:1: instruction count '1.5' is not a number (decimal or 0x hex)"},
        {"call f\nreturn\nreturn\n", "t.txt:3: return with no pending call in thread 1"},
        {"thread 1\ncall f\nthread 2\nreturn\n",
         "t.txt:4: return with no pending call in thread 2"},
        {"call   \n", "t.txt:1: call needs a routine name or 0x address"},
        {"return 1\n", "t.txt:1: unexpected '1' after return"},
        {"# ok\n\nread 1 1\nREAD 1 1\n", "t.txt:4: unknown event 'READ' (expected thread, "
                                          "call, return, read, write, kread, kwrite or cost)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct event_list events = {0};
        CHECK_STR(parse_error(cases[i].text, &events), cases[i].message);
        event_list_free(&events);
    }
    /* A NUL byte inside a line. */
    struct event_list events = {0};
    struct routine_table routines;
    routine_table_init(&routines);
    static const char nul[] = "read 1 1\nread\0 1 1\n";
    FILE *fp = fmemopen((void *)nul, sizeof nul - 1, "r");
    struct trms_error err;
    CHECK(text_trace_read(fp, "t.txt", &routines, collect, &events, &err) != 0);
    CHECK_STR(err.message, "t.txt:2: the line holds a NUL byte (not a text trace?)");
    fclose(fp);
    routine_table_free(&routines);
    event_list_free(&events);
}

static void accepted_text(void)
{
    struct event_list events = {0};
    struct routine_table routines;
    routine_table_init(&routines);
    fixture_parse("# comment line\n"
                  "\n"
                  "  read 0X1F 2   # implicit thread 1, upper-case hex\r\n"
                  "call operator new(unsigned long)  \n"
                  "call 0x401000\n"
                  "thread 0x10\n"
                  "cost 18446744073709551615\n"
                  "kwrite 0xffffffffffffffff 1\n"
                  "thread 16\n",
                  &events, &routines);
    CHECK_EQ(events.count, 8);
    if (events.count == 8) {
        CHECK(events.items[0].type == EVENT_THREAD && events.items[0].tid == 1);
        CHECK(events.items[1].type == EVENT_READ && events.items[1].addr == 0x1f &&
              events.items[1].size == 2);
        char buf[19];
        CHECK_STR(routine_table_label(&routines, events.items[2].routine, buf),
                  "operator new(unsigned long)");
        CHECK_STR(routine_table_label(&routines, events.items[3].routine, buf), "0x401000");
        CHECK(events.items[4].type == EVENT_THREAD && events.items[4].tid == 16);
        CHECK(events.items[5].type == EVENT_COST && events.items[5].size == UINT64_MAX);
        CHECK(events.items[6].type == EVENT_KWRITE && events.items[6].addr == UINT64_MAX);
        CHECK(events.items[7].type == EVENT_THREAD); /* repeated: the analysis ignores it */
    }
    event_list_free(&events);
    routine_table_free(&routines);
}

/* ---- version 2's short access ---- */

static void push_access(struct event_list *events, enum event_type type, uint64_t addr,
                        uint64_t size)
{
    struct event ev = {.type = type, .addr = addr, .size = size};
    event_list_push(events, &ev);
}

/* Writes EVENTS (no routines) and reads them back unchanged; returns the
 * file's size. */
static size_t roundtrip_file(const char *path, const struct event_list *events,
                             unsigned char *payload, size_t *payload_len)
{
    struct routine_table routines, read_routines;
    routine_table_init(&routines);
    routine_table_init(&read_routines);
    write_trace(path, events, &routines);
    struct event_list back = {0};
    struct trms_error err;
    CHECK(trace_read(path, &read_routines, collect, &back, NULL, &err) == 0);
    CHECK_EQ(back.count, events->count);
    for (size_t i = 0; i < back.count && i < events->count; i++)
        if (!same_event(&back.items[i], &events->items[i])) {
            fprintf(stderr, "%s: event %zu differs after the round trip\n", path, i);
            check_failures++;
            break;
        }
    size_t len;
    unsigned char *data = slurp(path, &len);
    if (payload && len >= TRACE_FILE_HEADER_SIZE + TRACE_BLOCK_HEADER_SIZE) {
        /* The first block's payload. */
        const unsigned char *block = data + TRACE_FILE_HEADER_SIZE;
        *payload_len = get_le32(block + 4);
        memcpy(payload, block + TRACE_BLOCK_HEADER_SIZE, *payload_len);
    }
    free(data);
    event_list_free(&back);
    routine_table_free(&routines);
    routine_table_free(&read_routines);
    return len;
}

/* The writer's exact choices (format 4): each 64 KiB region's slot keeps
 * its own base and size; short where the slot's size repeats and the
 * zigzag distance is below 4 (3 in, 4 out); a size record where the slot's
 * size changes; kernel accesses always long. Addresses below 64 KiB go
 * through slot 0, 0x7ffd00001000 through slot 5 (access_slot_of). */
static void short_access_bytes(void)
{
    CHECK_EQ(access_slot_of(0x1000), 0);
    CHECK_EQ(access_slot_of(UINT64_C(0x7ffd00001000)), 5);
    struct event_list events = {0};
    struct event thread = {.type = EVENT_THREAD, .tid = 1};
    event_list_push(&events, &thread);
    uint64_t stack = UINT64_C(0x7ffd00001000);
    push_access(&events, EVENT_READ, 0x1000, 4);   /* first: size 4, long, zigzag 0x2000 */
    push_access(&events, EVENT_READ, 0x1004, 4);   /* next to it: short, zigzag 0 */
    push_access(&events, EVENT_WRITE, 0x1007, 4);  /* 1 back, zigzag 1: short */
    push_access(&events, EVENT_WRITE, 0x1009, 4);  /* 2 back, zigzag 3: short */
    push_access(&events, EVENT_READ, 0x100f, 4);   /* 2 on, zigzag 4: long */
    push_access(&events, EVENT_WRITE, stack, 8);   /* slot 5: size 8, long, from 0 */
    push_access(&events, EVENT_READ, 0x1013, 4);   /* slot 0 kept its base: short */
    push_access(&events, EVENT_KREAD, 0x1017, 8);  /* the kernel's, new size: long */
    push_access(&events, EVENT_READ, 0x101f, 8);   /* same size as the kread: short */
    push_access(&events, EVENT_READ, 0x1027, 3);   /* size spelled out: long */
    push_access(&events, EVENT_READ, 0x102a, 3);   /* the slot holds size 3: short */
    struct event cost = {.type = EVENT_COST, .size = 5};
    event_list_push(&events, &cost);
    push_access(&events, EVENT_WRITE, stack + 8, 8);  /* slot 5 again: short */
    static const unsigned char expected[] = {
        0x01, 0x01,                                     /* thread 1 */
        0x0a, 0x40, 0x80, 0x40,                         /* size 4, read slot 0, 0x2000 */
        0x80, 0xc1, 0xc3,                               /* shorts */
        0x40, 0x04,                                     /* read slot 0, zigzag 4 */
        0x0b, 0x55, 0x80, 0xc0, 0x80, 0x80, 0xa0, 0xff, 0x3f, /* size 8, write slot 5 */
        0x80,                                           /* read slot 0 */
        0x0b, 0x60, 0x00,                               /* size 8, kread slot 0 */
        0x80,                                           /* read slot 0 */
        0x0f, 0x03, 0x40, 0x00,                         /* size 3, read slot 0 */
        0x80,                                           /* read slot 0 */
        0x04, 0x05,                                     /* cost 5 */
        0xd4};                                          /* write slot 5 */
    char path[128];
    snprintf(path, sizeof path, "%s/short.trms", tmpdir);
    unsigned char payload[256];
    size_t len = 0;
    roundtrip_file(path, &events, payload, &len);
    CHECK_EQ(len, sizeof expected);
    if (len != sizeof expected || memcmp(payload, expected, len) != 0) {
        fprintf(stderr, "short.trms: the payload's bytes differ:");
        for (size_t i = 0; i < len; i++)
            fprintf(stderr, " %02x", payload[i]);
        fprintf(stderr, "\n");
        check_failures++;
    }
    event_list_free(&events);
}

/* Two streams interleaved, as a copy loop's source and destination in
 * regions of their own: each keeps its slot, so both take a byte an
 * access (version 3's one base took a jump each). */
static void interleaved_streams(void)
{
    struct event_list events = {0};
    struct event thread = {.type = EVENT_THREAD, .tid = 3};
    event_list_push(&events, &thread);
    uint64_t src = 0x10000000, dst = 0x20000000;
    CHECK(access_slot_of(src) != access_slot_of(dst));
    enum { PAIRS = 100000 };
    for (unsigned i = 0; i < PAIRS; i++) {
        push_access(&events, EVENT_READ, src + 8 * i, 8);
        push_access(&events, EVENT_WRITE, dst + 8 * i, 8);
    }
    char path[128];
    snprintf(path, sizeof path, "%s/streams.trms", tmpdir);
    size_t bytes = roundtrip_file(path, &events, NULL, NULL);
    CHECK(bytes < 2 * PAIRS + 2 * PAIRS / 50);
    event_list_free(&events);
}

/* Sequential runs over many blocks: every block starts its accesses long
 * (a short one there would be refused), and the rest take a byte each. */
static void short_access_runs(void)
{
    struct event_list events = {0};
    struct event thread = {.type = EVENT_THREAD, .tid = 7};
    event_list_push(&events, &thread);
    uint64_t addr = UINT64_C(0x7ffd00000000);
    enum { ACCESSES = 300000 };
    for (unsigned i = 0; i < ACCESSES; i++) {
        uint64_t size = i / 1000 % 2 ? 8 : 4;          /* runs of one size */
        push_access(&events, i % 3 ? EVENT_READ : EVENT_WRITE, addr, size);
        addr += size;
        if (i % 7 == 0)
            addr -= 16;                                 /* back: still short */
    }
    char path[128];
    snprintf(path, sizeof path, "%s/runs.trms", tmpdir);
    size_t bytes = roundtrip_file(path, &events, NULL, NULL);
    /* A byte each, but for the first of each size run and of each block. */
    CHECK(bytes < ACCESSES + ACCESSES / 50);
    event_list_free(&events);

    /* At address 0 a block's first access is near where the base restarts:
     * only the size (none yet in the block) keeps it long. */
    event_list_push(&events, &thread);
    for (unsigned i = 0; i < ACCESSES; i++)
        push_access(&events, EVENT_READ, 0, 4);
    bytes = roundtrip_file(path, &events, NULL, NULL);
    CHECK(bytes < ACCESSES + ACCESSES / 50);
    event_list_free(&events);
}

/* A file of format VERSION with one events block holding PAYLOAD (EVENTS
 * records) and the end block that totals it. */
static void craft_kind(const char *path, uint32_t version, uint32_t kind,
                       const unsigned char *payload, size_t len, uint32_t events)
{
    unsigned char data[1024];
    size_t n = 0;
    memcpy(data, TRACE_MAGIC, 8);
    put_le32(data + 8, version);
    put_le32(data + 12, 0);
    n = TRACE_FILE_HEADER_SIZE;
    put_le32(data + n, kind);
    put_le32(data + n + 4, (uint32_t)len);
    put_le32(data + n + 8, events);
    put_le32(data + n + 12, crc32_update(0, payload, len));
    memcpy(data + n + TRACE_BLOCK_HEADER_SIZE, payload, len);
    n += TRACE_BLOCK_HEADER_SIZE + len;
    /* Since version 3 the end block restates the version. */
    unsigned char end[4] = {(unsigned char)events, 1, 0, (unsigned char)version};
    size_t end_len = version >= 3 ? 4 : 3;
    put_le32(data + n, TRACE_BLOCK_END);
    put_le32(data + n + 4, (uint32_t)end_len);
    put_le32(data + n + 8, 0);
    put_le32(data + n + 12, crc32_update(0, end, end_len));
    memcpy(data + n + TRACE_BLOCK_HEADER_SIZE, end, end_len);
    n += TRACE_BLOCK_HEADER_SIZE + end_len;
    spill(path, data, n);
}

static void craft(const char *path, uint32_t version, const unsigned char *payload, size_t len,
                  uint32_t events)
{
    craft_kind(path, version, TRACE_BLOCK_EVENTS, payload, len, events);
}

/* Reads PATH; the error message, or "" when it read. */
static const char *read_error(const char *path, struct event_list *events)
{
    static struct trms_error err;
    struct routine_table routines;
    routine_table_init(&routines);
    int rc = trace_read(path, &routines, collect, events, NULL, &err);
    routine_table_free(&routines);
    return rc ? err.message : "";
}

/* Version 4: what a slot's records need, each refused with its reason. */
static void slot_strictness(void)
{
    char path[128], want[256];
    snprintf(path, sizeof path, "%s/slots.trms", tmpdir);
    struct event_list events = {0};
    /* thread 1; size 4, read slot 3 at 0x10; short read slot 3 at 0x14;
     * size 4, write slot 2 at 0x8; size 2, kwrite slot 2 at 0x10. */
    static const unsigned char good[] = {0x01, 0x01, 0x0a, 0x43, 0x20, 0x8c,
                                         0x0a, 0x52, 0x10, 0x09, 0x72, 0x08};
    craft(path, 4, good, sizeof good, 5);
    CHECK_STR(read_error(path, &events), "");
    CHECK_EQ(events.count, 5);
    if (events.count == 5) {
        CHECK(events.items[2].type == EVENT_READ && events.items[2].addr == 0x14 &&
              events.items[2].size == 4);
        CHECK(events.items[3].type == EVENT_WRITE && events.items[3].addr == 0x8 &&
              events.items[3].size == 4);
        CHECK(events.items[4].type == EVENT_KWRITE && events.items[4].addr == 0x10 &&
              events.items[4].size == 2);
    }
    event_list_free(&events);
    static const struct {
        unsigned char payload[6];
        size_t len;
        const char *why;
    } bad[] = {
        {{0x01, 0x01, 0x8c}, 3, "short access through a slot without an access before it"},
        {{0x01, 0x01, 0x43, 0x20}, 4, "access without a size"},
        {{0x01, 0x01, 0x0a, 0x02, 0x05}, 5, "size record not before an access"},
        {{0x01, 0x01, 0x0a}, 3, "size record not before an access"},
        {{0x01, 0x01, 0x0a, 0x8c}, 4, "size record not before an access"},
        {{0x01, 0x01, 0x0f, 0x00, 0x43, 0x00}, 6, "access size out of range"},
        {{0x01, 0x01, 0x10}, 3, "unknown opcode"},
        {{0x01, 0x01, 0x3f}, 3, "unknown opcode"},
        {{0x01, 0x01, 0x0a, 0x43}, 4, "truncated access address"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        craft(path, 4, bad[i].payload, bad[i].len, 3);
        snprintf(want, sizeof want, "%s: corrupt recording: %s in the block at byte 16", path,
                 bad[i].why);
        CHECK_STR(read_error(path, &events), want);
        event_list_free(&events);
    }
    /* Version 3 reads none of it. */
    craft(path, 3, good, sizeof good, 5);
    CHECK(strlen(read_error(path, &events)) > 0);
    event_list_free(&events);
}

static void short_access_strictness(void)
{
    char path[128];
    snprintf(path, sizeof path, "%s/crafted.trms", tmpdir);
    /* thread 1, read 4 at 0x10 (long), read 4 at 0x14 (short). */
    static const unsigned char good[] = {0x01, 0x01, 0x82, 0x20, 0xc0};
    struct event_list events = {0};
    craft(path, 2, good, sizeof good, 3);
    CHECK_STR(read_error(path, &events), "");
    CHECK_EQ(events.count, 3);
    if (events.count == 3) {
        CHECK_EQ(events.items[2].type, EVENT_READ);
        CHECK_EQ(events.items[2].addr, 0x14);
        CHECK_EQ(events.items[2].size, 4);
    }
    event_list_free(&events);

    char want[256];
    /* A short access first in its block: nothing to take the size from. */
    static const unsigned char first[] = {0x01, 0x01, 0xc0};
    craft(path, 2, first, sizeof first, 2);
    snprintf(want, sizeof want, "%s: corrupt recording: short access without an access "
                                "before it in the block at byte 16", path);
    CHECK_STR(read_error(path, &events), want);
    event_list_free(&events);
    /* Version 1 has no short access... */
    craft(path, 1, good, sizeof good, 3);
    snprintf(want, sizeof want, "%s: corrupt recording: unknown opcode in the block at "
                                "byte 16", path);
    CHECK_STR(read_error(path, &events), want);
    event_list_free(&events);
    /* ...but is read otherwise. */
    craft(path, 1, good, sizeof good - 1, 2);
    CHECK_STR(read_error(path, &events), "");
    CHECK_EQ(events.count, 2);
    event_list_free(&events);
    /* 0xa0..0xbf are no record. */
    static const unsigned char gap[] = {0x01, 0x01, 0x82, 0x20, 0xa0};
    craft(path, 2, gap, sizeof gap, 3);
    CHECK_STR(read_error(path, &events), want);
    event_list_free(&events);
    craft(path, 5, good, sizeof good, 3);
    snprintf(want, sizeof want, "%s: event trace format version 5 is not supported (this "
                                "trms reads versions 1 to 4)", path);
    CHECK_STR(read_error(path, &events), want);
    event_list_free(&events);
    slot_strictness();
}

/* Version 3's compressed blocks: the same events as plain ones, in a
 * smaller file; and each way a compressed block can be wrong is refused
 * with its reason. */
static void compressed_blocks(void)
{
    struct random_trace_shape shape = {.threads = 3, .events = 200000, .routines = 9,
                                       .regions = 4, .region_span = 1 << 16, .max_depth = 7};
    struct event_list events = {0}, plain = {0}, packed = {0};
    struct routine_table routines, r1, r2;
    routine_table_init(&routines);
    routine_table_init(&r1);
    routine_table_init(&r2);
    random_trace(3, &shape, &events, &routines);
    char a[128], b[128];
    snprintf(a, sizeof a, "%s/plain.trms", tmpdir);
    snprintf(b, sizeof b, "%s/packed.trms", tmpdir);
    struct trace_writer_options none = {.level = 0}, zstd = {.level = TRACE_ZSTD_LEVEL};
    write_trace_with(a, &events, &routines, &none);
    write_trace_with(b, &events, &routines, &zstd);
    CHECK_EQ(block_kinds(a), (1u << TRACE_BLOCK_EVENTS) | (1u << TRACE_BLOCK_END));
    CHECK(block_kinds(b) & (1u << TRACE_BLOCK_ZSTD));
    size_t la, lb;
    free(slurp(a, &la));
    free(slurp(b, &lb));
    CHECK(lb < la * 9 / 10); /* random addresses: zstd finds little to share */
    struct trms_error err;
    struct trace_stats sa, sb;
    CHECK(trace_read(a, &r1, collect, &plain, &sa, &err) == 0);
    CHECK(trace_read(b, &r2, collect, &packed, &sb, &err) == 0);
    CHECK_EQ(plain.count, packed.count);
    CHECK_EQ(sa.blocks, sb.blocks);
    CHECK(sa.blocks > 2);
    for (size_t i = 0; i < plain.count && i < packed.count; i++)
        if (!same_event(&plain.items[i], &packed.items[i])) {
            fprintf(stderr, "event %zu differs between plain and compressed blocks\n", i);
            check_failures++;
            break;
        }
    event_list_free(&events);
    event_list_free(&plain);
    event_list_free(&packed);
    routine_table_free(&routines);
    routine_table_free(&r1);
    routine_table_free(&r2);

    /* Crafted: thread 1, read 4 at 0x10, read 4 at 0x14 (short). */
    static const unsigned char good[] = {0x01, 0x01, 0x82, 0x20, 0xc0};
    unsigned char stored[256];
    size_t frame = ZSTD_compress(stored + 4, sizeof stored - 4, good, sizeof good, 1);
    CHECK(!ZSTD_isError(frame));
    put_le32(stored, sizeof good);
    char path[128], want[512];
    snprintf(path, sizeof path, "%s/crafted3.trms", tmpdir);
    struct event_list got = {0};
    craft_kind(path, 3, TRACE_BLOCK_ZSTD, stored, frame + 4, 3);
    CHECK_STR(read_error(path, &got), "");
    CHECK_EQ(got.count, 3);
    CHECK(got.count == 3 && got.items[2].addr == 0x14 && got.items[2].size == 4);
    event_list_free(&got);
    /* Compressed blocks are version 3's: a version 2 file has none. */
    craft_kind(path, 2, TRACE_BLOCK_ZSTD, stored, frame + 4, 3);
    snprintf(want, sizeof want, "%s: corrupt recording: bad block header in the block at byte 16",
             path);
    CHECK_STR(read_error(path, &got), want);
    event_list_free(&got);
    /* A length that is not the frame's. */
    put_le32(stored, sizeof good + 1);
    craft_kind(path, 3, TRACE_BLOCK_ZSTD, stored, frame + 4, 3);
    snprintf(want, sizeof want, "%s: corrupt recording: compressed events that do not "
                                "decompress in the block at byte 16", path);
    CHECK_STR(read_error(path, &got), want);
    event_list_free(&got);
    /* A frame that is not one (its checksum right). */
    put_le32(stored, sizeof good);
    stored[6] ^= 0x5a;
    craft_kind(path, 3, TRACE_BLOCK_ZSTD, stored, frame + 4, 3);
    CHECK_STR(read_error(path, &got), want);
    event_list_free(&got);
    /* Larger than any block may be. */
    put_le32(stored, TRACE_BLOCK_MAX_PAYLOAD + 1);
    craft_kind(path, 3, TRACE_BLOCK_ZSTD, stored, frame + 4, 3);
    snprintf(want, sizeof want, "%s: corrupt recording: bad block header in the block at byte 16",
             path);
    CHECK_STR(read_error(path, &got), want);
    event_list_free(&got);
    craft_kind(path, 3, TRACE_BLOCK_ZSTD, stored, 3, 3);
    snprintf(want, sizeof want, "%s: corrupt recording: compressed block too short in the "
                                "block at byte 16", path);
    CHECK_STR(read_error(path, &got), want);
    event_list_free(&got);
}

/* What a trace writer's tap sees is what a read of the finished file
 * delivers, event for event: no thread event that is no switch, the
 * events written through trace_writer_tap in their place among the
 * others. */
struct tapped {
    struct event_list events;
    size_t runs;
};

static int tap_keep(void *ctx, const struct event *events, size_t n, struct trms_error *err)
{
    (void)err;
    struct tapped *t = ctx;
    for (size_t i = 0; i < n; i++)
        event_list_push(&t->events, &events[i]);
    t->runs++;
    return 0;
}

static void writer_tap(void)
{
    struct random_trace_shape shape = {.threads = 4, .events = 300000, .routines = 50,
                                       .regions = 4, .region_span = 1 << 18, .max_depth = 9};
    struct event_list events = {0}, from_file = {0};
    struct routine_table routines, file_routines;
    routine_table_init(&routines);
    routine_table_init(&file_routines);
    random_trace(11, &shape, &events, &routines);
    char path[128];
    snprintf(path, sizeof path, "%s/tapped.trms", tmpdir);
    unlink(path);
    struct tapped t = {0};
    struct trace_writer_options options = {.level = TRACE_ZSTD_LEVEL,
                                           .tap = {.run = tap_keep, .ctx = &t}};
    struct trms_error err;
    struct trace_writer *w = trace_writer_create_with(path, &options, &err);
    CHECK(w != NULL && trace_writer_tapped(w));
    for (size_t i = 0; w && i < events.count; i++) {
        const struct event *ev = &events.items[i];
        /* Every fifth access as a producer that encodes itself would give
         * it: trace_writer_access, then the event to the tap. */
        if ((ev->type == EVENT_READ || ev->type == EVENT_WRITE) && i % 5 == 0) {
            CHECK(trace_writer_access(w, ev->type, ev->addr, ev->size, &err) == 0);
            continue;
        }
        CHECK(trace_writer_event(w, ev, &routines, &err) == 0);
    }
    CHECK(w && trace_writer_close(w, &routines, &err) == 0);
    struct trace_stats stats;
    CHECK(trace_read(path, &file_routines, collect, &from_file, &stats, &err) == 0);
    CHECK(stats.blocks > 3);
    CHECK(t.runs > 1000);
    CHECK_EQ(t.events.count, from_file.count);
    for (size_t i = 0; i < t.events.count && i < from_file.count; i++)
        if (!same_event(&t.events.items[i], &from_file.items[i])) {
            fprintf(stderr, "tapped event %zu differs from the file's\n", i);
            check_failures++;
            break;
        }
    event_list_free(&events);
    event_list_free(&from_file);
    event_list_free(&t.events);
    routine_table_free(&routines);
    routine_table_free(&file_routines);
}

/* A read into a batch sink delivers the per-event read's events, in runs,
 * with positions that resume exactly (the fast path of the common records
 * included, from every kind of position). */
struct batch_log {
    struct event_list events;
    struct trace_position at;
    struct trace_position kept[64];
    size_t kept_index[64];
    size_t n_kept;
    size_t runs, longest;
};

static int batch_keep(void *ctx, const struct event *events, size_t n, struct trms_error *err)
{
    (void)err;
    struct batch_log *l = ctx;
    for (size_t i = 0; i < n; i++)
        event_list_push(&l->events, &events[i]);
    l->runs++;
    l->longest = n > l->longest ? n : l->longest;
    if (l->n_kept < 64 && l->runs % 97 == 1) {
        l->kept[l->n_kept] = l->at;
        l->kept_index[l->n_kept++] = l->events.count;
    }
    return 0;
}

static void check_same_events(const struct event_list *got, const struct event_list *want,
                              size_t from, const char *what)
{
    CHECK_EQ(got->count, want->count - from);
    for (size_t i = 0; i < got->count && from + i < want->count; i++)
        if (!same_event(&got->items[i], &want->items[from + i])) {
            fprintf(stderr, "%s: event %zu differs\n", what, from + i);
            check_failures++;
            break;
        }
}

/* A random trace of 4 threads (SEED) written to NAME in tmpdir (PATH
 * receives it), and read back one event at a time into ONE_BY_ONE, its
 * routines into READ_ROUTINES (initialized here): what the batch reads
 * must deliver. */
static void threads_trace_file(uint64_t seed, const char *name, char path[static 128],
                               struct event_list *one_by_one,
                               struct routine_table *read_routines)
{
    struct random_trace_shape shape = {.threads = 4, .events = 400000, .routines = 300,
                                       .regions = 4, .region_span = 1 << 16, .max_depth = 9};
    struct event_list events = {0};
    struct routine_table routines;
    routine_table_init(&routines);
    routine_table_init(read_routines);
    random_trace(seed, &shape, &events, &routines);
    snprintf(path, 128, "%s/%s", tmpdir, name);
    write_trace(path, &events, &routines);
    struct trms_error err;
    CHECK(trace_read(path, read_routines, collect, one_by_one, NULL, &err) == 0);
    event_list_free(&events);
    routine_table_free(&routines);
}

static void batch_reads(void)
{
    struct event_list one_by_one = {0};
    struct routine_table r1, r2;
    char path[128];
    threads_trace_file(8, "batch.trms", path, &one_by_one, &r1);
    routine_table_init(&r2);
    struct trms_error err;
    struct batch_log log = {0};
    struct trace_read_options o = {.at = &log.at, .batch = batch_keep};
    FILE *fp = fopen(path, "rb");
    CHECK(trace_read_stream(fp, path, &r2, NULL, &log, &o, NULL, &err) == 0);
    check_same_events(&log.events, &one_by_one, 0, "batch read");
    CHECK_EQ(log.longest, TRACE_READ_RUN);
    CHECK(log.n_kept > 10);
    for (size_t k = 0; k < log.n_kept; k++) {
        struct routine_table defined;
        routines_before(&r1, log.kept[k].routines, &defined);
        struct batch_log rest = {0};
        struct trace_read_options from = {.from = &log.kept[k], .at = &rest.at,
                                          .batch = batch_keep};
        CHECK(trace_read_stream(fp, path, &defined, NULL, &rest, &from, NULL, &err) == 0);
        check_same_events(&rest.events, &one_by_one, log.kept_index[k], "batch read resumed");
        event_list_free(&rest.events);
        routine_table_free(&defined);
    }
    fclose(fp);
    event_list_free(&one_by_one);
    event_list_free(&log.events);
    routine_table_free(&r1);
    routine_table_free(&r2);
}

/* A read whose consumer takes the common records straight into its
 * batches (trace_read_options' room) delivers the same events, in order:
 * each batch event as the analysis driver holds it, the flows noted where
 * they are, the counts right, and positions that resume exactly, whatever
 * room the consumer gives or refuses. */
struct room_log {
    struct batch_log l;
    struct batch_event room[512];
    uint64_t rng;
    size_t in_room, rooms, refused;
};

static int room_give(void *ctx, struct batch_event **next, struct batch_event **end,
                     int *flows)
{
    struct room_log *r = ctx;
    if (random_below(&r->rng, 8) == 0) {
        r->refused++;
        return 1;
    }
    *next = r->room;
    *end = r->room + 1 + random_below(&r->rng, 300);
    *flows = (int)random_below(&r->rng, 2);
    r->rooms++;
    return 0;
}

static int room_written(void *ctx, struct batch_event *next, uint64_t accesses, uint64_t writes,
                        const struct flow_note *flows, size_t n_flows, struct trms_error *err)
{
    (void)err;
    struct room_log *r = ctx;
    size_t n = (size_t)(next - r->room), note = 0;
    uint64_t seen_writes = 0;
    CHECK_EQ(n, accesses + n_flows);
    for (size_t i = 0; i < n; i++) {
        const struct batch_event *b = &r->room[i];
        struct event ev = {.type = (enum event_type)b->type};
        CHECK_EQ(b->shards, 0xff);
        if (b->type == EVENT_READ || b->type == EVENT_WRITE) {
            ev.addr = b->value;
            ev.size = b->size;
            seen_writes += b->type == EVENT_WRITE;
        } else {
            /* a flow: noted where it is, valued as the driver values it */
            CHECK(b->type == EVENT_CALL || b->type == EVENT_RETURN || b->type == EVENT_COST);
            CHECK(note < n_flows && flows[note].at == i && flows[note].type == b->type &&
                  flows[note].value == b->value);
            note++;
            ev.routine = (uint32_t)b->value;
            ev.size = b->value;
            CHECK_EQ(b->size, b->type == EVENT_COST ? (uint32_t)b->value : 0);
            CHECK(b->type != EVENT_CALL || b->value == ev.routine);
        }
        event_list_push(&r->l.events, &ev);
    }
    CHECK_EQ(note, n_flows);
    CHECK_EQ(seen_writes, writes);
    r->in_room += n;
    /* kept as batch_keep keeps them: the position after this run */
    if (r->l.n_kept < 64 && ++r->l.runs % 97 == 1) {
        r->l.kept[r->l.n_kept] = r->l.at;
        r->l.kept_index[r->l.n_kept++] = r->l.events.count;
    }
    return 0;
}

static int room_keep(void *ctx, const struct event *events, size_t n, struct trms_error *err)
{
    return batch_keep(&((struct room_log *)ctx)->l, events, n, err);
}


static void room_reads(void)
{
    struct event_list one_by_one = {0};
    struct routine_table r1, r2;
    char path[128];
    threads_trace_file(12, "room.trms", path, &one_by_one, &r1);
    routine_table_init(&r2);
    struct trms_error err;
    struct room_log *log = xcalloc(1, sizeof *log);
    log->rng = 3;
    struct trace_read_options o = {.at = &log->l.at, .batch = room_keep, .room = room_give,
                                   .written = room_written};
    FILE *fp = fopen(path, "rb");
    CHECK(trace_read_stream(fp, path, &r2, NULL, log, &o, NULL, &err) == 0);
    check_same_events(&log->l.events, &one_by_one, 0, "room read");
    /* Many events came through the room, and every way was taken. */
    CHECK(log->in_room > one_by_one.count / 3); /* 45%: the kernel's and switches' come apart */
    CHECK(log->refused > 100 && log->l.runs > 100);
    CHECK(log->l.n_kept > 10);
    for (size_t k = 0; k < log->l.n_kept; k++) {
        struct routine_table defined;
        routines_before(&r1, log->l.kept[k].routines, &defined);
        struct room_log *rest = xcalloc(1, sizeof *rest);
        rest->rng = k;
        struct trace_read_options from = {.from = &log->l.kept[k], .at = &rest->l.at,
                                          .batch = room_keep, .room = room_give,
                                          .written = room_written};
        CHECK(trace_read_stream(fp, path, &defined, NULL, rest, &from, NULL, &err) == 0);
        check_same_events(&rest->l.events, &one_by_one, log->l.kept_index[k],
                          "room read resumed");
        event_list_free(&rest->l.events);
        free(rest);
        routine_table_free(&defined);
    }
    fclose(fp);
    event_list_free(&one_by_one);
    event_list_free(&log->l.events);
    free(log);
    routine_table_free(&r1);
    routine_table_free(&r2);
}

/* Source records (issue 25): a kernel write's channel is read back, one by
 * one and in runs, the header says the trace has them, and they are
 * refused where the flag is missing or no kernel write follows. */
static void source_records(void)
{
    struct event_list events = {0};
    struct routine_table routines;
    routine_table_init(&routines);
    event_list_push(&events, &(struct event){.type = EVENT_THREAD, .tid = 1});
    for (uint32_t i = 0; i < 3000; i++) {
        /* every third kernel write from a channel, among plain accesses */
        event_list_push(&events, &(struct event){.type = EVENT_KWRITE, .addr = 0x1000 + 8 * i,
                                                 .size = i % 5 ? 8 : 4096,
                                                 .routine = i % 3 ? 0 : 1 + i % 7});
        event_list_push(&events,
                        &(struct event){.type = EVENT_READ, .addr = 0x1000 + 8 * i, .size = 4});
    }
    char path[128];
    snprintf(path, sizeof path, "%s/sources.trms", tmpdir);
    write_trace(path, &events, &routines);
    FILE *fp = fopen(path, "rb");
    unsigned char header[16] = {0};
    CHECK(fp && fread(header, 1, sizeof header, fp) == sizeof header);
    CHECK_EQ(get_le32(header + 12), TRACE_FLAG_SOURCES);
    struct event_list back = {0};
    struct routine_table r1, r2;
    routine_table_init(&r1);
    routine_table_init(&r2);
    struct trms_error err;
    CHECK(trace_read(path, &r1, collect, &back, NULL, &err) == 0);
    struct batch_log log = {0};
    struct trace_read_options o = {.at = &log.at, .batch = batch_keep};
    if (fp)
        rewind(fp);
    CHECK(fp && trace_read_stream(fp, path, &r2, NULL, &log, &o, NULL, &err) == 0);
    CHECK_EQ(back.count, events.count);
    CHECK_EQ(log.events.count, events.count);
    for (size_t i = 0; i < events.count && i < back.count && i < log.events.count; i++)
        if (events.items[i].type == EVENT_KWRITE &&
            (back.items[i].routine != events.items[i].routine ||
             log.events.items[i].routine != events.items[i].routine)) {
            fprintf(stderr, "source of event %zu: %u and %u, expected %u\n", i,
                    back.items[i].routine, log.events.items[i].routine,
                    events.items[i].routine);
            check_failures++;
            break;
        }
    if (fp)
        fclose(fp);
    /* Without a channel: no flag, as before. */
    event_list_free(&back);
    for (size_t i = 0; i < events.count; i++)
        events.items[i].routine = 0;
    write_trace(path, &events, &routines);
    fp = fopen(path, "rb");
    CHECK(fp && fread(header, 1, sizeof header, fp) == sizeof header);
    CHECK_EQ(get_le32(header + 12), 0);
    if (fp)
        fclose(fp);
    /* Crafted: thread 1, source 5, then a read (not a kernel write). */
    static const unsigned char not_before_kwrite[] = {0x01, 0x01, 0x07, 0x05, 0x80 | 2, 0x00};
    craft(path, 3, not_before_kwrite, sizeof not_before_kwrite, 2);
    unsigned char flags[4];
    put_le32(flags, TRACE_FLAG_SOURCES);
    int fd = open(path, O_WRONLY);
    CHECK(fd >= 0 && pwrite(fd, flags, 4, 12) == 4);
    close(fd);
    const char *why = read_error(path, &back);
    CHECK(strstr(why, "source record not before a kernel write") != NULL);
    event_list_free(&back);
    /* The same with a kernel write but no flag: an unknown opcode. */
    static const unsigned char no_flag[] = {0x01, 0x01, 0x07, 0x05, 0x80 | 3 << 3 | 2, 0x00};
    craft(path, 3, no_flag, sizeof no_flag, 2);
    why = read_error(path, &back);
    CHECK(strstr(why, "unknown opcode") != NULL);
    event_list_free(&back);
    event_list_free(&events);
    event_list_free(&log.events);
    routine_table_free(&routines);
    routine_table_free(&r1);
    routine_table_free(&r2);
}

/* The header's sync flag, peeked at without moving the stream. */
static void sync_flag_peek(void)
{
    char plain[128], synced[128], other[128];
    snprintf(plain, sizeof plain, "%s/nosync.trms", tmpdir);
    snprintf(synced, sizeof synced, "%s/sync.trms", tmpdir);
    snprintf(other, sizeof other, "%s/other.trms", tmpdir);
    struct routine_table routines;
    routine_table_init(&routines);
    struct event events[] = {{.type = EVENT_THREAD, .tid = 7},
                             {.type = EVENT_READ, .addr = 0x1000, .size = 8},
                             {.type = EVENT_COST, .size = 3}};
    struct event_list list = {0};
    for (size_t i = 0; i < sizeof events / sizeof *events; i++)
        event_list_push(&list, &events[i]);
    write_trace(plain, &list, &routines);
    struct trms_error err;
    unlink(synced);
    struct trace_writer_options options = {.level = TRACE_ZSTD_LEVEL};
    struct trace_writer *w = trace_writer_create_with(synced, &options, &err);
    CHECK(w != NULL);
    CHECK(w && trace_writer_event(w, &events[0], &routines, &err) == 0);
    struct sync_event sync = {.tid = 7, .kind = SYNC_START};
    CHECK(w && trace_writer_sync(w, &sync, &err) == 0);
    CHECK(w && trace_writer_event(w, &events[1], &routines, &err) == 0);
    CHECK(w && trace_writer_close(w, &routines, &err) == 0);
    FILE *fp = fopen(other, "w");
    CHECK(fp && fputs("not a trace at all", fp) >= 0);
    if (fp)
        fclose(fp);
    const char *paths[] = {plain, synced, other};
    const int expected[] = {0, 1, 1};
    for (int i = 0; i < 3; i++) {
        fp = fopen(paths[i], "rb");
        CHECK(fp != NULL);
        if (!fp)
            continue;
        char first[3];
        CHECK(fread(first, 1, sizeof first, fp) == sizeof first);
        CHECK(trace_may_hold_sync(fp) == expected[i]);
        CHECK(ftell(fp) == (long)sizeof first);
        fclose(fp);
    }
    /* The flagless trace is read whole, as before. */
    struct event_list back = {0};
    struct routine_table read_routines;
    routine_table_init(&read_routines);
    struct trace_stats stats;
    CHECK(trace_read(plain, &read_routines, collect, &back, &stats, &err) == 0);
    CHECK(back.count == list.count && !stats.has_sync && stats.sync_records == 0);
    event_list_free(&back);
    event_list_free(&list);
    routine_table_free(&read_routines);
    routine_table_free(&routines);
}

int main(void)
{
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 2;
    }
    for (uint64_t seed = 1; seed <= 20; seed++)
        roundtrip(seed, 500);
    roundtrip(99, 300000);
    resumed_reads();
    corruption(TRACE_ZSTD_LEVEL);
    corruption(0);
    compressed_blocks();
    writer_tap();
    batch_reads();
    room_reads();
    if (cpu_fast_pext()) { /* and the loop without pext, as other processors read */
        cpu_pext_forbid(1);
        room_reads();
        cpu_pext_forbid(0);
    }
    source_records();
    short_access_bytes();
    short_access_runs();
    interleaved_streams();
    short_access_strictness();
    malformed_text();
    accepted_text();
    sync_flag_peek();
    char cmd[160];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    CHECK(system(cmd) == 0);
    return check_report("test_trace_format");
}
