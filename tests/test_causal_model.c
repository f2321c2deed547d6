/* The causal model (analyses/causal_model.h) on hand-made text traces whose
 * answers are known in closed form, and the sync records' way through the
 * binary and text formats.
 *
 *  - Coz's example: two threads run a and b (a 5% longer), the main thread
 *    joins both, round after round. Speeding a up buys at most the
 *    difference: the curve rises to (a - b) per round and stays flat; b
 *    buys nothing. Joins happen both ways pthread_join does them: a wait
 *    on the exiting thread's clear-tid futex, and a plain read of it once
 *    the thread is gone.
 *  - the same on one core: nothing overlaps, a's curve is a straight line.
 *  - a mutex two threads contend for: the critical sections run one
 *    after the other.
 *  - a mutex the recording gave to the thread that came later: the
 *    simulation gives it to the thread that arrives first, so speeding
 *    the other thread up lets it take the lock first.
 *  - a bounded queue recorded with the producer ahead (it waited on a full
 *    queue, the consumer never on an empty one): the consumer takes each
 *    item when it is produced (what its critical section read), not when
 *    the recording happened to schedule it, and the producer's recorded
 *    wait costs nothing where the slot is free in time.
 *  - a condition variable's signal word, posted by one thread and consumed
 *    by the other: a consume waits for its post; a post does not wait for
 *    the last consume, whatever order the recording had. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyses/causal_model.h"
#include "check.h"
#include "trace/text_reader.h"
#include "trace/text_writer.h"
#include "trace/trace_reader.h"
#include "trace/trace_writer.h"

#define ROUNDS 10
#define A_COST 1050
#define B_COST 1000
#define MAIN_COST 10    /* per round, before the threads are created */

static char *coz_trace(int join_by_read)
{
    char *text;
    size_t len;
    FILE *out = open_memstream(&text, &len);
    uint32_t tid = 2;
    for (int round = 0; round < ROUNDS; round++) {
        uint32_t ta = tid++, tb = tid++;
        fprintf(out, "thread 1\ncall main\ncost %d\n", MAIN_COST);
        fprintf(out, "#@sync create %u 0x1000\n#@sync create %u 0x2000\n", ta, tb);
        /* The main thread waits for a; a runs, exits; b runs, exits. */
        fprintf(out, "#@sync futex_wait 0x1000\n");
        fprintf(out, "thread %u\n#@sync start\ncall a\ncost %d\nreturn\n#@sync exit\n", ta,
                A_COST);
        fprintf(out, "thread %u\n#@sync start\ncall b\ncost %d\nreturn\n#@sync exit\n", tb,
                B_COST);
        fprintf(out, "thread 1\n#@sync futex_resume 0x1000 0\n");
        /* b is gone already: a read of its clear-tid word, or a wait that
         * finds it changed. */
        if (join_by_read)
            fprintf(out, "read 0x2000 4\n");
        else
            fprintf(out, "#@sync futex_wait 0x2000\n#@sync futex_resume 0x2000 11\n");
        fprintf(out, "return\n");
    }
    fclose(out);
    return text;
}

static const char *progress_name;   /* the progress point of model_of, or NULL */
static const char *end_name;        /* a latency's end, or NULL */

static int is_progress(void *ctx, uint32_t routine)
{
    const struct routine_table *routines = ctx;
    const char *name = routines->items[routine].name;
    if (name && strcmp(name, progress_name) == 0)
        return CAUSAL_PROGRESS;
    return name && end_name && strcmp(name, end_name) == 0 ? CAUSAL_END : 0;
}

static struct causal_model *model_of(const char *text, struct routine_table *routines)
{
    struct causal_model_options o = {.instructions_per_ns = 1,
                                     .is_progress = progress_name ? is_progress : NULL,
                                     .progress_ctx = routines};
    struct causal_model *m = causal_model_new(&o);
    FILE *in = fmemopen((void *)text, strlen(text), "r");
    struct trms_error err;
    int rc = text_trace_read_sync(in, "test", routines, causal_model_event, m, NULL, NULL,
                                  causal_model_sync, m, &err);
    if (rc != 0)
        fprintf(stderr, "%s\n", err.message);
    CHECK_EQ(rc, 0);
    fclose(in);
    causal_model_finish(m);
    return m;
}

static uint32_t routine_named(const struct routine_table *routines, const char *name)
{
    for (uint32_t i = 0; i < routines->count; i++)
        if (routines->items[i].name && strcmp(routines->items[i].name, name) == 0)
            return i;
    fprintf(stderr, "no routine %s\n", name);
    exit(1);
}

/* Program speedup (a fraction) when ROUTINE is SPEEDUP faster. */
static double program_speedup(struct causal_model *m, uint32_t routine, double speedup,
                              unsigned cores)
{
    double t0 = causal_model_time(m, CAUSAL_NO_ROUTINE, 0, cores);
    return 1 - causal_model_time(m, routine, speedup, cores) / t0;
}

#define CHECK_NEAR(actual, expected, tolerance)                                            \
    do {                                                                                   \
        double a_ = (actual), e_ = (expected);                                             \
        if (!(fabs(a_ - e_) <= (tolerance))) {                                             \
            fprintf(stderr, "%s:%d: %s is %.5f, expected %.5f\n", __FILE__, __LINE__,      \
                    #actual, a_, e_);                                                      \
            check_failures++;                                                              \
        }                                                                                  \
    } while (0)

static void test_coz_example(int join_by_read)
{
    char *text = coz_trace(join_by_read);
    struct routine_table routines;
    routine_table_init(&routines);
    struct causal_model *m = model_of(text, &routines);
    uint32_t a = routine_named(&routines, "a"), b = routine_named(&routines, "b");
    double round = MAIN_COST + A_COST;  /* the main thread's work, then a's */
    CHECK_NEAR(causal_model_time(m, CAUSAL_NO_ROUTINE, 0, 0), ROUNDS * round, 1e-9);
    CHECK_EQ(causal_model_routine_cost(m, a), ROUNDS * A_COST);
    for (int step = 0; step <= 20; step++) {
        double s = step * 0.05;
        /* a shrinks until b is the longer one. */
        double gain = fmin(s * A_COST, A_COST - B_COST);
        CHECK_NEAR(program_speedup(m, a, s, 0), gain / round, 1e-9);
        CHECK_NEAR(program_speedup(m, b, s, 0), 0, 1e-9);
        /* main holds everything of the main thread, a and b nothing. */
        CHECK_NEAR(program_speedup(m, routine_named(&routines, "main"), s, 0),
                   s * MAIN_COST / round, 1e-9);
        /* Two cores: a and b side by side, as with a core per thread. */
        CHECK_NEAR(program_speedup(m, a, s, 2), gain / round, 1e-9);
        CHECK_NEAR(program_speedup(m, b, s, 2), 0, 1e-9);
        /* One core: the threads take turns, every instruction counts. */
        double total = MAIN_COST + A_COST + B_COST;
        CHECK_NEAR(program_speedup(m, a, s, 1), s * A_COST / total, 1e-9);
        CHECK_NEAR(program_speedup(m, b, s, 1), s * B_COST / total, 1e-9);
    }
    /* Coz's figure: about 4.5% at most. */
    CHECK_NEAR(program_speedup(m, a, 1, 0), 50.0 / 1060, 1e-9);
    causal_model_free(m);

    /* b as a progress point: it completes once a round, so its period is
     * the round, which a shortens as it shortens the run. */
    progress_name = "b";
    m = model_of(text, &routines);
    progress_name = NULL;
    uint64_t completions;
    causal_model_time(m, CAUSAL_NO_ROUTINE, 0, 0);
    double period = causal_model_period(m, &completions);
    CHECK_EQ(completions, ROUNDS);
    CHECK_NEAR(period, round, 1e-9);
    for (int step = 1; step <= 20; step++) {
        double s = step * 0.05;
        causal_model_time(m, a, s, 0);
        CHECK_NEAR(1 - causal_model_period(m, NULL) / period,
                   fmin(s * A_COST, A_COST - B_COST) / round, 1e-9);
        causal_model_time(m, b, s, 0);
        CHECK_NEAR(causal_model_period(m, NULL), period, 1e-9);
    }
    causal_model_free(m);

    /* The latency from b's completion to a's, in the same round: 50, less
     * what a loses. */
    progress_name = "b";
    end_name = "a";
    m = model_of(text, &routines);
    progress_name = end_name = NULL;
    uint64_t pairs;
    causal_model_time(m, CAUSAL_NO_ROUTINE, 0, 0);
    CHECK_NEAR(causal_model_latency(m, &pairs), A_COST - B_COST, 1e-9);
    CHECK_EQ(pairs, ROUNDS);
    causal_model_time(m, a, 0.02, 0);
    CHECK_NEAR(causal_model_latency(m, NULL), A_COST * 0.98 - B_COST, 1e-9);
    CHECK_NEAR(program_speedup(m, a, 1, 0), 50.0 / 1060, 1e-9);
    causal_model_free(m);
    routine_table_free(&routines);
    free(text);
}

/* Threads 1 and 2 each run w (100) then c (100) under one mutex; thread 1
 * takes it first. */
static void test_mutex(void)
{
    const char *text = "thread 1\n#@sync create 2 0\n"
                       "call w\ncost 100\nreturn\n#@sync atomic 0x500 1\ncall c\ncost 100\n"
                       "return\n#@sync atomic 0x500 2\n"
                       "thread 2\n#@sync start\ncall w\ncost 100\nreturn\n"
                       /* a counter that never passes 0 orders nothing */
                       "#@sync atomic 0x600 0\n"
                       "#@sync atomic 0x500 1\ncall c\ncost 100\nreturn\n#@sync atomic 0x500 2\n";
    struct routine_table routines;
    routine_table_init(&routines);
    struct causal_model *m = model_of(text, &routines);
    uint32_t w = routine_named(&routines, "w"), c = routine_named(&routines, "c");
    CHECK_NEAR(causal_model_time(m, CAUSAL_NO_ROUTINE, 0, 0), 300, 1e-9);
    /* c halved: 50 + 50 + 50 + 50 after w's 100: 200. */
    CHECK_NEAR(program_speedup(m, c, 0.5, 0), 1.0 / 3, 1e-9);
    /* w halved: 50, then c 100 and c 100: 250. */
    CHECK_NEAR(program_speedup(m, w, 0.5, 0), 1.0 / 6, 1e-9);
    struct causal_model_stats st;
    causal_model_stats(m, &st);
    CHECK_EQ(st.edges, 1);
    causal_model_free(m);
    routine_table_free(&routines);
}

/* Thread 1 runs a (100) then c (100) under the mutex 0x500, thread 2 b
 * (150) then c (100); the recording has thread 2 block on the mutex (a
 * futex wait on it) until thread 1 gives it back. Speeding b up lets
 * thread 2 take the mutex first: the recorded order must not hold. */
static void test_lock_in_simulated_order(void)
{
    const char *text = "thread 1\n#@sync create 2 0\ncall a\ncost 100\nreturn\n"
                       "#@sync atomic 0x500 1\ncall c\ncost 50\n"
                       "thread 2\n#@sync start\ncall b\ncost 150\nreturn\n"
                       "#@sync futex_wait 0x500\n"
                       "thread 1\ncost 50\nreturn\n#@sync atomic 0x500 2\n"
                       "#@sync futex_wake 0x500 1\n"
                       "thread 2\n#@sync futex_resume 0x500 0\n#@sync atomic 0x500 1\n"
                       "call c\ncost 100\nreturn\n#@sync atomic 0x500 2\n";
    struct routine_table routines;
    routine_table_init(&routines);
    struct causal_model *m = model_of(text, &routines);
    uint32_t b = routine_named(&routines, "b"), a = routine_named(&routines, "a");
    /* a, c [100, 200]; b, then c once thread 1's ends [200, 300]. */
    CHECK_NEAR(causal_model_time(m, CAUSAL_NO_ROUTINE, 0, 0), 300, 1e-9);
    /* b gone: thread 2's c [0, 100], thread 1's [100, 200]. */
    CHECK_NEAR(program_speedup(m, b, 1, 0), 1.0 / 3, 1e-9);
    /* b 75: thread 2's c [75, 175], thread 1's [175, 275]. */
    CHECK_NEAR(program_speedup(m, b, 0.5, 0), 1.0 / 12, 1e-9);
    /* a halved: nothing changes order; thread 2 still waits until 150. */
    CHECK_NEAR(program_speedup(m, a, 0.5, 0), 50.0 / 300, 1e-9);
    /* On one core the order of arrival is the order of the cores. */
    CHECK_NEAR(causal_model_time(m, CAUSAL_NO_ROUTINE, 0, 1), 450, 1e-9);
    struct causal_model_stats st;
    causal_model_stats(m, &st);
    CHECK_EQ(st.locks, 1);
    causal_model_free(m);
    routine_table_free(&routines);
}

/* A one-slot queue (mutex 0x500, the slot 0x700, its count 0x708, the
 * condition "not full" futex 0x800): thread 2 produces (100 per item),
 * thread 3 consumes (150 per item), two items. Recorded with the producer
 * ahead: it filled the slot, then waited on a full queue before the
 * consumer ran; the consumer never waited. */
static void test_queue_waits_vanish(void)
{
    const char *text =
        "thread 1\n#@sync create 2 0\n#@sync create 3 0\n"
        "thread 2\n#@sync start\ncall produce\ncost 100\nreturn\n"
        "#@sync atomic 0x500 1\nread 0x708 8\nwrite 0x700 8\nwrite 0x708 8\n"
        "#@sync atomic 0x500 2\n"
        "call produce\ncost 100\nreturn\n"
        "#@sync atomic 0x500 1\nread 0x708 8\n#@sync atomic 0x500 2\n"
        "#@sync futex_wait 0x800\n"
        "thread 3\n#@sync start\n"
        "#@sync atomic 0x500 1\nread 0x708 8\nread 0x700 8\nwrite 0x708 8\n"
        "#@sync futex_wake 0x800 1\n#@sync atomic 0x500 2\n"
        "call consume\ncost 150\nreturn\n"
        "thread 2\n#@sync futex_resume 0x800 0\n"
        "#@sync atomic 0x500 1\nread 0x708 8\nwrite 0x700 8\nwrite 0x708 8\n"
        "#@sync atomic 0x500 2\n"
        "thread 3\n"
        "#@sync atomic 0x500 1\nread 0x708 8\nread 0x700 8\nwrite 0x708 8\n"
        "#@sync atomic 0x500 2\n"
        "call consume\ncost 150\nreturn\n";
    struct routine_table routines;
    routine_table_init(&routines);
    struct causal_model *m = model_of(text, &routines);
    uint32_t produce = routine_named(&routines, "produce");
    /* Item 0 at 100, consumed [100, 250]; item 1 at 200 (the producer's
     * wait on a full slot costs nothing: it was emptied at 100), consumed
     * [250, 400]. In recorded order the consumer would start at 200. */
    CHECK_NEAR(causal_model_time(m, CAUSAL_NO_ROUTINE, 0, 0), 400, 1e-9);
    /* produce halved: item 0 at 50, consumed [50, 200], then [200, 350]. */
    CHECK_NEAR(program_speedup(m, produce, 0.5, 0), 50.0 / 400, 1e-9);
    /* produce gone: [0, 150], [150, 300]. */
    CHECK_NEAR(program_speedup(m, produce, 1, 0), 100.0 / 400, 1e-9);
    struct causal_model_stats st;
    causal_model_stats(m, &st);
    CHECK_EQ(st.locks, 1);
    CHECK_EQ(st.flows, 2);
    causal_model_free(m);
    routine_table_free(&routines);
}

/* A condition variable's signal word (0x900), handed over: thread 3
 * posts (takes it from 0), thread 2, the waiter, consumes the post (gives
 * it back) without blocking. Recorded: thread 3 posts after p (10), thread
 * 2 consumes after w, then runs x; thread 3 posts again after q (10) and
 * runs its tail. The second post came after the consume only because the
 * recording ran the waiter first: it must not wait for it. The consume
 * must wait for the first post. */
static char *signal_trace(int w, int x, int tail)
{
    char *text;
    size_t len;
    FILE *out = open_memstream(&text, &len);
    fprintf(out, "thread 1\n#@sync create 2 0\n#@sync create 3 0\n"
                 "thread 3\n#@sync start\ncall p\ncost 10\nreturn\n#@sync atomic 0x900 1\n"
                 "thread 2\n#@sync start\ncall w\ncost %d\nreturn\n#@sync atomic 0x900 2\n"
                 "call x\ncost %d\nreturn\n"
                 "thread 3\ncall q\ncost 10\nreturn\n#@sync atomic 0x900 1\n"
                 "call tail\ncost %d\nreturn\n",
            w, x, tail);
    fclose(out);
    return text;
}

static void test_signal_word_order(void)
{
    struct routine_table routines;
    routine_table_init(&routines);
    /* Thread 3 ends at 10 + 10 + 100, thread 2 at 100 + 10; in recorded
     * order, the tail would start at 100 and end at 200. */
    char *text = signal_trace(100, 10, 100);
    struct causal_model *m = model_of(text, &routines);
    CHECK_NEAR(causal_model_time(m, CAUSAL_NO_ROUTINE, 0, 0), 120, 1e-9);
    causal_model_free(m);
    free(text);
    routine_table_free(&routines);
    /* w gone: x waits for the first post (at 10), [10, 115], where it
     * would run [0, 105] without it; thread 3 ends at 40. */
    routine_table_init(&routines);
    text = signal_trace(100, 105, 20);
    m = model_of(text, &routines);
    CHECK_NEAR(causal_model_time(m, CAUSAL_NO_ROUTINE, 0, 0), 205, 1e-9);
    CHECK_NEAR(causal_model_time(m, routine_named(&routines, "w"), 1, 0), 115, 1e-9);
    causal_model_free(m);
    free(text);
    routine_table_free(&routines);
}

/* Blocking system calls are delays: shrinking the work around them helps,
 * the delay stays. */
static void test_blocking(void)
{
    const char *text = "thread 1\ncall r\ncost 100\n#@sync blocking 0 300\ncost 100\nreturn\n";
    struct routine_table routines;
    routine_table_init(&routines);
    struct causal_model *m = model_of(text, &routines);
    CHECK_NEAR(causal_model_time(m, CAUSAL_NO_ROUTINE, 0, 0), 500, 1e-9);
    CHECK_NEAR(program_speedup(m, routine_named(&routines, "r"), 1, 0), 200.0 / 500, 1e-9);
    causal_model_free(m);
    routine_table_free(&routines);
}

/* Sync records through the binary format and back to text, in place. */
struct collected {
    FILE *out;
    struct routine_table *routines;
};

static int print_event(void *ctx, const struct event *ev, struct trms_error *err)
{
    (void)err;
    struct collected *c = ctx;
    text_write_event(c->out, ev, c->routines);
    return 0;
}

static int print_sync(void *ctx, const struct sync_event *ev, struct trms_error *err)
{
    (void)err;
    text_write_sync(((struct collected *)ctx)->out, ev);
    return 0;
}

struct writing {
    struct trace_writer *w;
    struct routine_table *routines;
};

static int write_event(void *ctx, const struct event *ev, struct trms_error *err)
{
    struct writing *wr = ctx;
    return trace_writer_event(wr->w, ev, wr->routines, err);
}

static int write_sync(void *ctx, const struct sync_event *ev, struct trms_error *err)
{
    return trace_writer_sync(((struct writing *)ctx)->w, ev, err);
}

static void test_round_trip(const char *dir)
{
    const char *text = "thread 1\n#@sync start\n#@sync create 2 0x7f00\ncall f\n"
                       "#@sync atomic 0x10 1\ncost 5\nread 0x20 4\n#@sync atomic 0x10 2\n"
                       "#@sync futex_wake 0x10 1\nreturn\nthread 2\n#@sync start\n"
                       "#@sync futex_wait 0x10\n#@sync futex_resume 0x10 11\n"
                       "#@sync blocking 7 123456\n#@sync exit\n";
    char path[512];
    snprintf(path, sizeof path, "%s/sync.trms", dir);
    struct routine_table routines;
    routine_table_init(&routines);
    struct trms_error err;
    struct writing wr = {.w = trace_writer_create(path, &err), .routines = &routines};
    CHECK(wr.w != NULL);
    FILE *in = fmemopen((void *)text, strlen(text), "r");
    CHECK_EQ(text_trace_read_sync(in, "t", &routines, write_event, &wr, NULL, NULL, write_sync,
                                  &wr, &err),
             0);
    fclose(in);
    CHECK_EQ(trace_writer_close(wr.w, &routines, &err), 0);

    char *back;
    size_t len;
    struct collected c = {.out = open_memstream(&back, &len)};
    struct routine_table read_routines;
    routine_table_init(&read_routines);
    c.routines = &read_routines;
    CHECK_EQ(trace_read_synced(path, &read_routines, print_event, &c, print_sync, &c, &err), 0);
    fclose(c.out);
    CHECK_STR(back, text);
    free(back);

    /* A reader without a sync sink sees the events alone, counts as before. */
    struct trace_stats stats;
    routine_table_free(&read_routines);
    routine_table_init(&read_routines);
    c.out = open_memstream(&back, &len);
    CHECK_EQ(trace_read(path, &read_routines, print_event, &c, &stats, &err), 0);
    fclose(c.out);
    CHECK_STR(back, "thread 1\ncall f\ncost 5\nread 0x20 4\nreturn\nthread 2\n");
    CHECK_EQ(stats.events, 6);
    CHECK_EQ(stats.sync_records, 10);
    CHECK(stats.has_sync);
    free(back);
    routine_table_free(&read_routines);
    routine_table_free(&routines);
    unlink(path);

    /* A trace without sync records keeps flags 0: older trms read it. */
    wr.w = trace_writer_create(path, &err);
    routine_table_init(&routines);
    wr.routines = &routines;
    struct event ev = {.type = EVENT_THREAD, .tid = 1};
    CHECK_EQ(trace_writer_event(wr.w, &ev, &routines, &err), 0);
    CHECK_EQ(trace_writer_close(wr.w, &routines, &err), 0);
    FILE *fp = fopen(path, "rb");
    unsigned char header[16];
    CHECK_EQ(fread(header, 1, 16, fp), 16);
    fclose(fp);
    CHECK_EQ(header[12] | header[13] | header[14] | header[15], 0);
    routine_table_free(&routines);
    unlink(path);
}

static void test_bad_sync_lines(void)
{
    static const struct {
        const char *line, *message;
    } cases[] = {
        {"#@sync bogus 1\n", "unknown kind 'bogus'"},
        {"#@sync atomic\n", "atomic needs 2 numbers"},
        {"#@sync exit 5\n", "unexpected '5' after exit"},
        {"#@sync create 4294967296 0\n", "does not fit in 32 bits"},
        {"#@sync futex_wake 0x10 x\n", "'x' is not a number"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct routine_table routines;
        routine_table_init(&routines);
        struct causal_model_options o = {.instructions_per_ns = 1};
        struct causal_model *m = causal_model_new(&o);
        FILE *in = fmemopen((void *)cases[i].line, strlen(cases[i].line), "r");
        struct trms_error err = {{0}};
        CHECK(text_trace_read_sync(in, "t", &routines, causal_model_event, m, NULL, NULL,
                                   causal_model_sync, m, &err) != 0);
        if (!strstr(err.message, cases[i].message) || !strstr(err.message, "t:1: #@sync"))
            fprintf(stderr, "%s -> %s\n", cases[i].line, err.message), check_failures++;
        fclose(in);
        causal_model_free(m);
        routine_table_free(&routines);
    }
}

/* Accesses count toward a take's followed window only once the program
 * is threaded: thread 1 writes 0x700 under the mutex 0x500, then creates
 * thread 2, whose critical section reads it. Written before the creation,
 * no flow (the creation orders it); written after, one. The model's time
 * is the same either way. */
static void test_flows_once_threaded(void)
{
    static const char *const texts[] = {
        "thread 1\n#@sync atomic 0x500 1\nwrite 0x700 8\n#@sync atomic 0x500 2\n"
        "#@sync create 2 0\ncall a\ncost 100\nreturn\n"
        "thread 2\n#@sync start\n#@sync atomic 0x500 1\nread 0x700 8\n"
        "#@sync atomic 0x500 2\ncall b\ncost 50\nreturn\n",
        "thread 1\n#@sync create 2 0\n#@sync atomic 0x500 1\nwrite 0x700 8\n"
        "#@sync atomic 0x500 2\ncall a\ncost 100\nreturn\n"
        "thread 2\n#@sync start\n#@sync atomic 0x500 1\nread 0x700 8\n"
        "#@sync atomic 0x500 2\ncall b\ncost 50\nreturn\n",
    };
    for (int after = 0; after < 2; after++) {
        struct routine_table routines;
        routine_table_init(&routines);
        struct causal_model *m = model_of(texts[after], &routines);
        struct causal_model_stats st;
        causal_model_stats(m, &st);
        CHECK_EQ(st.locks, 1);
        CHECK_EQ(st.flows, (uint64_t)after);
        CHECK_NEAR(causal_model_time(m, CAUSAL_NO_ROUTINE, 0, 0), 100, 1e-9);
        causal_model_free(m);
        routine_table_free(&routines);
    }
}

int main(void)
{
    char dir[] = "/tmp/trms-causal-XXXXXX";
    if (!mkdtemp(dir))
        return 1;
    test_coz_example(0);
    test_coz_example(1);
    test_mutex();
    test_lock_in_simulated_order();
    test_queue_waits_vanish();
    test_signal_word_order();
    test_blocking();
    test_flows_once_threaded();
    test_round_trip(dir);
    test_bad_sync_lines();
    rmdir(dir);
    return check_report("test_causal_model");
}
