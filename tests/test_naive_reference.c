/* test_naive_reference: checks the naive reference analyses against worked
 * examples (RMS slides, TRMS paper Figures 1a/1b and Examples 3/4, the reuse
 * distance table of the seed paper, and a hand-computed cost example). */
#include "tests/naive_reference.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- event builder ---- */

#define MAX_EVENTS 1024

struct builder {
    struct event ev[MAX_EVENTS];
    size_t n;
};

static struct event *next_event(struct builder *b, enum event_type type)
{
    if (b->n == MAX_EVENTS) {
        fprintf(stderr, "test builder overflow\n");
        exit(2);
    }
    struct event *e = &b->ev[b->n++];
    memset(e, 0, sizeof *e);
    e->type = type;
    return e;
}

static void th(struct builder *b, uint32_t tid) { next_event(b, EVENT_THREAD)->tid = tid; }
static void call(struct builder *b, uint32_t routine) { next_event(b, EVENT_CALL)->routine = routine; }
static void ret(struct builder *b) { next_event(b, EVENT_RETURN); }

static void mem(struct builder *b, enum event_type type, uint64_t addr, uint64_t size)
{
    struct event *e = next_event(b, type);
    e->addr = addr;
    e->size = size;
}

static void rd(struct builder *b, uint64_t addr) { mem(b, EVENT_READ, addr, 1); }
static void wr(struct builder *b, uint64_t addr) { mem(b, EVENT_WRITE, addr, 1); }
static void cost(struct builder *b, uint64_t n) { next_event(b, EVENT_COST)->size = n; }

/* ---- checking ---- */

static int failures;
static const char *current_test;

static void expect_u64(const char *what, uint64_t expected, uint64_t actual)
{
    if (expected != actual) {
        printf("FAIL [%s] %s: expected %" PRIu64 ", actual %" PRIu64 "\n",
               current_test, what, expected, actual);
        failures++;
    }
}

static int run(const struct builder *b, uint64_t cell_size, uint64_t line_size,
               struct naive_result *r)
{
    int rc = naive_analyze(b->ev, b->n, cell_size, line_size, r);
    if (rc != 0) {
        printf("FAIL [%s] naive_analyze returned %d, expected 0\n",
               current_test, rc);
        failures++;
    }
    return rc;
}

/* The nth (0-based) completed activation of routine on tid, or NULL. */
static const struct activation *find(const struct naive_result *r, uint32_t tid,
                                     uint32_t routine, int nth)
{
    const int wanted = nth;
    for (size_t i = 0; i < r->n_activations; i++) {
        const struct activation *a = &r->activations[i];
        if (a->tid == tid && a->routine == routine && nth-- == 0)
            return a;
    }
    printf("FAIL [%s] no activation #%d of routine %" PRIu32 " on tid %" PRIu32 "\n",
           current_test, wanted, routine, tid);
    failures++;
    return NULL;
}

static void expect_counts(const char *name, const struct activation *a,
                          uint64_t rms, uint64_t trms,
                          uint64_t induced_thread, uint64_t induced_external)
{
    char what[128];
    if (a == NULL)
        return;
    snprintf(what, sizeof what, "rms(%s)", name);
    expect_u64(what, rms, a->rms);
    snprintf(what, sizeof what, "trms(%s)", name);
    expect_u64(what, trms, a->trms);
    snprintf(what, sizeof what, "induced_thread(%s)", name);
    expect_u64(what, induced_thread, a->induced_thread);
    snprintf(what, sizeof what, "induced_external(%s)", name);
    expect_u64(what, induced_external, a->induced_external);
}

/* ---- tests ---- */

enum { F = 0, G = 1, H = 2, CONSUMER = 3, CONSUME_DATA = 4, EXTERNAL_READ = 5 };

static void test_rms_slides(void)
{
    current_test = "rms slides";
    const uint64_t x = 0, y = 1, z = 2, w = 3;
    struct builder b = { .n = 0 };
    th(&b, 1);
    call(&b, F);
    rd(&b, x);
    wr(&b, y);
    call(&b, G);
    rd(&b, x);
    rd(&b, y);
    rd(&b, z);
    wr(&b, w);
    ret(&b);
    rd(&b, w);
    ret(&b);

    struct naive_result r;
    if (run(&b, 1, 64, &r) != 0)
        return;
    expect_u64("n_activations", 3, r.n_activations);
    expect_counts("g", find(&r, 1, G, 0), 3, 3, 0, 0);
    expect_counts("f", find(&r, 1, F, 0), 2, 2, 0, 0);
    expect_counts("root", find(&r, 1, ROUTINE_ROOT, 0), 2, 2, 0, 0);
    naive_result_free(&r);
}

static void test_fig1a(void)
{
    current_test = "fig 1a";
    const uint64_t x = 100;
    struct builder b = { .n = 0 };
    th(&b, 1);
    call(&b, F);
    rd(&b, x);
    th(&b, 2);
    call(&b, G);
    wr(&b, x);
    ret(&b);
    th(&b, 1);
    rd(&b, x);
    ret(&b);

    struct naive_result r;
    if (run(&b, 1, 64, &r) != 0)
        return;
    expect_counts("f", find(&r, 1, F, 0), 1, 2, 1, 0);
    expect_counts("g", find(&r, 2, G, 0), 0, 0, 0, 0);
    naive_result_free(&r);
}

static void test_fig1b(void)
{
    current_test = "fig 1b";
    const uint64_t x = 100;
    struct builder b = { .n = 0 };
    th(&b, 1);
    call(&b, F);
    rd(&b, x);
    th(&b, 2);
    wr(&b, x);
    th(&b, 1);
    call(&b, H);
    rd(&b, x);
    ret(&b);
    rd(&b, x);
    ret(&b);

    struct naive_result r;
    if (run(&b, 1, 64, &r) != 0)
        return;
    expect_counts("h", find(&r, 1, H, 0), 1, 1, 1, 0);
    expect_counts("f", find(&r, 1, F, 0), 1, 2, 1, 0);
    naive_result_free(&r);
}

static void test_producer_consumer(void)
{
    current_test = "producer-consumer n=5";
    const uint64_t x = 40;  /* 4-aligned, 4-byte cells */
    const int n = 5;
    struct builder b = { .n = 0 };
    th(&b, 1);              /* producer first appears */
    th(&b, 2);
    call(&b, CONSUMER);
    for (int i = 0; i < n; i++) {
        th(&b, 1);
        mem(&b, EVENT_WRITE, x, 4);
        th(&b, 2);
        call(&b, CONSUME_DATA);
        mem(&b, EVENT_READ, x, 4);
        ret(&b);
    }
    ret(&b);

    struct naive_result r;
    if (run(&b, 4, 64, &r) != 0)
        return;
    expect_counts("consumer", find(&r, 2, CONSUMER, 0), 1, 5, 5, 0);
    for (int i = 0; i < n; i++)
        expect_counts("consumeData", find(&r, 2, CONSUME_DATA, i), 1, 1, 1, 0);
    naive_result_free(&r);
}

static void test_external_read(void)
{
    current_test = "buffered external read n=5";
    const uint64_t buf = 200;
    const int n = 5;
    struct builder b = { .n = 0 };
    th(&b, 1);
    call(&b, EXTERNAL_READ);
    for (int i = 0; i < n; i++) {
        mem(&b, EVENT_KWRITE, buf, 2);  /* b[0], b[1] */
        rd(&b, buf);                    /* b[0] */
    }
    ret(&b);

    struct naive_result r;
    if (run(&b, 1, 64, &r) != 0)
        return;
    expect_counts("externalRead", find(&r, 1, EXTERNAL_READ, 0), 1, 5, 0, 5);
    naive_result_free(&r);
}

static void expect_histogram(const char *name, const struct naive_histogram *h,
                             uint64_t accesses, uint64_t cold,
                             const uint64_t *counts, size_t length)
{
    char what[128];
    snprintf(what, sizeof what, "%s.accesses", name);
    expect_u64(what, accesses, h->accesses);
    snprintf(what, sizeof what, "%s.cold", name);
    expect_u64(what, cold, h->cold);
    snprintf(what, sizeof what, "%s.length", name);
    expect_u64(what, length, h->length);
    for (size_t d = 0; d < length && d < h->length; d++) {
        snprintf(what, sizeof what, "%s.count_by_distance[%zu]", name, d);
        expect_u64(what, counts[d], h->count_by_distance[d]);
    }
}

static void test_reuse_distance_table(void)
{
    current_test = "reuse distance table 1";
    const char *seq = "ABCACCBACBACBBAC";
    struct builder b = { .n = 0 };
    th(&b, 7);
    for (const char *p = seq; *p; p++)
        rd(&b, (uint64_t)(*p - 'A') * 64);

    struct naive_result r;
    if (run(&b, 1, 64, &r) != 0)
        return;
    const uint64_t counts[] = { 2, 1, 10 };
    expect_histogram("global", &r.global, 16, 3, counts, 3);
    expect_u64("n_threads", 1, r.n_threads);
    if (r.n_threads == 1) {
        expect_u64("thread_tids[0]", 7, r.thread_tids[0]);
        expect_histogram("thread 7", &r.threads[0], 16, 3, counts, 3);
    }
    naive_result_free(&r);
}

static void test_reuse_distance_threads(void)
{
    current_test = "reuse distance threads/lines";
    struct builder b = { .n = 0 };
    th(&b, 1);
    rd(&b, 0);                          /* line 0: cold, cold */
    th(&b, 2);
    wr(&b, 64);                         /* line 1: cold, cold (T2) */
    mem(&b, EVENT_KREAD, 0, 1);         /* kernel accesses are ignored */
    mem(&b, EVENT_KWRITE, 128, 64);
    th(&b, 1);
    mem(&b, EVENT_READ, 60, 8);         /* lines 0, 1: global 1, 1; T1 0, cold */

    struct naive_result r;
    if (run(&b, 1, 64, &r) != 0)
        return;
    const uint64_t global_counts[] = { 0, 2 };
    expect_histogram("global", &r.global, 4, 2, global_counts, 2);
    expect_u64("n_threads", 2, r.n_threads);
    if (r.n_threads == 2) {
        expect_u64("thread_tids[0]", 1, r.thread_tids[0]);
        expect_u64("thread_tids[1]", 2, r.thread_tids[1]);
        const uint64_t t1_counts[] = { 1 };
        expect_histogram("thread 1", &r.threads[0], 3, 2, t1_counts, 1);
        expect_histogram("thread 2", &r.threads[1], 1, 1, NULL, 0);
    }
    naive_result_free(&r);
}

static void test_multi_cell(void)
{
    current_test = "multi-cell access";
    struct builder b = { .n = 0 };
    th(&b, 1);
    call(&b, F);
    mem(&b, EVENT_READ, 6, 8);   /* bytes 6..13, cells 1, 2, 3 (size 4) */
    mem(&b, EVENT_WRITE, 16, 4); /* cell 4 */
    mem(&b, EVENT_READ, 12, 8);  /* cells 3, 4, both already accessed */
    mem(&b, EVENT_KREAD, 20, 1); /* cell 5: counts */
    mem(&b, EVENT_KWRITE, 24, 1);/* cell 6: ignored by RMS */
    mem(&b, EVENT_READ, 24, 1);  /* cell 6: counts, external */
    ret(&b);

    struct naive_result r;
    if (run(&b, 4, 64, &r) != 0)
        return;
    expect_counts("f", find(&r, 1, F, 0), 5, 5, 0, 1);
    naive_result_free(&r);
}

struct expected_activation {
    uint32_t tid, routine, depth, recursive;
    uint64_t cost, self_cost;
};

static void test_cost_and_order(void)
{
    current_test = "cost and completion order";
    enum { A = 10, B = 11, C = 12, D = 13, E = 14 };
    struct builder b = { .n = 0 };
    th(&b, 1);
    cost(&b, 1);
    call(&b, A);
    cost(&b, 2);
    call(&b, B);
    cost(&b, 3);
    ret(&b);            /* B: cost 3, self 3 */
    cost(&b, 4);
    call(&b, C);
    cost(&b, 5);
    th(&b, 2);
    cost(&b, 100);
    call(&b, D);
    cost(&b, 7);
    call(&b, E);
    cost(&b, 8);
    th(&b, 1);
    cost(&b, 6);
    th(&b, 3);
    call(&b, A);
    call(&b, A);        /* recursive */
    cost(&b, 9);
    ret(&b);
    /* end: T1 C, A, root; T2 E, D, root; T3 A, root */

    const struct expected_activation want[] = {
        { 1, B, 2, 0, 3, 3 },
        { 3, A, 2, 1, 9, 9 },
        { 1, C, 2, 0, 11, 11 },
        { 1, A, 1, 0, 20, 6 },
        { 1, ROUTINE_ROOT, 0, 0, 21, 1 },
        { 2, E, 2, 0, 8, 8 },
        { 2, D, 1, 0, 15, 7 },
        { 2, ROUTINE_ROOT, 0, 0, 115, 100 },
        { 3, A, 1, 0, 9, 0 },
        { 3, ROUTINE_ROOT, 0, 0, 9, 0 },
    };
    const size_t n_want = sizeof want / sizeof want[0];

    struct naive_result r;
    if (run(&b, 1, 64, &r) != 0)
        return;
    expect_u64("n_activations", n_want, r.n_activations);
    for (size_t i = 0; i < n_want && i < r.n_activations; i++) {
        const struct activation *a = &r.activations[i];
        char what[128];
        snprintf(what, sizeof what, "activations[%zu].tid", i);
        expect_u64(what, want[i].tid, a->tid);
        snprintf(what, sizeof what, "activations[%zu].routine", i);
        expect_u64(what, want[i].routine, a->routine);
        snprintf(what, sizeof what, "activations[%zu].depth", i);
        expect_u64(what, want[i].depth, a->depth);
        snprintf(what, sizeof what, "activations[%zu].recursive", i);
        expect_u64(what, want[i].recursive, a->recursive);
        snprintf(what, sizeof what, "activations[%zu].cost", i);
        expect_u64(what, want[i].cost, a->cost);
        snprintf(what, sizeof what, "activations[%zu].self_cost", i);
        expect_u64(what, want[i].self_cost, a->self_cost);
    }
    expect_u64("n_threads", 3, r.n_threads);
    if (r.n_threads == 3) {
        expect_u64("thread_tids[0]", 1, r.thread_tids[0]);
        expect_u64("thread_tids[1]", 2, r.thread_tids[1]);
        expect_u64("thread_tids[2]", 3, r.thread_tids[2]);
    }
    naive_result_free(&r);
}

static void expect_malformed(const char *name, const struct builder *b)
{
    current_test = name;
    struct naive_result r;
    int rc = naive_analyze(b->ev, b->n, 1, 64, &r);
    expect_u64("naive_analyze return (-1 as unsigned)", (uint64_t)-1, (uint64_t)(int64_t)rc);
    if (rc == 0)
        naive_result_free(&r);
}

static void test_malformed(void)
{
    struct builder b = { .n = 0 };
    rd(&b, 0);
    th(&b, 1);
    expect_malformed("event before thread", &b);

    b.n = 0;
    th(&b, 1);
    call(&b, F);
    ret(&b);
    ret(&b);
    expect_malformed("return with no pending call", &b);

    b.n = 0;
    th(&b, 1);
    call(&b, F);
    th(&b, 2);
    ret(&b);
    expect_malformed("return on a thread with only its root", &b);

    current_test = "empty stream";
    struct naive_result r;
    if (naive_analyze(NULL, 0, 1, 64, &r) != 0) {
        printf("FAIL [%s] naive_analyze returned nonzero\n", current_test);
        failures++;
    } else {
        expect_u64("n_activations", 0, r.n_activations);
        expect_u64("n_threads", 0, r.n_threads);
        expect_u64("global.accesses", 0, r.global.accesses);
        naive_result_free(&r);
    }
}

int main(void)
{
    test_rms_slides();
    test_fig1a();
    test_fig1b();
    test_producer_consumer();
    test_external_read();
    test_reuse_distance_table();
    test_reuse_distance_threads();
    test_multi_cell();
    test_cost_and_order();
    test_malformed();
    if (failures) {
        printf("%d failure(s)\n", failures);
        return 1;
    }
    printf("all naive reference tests passed\n");
    return 0;
}
