#include "tests/random_trace.h"

#include <stdio.h>
#include <stdlib.h>

#include "common/oom.h"

uint64_t random_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

uint64_t random_below(uint64_t *state, uint64_t bound)
{
    return bound ? random_next(state) % bound : 0;
}

static const uint64_t sizes[] = {1, 1, 2, 4, 4, 4, 8, 8, 8, 3, 7, 16, 24, 32, 64, 100, 200};

static uint64_t region_base(unsigned region)
{
    /* The last region ends at the top of the address space. */
    if (region == 0)
        return UINT64_MAX - (1u << 16) + 1;
    return 0x10000ull * region + 0x7f0000000000ull * (region % 3);
}

void random_trace(uint64_t seed, const struct random_trace_shape *shape,
                  struct event_list *events, struct routine_table *routines)
{
    uint64_t rng = seed;
    unsigned *depth = xcalloc(shape->threads, sizeof *depth);
    uint32_t *routine_ids = xcalloc(shape->routines, sizeof *routine_ids);
    for (unsigned r = 0; r < shape->routines; r++) {
        char name[32];
        int len = snprintf(name, sizeof name, "r%u", r);
        routine_table_intern_name(routines, name, (size_t)len, &routine_ids[r]);
    }
    unsigned current = (unsigned)random_below(&rng, shape->threads);
    struct event ev = {.type = EVENT_THREAD, .tid = 100 + current};
    event_list_push(events, &ev);
    for (unsigned i = 0; i < shape->events; i++) {
        uint64_t roll = random_below(&rng, 100);
        ev = (struct event){0};
        if (roll < 8 && shape->threads > 1) {
            current = (unsigned)random_below(&rng, shape->threads);
            ev.type = EVENT_THREAD;
            ev.tid = 100 + current;
        } else if (roll < 20 && depth[current] < shape->max_depth) {
            ev.type = EVENT_CALL;
            ev.routine = routine_ids[random_below(&rng, shape->routines)];
            depth[current]++;
        } else if (roll < 30 && depth[current] > 0) {
            ev.type = EVENT_RETURN;
            depth[current]--;
        } else if (roll < 38) {
            ev.type = EVENT_COST;
            ev.size = random_below(&rng, 1000);
            if (random_below(&rng, 50) == 0)
                ev.size = random_below(&rng, 1ull << 44); /* squares pass 64 bits */
        } else {
            static const enum event_type kinds[] = {
                EVENT_READ, EVENT_READ, EVENT_READ, EVENT_READ, EVENT_READ, EVENT_READ,
                EVENT_WRITE, EVENT_WRITE, EVENT_WRITE, EVENT_WRITE, EVENT_KREAD, EVENT_KWRITE,
                EVENT_KWRITE};
            ev.type = kinds[random_below(&rng, sizeof kinds / sizeof *kinds)];
            ev.size = sizes[random_below(&rng, sizeof sizes / sizeof *sizes)];
            if (random_below(&rng, 200) == 0)
                ev.size = 1 + random_below(&rng, 600); /* a rep movs */
            uint64_t base = region_base((unsigned)random_below(&rng, shape->regions));
            uint64_t room = UINT64_MAX - base - (ev.size - 1); /* last byte must fit */
            uint64_t span = shape->region_span > ev.size ? shape->region_span - ev.size : 0;
            ev.addr = base + random_below(&rng, (span < room ? span : room) + 1);
        }
        event_list_push(events, &ev);
    }
    free(depth);
    free(routine_ids);
}
