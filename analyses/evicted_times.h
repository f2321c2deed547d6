/* evicted_times: for each thread and cell, the thread's latest access time
 * to a cell another thread accessed since (ts_t of the TRMS paper, for
 * every thread t but the cell's owner, whose time is in the cell's own
 * record: see input_size_internal.h).
 *
 * The times of threads 4g .. 4g+3 for one cell share a 16-byte record of
 * group g, 32 bits each (input size's times fit in TIME_BITS), so a cell
 * that changes hands among them costs one cache line for both the time
 * that leaves the cell's record and the one that comes back to it. A
 * record exists only for cells that changed hands. The times of the first
 * four threads are not here but beside the cells' own records
 * (record_lanes.h), in the same cache line; except thread 3's while a
 * thread past the first four owns the cell, which group 0 keeps. */
#ifndef TRMS_EVICTED_TIMES_H
#define TRMS_EVICTED_TIMES_H

#include <stddef.h>
#include <stdint.h>

#include "analyses/shadow_map.h"
#include "common/compiler.h"

#define EVICTED_LANE_BITS 2
#define EVICTED_LANES (1u << EVICTED_LANE_BITS)

struct evicted_times {
    struct shadow_map *groups;  /* group g: the threads 4g .. 4g+3 */
    size_t n_groups;
};

struct state_reader;
struct state_writer;

void evicted_times_init(struct evicted_times *e);
void evicted_times_free(struct evicted_times *e);

/* Makes room for the thread of dense index THREAD. */
void evicted_times_add_thread(struct evicted_times *e, uint32_t thread);

/* The word of THREAD's time in a record, and the time's place in it. */
static ALWAYS_INLINE unsigned evicted_shift(uint32_t thread)
{
    return 32 * (thread & 1);
}

static ALWAYS_INLINE unsigned evicted_word(uint32_t thread)
{
    return (thread & (EVICTED_LANES - 1)) >> 1;
}

/* In the two words of a group's record (LANES), THREAD's time becomes
 * TIME (below 2^32). */
static ALWAYS_INLINE void evicted_lanes_put(uint64_t *lanes, uint32_t thread, uint64_t time)
{
    uint64_t *w = lanes + evicted_word(thread);
    unsigned shift = evicted_shift(thread);
    *w = (*w & ~(UINT64_C(0xffffffff) << shift)) | time << shift;
}

/* THREAD's time in the two words of a group's record (LANES). */
static ALWAYS_INLINE uint64_t evicted_lanes_get(const uint64_t *lanes, uint32_t thread)
{
    return lanes[evicted_word(thread)] >> evicted_shift(thread) & 0xffffffff;
}

/* THREAD's time of CELL becomes TIME (below 2^32). */
static ALWAYS_INLINE void evicted_times_put(struct evicted_times *e, uint32_t thread,
                                            uint64_t cell, uint64_t time)
{
    evicted_lanes_put(shadow_map_slot(&e->groups[thread >> EVICTED_LANE_BITS], cell), thread,
                      time);
}

/* THREAD's time of CELL, 0 when it has none; creates nothing. */
static ALWAYS_INLINE uint64_t evicted_times_get(struct evicted_times *e, uint32_t thread,
                                                uint64_t cell)
{
    const uint64_t *record = shadow_map_find(&e->groups[thread >> EVICTED_LANE_BITS], cell);
    return record ? evicted_lanes_get(record, thread) : 0;
}

/* Asks the caches for THREAD's record of CELL (a hint). */
static ALWAYS_INLINE void evicted_times_prefetch(const struct evicted_times *e, uint32_t thread,
                                                 uint64_t cell)
{
    const uint64_t *record = shadow_map_hint(&e->groups[thread >> EVICTED_LANE_BITS], cell);
    if (record)
        __builtin_prefetch(record + evicted_word(thread), 1);
}

/* Replaces every time (not 0) by CHANGE(CTX, THREAD, CELL, TIME), which
 * returns it, or another below 2^32. */
void evicted_times_each(struct evicted_times *e,
                        uint64_t (*change)(void *ctx, uint32_t thread, uint64_t cell,
                                           uint64_t time),
                        void *ctx);

size_t evicted_times_bytes(const struct evicted_times *e);

/* Saved as u64:groups, then each group's shadow map. A load fails R unless
 * the groups are those of THREADS threads, group 0 empty; the times are
 * not checked. */
void evicted_times_save(struct evicted_times *e, struct state_writer *w);
void evicted_times_load(struct evicted_times *e, struct state_reader *r, uint64_t threads);

#endif
