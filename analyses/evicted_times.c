#include "analyses/evicted_times.h"

#include <stdlib.h>

#include "analyses/state_parts.h"
#include "common/oom.h"

void evicted_times_init(struct evicted_times *e)
{
    e->groups = NULL;
    e->n_groups = 0;
}

void evicted_times_free(struct evicted_times *e)
{
    for (size_t g = 0; g < e->n_groups; g++)
        shadow_map_free(&e->groups[g]);
    free(e->groups);
    evicted_times_init(e);
}

static void add_groups(struct evicted_times *e, size_t groups)
{
    if (groups <= e->n_groups)
        return;
    e->groups = xrealloc(e->groups, groups * sizeof *e->groups);
    for (size_t g = e->n_groups; g < groups; g++)
        shadow_map_init(&e->groups[g], 2);
    e->n_groups = groups;
}

void evicted_times_add_thread(struct evicted_times *e, uint32_t thread)
{
    add_groups(e, ((size_t)thread >> EVICTED_LANE_BITS) + 1);
}

struct each_time {
    uint64_t (*change)(void *ctx, uint32_t thread, uint64_t cell, uint64_t time);
    void *ctx;
    size_t group;
};

static void change_chunk(void *ctx, uint64_t number, uint64_t *chunk, unsigned record_shift)
{
    struct each_time *each = ctx;
    for (unsigned i = 0; i < SHADOW_CHUNK_CELLS; i++) {
        uint64_t cell = (number << SHADOW_CHUNK_BITS) | i;
        uint64_t *lanes = chunk + ((size_t)i << record_shift);
        for (uint32_t lane = 0; lane < EVICTED_LANES; lane++) {
            uint64_t time = evicted_lanes_get(lanes, lane);
            if (!time)
                continue;
            uint32_t thread = (uint32_t)(each->group << EVICTED_LANE_BITS) + lane;
            evicted_lanes_put(lanes, lane, each->change(each->ctx, thread, cell, time));
        }
    }
}

void evicted_times_each(struct evicted_times *e,
                        uint64_t (*change)(void *ctx, uint32_t thread, uint64_t cell,
                                           uint64_t time),
                        void *ctx)
{
    struct each_time each = {change, ctx, 0};
    for (; each.group < e->n_groups; each.group++)
        shadow_map_each_chunk(&e->groups[each.group], change_chunk, &each);
}

size_t evicted_times_bytes(const struct evicted_times *e)
{
    size_t bytes = e->n_groups * sizeof *e->groups;
    for (size_t g = 0; g < e->n_groups; g++)
        bytes += shadow_map_bytes(&e->groups[g]);
    return bytes;
}

void evicted_times_save(struct evicted_times *e, struct state_writer *w)
{
    state_put_u64(w, e->n_groups);
    for (size_t g = 0; g < e->n_groups; g++)
        shadow_map_save(&e->groups[g], w);
}

void evicted_times_load(struct evicted_times *e, struct state_reader *r, uint64_t threads)
{
    uint64_t groups = state_get_u64(r);
    if (r->failed)
        return;
    if (groups != (threads + EVICTED_LANES - 1) / EVICTED_LANES) {
        state_reader_fail(r, "evicted times that are not the threads'");
        return;
    }
    add_groups(e, (size_t)groups);
    for (size_t g = 0; g < e->n_groups && !r->failed; g++)
        shadow_map_load(&e->groups[g], r, 0);
}
