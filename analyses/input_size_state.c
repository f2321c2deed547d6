/* input_size_state: the RMS/TRMS pass's state, saved and loaded.
 *
 *   u64: cell_shift shard shard_shift count time_limit renumberings
 *   u64:threads, u64:current thread's index + 1 (0: none yet)
 *   per thread: u64:tid u64:cost u64:frames, per frame u64:routine
 *       u64:recursive u64:ts i64:rms i64:trms u64:induced_thread
 *       u64:induced_external u64:induced_channel u64:channel
 *       u64:cost_at_entry u64:children_cost;
 *       u64:pending routines, per one u64:routine u64:count (routines
 *       with calls pending, by id; a reader takes them in any order and
 *       ignores a count of 0, which earlier writers saved too)
 *   the evicted times (evicted_times_save)
 *   the cell records (shadow map)
 *   u64:channel cells, per one u64:cell u64:channel << 32 | write time */
#include <stdlib.h>

#include "analyses/input_size.h"
#include "analyses/input_size_internal.h"
#include "analyses/state_parts.h"
#include "common/oom.h"

static int save_pending(void *ctx, uint64_t routine, uint64_t count)
{
    state_put_u64(ctx, routine);
    state_put_u64(ctx, count);
    return 0;
}

void input_size_save(const struct input_size *is, struct state_writer *w)
{
    const uint64_t header[] = {is->cell_shift, is->shard, is->shard_shift, is->count,
                               is->time_limit, is->renumberings, is->n_threads,
                               is->current ? is->current->index + 1 : 0};
    for (size_t i = 0; i < sizeof header / sizeof *header; i++)
        state_put_u64(w, header[i]);
    for (size_t i = 0; i < is->n_threads; i++) {
        struct thread *t = &is->threads[i];
        size_t frames = t->top + 1;
        state_put_u64(w, t->tid);
        state_put_u64(w, t->cost);
        state_put_u64(w, frames);
        for (size_t f = 0; f < frames; f++) {
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
        uint64_t routines = 0;
        for (uint32_t k = 0; k < t->pending_capacity; k++)
            routines += t->pending[k] != 0;
        state_put_u64(w, routines);
        for (uint32_t k = 0; k < t->pending_capacity; k++)
            if (t->pending[k])
                save_pending(w, k, t->pending[k]);
    }
    evicted_times_save((struct evicted_times *)&is->evicted, w);
    shadow_map_save((struct shadow_map *)&is->cells, w);
    state_put_u64(w, is->channel_cells.count);
    u64map_each(&is->channel_cells, save_pending, w);
}

/* Consistency of the loaded records: owners among the threads, times not
 * past the clock. */
struct record_check {
    struct state_reader *r;
    uint64_t threads;
    uint64_t count;
};

static void check_chunk(void *ctx, uint64_t number, uint64_t *chunk, unsigned shift)
{
    (void)number;
    struct record_check *c = ctx;
    for (unsigned i = 0; i < SHADOW_CHUNK_CELLS; i++) {
        const uint64_t *words = chunk + ((size_t)i << shift);
        uint64_t v = words[0];
        int bad = OWNER_OF(v) > c->threads || OWNER_TIME(v) > c->count ||
                  WRITE_TIME(v) > c->count || (!OWNER_OF(v) && OWNER_TIME(v));
        /* A widened record: the first threads' times but one in word 1
         * (record_lanes.h), its top bit unused; none beside a cell nobody
         * accessed. */
        unsigned left_out = record_lanes_left_out((uint32_t)OWNER_OF(v) - 1);
        for (unsigned lane = 0; shift && lane < RECORD_LANES; lane++) {
            uint64_t time = record_lanes_get(words[1], lane);
            bad |= time > c->count ||
                   (time && (!OWNER_OF(v) || record_lanes_thread(lane, left_out) >= c->threads));
        }
        bad |= shift && words[1] >> (RECORD_LANES * RECORD_LANE_BITS);
        if (bad) {
            state_reader_fail(c->r, "a shadow record names no thread or a future time");
            return;
        }
    }
}

static uint64_t check_evicted(void *ctx, uint32_t thread, uint64_t cell, uint64_t time)
{
    (void)cell;
    struct record_check *c = ctx;
    if (thread >= c->threads || time > c->count)
        state_reader_fail(c->r, "a shadow record names no thread or a future time");
    else if (thread < RECORD_LANE_THREADS - 1)
        state_reader_fail(c->r, "evicted times of the first threads outside their cells' records");
    return time;
}

/* Returns pop a routine's pending count, and the recursive flag was drawn
 * from it: the loaded counts must be those of the loaded stack, or a
 * return would find no count (a crafted checkpoint). */
static void check_pending(struct state_reader *r, const struct thread *t)
{
    struct u64map seen;
    u64map_init(&seen);
    for (size_t f = 1; f <= t->top; f++) {
        uint64_t *n = u64map_upsert(&seen, t->stack[f].routine, NULL);
        if (t->stack[f].recursive != (*n > 0)) {
            state_reader_fail(r, "a recursive activation whose routine is not pending");
            break;
        }
        ++*n;
    }
    uint64_t loaded = 0; /* counts are below 2^32: no wrap */
    for (uint32_t k = 0; k < t->pending_capacity; k++)
        loaded += t->pending[k];
    for (size_t f = 1; f <= t->top && !r->failed; f++) {
        uint32_t routine = t->stack[f].routine;
        if (routine >= t->pending_capacity ||
            t->pending[routine] != *u64map_find(&seen, routine))
            state_reader_fail(r, "pending counts that are not the stack's");
    }
    if (!r->failed && loaded != t->top)
        state_reader_fail(r, "pending counts that are not the stack's");
    u64map_free(&seen);
}

/* Costs: each frame's entry is at or after its caller's, the children it
 * completed cost no more than the instructions between its entry and its
 * callee's (or now), else a cost or a self cost would wrap at its return.
 * Sizes: the partial sizes of a frame and those above it sum to what the
 * activation has read so far, never below zero, its TRMS never below its
 * RMS (Invariant 2), else its size would wrap. */
static void check_frames(struct state_reader *r, const struct thread *t)
{
    int64_t rms = 0, trms = 0;
    for (size_t f = t->top + 1; f-- > 0 && !r->failed;) {
        const struct frame *fr = &t->stack[f];
        uint64_t end = f == t->top ? t->cost : fr[1].cost_at_entry;
        if (fr->cost_at_entry > end || fr->children_cost > end - fr->cost_at_entry)
            state_reader_fail(r, "a shadow stack whose costs cannot be");
        if (__builtin_add_overflow(rms, fr->rms, &rms) ||
            __builtin_add_overflow(trms, fr->trms, &trms) || rms < 0 || trms < rms)
            state_reader_fail(r, "a shadow stack whose sizes cannot be");
    }
}

static void load_thread(struct state_reader *r, struct thread *t, const struct input_size *is,
                        const struct state_bounds *b)
{
    uint64_t tid = state_get_u64(r);
    t->tid = (uint32_t)tid;
    t->cost = state_get_u64(r);
    uint64_t frames = state_get_count(r, 11);
    /* The driver validates the events against its own threads: each of
     * them is this thread, with as many calls pending (a return it lets
     * through pops a frame) and the same instructions. */
    if (!r->failed && (tid != b->tids[t->index] || t->cost != b->cost[t->index] ||
                       frames != b->depth[t->index] + 1))
        state_reader_fail(r, "a shadow stack that is not the thread's");
    if (frames == 0 && !r->failed)
        state_reader_fail(r, "a thread without its root activation");
    if (r->failed)
        return;
    t->capacity = frames < 2 ? 4 : 2 * frames;
    t->stack = xcalloc(t->capacity, sizeof *t->stack);
    t->top = frames - 1;
    for (uint64_t f = 0; f < frames && !r->failed; f++) {
        struct frame *fr = &t->stack[f];
        fr->routine = (uint32_t)state_get_u64(r);
        fr->recursive = (uint32_t)state_get_u64(r);
        fr->ts = state_get_u64(r);
        fr->rms = state_get_i64(r);
        fr->trms = state_get_i64(r);
        fr->induced_thread = state_get_u64(r);
        fr->induced_external = state_get_u64(r);
        fr->induced_channel = state_get_u64(r);
        uint64_t channel = state_get_u64(r);
        fr->channel = (uint32_t)channel;
        if (channel > UINT32_MAX || fr->induced_channel > fr->induced_external)
            state_reader_fail(r, "channel input that cannot be");
        fr->cost_at_entry = state_get_u64(r);
        fr->children_cost = state_get_u64(r);
        if (fr->ts > is->count || (f > 0 && fr->ts <= fr[-1].ts) ||
            (f == 0) != (fr->routine == ROUTINE_ROOT))
            state_reader_fail(r, "a shadow stack out of order");
        if (f > 0 && fr->routine >= b->routines)
            state_reader_fail(r, "a pending activation of a routine never defined");
    }
    if (!r->failed)
        check_frames(r, t);
    uint64_t pending = state_get_count(r, 2);
    for (uint64_t i = 0; i < pending && !r->failed; i++) {
        uint64_t routine = state_get_u64(r), count = state_get_u64(r);
        if (count == 0)
            continue; /* an earlier writer's routine with no call pending */
        /* (more than the stack holds: check_pending refuses it too) */
        if (routine >= b->routines || count > t->top || count > UINT32_MAX)
            state_reader_fail(r, "pending counts that are not the stack's");
        else
            *input_size_pending(t, (uint32_t)routine) = (uint32_t)count;
    }
    if (!r->failed)
        check_pending(r, t);
}

struct input_size *input_size_load(struct state_reader *r, const struct state_bounds *b,
                                   activation_sink sink, void *ctx)
{
    uint64_t cell_shift = state_get_u64(r), shard = state_get_u64(r),
             shard_shift = state_get_u64(r);
    if (cell_shift > 63 || shard_shift > 3 || shard >> shard_shift) {
        state_reader_fail(r, "an input-size shard that cannot be");
        return NULL;
    }
    struct input_size *is = input_size_new((unsigned)cell_shift, (unsigned)shard,
                                           (unsigned)shard_shift, sink, ctx);
    is->count = state_get_u64(r);
    uint64_t limit = state_get_u64(r);
    input_size_set_time_limit(is, limit);
    is->renumberings = state_get_u64(r);
    uint64_t threads = state_get_count(r, 4);
    uint64_t current = state_get_u64(r);
    if (is->time_limit != limit || is->count >= limit || threads > MAX_THREADS ||
        current > threads)
        state_reader_fail(r, "input-size counters that cannot be");
    /* The driver's thread events index these threads, and it sends none for
     * the thread it has current: they must be its threads, and its current
     * one (an access with no current thread would have no stack). */
    if (!r->failed && (threads != b->threads ||
                       current != (b->has_current ? (uint64_t)b->current + 1 : 0)))
        state_reader_fail(r, "input-size threads that are not the driver's");
    if (!r->failed && threads) {
        is->threads = xcalloc(threads, sizeof *is->threads);
        is->threads_capacity = threads;
    }
    for (uint64_t i = 0; i < threads && !r->failed; i++) {
        struct thread *t = &is->threads[is->n_threads++];
        *t = (struct thread){.index = (uint32_t)i, .top = (size_t)-1};
        evicted_times_add_thread(&is->evicted, (uint32_t)i);
        load_thread(r, t, is, b);
    }
    if (!r->failed)
        evicted_times_load(&is->evicted, r, is->n_threads);
    if (!r->failed && current)
        is->current = &is->threads[current - 1];
    shadow_map_load(&is->cells, r, 1);
    struct record_check check = {.r = r, .threads = is->n_threads, .count = is->count};
    if (!r->failed)
        shadow_map_each_chunk(&is->cells, check_chunk, &check);
    if (!r->failed)
        evicted_times_each(&is->evicted, check_evicted, &check);
    uint64_t channel_cells = state_get_count(r, 2);
    for (uint64_t i = 0; i < channel_cells && !r->failed; i++) {
        uint64_t cell = state_get_u64(r);
        *u64map_upsert(&is->channel_cells, cell, NULL) = state_get_u64(r);
    }
    if (r->failed) {
        input_size_free(is);
        return NULL;
    }
    return is;
}
