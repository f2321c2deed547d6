/* test_checkpoint_crafted: a checkpoint is untrusted input (issue 19): it
 * travels with a recording, and a crafted one carries a valid checksum. A
 * state whose parts disagree must be refused by analysis_load, naming what
 * cannot be, so that `trms analyze --resume` starts over instead of
 * crashing, allocating without bound, or storing a result that no report
 * can read.
 *
 * Each case takes a real analysis stopped mid-stream (threads with calls
 * pending, on two input-size shards and the reuse passes), changes one
 * value in it, saves it (so the bytes are what a crafted checkpoint would
 * hold, correctly encoded) and checks that the load is refused with that
 * check's reason. The same analysis unchanged loads, and resumed ends with
 * the result of one that never stopped, byte for byte. */
#include <stdlib.h>
#include <string.h>

#include "analyses/analysis.h"
#include "analyses/analysis_internal.h"
#include "analyses/analysis_state.h"
#include "analyses/engine_internal.h"
#include "analyses/input_size_internal.h"
#include "analyses/profiles.h"
#include "analyses/reuse_distance.h"
#include "analyses/reuse_distance_internal.h"
#include "common/byte_buffer.h"
#include "common/oom.h"
#include "tests/check.h"
#include "tests/fixture.h"
#include "tests/random_trace.h"
#include "tests/results_equal.h"

static struct event_list events;
static struct routine_table routines;
static size_t cut; /* events before the checkpoint */

static struct analysis *stopped(int contexts)
{
    struct analysis_options opt;
    analysis_options_default(&opt);
    opt.shards = 2;
    opt.threads = 0;
    opt.contexts = contexts;
    struct trms_error err;
    struct analysis *a = analysis_new(&opt, &err);
    for (size_t i = 0; i < cut; i++)
        CHECK(analysis_event(a, &events.items[i], &err) == 0);
    analysis_quiesce(a);
    return a;
}

static struct job *job_of(struct analysis *a, enum job_kind kind)
{
    for (unsigned j = 0; j < a->engine->n_jobs; j++)
        if (a->engine->jobs[j].kind == kind)
            return &a->engine->jobs[j];
    abort();
}

static struct input_size *shard0(struct analysis *a)
{
    return job_of(a, JOB_INPUT_SIZE)->input_size;
}

/* The thread with the most calls pending (at least 2: see main). */
static size_t deepest(struct analysis *a)
{
    size_t best = 0;
    for (size_t i = 1; i < a->n_threads; i++)
        if (a->depth[i] > a->depth[best])
            best = i;
    return best;
}

static struct frame *top_frame(struct analysis *a)
{
    struct thread *t = &shard0(a)->threads[deepest(a)];
    return &t->stack[t->top];
}

static int to_buffer(void *ctx, const uint8_t *data, size_t len)
{
    byte_buffer_put(ctx, data, len);
    return 0;
}

struct whole {
    const struct byte_buffer *b;
    int given;
};

static int whole_piece(void *ctx, const uint8_t **data, size_t *len)
{
    struct whole *w = ctx;
    *data = w->b->data;
    *len = w->given ? 0 : w->b->len;
    w->given = 1;
    return 0;
}

/* A saves and loads back; NULL with ERR when refused. */
static struct analysis *round_trip(struct analysis *a, struct trms_error *err)
{
    struct byte_buffer bytes = {0};
    struct state_writer w;
    state_writer_init(&w, to_buffer, &bytes);
    analysis_save(a, &w);
    CHECK(state_writer_finish(&w) == 0);
    struct whole pieces = {&bytes, 0};
    struct state_reader r;
    state_reader_init(&r, whole_piece, &pieces, bytes.len);
    err->message[0] = '\0';
    struct analysis *b = analysis_load(&r, 0, routines.count, err);
    if (b && state_reader_finish(&r) != 0) {
        error_set(err, "%s", r.error);
        analysis_free(b);
        b = NULL;
    }
    byte_buffer_free(&bytes);
    return b;
}

/* ---- the changes, one value each ---- */

static void driver_depth(struct analysis *a) { a->depth[deepest(a)]++; }
static void thread_tid(struct analysis *a) { shard0(a)->threads[deepest(a)].tid ^= 1; }
static void thread_cost(struct analysis *a) { shard0(a)->threads[deepest(a)].cost++; }

static void current_thread(struct analysis *a)
{
    struct input_size *is = shard0(a);
    is->current = &is->threads[(is->current->index + 1) % is->n_threads];
}

static void fewer_threads(struct analysis *a) { shard0(a)->n_threads--; }
/* With the pending counts moved along, so that only the routine id is
 * wrong. */
static void undefined_frame_routine(struct analysis *a)
{
    struct thread *t = &shard0(a)->threads[deepest(a)];
    struct frame *f = top_frame(a);
    (*input_size_pending(t, f->routine))--;
    f->routine = (uint32_t)routines.count;
    f->recursive = 0;
    *input_size_pending(t, f->routine) = 1;
}

static void entry_after_now(struct analysis *a)
{
    top_frame(a)->cost_at_entry = shard0(a)->threads[deepest(a)].cost + 1;
}

static void children_cost_more_than_time(struct analysis *a) { top_frame(a)->children_cost = UINT64_MAX / 2; }
static void negative_rms(struct analysis *a) { top_frame(a)->rms -= 1000; }

static void trms_below_rms(struct analysis *a)
{
    struct frame *f = top_frame(a);
    f->rms += 5;
    f->trms = f->rms - 1;
}

static void fewer_reuse_stacks(struct analysis *a)
{
    struct job *job = job_of(a, JOB_REUSE_THREADS);
    reuse_distance_free(job->per_thread[--job->n_per_thread]);
}

static void current_reuse_stack(struct analysis *a)
{
    struct job *job = job_of(a, JOB_REUSE_THREADS);
    job->current = (job->current + 1) % job->n_per_thread;
}

static void reuse_lines_past_the_state(struct analysis *a)
{
    struct reuse_distance *rd = job_of(a, JOB_REUSE_GLOBAL)->global;
    rd->live = rd->cold = UINT64_C(1) << 40;
    rd->accesses += UINT64_C(1) << 40;
    rd->now = rd->capacity = UINT64_C(1) << 41;
}

static void reuse_other_window(struct analysis *a)
{
    job_of(a, JOB_REUSE_GLOBAL)->global->min_capacity = 128;
}

static void huge_reuse_window(struct analysis *a) { a->options.reuse_window = UINT64_MAX - 8; }

/* Added profiles are of a thread the trace has not: no key collides. */
#define UNSEEN_TID 0x7fffffffu

static void profile_of_undefined_routine(struct analysis *a)
{
    struct routine_profile rp = {.routine = (uint32_t)routines.count,
                                 .context = a->options.contexts ? 0 : CONTEXT_NONE,
                                 .tid = UNSEEN_TID};
    CHECK(profiles_restore(a->profiles, &rp) == 0);
}

static void profile_of_context_not_kept(struct analysis *a)
{
    struct routine_profile rp = {.routine = 0, .context = 0, .tid = UNSEEN_TID};
    CHECK(profiles_restore(a->profiles, &rp) == 0);
}

static void profile_of_undefined_context(struct analysis *a)
{
    struct routine_profile rp = {.routine = 0, .context = (uint32_t)a->n_contexts,
                                 .tid = UNSEEN_TID};
    CHECK(profiles_restore(a->profiles, &rp) == 0);
}

static void profile_without_context(struct analysis *a)
{
    struct routine_profile rp = {.routine = 0, .context = CONTEXT_NONE, .tid = UNSEEN_TID};
    CHECK(profiles_restore(a->profiles, &rp) == 0);
}

static void pending_root_not_root(struct analysis *a)
{
    a->thread_contexts[deepest(a)].pending[0] = 1;
}

static void pending_not_a_path(struct analysis *a)
{
    struct thread_contexts *tc = &a->thread_contexts[deepest(a)];
    tc->pending[tc->depth - 1] = 0; /* the root: no child of the caller's */
}

static void returned_not_completed(struct analysis *a)
{
    struct thread_contexts *tc = &a->thread_contexts[deepest(a)];
    if (tc->head + tc->count == tc->completed_capacity) {
        tc->completed_capacity = tc->head + tc->count + 1;
        tc->completed = xrealloc(tc->completed, tc->completed_capacity * sizeof *tc->completed);
    }
    tc->completed[tc->head + tc->count++] = 1;
}

static void context_of_undefined_routine(struct analysis *a)
{
    a->contexts[a->n_contexts - 1].routine = (uint32_t)routines.count;
}

/* Cell CELL's record in shard 0, its chunk widened (the first threads'
 * evicted times beside it). */
static uint64_t *widened_record(struct analysis *a, uint64_t cell)
{
    struct shadow_map *cells = &shard0(a)->cells;
    shadow_chunk chunk = shadow_map_chunk_of(cells, cell);
    if (!shadow_chunk_shift(chunk))
        chunk = shadow_map_widen(cells, cell >> SHADOW_CHUNK_BITS);
    return shadow_chunk_record(chunk, cell);
}

/* Times beside a widened record (owned by thread 0, so its lanes hold
 * threads 1, 2 and 3): one past the clock, one of a thread that does not
 * exist (thread 3 of three), one beside a cell nobody accessed; a group
 * too many; one of the first threads in the groups' maps, where they never
 * are; the lanes' unused bit set. */
static uint64_t *owned_widened_record(struct analysis *a, uint64_t cell)
{
    uint64_t *record = widened_record(a, cell);
    record[0] = OWNER_PART(UINT64_C(1), 0);
    record[1] = 0;
    return record;
}

static void evicted_after_now(struct analysis *a)
{
    uint64_t *record = owned_widened_record(a, 5);
    record[1] = record_lanes_set(record[1], 0, shard0(a)->count + 1);
}

static void evicted_of_no_thread(struct analysis *a)
{
    CHECK(a->n_threads == RECORD_LANE_THREADS - 1);
    uint64_t *record = owned_widened_record(a, 5);
    record[1] = record_lanes_set(record[1], RECORD_LANES - 1, 1);
}

static void evicted_of_nobody(struct analysis *a)
{
    uint64_t *record = owned_widened_record(a, 5);
    record[0] = 0;
    record[1] = record_lanes_set(record[1], 0, 1);
}

static void evicted_group_too_many(struct analysis *a)
{
    evicted_times_add_thread(&shard0(a)->evicted, (uint32_t)a->n_threads + EVICTED_LANES);
}

static void evicted_of_first_thread_in_map(struct analysis *a)
{
    evicted_times_put(&shard0(a)->evicted, 0, 5, 1);
}

static void widened_unused_bit(struct analysis *a)
{
    owned_widened_record(a, 5)[1] |= UINT64_C(1) << 63;
}

/* A record with its owner's time and no owner. */
static void owner_time_of_nobody(struct analysis *a)
{
    *shadow_map_slot(&shard0(a)->cells, 7) = UINT64_C(1) << OTIME_SHIFT;
}

static void first_chunk(void *ctx, uint64_t number, uint64_t *chunk, unsigned shift)
{
    (void)chunk;
    (void)shift;
    *(uint64_t *)ctx = number;
}

/* A reuse stack's map of times, which is never widened, with a chunk so. */
static void reuse_widened(struct analysis *a)
{
    struct shadow_map *last = &job_of(a, JOB_REUSE_GLOBAL)->global->last;
    uint64_t number = 0;
    shadow_map_each_chunk(last, first_chunk, &number);
    shadow_map_widen(last, number);
}

struct crafted {
    const char *name;
    int contexts;               /* with the calling context tree */
    void (*change)(struct analysis *a);
    const char *reason;         /* in the refusal */
};

static const struct crafted cases[] = {
    {"driver depth", 0, driver_depth, "a shadow stack that is not the thread's"},
    {"thread id", 0, thread_tid, "a shadow stack that is not the thread's"},
    {"thread cost", 0, thread_cost, "a shadow stack that is not the thread's"},
    {"current thread", 0, current_thread, "input-size threads that are not the driver's"},
    {"fewer threads", 0, fewer_threads, "input-size threads that are not the driver's"},
    {"frame routine", 0, undefined_frame_routine, "a routine never defined"},
    {"frame entry", 0, entry_after_now, "a shadow stack whose costs cannot be"},
    {"frame children", 0, children_cost_more_than_time, "a shadow stack whose costs cannot be"},
    {"frame rms", 0, negative_rms, "a shadow stack whose sizes cannot be"},
    {"frame trms", 0, trms_below_rms, "a shadow stack whose sizes cannot be"},
    {"evicted time", 0, evicted_after_now, "a shadow record names no thread or a future time"},
    {"evicted thread", 0, evicted_of_no_thread, "a shadow record names no thread or a future time"},
    {"evicted groups", 0, evicted_group_too_many, "evicted times that are not the threads'"},
    {"evicted in map", 0, evicted_of_first_thread_in_map, "outside their cells' records"},
    {"evicted of nobody", 0, evicted_of_nobody, "a shadow record names no thread or a future time"},
    {"widened bit", 0, widened_unused_bit, "a shadow record names no thread or a future time"},
    {"owner time", 0, owner_time_of_nobody, "a shadow record names no thread or a future time"},
    {"reuse widened", 0, reuse_widened, "a widened shadow chunk where none can be"},
    {"reuse stacks", 0, fewer_reuse_stacks, "per-thread reuse stacks that are not the threads"},
    {"reuse current", 0, current_reuse_stack, "a current reuse stack that is not the current"},
    {"reuse lines", 0, reuse_lines_past_the_state, "more lines than the state holds"},
    {"reuse window", 0, reuse_other_window, "a reuse stack of another first window"},
    {"reuse option", 0, huge_reuse_window, "first reuse window"},
    {"profile routine", 0, profile_of_undefined_routine, "never defined"},
    {"profile context", 0, profile_of_context_not_kept, "calling context never defined"},
    {"contexts depth", 1, driver_depth, "pending calling contexts that are not the thread's"},
    {"contexts root", 1, pending_root_not_root, "pending calling contexts that are not the thread's"},
    {"contexts path", 1, pending_not_a_path, "pending calling contexts that are not a path"},
    {"contexts queue", 1, returned_not_completed, "returned calling contexts the engine has not"},
    {"context routine", 1, context_of_undefined_routine, "a calling context of a routine never"},
    {"profile routine (contexts)", 1, profile_of_undefined_routine, "never defined"},
    {"profile context (contexts)", 1, profile_of_undefined_context, "calling context never defined"},
    {"profile no context", 1, profile_without_context, "calling context never defined"},
};

/* Unchanged, the stopped analysis loads and ends as one that never stopped. */
static void untouched_resumes(int contexts)
{
    struct trms_error err;
    struct analysis *a = stopped(contexts);
    struct analysis *b = round_trip(a, &err);
    analysis_free(a);
    if (!b) {
        fprintf(stderr, "untouched state (contexts %d) refused: %s\n", contexts, err.message);
        check_failures++;
        return;
    }
    for (size_t i = cut; i < events.count; i++)
        CHECK(analysis_event(b, &events.items[i], &err) == 0);
    struct analysis_result *got = analysis_finish(b, &routines);
    analysis_free(b);
    struct analysis *straight = stopped(contexts);
    for (size_t i = cut; i < events.count; i++)
        CHECK(analysis_event(straight, &events.items[i], &err) == 0);
    struct analysis_result *want = analysis_finish(straight, &routines);
    analysis_free(straight);
    CHECK(results_equal(got, want));
    analysis_result_free(got);
    analysis_result_free(want);
}

int main(void)
{
    routine_table_init(&routines);
    struct random_trace_shape shape = {.threads = 3, .events = 3000, .routines = 5,
                                       .regions = 3, .region_span = 512, .max_depth = 6};
    random_trace(1919, &shape, &events, &routines);
    /* A cut past the middle where every thread has appeared and one has
     * at least two calls pending (what the cases change). */
    struct analysis *probe = stopped(0);
    for (cut = events.count / 2; cut < events.count; cut++) {
        struct trms_error err;
        CHECK(analysis_event(probe, &events.items[cut], &err) == 0);
        if (probe->n_threads == shape.threads && probe->depth[deepest(probe)] >= 2 &&
            probe->has_thread && events.items[cut].type == EVENT_READ) {
            cut++;
            break;
        }
    }
    analysis_free(probe);
    CHECK(cut < events.count);
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        const struct crafted *c = &cases[k];
        struct analysis *a = stopped(c->contexts);
        c->change(a);
        struct trms_error err;
        struct analysis *b = round_trip(a, &err);
        if (b || !strstr(err.message, c->reason)) {
            fprintf(stderr, "%s: %s (want \"%s\")\n", c->name,
                    b ? "loaded" : err.message, c->reason);
            check_failures++;
        }
        analysis_free(b);
        /* Undo what the state does not own before it is freed. */
        if (c->change == fewer_threads)
            shard0(a)->n_threads++;
        analysis_free(a);
    }
    untouched_resumes(0);
    untouched_resumes(1);
    /* An option no state should carry is refused up front too. */
    struct analysis_options opt;
    analysis_options_default(&opt);
    opt.reuse_window = ANALYSIS_MAX_REUSE_WINDOW + 1;
    struct trms_error err;
    CHECK(analysis_new(&opt, &err) == NULL);
    event_list_free(&events);
    routine_table_free(&routines);
    return check_report("test_checkpoint_crafted");
}
