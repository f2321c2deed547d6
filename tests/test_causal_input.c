/* The stored causal input (analyses/causal_input.h) is the same file
 * whichever way the loads and stores reach it: as struct events
 * (causal_input_events, what `trms analyze` does), or, outside a lock
 * take's followed window, as runs of batch events looked at after the
 * fact (causal_input_access_run, what `trms record` does once a thread
 * was created). A pseudo-random trace of two threads, with reads of the
 * created thread's clear address among many other accesses (and a write
 * of it and a read next to it, which are not kept), lock takes whose
 * followed windows end inside runs, costs and calls between the runs, is
 * written both ways: the files must be equal byte for byte, and hold
 * every read of the clear address, each after the instructions that came
 * before it. A single thread's lock windows follow nothing until it
 * creates a thread (test_window_once_threaded). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyses/causal_input.h"
#include "analyses/causal_model.h"
#include "check.h"
#include "trace/trace_reader.h"

#define CLEAR_ADDR UINT64_C(0x7f0000001000)  /* the created thread's clear-tid word */
#define LOCK_ADDR UINT64_C(0x602000)
#define SEGMENTS 400

/* What the trace did, for the checks of the file read back. */
struct expected {
    uint64_t clear_reads;       /* reads of CLEAR_ADDR (every one is kept) */
    uint64_t clear_reads_fast;  /* of them, outside a followed window */
    uint64_t cost;              /* every instruction */
    uint64_t cost_before_last;  /* instructions before the last read of CLEAR_ADDR */
};

static uint64_t rng_state = 88172645463325252u;

static uint64_t next_random(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* One way of giving the trace to a causal input. */
struct feeder {
    struct causal_input *ci;
    int runs_as_batches;        /* causal_input_access_run where allowed */
    struct batch_event *run;    /* for it */
    uint64_t fast_clear_reads;  /* reads of CLEAR_ADDR that went as batches */
};

static void feed_event(struct feeder *f, const struct event *ev)
{
    struct trms_error err;
    CHECK(causal_input_events(f->ci, ev, 1, &err) == 0);
}

static void feed_sync(struct feeder *f, uint32_t tid, uint32_t kind, uint64_t addr,
                      uint64_t value)
{
    struct trms_error err;
    struct sync_event ev = {.tid = tid, .kind = kind, .addr = addr, .value = value};
    CHECK(causal_input_sync(f->ci, &ev, &err) == 0);
}

/* A run of loads and stores, as the recorder hands it on: in pieces of
 * random length (its room in a batch), each as struct events while the
 * thread's accesses are followed, else as batch events. */
static void feed_run(struct feeder *f, const struct event *run, size_t n)
{
    struct trms_error err;
    size_t i = 0;
    while (i < n) {
        size_t piece = 1 + next_random() % 700;
        if (piece > n - i)
            piece = n - i;
        if (!f->runs_as_batches ||
            causal_input_access_need(f->ci) == CAUSAL_FOLLOWS_ACCESSES) {
            CHECK(causal_input_events(f->ci, &run[i], piece, &err) == 0);
        } else {
            for (size_t k = 0; k < piece; k++) {
                const struct event *ev = &run[i + k];
                f->run[k] = (struct batch_event){.value = ev->addr, .size = (uint32_t)ev->size,
                                                 .type = (uint8_t)ev->type, .shards = 0xff};
                f->fast_clear_reads += ev->type == EVENT_READ && ev->addr == CLEAR_ADDR;
            }
            CHECK(causal_input_access_run(f->ci, f->run, piece, &err) == 0);
        }
        i += piece;
    }
}

/* The trace, the same for each feeder (the generator restarts). */
static void feed_trace(struct feeder *f, struct expected *x)
{
    rng_state = 88172645463325252u;
    *x = (struct expected){0};
    struct event *run = malloc(4096 * sizeof *run);
    uint32_t tid = 1;
    feed_event(f, &(struct event){.type = EVENT_THREAD, .tid = 1});
    feed_event(f, &(struct event){.type = EVENT_CALL, .routine = 0});
    feed_sync(f, 1, SYNC_CREATE, CLEAR_ADDR, 2);
    for (int s = 0; s < SEGMENTS; s++) {
        uint64_t what = next_random() % 8;
        if (what == 0) {            /* a switch, its thread started */
            tid = tid == 1 ? 2 : 1;
            feed_event(f, &(struct event){.type = EVENT_THREAD, .tid = tid});
        } else if (what == 1) {     /* a lock take: its next accesses are followed */
            feed_sync(f, tid, SYNC_ATOMIC, LOCK_ADDR, SYNC_ATOMIC_FOUND_ZERO);
        } else if (what == 2) {     /* the lock given back */
            feed_sync(f, tid, SYNC_ATOMIC, LOCK_ADDR, SYNC_ATOMIC_LEFT_ZERO);
        } else if (what == 3) {
            feed_event(f, &(struct event){.type = EVENT_CALL, .routine = 0});
            feed_event(f, &(struct event){.type = EVENT_RETURN});
        }
        uint64_t cost = 1 + next_random() % 50;
        feed_event(f, &(struct event){.type = EVENT_COST, .size = cost});
        x->cost += cost;
        size_t n = (size_t)(next_random() % 4096);
        int followed = causal_input_access_need(f->ci) == CAUSAL_FOLLOWS_ACCESSES;
        for (size_t i = 0; i < n; i++) {
            uint64_t r = next_random();
            enum event_type type = r & 1 ? EVENT_READ : EVENT_WRITE;
            uint64_t addr = 0x10000 + (r >> 8) % 65536;
            if (r % 97 == 0)
                addr = CLEAR_ADDR;          /* a join's read, or a write (not kept) */
            else if (r % 89 == 0)
                addr = CLEAR_ADDR + 4;      /* beside it: not kept */
            run[i] = (struct event){.type = type, .addr = addr, .size = 1 + (r >> 40) % 8};
            if (type == EVENT_READ && addr == CLEAR_ADDR) {
                x->clear_reads++;
                x->cost_before_last = x->cost;
                x->clear_reads_fast += !followed;
            }
        }
        feed_run(f, run, n);
    }
    free(run);
}

static char *write_input(const char *dir, int runs_as_batches, struct expected *x,
                         uint64_t *fast_clear_reads)
{
    struct routine_table routines;
    routine_table_init(&routines);
    uint32_t id;
    CHECK(routine_table_intern_name(&routines, "main", 4, &id) == 0);
    struct trms_error err;
    struct feeder f = {.runs_as_batches = runs_as_batches,
                       .run = malloc(700 * sizeof *f.run)};
    f.ci = causal_input_create(dir, &routines, &err);
    CHECK(f.ci != NULL);
    feed_trace(&f, x);
    int written;
    CHECK(causal_input_finish(f.ci, &written, &err) == 0);
    CHECK(written);
    free(f.run);
    routine_table_free(&routines);
    *fast_clear_reads = f.fast_clear_reads;
    char *path = malloc(strlen(dir) + sizeof "/" CAUSAL_INPUT_FILE);
    sprintf(path, "%s/%s", dir, CAUSAL_INPUT_FILE);
    return path;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    CHECK(fp != NULL);
    if (!fp) {
        *len = 0;
        return NULL;
    }
    fseek(fp, 0, SEEK_END);
    *len = (size_t)ftell(fp);
    rewind(fp);
    char *bytes = malloc(*len ? *len : 1);
    CHECK(fread(bytes, 1, *len, fp) == *len);
    fclose(fp);
    return bytes;
}

/* The file read back: its reads of CLEAR_ADDR and the costs before them. */
struct seen {
    uint64_t clear_reads, cost, cost_before_last;
};

static int see(void *ctx, const struct event *ev, struct trms_error *err)
{
    (void)err;
    struct seen *s = ctx;
    if (ev->type == EVENT_COST)
        s->cost += ev->size;
    if (ev->type == EVENT_READ && ev->addr == CLEAR_ADDR) {
        s->clear_reads++;
        s->cost_before_last = s->cost;
    }
    return 0;
}

/* The accesses read back: count them. */
static int count_accesses(void *ctx, const struct event *ev, struct trms_error *err)
{
    (void)err;
    *(uint64_t *)ctx += event_is_access(ev->type);
    return 0;
}

/* Before the program is threaded, a lock take's window follows nothing
 * (causal_model.h): a single thread's locked accesses pass by, through
 * batches, and none is kept; once it created a thread, the window still
 * open follows its accesses. */
static void test_window_once_threaded(const char *dir)
{
    struct routine_table routines;
    routine_table_init(&routines);
    struct trms_error err;
    struct feeder f = {.ci = causal_input_create(dir, &routines, &err)};
    CHECK(f.ci != NULL);
    feed_event(&f, &(struct event){.type = EVENT_THREAD, .tid = 1});
    feed_sync(&f, 1, SYNC_ATOMIC, LOCK_ADDR, SYNC_ATOMIC_FOUND_ZERO);
    CHECK(causal_input_access_need(f.ci) == CAUSAL_PASSES_ACCESSES);
    for (int i = 0; i < 10; i++)
        feed_event(&f, &(struct event){.type = EVENT_WRITE, .addr = 0x10000 + 8 * i, .size = 8});
    feed_sync(&f, 1, SYNC_CREATE, 0, 2);
    CHECK(causal_input_access_need(f.ci) == CAUSAL_FOLLOWS_ACCESSES);
    for (int i = 0; i < 5; i++)
        feed_event(&f, &(struct event){.type = EVENT_READ, .addr = 0x10000 + 8 * i, .size = 8});
    feed_sync(&f, 1, SYNC_ATOMIC, LOCK_ADDR, SYNC_ATOMIC_LEFT_ZERO);
    int written;
    CHECK(causal_input_finish(f.ci, &written, &err) == 0);
    CHECK(written);
    routine_table_free(&routines);
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, CAUSAL_INPUT_FILE);
    routine_table_init(&routines);
    uint64_t accesses = 0;
    CHECK(trace_read(path, &routines, count_accesses, &accesses, NULL, &err) == 0);
    CHECK_EQ(accesses, 5);
    routine_table_free(&routines);
    unlink(path);
}

int main(void)
{
    char dir_events[] = "/tmp/test_causal_input_XXXXXX", dir_runs[] = "/tmp/test_causal_input_XXXXXX";
    CHECK(mkdtemp(dir_events) != NULL);
    CHECK(mkdtemp(dir_runs) != NULL);
    struct expected x, y;
    uint64_t fast_none, fast;
    char *by_events = write_input(dir_events, 0, &x, &fast_none);
    char *by_runs = write_input(dir_runs, 1, &y, &fast);
    CHECK_EQ(y.clear_reads, x.clear_reads);
    /* The trace has both kinds of runs, and kept reads in each. */
    CHECK(x.clear_reads_fast > 10);
    CHECK(x.clear_reads > x.clear_reads_fast);
    CHECK_EQ(fast_none, 0);
    CHECK(fast > 10);

    size_t len_a, len_b;
    char *a = slurp(by_events, &len_a), *b = slurp(by_runs, &len_b);
    CHECK_EQ(len_b, len_a);
    CHECK(a && b && len_a == len_b && memcmp(a, b, len_a) == 0);

    struct routine_table routines;
    routine_table_init(&routines);
    struct seen s = {0};
    struct trms_error err;
    CHECK(trace_read(by_runs, &routines, see, &s, NULL, &err) == 0);
    CHECK_EQ(s.clear_reads, x.clear_reads);
    CHECK_EQ(s.cost, x.cost);
    CHECK_EQ(s.cost_before_last, x.cost_before_last);
    routine_table_free(&routines);

    free(a);
    free(b);
    unlink(by_events);
    unlink(by_runs);
    rmdir(dir_events);
    rmdir(dir_runs);
    free(by_events);
    free(by_runs);
    char dir_threads[] = "/tmp/test_causal_input_XXXXXX";
    CHECK(mkdtemp(dir_threads) != NULL);
    test_window_once_threaded(dir_threads);
    rmdir(dir_threads);
    return check_report("test_causal_input");
}
