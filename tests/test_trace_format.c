/* test_trace_format: the text and binary event trace formats.
 *
 *  - random traces survive text -> binary -> events unchanged, across many
 *    blocks, with named, spaced and address-only routines;
 *  - every single-byte corruption and every truncation of a binary trace is
 *    refused with a message naming the file;
 *  - malformed text lines are refused with FILE:LINE and the exact reason,
 *    and the accepted forms parse as documented. */
#include <stdlib.h>
#include <unistd.h>

#include "tests/check.h"
#include "tests/fixture.h"
#include "tests/random_trace.h"
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

static void write_trace(const char *path, const struct event_list *events,
                        const struct routine_table *routines)
{
    struct trms_error err;
    unlink(path);
    struct trace_writer *w = trace_writer_create(path, &err);
    CHECK(w != NULL);
    for (size_t i = 0; w && i < events->count; i++)
        CHECK(trace_writer_event(w, &events->items[i], routines, &err) == 0);
    CHECK(w && trace_writer_close(w, routines, &err) == 0);
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

static void corruption(void)
{
    struct event_list events = {0};
    struct routine_table routines;
    routine_table_init(&routines);
    struct random_trace_shape shape = {.threads = 2, .events = 60, .routines = 3,
                                       .regions = 2, .region_span = 300, .max_depth = 4};
    random_trace(42, &shape, &events, &routines);
    char good[128], bad[128];
    snprintf(good, sizeof good, "%s/good.trms", tmpdir);
    snprintf(bad, sizeof bad, "%s/bad.trms", tmpdir);
    write_trace(good, &events, &routines);
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

int main(void)
{
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 2;
    }
    for (uint64_t seed = 1; seed <= 20; seed++)
        roundtrip(seed, 500);
    roundtrip(99, 300000);
    corruption();
    malformed_text();
    accepted_text();
    char cmd[160];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    CHECK(system(cmd) == 0);
    return check_report("test_trace_format");
}
