/* input_size_internal: the state of the RMS/TRMS pass, shared by
 * input_size.c, which runs it, and input_size_state.c, which saves and
 * restores it (checkpoints). Nothing else includes this. */
#ifndef TRMS_INPUT_SIZE_INTERNAL_H
#define TRMS_INPUT_SIZE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "analyses/activation.h"
#include "analyses/evicted_times.h"
#include "analyses/input_size.h"
#include "analyses/record_lanes.h"
#include "analyses/shadow_map.h"
#include "common/u64map.h"

/* Shadow memory.
 *
 * The paper keeps, per cell, the global write timestamp wts and, per thread
 * and cell, the thread's latest access ts_t. Most cells are only ever
 * touched by one thread, so here each cell has one 64-bit record:
 *
 *   bits 62-63  zero
 *   bits 41-61  the owner's time: ts_t of the thread that accessed the cell
 *               last (the owner)
 *   bits 20-40  wts, the time of the latest write by anyone
 *   bit  19     set when that write was the kernel's
 *   bits  0-18  the owner's index + 1; 0 when no thread accessed the cell
 *
 * ts_t of any other thread is in the evicted times (evicted_times.h),
 * where a thread's time is moved when another thread takes the cell over.
 * A thread-private cell costs 8 bytes and one cache line per access. The
 * first time a cell changes hands, its chunk of the shadow map is widened
 * to 16 bytes a cell (shadow_map_widen): the record, then the times of the
 * first four threads but the owner (record_lanes.h); so that a cell
 * shared among up to four threads still costs one cache line an access
 * (the four cells of an aligned 16-byte access share it), where a map of
 * its own for those times cost a second one, and a second lookup. Cells
 * no two threads shared keep 8 bytes.
 *
 * Timestamps (`count`) grow by one per call, thread switch and kernel
 * write, and fit in TIME_BITS (the lanes' width). When they reach the
 * limit, renumber() applies the paper's Figure 13: every timestamp is
 * replaced by a small one that keeps every comparison the algorithm makes,
 * so nothing wraps and the results stay exact; it costs one pass over the
 * shadow memory every two million calls or so, and allows up to about
 * 700,000 activations pending at once (a third of the range). The limit is
 * a parameter so tests can renumber often. */
#define OWNER_BITS 19
#define TIME_BITS RECORD_LANE_BITS
#define OWNER_MASK ((UINT64_C(1) << OWNER_BITS) - 1)
#define TIME_MASK ((UINT64_C(1) << TIME_BITS) - 1)
#define KERNEL_BIT (UINT64_C(1) << OWNER_BITS)
#define WTIME_SHIFT (OWNER_BITS + 1)
#define OTIME_SHIFT (WTIME_SHIFT + TIME_BITS)
#define MAX_THREADS OWNER_MASK
#define DEFAULT_TIME_LIMIT (UINT64_C(1) << TIME_BITS)

#define OWNER_OF(r) ((r) & OWNER_MASK)
#define OWNER_TIME(r) ((r) >> OTIME_SHIFT)
#define WRITE_TIME(r) (((r) >> WTIME_SHIFT) & TIME_MASK)
#define WRITE_PART(r) ((r) & (KERNEL_BIT | (TIME_MASK << WTIME_SHIFT)))
#define OWNER_PART(time, index) (((time) << OTIME_SHIFT) | ((uint64_t)(index) + 1))
#define WRITE_BY(time, kernel) (((time) << WTIME_SHIFT) | ((kernel) ? KERNEL_BIT : 0))

/* One pending activation on a thread's shadow run-time stack. The partial
 * sizes may go negative: Invariant 2 of the paper holds for the sums from an
 * entry to the top, not for each entry. */
struct frame {
    uint32_t routine;
    uint32_t recursive;
    uint64_t ts;
    int64_t rms;
    int64_t trms;
    uint64_t induced_thread;
    uint64_t induced_external;
    uint64_t induced_channel;
    uint32_t channel;
    uint64_t cost_at_entry;
    uint64_t children_cost;
};

struct thread {
    uint32_t tid;
    uint32_t index;
    struct frame *stack;        /* stack[0] is the root activation */
    size_t top;                 /* (size_t)-1 before the root and when done */
    size_t capacity;
    /* Routine -> pending activations of it (whether a call is recursive),
     * an array by routine id: ids are dense, and a call or return costs one
     * load, where a hash map cost a probe each (1% of the analysis). Grown
     * to the largest routine the thread called. */
    uint32_t *pending;
    uint32_t pending_capacity;
    uint64_t cost;
};

/* Thread T's count of pending activations of ROUTINE (not ROUTINE_ROOT),
 * the array grown to hold it. */
uint32_t *input_size_pending(struct thread *t, uint32_t routine);

/* Sharding: with 2^shard_shift shards, each instance owns the cells of
 * every 2^shard_shift-th group of SHARD_GRAIN consecutive cells and sees
 * all other events. RMS, TRMS and induced input are sums of per-cell
 * contributions, so the activations of the shards add up to the exact
 * whole; each shard can run on its own core. Groups of 16 cells keep a
 * thread's stack frame and an array's neighbours split evenly. */
#define SHARD_GRAIN_BITS INPUT_SIZE_GRAIN_BITS
#define SHARD_GRAIN_MASK ((UINT64_C(1) << SHARD_GRAIN_BITS) - 1)

struct input_size {
    unsigned cell_shift;
    unsigned shard;
    unsigned shard_shift;
    activation_sink sink;
    void *sink_ctx;
    uint64_t count;
    uint64_t time_limit;
    uint64_t renumberings;
    struct shadow_map cells;    /* the records above */
    struct evicted_times evicted; /* ts_t of threads 4.. of cells another thread owns now */
    struct thread *threads;
    size_t n_threads;
    size_t threads_capacity;
    struct thread *current;
    /* Whether the evicted times are asked for ahead: only while cells
     * change hands often (in one access in 16 of the last batch, or more),
     * since the asking costs every access a look at its record, and among
     * more than four threads (the first four's are in the record's line). */
    int evicted_ahead;
    /* Whether the records are asked for ahead: only while accesses are
     * scattered (the chunk cache missed in one event in 4 of the last
     * batch, or more); accesses that keep to a few places find their
     * records in the caches, and the asking would cost each event a
     * lookup for nothing. */
    int records_ahead;
    uint64_t take_overs;        /* accesses to a cell another thread owned */
    int skip_kernel_writes;     /* no TRMS wanted (input_size_skip_kernel_writes) */
    /* Cells whose latest write may be a kernel write of bytes a read
     * brought through a channel (BATCH_KSOURCE): local cell index ->
     * channel << 32 | that write's time. An entry holds while the cell's
     * record still says a kernel write of that time; stale ones go at the
     * next renumbering, before the times are renumbered. */
    struct u64map channel_cells;
    uint32_t next_channel;      /* of the kernel write that comes next */
};

#endif
