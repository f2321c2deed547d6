/* test_checkpoint: an analysis saved and loaded back at random points of
 * random multithreaded traces ends with the result of one that never
 * stopped, byte for byte, and with the same activations in the same order;
 * in every engine configuration (one shard on the calling thread; two
 * shards on workers with timestamp ranges and reuse windows so small that
 * both renumber all the time, with and without calling contexts; four
 * shards). A damaged or cut state is
 * refused with a message, never half loaded; so are profiles that repeat
 * an input size or a profile. */
#include <stdlib.h>
#include <string.h>

#include "analyses/analysis.h"
#include "analyses/analysis_state.h"
#include "analyses/profiles.h"
#include "common/byte_buffer.h"
#include "common/oom.h"
#include "tests/check.h"
#include "tests/fixture.h"
#include "tests/random_trace.h"
#include "tests/results_equal.h"

struct activations {
    struct activation *items;
    size_t count;
};

static void keep(void *ctx, const struct activation *a)
{
    struct activations *l = ctx;
    l->items = xrealloc(l->items, (l->count + 1) * sizeof *l->items);
    l->items[l->count++] = *a;
}

static int same_activations(const struct activations *x, const struct activations *y)
{
    if (x->count != y->count)
        return 0;
    for (size_t i = 0; i < x->count; i++) {
        const struct activation *a = &x->items[i], *b = &y->items[i];
        if (a->tid != b->tid || a->routine != b->routine || a->depth != b->depth ||
            a->recursive != b->recursive || a->context != b->context || a->rms != b->rms ||
            a->trms != b->trms || a->cost != b->cost || a->self_cost != b->self_cost ||
            a->induced_thread != b->induced_thread || a->induced_external != b->induced_external)
            return 0;
    }
    return 1;
}

static int to_buffer(void *ctx, const uint8_t *data, size_t len)
{
    byte_buffer_put(ctx, data, len);
    return 0;
}

/* Hands a buffer out in pieces of random sizes, so that numbers and words
 * straddle pieces. */
struct pieces {
    const struct byte_buffer *b;
    size_t at;
    uint64_t rng;
};

static int next_piece(void *ctx, const uint8_t **data, size_t *len)
{
    struct pieces *p = ctx;
    size_t left = p->b->len - p->at;
    size_t n = 1 + (size_t)random_below(&p->rng, 4096);
    *len = n < left ? n : left;
    *data = p->b->data + p->at;
    p->at += *len;
    return 0;
}

static void save(struct analysis *a, struct byte_buffer *out)
{
    struct state_writer w;
    out->len = 0;
    state_writer_init(&w, to_buffer, out);
    analysis_save(a, &w);
    CHECK(state_writer_finish(&w) == 0);
    CHECK_EQ(w.total, out->len);
}

static struct analysis *load(const struct byte_buffer *b, size_t len, int threads,
                             uint64_t routines, uint64_t seed, struct trms_error *err)
{
    struct byte_buffer view = {.data = b->data, .len = len};
    struct pieces p = {.b = &view, .rng = seed};
    struct state_reader r;
    state_reader_init(&r, next_piece, &p, len);
    struct analysis *a = analysis_load(&r, threads, routines, err);
    if (a && state_reader_finish(&r) != 0) {
        error_set(err, "%s", r.error);
        analysis_free(a);
        return NULL;
    }
    return a;
}

static uint64_t saves, renumberings;

/* Runs EVENTS once straight and once saved and reloaded at random points
 * (about one every GAP events). */
static void compare(uint64_t seed, const struct event_list *events,
                    const struct routine_table *routines, const struct analysis_options *opt,
                    unsigned gap)
{
    struct trms_error err;
    struct activations straight = {0}, resumed = {0};
    struct analysis *a = analysis_new(opt, &err);
    analysis_on_activation(a, keep, &straight);
    for (size_t i = 0; i < events->count; i++)
        CHECK(analysis_event(a, &events->items[i], &err) == 0);
    struct analysis_result *want = analysis_finish(a, routines);
    renumberings += analysis_renumberings(a);
    analysis_free(a);

    uint64_t rng = seed ^ 0x5eed;
    struct byte_buffer state = {0};
    a = analysis_new(opt, &err);
    analysis_on_activation(a, keep, &resumed);
    for (size_t i = 0; i <= events->count; i++) {
        if (random_below(&rng, gap) == 0 || i == 0) {
            save(a, &state);
            analysis_free(a);
            a = load(&state, state.len, opt->threads, routines->count, rng, &err);
            if (!a) {
                fprintf(stderr, "seed %" PRIu64 ": reload failed: %s\n", seed, err.message);
                check_failures++;
                break;
            }
            analysis_on_activation(a, keep, &resumed);
            saves++;
        }
        if (i < events->count)
            CHECK(analysis_event(a, &events->items[i], &err) == 0);
    }
    if (a) {
        struct analysis_result *got = analysis_finish(a, routines);
        if (!results_equal(got, want)) {
            fprintf(stderr, "seed %" PRIu64 ": the resumed result differs\n", seed);
            check_failures++;
        }
        if (!same_activations(&resumed, &straight)) {
            fprintf(stderr, "seed %" PRIu64 ": the resumed activations differ\n", seed);
            check_failures++;
        }
        analysis_result_free(got);
        analysis_free(a);
    }
    analysis_result_free(want);
    byte_buffer_free(&state);
    free(straight.items);
    free(resumed.items);
}

static void random_case(uint64_t seed, const struct random_trace_shape *shape)
{
    struct event_list events = {0};
    struct routine_table routines;
    routine_table_init(&routines);
    random_trace(seed, shape, &events, &routines);
    struct analysis_options opt;
    analysis_options_default(&opt);
    uint64_t rng = seed;
    static const uint64_t cells[] = {1, 4, 64}, lines[] = {1, 16, 64};
    opt.cell_size = cells[random_below(&rng, 3)];
    opt.line_size = lines[random_below(&rng, 3)];
    opt.shards = 1;
    opt.threads = 0;
    compare(seed, &events, &routines, &opt, 300);
    uint64_t most_pending = (uint64_t)shape->threads * (shape->max_depth + 1);
    opt.time_limit = 3 * most_pending + 8 + seed % 16;
    opt.reuse_window = 64 * (1 + seed % 4);
    opt.shards = 2;
    opt.threads = 1;
    opt.contexts = seed % 2; /* the calling context tree and its queues too */
    compare(seed, &events, &routines, &opt, 150);
    opt.contexts = 0;
    opt.shards = 4;
    opt.threads = 0;
    opt.time_limit = 0;
    opt.reuse_window = 0;
    compare(seed, &events, &routines, &opt, 500);
    event_list_free(&events);
    routine_table_free(&routines);
}

/* One thread, then three: saved while the first thread's reuse stack is
 * still the global one, it loads as a stack of its own, and the result
 * is the same. */
static void late_threads(void)
{
    for (uint64_t seed = 1; seed <= 6; seed++) {
        struct random_trace_shape alone = {.threads = 1, .events = 4000, .routines = 4,
                                           .regions = 3, .region_span = 2000, .max_depth = 6};
        struct random_trace_shape three = alone;
        three.threads = 3;
        three.events = 1500;
        struct event_list events = {0};
        struct routine_table routines;
        routine_table_init(&routines);
        random_trace(seed * 7777, &alone, &events, &routines);
        random_trace(seed * 7777 + 1, &three, &events, &routines);
        struct analysis_options opt;
        analysis_options_default(&opt);
        opt.threads = (int)(seed % 2);
        compare(seed, &events, &routines, &opt, 400);
        event_list_free(&events);
        routine_table_free(&routines);
    }
}

/* Every prefix of a saved state is refused with a message; so are states
 * whose counters were changed into ones that cannot be. */
static void damaged_states(void)
{
    struct event_list events = {0};
    struct routine_table routines;
    routine_table_init(&routines);
    struct random_trace_shape shape = {.threads = 3, .events = 300, .routines = 4,
                                       .regions = 2, .region_span = 200, .max_depth = 5};
    random_trace(77, &shape, &events, &routines);
    struct analysis_options opt;
    analysis_options_default(&opt);
    opt.shards = 2;
    opt.threads = 0;
    struct trms_error err;
    struct analysis *a = analysis_new(&opt, &err);
    for (size_t i = 0; i < events.count; i++)
        analysis_event(a, &events.items[i], &err);
    struct byte_buffer state = {0};
    save(a, &state);
    analysis_free(a);
    /* Every prefix through the driver's part, then a sample of the rest
     * (each load that gets to the engine builds one: slow here). */
    size_t refused = 0, tried = 0;
    uint64_t rng = 99;
    for (size_t len = 0; len < state.len; len += len < 300 ? 1 : 1 + random_below(&rng, 97)) {
        err.message[0] = '\0';
        struct analysis *b = load(&state, len, 0, routines.count, len, &err);
        refused += b == NULL && err.message[0] != '\0';
        tried++;
        analysis_free(b);
    }
    CHECK_EQ(refused, tried);
    /* A version from the future. */
    struct byte_buffer future = {0};
    byte_buffer_put_varint(&future, ANALYSIS_STATE_VERSION + 1);
    byte_buffer_put(&future, state.data + 1, state.len - 1);
    CHECK(load(&future, future.len, 0, routines.count, 1, &err) == NULL);
    CHECK(strstr(err.message, "layout") != NULL);
    /* Flipped bytes: refused or loaded, never a crash (the sanitizer
     * build runs this); the store's checksum is what catches them. */
    for (int k = 0; k < 300; k++) {
        struct byte_buffer copy = {0};
        byte_buffer_put(&copy, state.data, state.len);
        copy.data[random_below(&rng, copy.len)] ^= (uint8_t)(1 + random_below(&rng, 255));
        analysis_free(load(&copy, copy.len, 0, routines.count, rng, &err));
        byte_buffer_free(&copy);
    }
    byte_buffer_free(&future);
    byte_buffer_free(&state);
    event_list_free(&events);
    routine_table_free(&routines);
}

/* A saved profile whose points repeat an input size, or a profile saved
 * twice, is a damaged state: refused, never merged into one. */
static void duplicate_profiles(void)
{
    struct profile_point pts[2] = {{.n = 3, .calls = 1}, {.n = 3, .calls = 2}};
    struct routine_profile rp = {.routine = 1, .context = CONTEXT_NONE, .tid = 7,
                                 .rms_points = pts, .n_rms_points = 2};
    struct profiles *p = profiles_new();
    CHECK(profiles_restore(p, &rp) != 0);
    profiles_free(p);
    p = profiles_new();
    rp.n_rms_points = 1;
    CHECK(profiles_restore(p, &rp) == 0);
    CHECK(profiles_restore(p, &rp) != 0);
    rp.tid = 8;
    rp.trms_points = pts;
    rp.n_trms_points = 2;
    CHECK(profiles_restore(p, &rp) != 0);
    profiles_free(p);
}

int main(int argc, char **argv)
{
    const char *env = getenv("TRMS_CHECKPOINT_TRACES");
    unsigned traces = argc > 1 ? (unsigned)atoi(argv[1]) : env ? (unsigned)atoi(env) : 400;
    for (uint64_t seed = 1; seed <= traces; seed++) {
        uint64_t rng = seed * 31;
        struct random_trace_shape shape = {
            .threads = 1 + (unsigned)random_below(&rng, 7), /* (see test_differential) */
            .events = 20 + (unsigned)random_below(&rng, 1500),
            .routines = 1 + (unsigned)random_below(&rng, 6),
            .regions = 1 + (unsigned)random_below(&rng, 4),
            .region_span = 16 + random_below(&rng, 4096),
            .max_depth = (unsigned)random_below(&rng, 8),
        };
        random_case(seed * 6151, &shape);
    }
    late_threads();
    damaged_states();
    duplicate_profiles();
    if (traces == 0)
        return check_report("test_checkpoint");
    printf("%u traces, %" PRIu64 " saves and reloads, %" PRIu64 " renumberings\n", traces, saves,
           renumberings);
    CHECK(renumberings > traces);
    return check_report("test_checkpoint");
}
