#include "analyses/input_size.h"

#include <stdio.h>
#include <stdlib.h>

#include "analyses/input_size_internal.h"
#include "analyses/shadow_map.h"
#include "common/compiler.h"
#include "common/oom.h"
#include "common/u64map.h"

struct input_size *input_size_new(unsigned cell_shift, unsigned shard, unsigned shard_shift,
                                  activation_sink sink, void *ctx)
{
    struct input_size *is = xcalloc(1, sizeof *is);
    is->cell_shift = cell_shift;
    is->shard = shard;
    is->shard_shift = shard_shift;
    is->sink = sink;
    is->sink_ctx = ctx;
    is->time_limit = DEFAULT_TIME_LIMIT;
    is->records_ahead = 1; /* until a batch shows that accesses keep together */
    shadow_map_init(&is->cells, 1);
    evicted_times_init(&is->evicted);
    u64map_init(&is->channel_cells);
    return is;
}

void input_size_free(struct input_size *is)
{
    if (!is)
        return;
    for (size_t i = 0; i < is->n_threads; i++) {
        free(is->threads[i].stack);
        free(is->threads[i].pending);
    }
    free(is->threads);
    shadow_map_free(&is->cells);
    evicted_times_free(&is->evicted);
    u64map_free(&is->channel_cells);
    free(is);
}

void input_size_set_time_limit(struct input_size *is, uint64_t limit)
{
    is->time_limit = limit < DEFAULT_TIME_LIMIT ? limit : DEFAULT_TIME_LIMIT;
}

void input_size_skip_kernel_writes(struct input_size *is)
{
    is->skip_kernel_writes = 1;
}

uint64_t input_size_renumberings(const struct input_size *is)
{
    return is->renumberings;
}

static void renumber(struct input_size *is);

/* count++, renumbering first when the timestamps would run out. */
static uint64_t tick(struct input_size *is)
{
    if (is->count + 1 >= is->time_limit) {
        renumber(is);
        if (is->count + 1 >= is->time_limit) {
            fprintf(stderr, "trms: too many pending activations for the timestamp range\n");
            exit(2);
        }
    }
    return ++is->count;
}

static struct frame *push_frame(struct input_size *is, struct thread *t, uint32_t routine)
{
    if (t->top + 1 >= t->capacity) {
        t->capacity = t->capacity ? t->capacity * 2 : 4;  /* many threads are shallow */
        t->stack = xrealloc(t->stack, t->capacity * sizeof *t->stack);
    }
    uint64_t ts = tick(is);
    struct frame *f = &t->stack[++t->top];
    *f = (struct frame){.routine = routine, .ts = ts, .cost_at_entry = t->cost};
    return f;
}

void input_size_switch(struct input_size *is, uint32_t index, uint32_t tid)
{
    if (index == is->n_threads) {
        if (is->n_threads == MAX_THREADS) {
            fprintf(stderr, "trms: more than %llu threads\n", (unsigned long long)MAX_THREADS);
            exit(2);
        }
        if (is->n_threads == is->threads_capacity) {
            is->threads_capacity = is->threads_capacity ? is->threads_capacity * 2 : 8;
            is->threads = xrealloc(is->threads, is->threads_capacity * sizeof *is->threads);
        }
        struct thread *t = &is->threads[is->n_threads++];
        *t = (struct thread){.tid = tid, .index = index};
        evicted_times_add_thread(&is->evicted, index);
        t->top = (size_t)-1; /* no frame yet; push_frame pre-increments */
        tick(is);            /* switchThread() */
        push_frame(is, t, ROUTINE_ROOT);
    } else {
        tick(is); /* switchThread() */
    }
    is->current = &is->threads[index];
}

static __attribute__((noinline)) void grow_pending(struct thread *t, uint32_t routine)
{
    uint32_t capacity = t->pending_capacity ? t->pending_capacity : 64;
    while (capacity <= routine)
        capacity = capacity * 2 > capacity ? capacity * 2 : UINT32_MAX;
    t->pending = xrealloc(t->pending, (size_t)capacity * sizeof *t->pending);
    for (uint32_t i = t->pending_capacity; i < capacity; i++)
        t->pending[i] = 0;
    t->pending_capacity = capacity;
}

uint32_t *input_size_pending(struct thread *t, uint32_t routine)
{
    if (routine >= t->pending_capacity)
        grow_pending(t, routine);
    return &t->pending[routine];
}

void input_size_call(struct input_size *is, uint32_t routine)
{
    struct thread *t = is->current;
    uint32_t *pending = input_size_pending(t, routine);
    struct frame *f = push_frame(is, t, routine);
    f->recursive = (*pending)++ > 0;
}

static void complete_top(struct input_size *is, struct thread *t)
{
    struct frame *f = &t->stack[t->top];
    uint64_t cost = t->cost - f->cost_at_entry;
    struct activation a = {
        .tid = t->tid,
        .routine = f->routine,
        .depth = (uint32_t)t->top,
        .recursive = f->recursive,
        .context = CONTEXT_NONE, /* the analysis driver adds it when kept */
        .rms = (uint64_t)f->rms,
        .trms = (uint64_t)f->trms,
        .cost = cost,
        .self_cost = cost - f->children_cost,
        .induced_thread = f->induced_thread,
        .induced_external = f->induced_external,
        .induced_channel = f->induced_channel,
        .channel = f->channel,
    };
    if (f->routine != ROUTINE_ROOT)
        t->pending[f->routine]--;
    if (t->top > 0) {
        struct frame *parent = f - 1;
        parent->rms += f->rms;
        parent->trms += f->trms;
        parent->induced_thread += f->induced_thread;
        parent->induced_external += f->induced_external;
        parent->induced_channel += f->induced_channel;
        parent->channel = channel_join(parent->channel, f->channel);
        parent->children_cost += cost;
    }
    t->top--;
    is->sink(is->sink_ctx, &a);
}

int input_size_return(struct input_size *is)
{
    struct thread *t = is->current;
    if (!t || t->top == 0 || t->top == (size_t)-1)
        return -1;
    complete_top(is, t);
    return 0;
}

/* The deepest pending activation below stack[HI] that started at or before
 * time TS (stack[HI].ts > TS >= stack[0].ts): by steps that double from
 * HI down, as the frame sought is most often a few below the top, then by
 * halves. Both without a branch on the comparison: which way a probe goes
 * is as good as random, and a mispredicted branch per probe cost more than
 * the probe (sort's input-size pass spent 4.5% of its time here). */
static __attribute__((noinline)) struct frame *frame_below(struct thread *t, uint64_t ts,
                                                           size_t hi)
{
    const struct frame *s = t->stack;
    /* The frame is in [lo, lo + len): stack[lo].ts <= TS < stack[lo + len].ts. */
    size_t step = 1;
    while (step < hi && s[hi - step].ts > ts) {
        hi -= step;
        step *= 2;
    }
    size_t lo = step < hi ? hi - step : 0, len = hi - lo;
    while (len > 1) {
        size_t half = len / 2;
        lo = s[lo + half].ts <= ts ? lo + half : lo;
        len -= half;
    }
    return &t->stack[lo];
}

/* The deepest pending activation that started at or before time TS (which
 * is before the top's start): the one whose partial sizes hold the
 * thread's latest access at TS. Most often the frame just below the top
 * (a loop calls the same routine again and again, whose cells its
 * previous call left to the caller): one look at it, before a search by
 * halves, which costs accesses from long ago a few frames of a deep stack
 * each. */
static ALWAYS_INLINE struct frame *frame_at(struct thread *t, uint64_t ts)
{
    if (t->top == 0)
        return t->stack;
    size_t below = t->top - 1;
    if (t->stack[below].ts <= ts)
        return &t->stack[below];
    return frame_below(t, ts, below);
}

/* hand_over() where the old owner or NEW is past the first three threads:
 * thread 3's time is in group 0 of the evicted times while a later thread
 * owns the cell, and every later thread's time is in its group. */
static __attribute__((noinline)) uint64_t hand_over_past_lanes(struct input_size *is,
                                                               uint64_t *record, uint64_t cell,
                                                               uint64_t r, uint32_t new, int want)
{
    uint32_t old = (uint32_t)OWNER_OF(r) - 1, thread3 = RECORD_LANE_THREADS - 1;
    unsigned a = record_lanes_left_out(old), b = record_lanes_left_out(new);
    if (old > thread3)
        evicted_times_put(&is->evicted, old, cell, OWNER_TIME(r));
    if (a == b) {
        /* Thread 3 and a later one, or two later ones: the lanes stay. */
        if (old == thread3)
            evicted_times_put(&is->evicted, thread3, cell, OWNER_TIME(r));
        return want ? evicted_times_get(&is->evicted, new, cell) : 0;
    }
    uint64_t va = old <= thread3 ? OWNER_TIME(r) : evicted_times_get(&is->evicted, thread3, cell);
    uint64_t vb = record_lanes_move(record + 1, a, va, b);
    if (new <= thread3)
        return vb;
    if (vb) /* thread 3's, which leaves the lanes for group 0 */
        evicted_times_put(&is->evicted, thread3, cell, vb);
    return want ? evicted_times_get(&is->evicted, new, cell) : 0;
}

/* CELL's widened record (RECORD, its first word R) passes from its owner
 * to thread NEW (another): the owner's time moves to the lanes beside the
 * record (record_lanes.h), or for a thread past the first four to the
 * evicted times, and NEW's leaves them. Returns NEW's latest access time
 * before (0: never); a write (WANT 0) has no use for it. A cell nobody
 * owns was never accessed by a thread, so there is nothing to move: that
 * is every cell's first access. */
static ALWAYS_INLINE uint64_t hand_over(struct input_size *is, uint64_t *record, uint64_t cell,
                                        uint64_t r, uint32_t new, int want)
{
    if (!OWNER_OF(r))
        return 0;
    uint32_t old = (uint32_t)OWNER_OF(r) - 1;
    if ((old | new) < RECORD_LANE_THREADS) /* both among the first four: the lanes alone */
        return record_lanes_move(record + 1, old, OWNER_TIME(r), new);
    return hand_over_past_lanes(is, record, cell, r, new, want);
}

/* An induced read of CELL (shard-local), whose record R says a kernel
 * write: of bytes from a channel when the cell's entry names that write. */
static __attribute__((noinline)) void channel_read(struct input_size *is, struct frame *top,
                                                   uint64_t cell, uint64_t r)
{
    const uint64_t *entry = u64map_find(&is->channel_cells, cell);
    if (!entry || (*entry & UINT32_MAX) != WRITE_TIME(r))
        return;
    top->induced_channel++;
    top->channel = channel_join(top->channel, (uint32_t)(*entry >> 32));
}

/* A read by T, whose innermost activation is TOP, of CELL (shard-local)
 * whose record was R and T's latest access to it LAST; returns the record
 * after it. STAMP: OWNER_PART of T now (stamp_of). */
static ALWAYS_INLINE uint64_t read_cell(struct input_size *is, struct thread *t,
                                        struct frame *top, uint64_t r, uint64_t last,
                                        uint64_t cell, uint64_t stamp)
{
    /* Written by another thread or the kernel since this thread's latest
     * access: new input for every pending activation (Figure 11, line 1). */
    int induced = last < WRITE_TIME(r);
    if (last < top->ts) {
        /* First access for the activations above the latest access. */
        top->rms++;
        top->trms++;
        if (last != 0) {
            struct frame *holder = frame_at(t, last);
            holder->rms--;
            if (!induced)
                holder->trms--;
        }
    } else if (induced) {
        top->trms++;
    }
    if (induced) {
        if (r & KERNEL_BIT) {
            top->induced_external++;
            if (is->channel_cells.count)
                channel_read(is, top, cell, r);
        } else
            top->induced_thread++;
    }
    return WRITE_PART(r) | stamp;
}

/* A cell's record after a write by the thread whose OWNER_PART now is
 * STAMP. */
static ALWAYS_INLINE uint64_t written_by(uint64_t stamp)
{
    return WRITE_BY(OWNER_TIME(stamp), 0) | stamp;
}

/* A cell's record R after a write by the kernel, whose write time and bit
 * are KERNEL_STAMP. */
static ALWAYS_INLINE uint64_t written_by_kernel(uint64_t r, uint64_t kernel_stamp)
{
    return (r & ~WRITE_PART(~UINT64_C(0))) | kernel_stamp;
}

/* Whether a cell's record R names an owner other than the thread whose
 * OWNER_PART is STAMP: taking it over needs the evicted times, which a
 * widened record holds. */
static ALWAYS_INLINE int changes_hands(uint64_t stamp, uint64_t r)
{
    return OWNER_OF(r) != OWNER_OF(stamp) && OWNER_OF(r) != 0;
}

/* Walks the cells of an access that belong to this shard, as runs of
 * consecutive shard-local indices inside one shard group (and so inside one
 * shadow chunk, whose size the group size divides). */
struct cell_runs {
    uint64_t next;
    uint64_t last;
    int done;
};

static ALWAYS_INLINE int next_run(const struct input_size *is, struct cell_runs *it, uint64_t *local,
                           unsigned *n)
{
    while (!it->done) {
        uint64_t c = it->next, end = c | SHARD_GRAIN_MASK;
        if (end >= it->last) {
            end = it->last;
            it->done = 1;
        } else {
            it->next = end + 1;
        }
        if (((c >> SHARD_GRAIN_BITS) & ((UINT64_C(1) << is->shard_shift) - 1)) == is->shard) {
            *local = ((c >> (SHARD_GRAIN_BITS + is->shard_shift)) << SHARD_GRAIN_BITS) |
                     (c & SHARD_GRAIN_MASK);
            *n = (unsigned)(end - c + 1);
            return 1;
        }
    }
    return 0;
}

/* The cells LOCAL..LOCAL+N-1 (shard-local indices), in a chunk of
 * one-word records (RECORDS, LOCAL's first), until one of them changes
 * hands; returns how many were done. */
static ALWAYS_INLINE unsigned narrow_run(struct input_size *is, struct thread *t,
                                         struct frame *top, enum event_type type,
                                         uint64_t *records, uint64_t local, unsigned n,
                                         uint64_t kernel_stamp, uint64_t stamp)
{
    unsigned k = 0;
    switch (type) {
    case EVENT_READ:
    case EVENT_KREAD: /* kernelRead(l, t) = read(l, t) (Figure 12) */
        for (; k < n; k++) {
            uint64_t r = records[k];
            if (changes_hands(stamp, r))
                break;
            records[k] = read_cell(is, t, top, r, OWNER_TIME(r), /* (0 when nobody's) */
                                   local + k, stamp);
        }
        break;
    case EVENT_WRITE:
        for (; k < n && !changes_hands(stamp, records[k]); k++)
            records[k] = written_by(stamp);
        break;
    case EVENT_KWRITE:
        for (; k < n; k++)
            records[k] = written_by_kernel(records[k], kernel_stamp);
        break;
    default:
        k = n;
        break;
    }
    return k;
}

/* The same in a widened chunk (RECORD: LOCAL's). */
static ALWAYS_INLINE void wide_run(struct input_size *is, struct thread *t, struct frame *top,
                                   enum event_type type, uint64_t *record, uint64_t local,
                                   unsigned n, uint64_t kernel_stamp, uint64_t stamp)
{
    for (unsigned k = 0; k < n; k++, record += 1u << SHADOW_WIDE_SHIFT) {
        uint64_t r = *record;
        switch (type) {
        case EVENT_READ:
        case EVENT_KREAD:
            if (OWNER_OF(r) == OWNER_OF(stamp)) {
                *record = read_cell(is, t, top, r, OWNER_TIME(r), local + k, stamp);
            } else {
                is->take_overs += OWNER_OF(r) != 0;
                *record = read_cell(is, t, top, r, hand_over(is, record, local + k, r, t->index, 1),
                                    local + k, stamp);
            }
            break;
        case EVENT_WRITE:
            if (OWNER_OF(r) != OWNER_OF(stamp))
                hand_over(is, record, local + k, r, t->index, 0);
            *record = written_by(stamp);
            break;
        case EVENT_KWRITE:
            *record = written_by_kernel(r, kernel_stamp);
            break;
        default:
            break;
        }
    }
}

/* The kernel write of KERNEL_STAMP to cells LOCAL..LOCAL+N-1 holds
 * bytes from channel is->next_channel. */
static __attribute__((noinline)) void note_channel_cells(struct input_size *is, uint64_t local,
                                                         unsigned n, uint64_t kernel_stamp)
{
    uint64_t entry = (uint64_t)is->next_channel << 32 | WRITE_TIME(kernel_stamp);
    for (unsigned k = 0; k < n; k++)
        *u64map_upsert(&is->channel_cells, local + k, NULL) = entry;
}

/* The cells LOCAL..LOCAL+N-1, all in one shard group (and so in one
 * chunk). A chunk starts with one word a cell; where a cell first changes
 * hands, it is widened, to keep the evicted times beside the records. */
static ALWAYS_INLINE void access_run(struct input_size *is, struct thread *t, struct frame *top,
                                     enum event_type type, uint64_t local, unsigned n,
                                     uint64_t kernel_stamp, uint64_t stamp)
{
    if (type == EVENT_KWRITE && is->next_channel)
        note_channel_cells(is, local, n, kernel_stamp);
    shadow_chunk chunk = shadow_map_chunk_of(&is->cells, local);
    if (shadow_chunk_shift(chunk) == 0) {
        unsigned done = narrow_run(is, t, top, type, shadow_chunk_record(chunk, local), local, n,
                                   kernel_stamp, stamp);
        if (done == n)
            return;
        chunk = shadow_map_widen(&is->cells, local >> SHADOW_CHUNK_BITS);
        local += done;
        n -= done;
    }
    wide_run(is, t, top, type, shadow_chunk_record(chunk, local), local, n, kernel_stamp, stamp);
}

/* T's part of the records it accesses (OWNER_PART of T now): the same for
 * every cell of every access until the clock moves or another thread
 * runs, so the batch loop keeps it, where each cell computed it. */
static ALWAYS_INLINE uint64_t stamp_of(const struct input_size *is, const struct thread *t)
{
    return t ? OWNER_PART(is->count, t->index) : 0;
}

/* An access by T, whose innermost activation is TOP, STAMP T's part
 * (stamp_of; any for a kernel write), CELL_SHIFT is->cell_shift. TAGGED:
 * the access is known to touch this shard's cells (struct batch_event),
 * so one group of cells needs no check. */
static ALWAYS_INLINE void access_in(struct input_size *is, struct thread *t, struct frame *top,
                                    enum event_type type, uint64_t addr, uint64_t size,
                                    int tagged, int single, uint64_t stamp, unsigned cell_shift)
{
    uint64_t first = addr >> cell_shift, last = (addr + size - 1) >> cell_shift;
    /* A write time newer than any thread's latest access makes the next
     * read of each cell an induced one (Figure 12). Every shard ticks, so
     * that all keep the same clock. */
    uint64_t kernel_stamp = type == EVENT_KWRITE ? WRITE_BY(tick(is), 1) : 0;
    if (single) {
        /* The only shard: its local indices are the cells, in runs that
         * stay inside a shadow chunk. */
        for (uint64_t c = first;;) {
            uint64_t end = c | (SHADOW_CHUNK_CELLS - 1);
            if (end >= last) {
                access_run(is, t, top, type, c, (unsigned)(last - c + 1), kernel_stamp, stamp);
                return;
            }
            access_run(is, t, top, type, c, (unsigned)(end - c + 1), kernel_stamp, stamp);
            c = end + 1;
        }
    }
    uint64_t shard_mask = (UINT64_C(1) << is->shard_shift) - 1;
    if ((first >> SHARD_GRAIN_BITS) == (last >> SHARD_GRAIN_BITS)) {
        /* The common case: one group of cells. */
        if (tagged || ((first >> SHARD_GRAIN_BITS) & shard_mask) == is->shard)
            access_run(is, t, top, type,
                       ((first >> (SHARD_GRAIN_BITS + is->shard_shift)) << SHARD_GRAIN_BITS) |
                           (first & SHARD_GRAIN_MASK),
                       (unsigned)(last - first + 1), kernel_stamp, stamp);
        return;
    }
    struct cell_runs it = {first, last, 0};
    uint64_t local;
    unsigned n;
    while (next_run(is, &it, &local, &n))
        access_run(is, t, top, type, local, n, kernel_stamp, stamp);
}

void input_size_access(struct input_size *is, enum event_type type, uint64_t addr,
                       uint64_t size)
{
    struct thread *t = is->current;
    access_in(is, t, &t->stack[t->top], type, addr, size, 0, 0, stamp_of(is, t), is->cell_shift);
}

/* How many of this shard's events ahead the evicted times are asked for,
 * so that scattered accesses find them in the caches; records are asked
 * for twice as far ahead, to be there when the evicted times are. */
#define PREFETCH_AHEAD 16
/* Records are asked for this many events at a time (those 2 *
 * PREFETCH_AHEAD to 2 * PREFETCH_AHEAD + PREFETCH_BURST - 1 ahead), where
 * each event asked for one: a scattered record most likely misses the TLB
 * too, and a prefetch among an event's own work waited for its page walk
 * alone (on the hostile shape 60% of the pass's samples fell just after
 * it; on this VM, one prefetch per 60 ns of work over 256 MiB took 120 ns
 * an iteration, 16 at a time 67). Asked together, the walks overlap. */
#define PREFETCH_BURST 16

/* The shard-local index of the first cell of access E. */
static ALWAYS_INLINE uint64_t first_local(const struct input_size *is, const struct batch_event *e,
                                          int single)
{
    uint64_t c = e->value >> is->cell_shift;
    return single ? c
                  : ((c >> (SHARD_GRAIN_BITS + is->shard_shift)) << SHARD_GRAIN_BITS) |
                        (c & SHARD_GRAIN_MASK);
}

static ALWAYS_INLINE int mine_access(const struct batch_event *e, uint8_t mine, int single)
{
    return (single || (e->shards & mine)) && event_is_access((enum event_type)e->type);
}

/* Far ahead: the record of the access's first cell. */
static ALWAYS_INLINE void prefetch_record(const struct input_size *is, const struct batch_event *e,
                                          uint8_t mine, int single)
{
    if (mine_access(e, mine, single))
        shadow_map_prefetch(&is->cells, first_local(is, e, single));
}

/* Nearer: the record has arrived, and when another thread owns the cell,
 * the access will move the owner's time to the evicted times and look up
 * T's: both are asked for now. A hint only: the record may change before
 * the access. */
static ALWAYS_INLINE void prefetch_evicted(const struct input_size *is, const struct thread *t,
                                           const struct batch_event *e, uint8_t mine, int single)
{
    if (!t || e->type == EVENT_KWRITE || !mine_access(e, mine, single))
        return; /* a kernel write changes no owner */
    uint64_t local = first_local(is, e, single);
    const uint64_t *record = shadow_map_hint(&is->cells, local);
    if (!record)
        return;
    uint64_t owner = OWNER_OF(*record);
    if (owner == 0 || owner == t->index + 1)
        return;
    /* The first threads' times are in the record's own line (but thread
     * 3's, in group 0 while a later thread owns the cell: a hint misses
     * it). */
    if (owner - 1 >= RECORD_LANE_THREADS)
        evicted_times_prefetch(&is->evicted, (uint32_t)owner - 1, local);
    if (t->index >= RECORD_LANE_THREADS &&
        (owner - 1) >> EVICTED_LANE_BITS != t->index >> EVICTED_LANE_BITS)
        evicted_times_prefetch(&is->evicted, t->index, local); /* not the same record */
}

/* The batch loop, once for a single shard (SINGLE: no tags to look at, and
 * cells are local indices) and once for several; and for a single shard
 * once without the look-ahead (PREFETCHING 0: both asks are off, as in a
 * program of one thread whose cells stay in the caches), whose two tests
 * at every event cost 5% of the pass's instructions on xz. */
static ALWAYS_INLINE void run_events(struct input_size *is, const struct batch_event *events,
                                     size_t n, int single, int prefetching)
{
    uint8_t mine = (uint8_t)(1u << is->shard);
    /* The shards share the events: each sees about 1/shards of the accesses. */
    size_t ahead = (size_t)PREFETCH_AHEAD << is->shard_shift, far = 2 * ahead;
    /* The current thread and its innermost activation, kept in registers
     * between the events that change them. */
    struct thread *t = is->current;
    struct frame *top = t ? &t->stack[t->top] : NULL;
    uint64_t stamp = stamp_of(is, t);
    unsigned cell_shift = is->cell_shift;
    int evicted_ahead = is->evicted_ahead, records_ahead = is->records_ahead;
    uint64_t take_overs = is->take_overs, misses = is->cells.cache_misses;
    for (size_t i = 0; i < n; i++) {
        const struct batch_event *e = &events[i];
        if (prefetching && records_ahead && (i & (PREFETCH_BURST - 1)) == 0)
            for (size_t j = i + far; j < i + far + PREFETCH_BURST && j < n; j++)
                prefetch_record(is, &events[j], mine, single);
        if (prefetching && evicted_ahead && i + ahead < n)
            prefetch_evicted(is, t, &events[i + ahead], mine, single);
        if (!single && !(e->shards & mine))
            continue; /* another shard's cells only */
        switch (e->type) {
        case EVENT_READ:
            access_in(is, t, top, EVENT_READ, e->value, e->size, 1, single, stamp,
                      cell_shift);
            break;
        case EVENT_WRITE:
            access_in(is, t, top, EVENT_WRITE, e->value, e->size, 1, single, stamp,
                      cell_shift);
            break;
        case EVENT_KREAD:
            access_in(is, t, top, EVENT_KREAD, e->value, e->size, 1, single, stamp,
                      cell_shift);
            break;
        case EVENT_KWRITE: /* every shard's: see struct batch_event */
            if (!is->skip_kernel_writes) {
                access_in(is, t, top, EVENT_KWRITE, e->value, e->size, 0, single, 0,
                          cell_shift);
                stamp = stamp_of(is, t); /* it ticked */
            }
            is->next_channel = 0;
            break;
        case BATCH_KSOURCE: /* the next event's: a kernel write */
            is->next_channel = (uint32_t)e->value;
            break;
        case EVENT_COST:
            t->cost += e->value; /* overflow checked by the driver */
            break;
        case EVENT_THREAD:
            input_size_switch(is, e->size, (uint32_t)e->value);
            t = is->current;
            top = &t->stack[t->top];
            stamp = stamp_of(is, t);
            break;
        case EVENT_CALL:
            input_size_call(is, (uint32_t)e->value);
            top = &t->stack[t->top];
            stamp = stamp_of(is, t);
            break;
        case EVENT_RETURN:
            input_size_return(is); /* validated by the driver */
            top = &t->stack[t->top];
            break;
        }
    }
    /* (up to four threads, the evicted times come with the record) */
    is->evicted_ahead =
        (is->take_overs - take_overs) * 16 >= n && is->n_threads > RECORD_LANE_THREADS;
    is->records_ahead = (is->cells.cache_misses - misses) * 4 >= n;
}

void input_size_run(struct input_size *is, const struct batch_event *events, size_t n)
{
    if (is->shard_shift)
        run_events(is, events, n, 0, 1);
    else if (is->records_ahead || is->evicted_ahead)
        run_events(is, events, n, 1, 1);
    else
        run_events(is, events, n, 1, 0);
}

int input_size_cost(struct input_size *is, uint64_t instructions)
{
    struct thread *t = is->current;
    if (t->cost + instructions < t->cost)
        return -1;
    t->cost += instructions;
    return 0;
}

void input_size_finish(struct input_size *is)
{
    for (size_t i = 0; i < is->n_threads; i++) {
        struct thread *t = &is->threads[i];
        while (t->top != (size_t)-1)
            complete_top(is, t);
    }
}

/* Renumbering (Figure 13). A holds the timestamps of all pending
 * activations, sorted; activation p (from 1) gets SLOT(p, 0). A cell
 * timestamp that falls between A[j] and A[j+1] gets SLOT(j, 0), SLOT(j, 1)
 * or SLOT(j, 2), keeping its order against the write time of its cell when
 * that falls in the same interval. Slots start at 3 so that 0 still means
 * "never". */
#define SLOT(p, k) (3 * (p) + 3 + (k))

struct renumbering {
    struct input_size *is;
    uint64_t *a;  /* A[1..n] at a[0..n-1] */
    size_t n;
    struct u64map kept_channel_cells;
};

/* p such that A[p] <= v < A[p+1], 0 when v < A[1]. */
static uint64_t rank_of(const struct renumbering *r, uint64_t v)
{
    size_t lo = 0, hi = r->n; /* becomes the count of A entries <= v */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r->a[mid] <= v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The new value of a thread's latest-access time TS of a cell whose write
 * time is WTIME (0 = never written). */
static uint64_t new_access_time(const struct renumbering *r, uint64_t ts, uint64_t wtime)
{
    if (ts == 0)
        return 0;
    uint64_t j = rank_of(r, ts);
    if (wtime == 0 || rank_of(r, wtime) != j)
        return SLOT(j, 0); /* only its order against activations matters */
    if (ts == wtime)
        return SLOT(j, 1);
    return ts < wtime ? SLOT(j, 0) : SLOT(j, 2);
}

/* The evicted times in the groups' maps first, while the write times are
 * old. */
static uint64_t renumber_evicted(void *ctx, uint32_t thread, uint64_t cell, uint64_t time)
{
    (void)thread;
    struct renumbering *r = ctx;
    return new_access_time(r, time, WRITE_TIME(shadow_map_peek(&r->is->cells, cell)));
}

static void renumber_records(void *ctx, uint64_t number, uint64_t *chunk, unsigned shift)
{
    (void)number;
    struct renumbering *r = ctx;
    for (unsigned i = 0; i < SHADOW_CHUNK_CELLS; i++) {
        uint64_t *words = chunk + ((size_t)i << shift), record = *words;
        if (!record)
            continue;
        uint64_t wtime = WRITE_TIME(record), renumbered = 0;
        for (unsigned lane = 0; shift && lane < RECORD_LANES; lane++) {
            /* The times beside it, while the write time is old. */
            uint64_t time = record_lanes_get(words[1], lane);
            if (time)
                words[1] = record_lanes_set(words[1], lane, new_access_time(r, time, wtime));
        }
        if (OWNER_OF(record))
            renumbered = OWNER_PART(new_access_time(r, OWNER_TIME(record), wtime),
                                    OWNER_OF(record) - 1);
        if (wtime)
            renumbered |= WRITE_BY(SLOT(rank_of(r, wtime), 1), record & KERNEL_BIT);
        *words = renumbered;
    }
}

/* The channel cells whose record still names their write, with that
 * write's new time (the records are still old). */
static int keep_channel_cell(void *ctx, uint64_t cell, uint64_t entry)
{
    struct renumbering *r = ctx;
    uint64_t record = shadow_map_peek(&r->is->cells, cell), time = entry & UINT32_MAX;
    if ((record & KERNEL_BIT) && WRITE_TIME(record) == time)
        *u64map_upsert(&r->kept_channel_cells, cell, NULL) =
            (entry & ~(uint64_t)UINT32_MAX) | SLOT(rank_of(r, time), 1);
    return 0;
}

static int by_value(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return (a > b) - (a < b);
}

static void renumber(struct input_size *is)
{
    struct renumbering r = {.is = is};
    for (size_t i = 0; i < is->n_threads; i++)
        r.n += is->threads[i].top + 1; /* top + 1 is 0 for a thread without frames */
    r.a = xmalloc((r.n ? r.n : 1) * sizeof *r.a);
    size_t k = 0;
    for (size_t i = 0; i < is->n_threads; i++)
        for (size_t f = 0; f < is->threads[i].top + 1; f++)
            r.a[k++] = is->threads[i].stack[f].ts;
    qsort(r.a, r.n, sizeof *r.a, by_value);
    if (is->channel_cells.count) {
        u64map_init(&r.kept_channel_cells);
        u64map_each(&is->channel_cells, keep_channel_cell, &r);
        u64map_free(&is->channel_cells);
        is->channel_cells = r.kept_channel_cells;
    }
    evicted_times_each(&is->evicted, renumber_evicted, &r);
    shadow_map_each_chunk(&is->cells, renumber_records, &r);
    for (size_t i = 0; i < is->n_threads; i++)
        for (size_t f = 0; f < is->threads[i].top + 1; f++)
            is->threads[i].stack[f].ts = SLOT(rank_of(&r, is->threads[i].stack[f].ts), 0);
    is->count = SLOT(r.n, 2);
    is->renumberings++;
    free(r.a);
}

size_t input_size_bytes(const struct input_size *is)
{
    size_t bytes = sizeof *is + shadow_map_bytes(&is->cells) +
                   evicted_times_bytes(&is->evicted) + is->threads_capacity * sizeof *is->threads;
    for (size_t i = 0; i < is->n_threads; i++)
        bytes += is->threads[i].capacity * sizeof(struct frame) +
                 (size_t)is->threads[i].pending_capacity * sizeof *is->threads[i].pending;
    return bytes;
}
