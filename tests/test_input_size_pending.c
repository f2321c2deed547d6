/* test_input_size_pending: the input-size pass's pending counts (routine ->
 * pending activations of it, which say whether a call is recursive), an
 * array by routine id that grows with the routines a thread calls.
 *
 * Random calls and returns of routines whose ids cross the array's growth
 * (0 to 70000) on two threads: each activation's recursive flag is that
 * of a naive walk of the stack. The pass saved mid-stream and loaded back
 * ends like the one that never stopped; so does a state written the way
 * earlier writers wrote the counts (hash-map order, routines with no call
 * pending listed with 0); a count for a routine never defined, or one the
 * stack does not hold, is refused. */
#include <stdlib.h>
#include <string.h>

#include "analyses/input_size.h"
#include "analyses/input_size_internal.h"
#include "analyses/state_parts.h"
#include "common/oom.h"
#include "tests/check.h"

#define ROUTINES 70001u
#define THREADS 2u
#define MAX_DEPTH 12u

static const uint32_t ids[] = {0, 1, 5, 63, 64, 65, 200, 4095, 5000, 70000};
#define N_IDS (sizeof ids / sizeof *ids)

struct log {
    struct activation *items;
    size_t count, capacity;
};

static void sink(void *ctx, const struct activation *a)
{
    struct log *l = ctx;
    if (l->count == l->capacity) {
        l->capacity = l->capacity ? 2 * l->capacity : 64;
        l->items = xrealloc(l->items, l->capacity * sizeof *l->items);
    }
    l->items[l->count++] = *a;
}

/* The naive side: each thread's stack of routines. */
struct naive {
    uint32_t stack[THREADS][MAX_DEPTH + 1];
    uint64_t depth[THREADS];
    uint32_t current;
};

static int naive_recursive(const struct naive *n, uint32_t t, uint32_t routine)
{
    for (uint64_t d = 0; d < n->depth[t]; d++)
        if (n->stack[t][d] == routine)
            return 1;
    return 0;
}

static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* One random step on IS (and on the naive stacks), checked against them.
 * Returns are checked when the pass completes the activation. */
static void step(struct input_size *is, struct log *log, struct naive *n, uint64_t *rng)
{
    uint64_t x = rng_next(rng);
    uint32_t t = n->current;
    switch (x % 8) {
    case 0: {
        uint32_t next = (uint32_t)(x >> 8) % THREADS;
        input_size_switch(is, next, 100 + next);
        n->current = next;
        break;
    }
    case 1:
    case 2:
    case 3:
        if (n->depth[t] < MAX_DEPTH) {
            /* mostly a few routines, to recurse */
            uint32_t routine = ids[(x >> 8) % ((x >> 20) % 4 ? 4 : N_IDS)];
            input_size_call(is, routine);
            n->stack[t][n->depth[t]++] = routine;
            break;
        }
        /* fall through */
    case 4:
    case 5:
        if (n->depth[t] > 0) {
            size_t before = log->count;
            CHECK(input_size_return(is) == 0);
            uint32_t routine = n->stack[t][--n->depth[t]];
            CHECK_EQ(log->count, before + 1);
            CHECK_EQ(log->items[log->count - 1].routine, routine);
            CHECK_EQ(log->items[log->count - 1].recursive, naive_recursive(n, t, routine));
            CHECK_EQ(log->items[log->count - 1].depth, n->depth[t] + 1);
        }
        break;
    default:
        input_size_access(is, x % 3 ? EVENT_READ : EVENT_WRITE, (x >> 16) % 4096, 4);
        break;
    }
}

/* ---- saving and loading ---- */

struct bytes {
    uint8_t *data;
    size_t len, capacity;
    int handed;
};

static int flush(void *ctx, const uint8_t *data, size_t len)
{
    struct bytes *b = ctx;
    if (b->len + len > b->capacity) {
        b->capacity = 2 * (b->len + len);
        b->data = xrealloc(b->data, b->capacity);
    }
    memcpy(b->data + b->len, data, len);
    b->len += len;
    return 0;
}

static int fill(void *ctx, const uint8_t **data, size_t *len)
{
    struct bytes *b = ctx;
    *data = b->data;
    *len = b->handed ? 0 : b->len;
    b->handed = 1;
    return 0;
}

/* What earlier writers saved for a thread's counts: every routine the
 * thread ever called (here: every id of the test), with 0 when none is
 * pending, in no particular order (here: the ids from the largest);
 * EXTRA_ROUTINE/EXTRA_COUNT: one more entry when EXTRA_COUNT != 0. */
static void put_old_counts(struct state_writer *w, const struct thread *t,
                           uint64_t extra_routine, uint64_t extra_count)
{
    state_put_u64(w, N_IDS + (extra_count != 0));
    if (extra_count) {
        state_put_u64(w, extra_routine);
        state_put_u64(w, extra_count);
    }
    for (size_t i = N_IDS; i-- > 0;) {
        state_put_u64(w, ids[i]);
        state_put_u64(w, ids[i] < t->pending_capacity ? t->pending[ids[i]] : 0);
    }
}

/* input_size_save's layout, with the counts in the earlier writers' way. */
static void save_old_style(struct input_size *is, struct state_writer *w,
                           uint64_t extra_routine, uint64_t extra_count)
{
    const uint64_t header[] = {is->cell_shift, is->shard, is->shard_shift, is->count,
                               is->time_limit, is->renumberings, is->n_threads,
                               is->current ? is->current->index + 1 : 0};
    for (size_t i = 0; i < sizeof header / sizeof *header; i++)
        state_put_u64(w, header[i]);
    for (size_t i = 0; i < is->n_threads; i++) {
        struct thread *t = &is->threads[i];
        state_put_u64(w, t->tid);
        state_put_u64(w, t->cost);
        state_put_u64(w, t->top + 1);
        for (size_t f = 0; f <= t->top; f++) {
            const struct frame *fr = &t->stack[f];
            state_put_u64(w, fr->routine);
            state_put_u64(w, fr->recursive);
            state_put_u64(w, fr->ts);
            state_put_i64(w, fr->rms);
            state_put_i64(w, fr->trms);
            state_put_u64(w, fr->induced_thread);
            state_put_u64(w, fr->induced_external);
            state_put_u64(w, fr->induced_channel);
            state_put_u64(w, fr->channel);
            state_put_u64(w, fr->cost_at_entry);
            state_put_u64(w, fr->children_cost);
        }
        put_old_counts(w, t, i == 0 ? extra_routine : 0, i == 0 ? extra_count : 0);
    }
    evicted_times_save(&is->evicted, w);
    shadow_map_save(&is->cells, w);
    CHECK_EQ(is->channel_cells.count, 0); /* no kernel writes here */
    state_put_u64(w, 0);
}

enum style { NEW_STYLE, OLD_STYLE, OLD_STYLE_UNDEFINED, OLD_STYLE_FAR };

/* IS saved and loaded back (NULL when refused). */
static struct input_size *reload(struct input_size *is, const struct naive *n, enum style style,
                                 struct log *log)
{
    struct bytes b = {0};
    struct state_writer w;
    state_writer_init(&w, flush, &b);
    if (style == NEW_STYLE)
        input_size_save(is, &w);
    else if (style == OLD_STYLE)
        save_old_style(is, &w, 0, 0);
    else if (style == OLD_STYLE_UNDEFINED)
        save_old_style(is, &w, ROUTINES, 1);
    else /* (an array that large would not fit) */
        save_old_style(is, &w, UINT32_MAX - 1, 1);
    CHECK(state_writer_finish(&w) == 0);
    uint32_t tids[THREADS];
    uint64_t depth[THREADS], cost[THREADS];
    for (uint32_t i = 0; i < THREADS; i++) {
        tids[i] = 100 + i;
        depth[i] = n->depth[i];
        cost[i] = 0;
    }
    struct state_bounds bounds = {.routines = ROUTINES, .threads = THREADS, .tids = tids,
                                  .depth = depth, .cost = cost, .has_current = 1,
                                  .current = n->current};
    struct state_reader r;
    state_reader_init(&r, fill, &b, b.len);
    struct input_size *loaded = input_size_load(&r, &bounds, sink, log);
    int failed = state_reader_finish(&r) != 0;
    CHECK((loaded == NULL) == failed);
    if (failed) {
        CHECK_STR(r.error, "pending counts that are not the stack's");
        input_size_free(loaded);
        loaded = NULL;
    }
    free(b.data);
    return loaded;
}

static int same(const struct activation *a, const struct activation *b)
{
    return a->tid == b->tid && a->routine == b->routine && a->depth == b->depth &&
           a->recursive == b->recursive && a->context == b->context && a->rms == b->rms &&
           a->trms == b->trms && a->cost == b->cost && a->self_cost == b->self_cost &&
           a->induced_thread == b->induced_thread && a->induced_external == b->induced_external &&
           a->induced_channel == b->induced_channel && a->channel == b->channel;
}

/* A random run of STEPS steps, saved after HALF of them in STYLE: the
 * loaded pass and the original end with the same activations. */
static void run(uint64_t seed, int steps, int half, enum style style)
{
    struct log log = {0}, log2 = {0};
    struct naive n = {0};
    uint64_t rng = seed;
    struct input_size *is = input_size_new(2, 0, 0, sink, &log);
    input_size_switch(is, 0, 100);
    input_size_switch(is, 1, 101);
    n.current = 1;
    for (int i = 0; i < half; i++)
        step(is, &log, &n, &rng);
    struct input_size *loaded = reload(is, &n, style, &log2);
    if (style == OLD_STYLE_UNDEFINED || style == OLD_STYLE_FAR) {
        CHECK(loaded == NULL);
    } else {
        CHECK(loaded != NULL);
        size_t before = log.count;
        struct naive n2 = n;
        uint64_t rng2 = rng;
        for (int i = half; i < steps; i++)
            step(is, &log, &n, &rng);
        input_size_finish(is);
        for (int i = half; loaded && i < steps; i++)
            step(loaded, &log2, &n2, &rng2);
        if (loaded)
            input_size_finish(loaded);
        CHECK_EQ(log2.count, log.count - before);
        for (size_t i = 0; i < log2.count && i + before < log.count; i++)
            CHECK(same(&log2.items[i], &log.items[before + i]));
    }
    input_size_free(loaded);
    input_size_free(is);
    free(log.items);
    free(log2.items);
}

int main(void)
{
    for (uint64_t seed = 1; seed <= 200; seed++) {
        run(seed * 0x9e3779b97f4a7c15ull, 3000, 1500, NEW_STYLE);
        run(seed * 0x9e3779b97f4a7c15ull + 1, 3000, 1000, OLD_STYLE);
        run(seed * 0x9e3779b97f4a7c15ull + 2, 2000, 900, OLD_STYLE_UNDEFINED);
        run(seed * 0x9e3779b97f4a7c15ull + 3, 2000, 700, OLD_STYLE_FAR);
    }
    return check_report("test_input_size_pending");
}
