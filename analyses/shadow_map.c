#include "analyses/shadow_map.h"

#include <stdlib.h>

#include "common/oom.h"

void shadow_map_init(struct shadow_map *map, unsigned words)
{
    for (unsigned i = 0; i < SHADOW_CACHE_WAYS; i++)
        map->cache[i] = (struct shadow_cache_entry){0, NULL};
    map->word_shift = words == 2 ? 1 : 0;
    u64map_init(&map->directory);
    map->chunks = 0;
}

static int free_chunk(void *ctx, uint64_t key, uint64_t value)
{
    (void)ctx;
    (void)key;
    free((void *)(uintptr_t)value);
    return 0;
}

void shadow_map_free(struct shadow_map *map)
{
    u64map_each(&map->directory, free_chunk, NULL);
    u64map_free(&map->directory);
    shadow_map_init(map, 1u << map->word_shift);
}

uint64_t *shadow_map_chunk(struct shadow_map *map, uint64_t number, int create)
{
    if (!create) {
        uint64_t *entry = u64map_find(&map->directory, number);
        return entry ? (uint64_t *)(uintptr_t)*entry : NULL;
    }
    int inserted;
    uint64_t *entry = u64map_upsert(&map->directory, number, &inserted);
    if (inserted) {
        *entry = (uint64_t)(uintptr_t)xcalloc((size_t)SHADOW_CHUNK_CELLS << map->word_shift,
                                              sizeof(uint64_t));
        map->chunks++;
    }
    return (uint64_t *)(uintptr_t)*entry;
}

struct chunk_visit {
    void (*visit)(void *ctx, uint64_t number, uint64_t *chunk);
    void *ctx;
};

static int visit_chunk(void *ctx, uint64_t key, uint64_t value)
{
    struct chunk_visit *v = ctx;
    v->visit(v->ctx, key, (uint64_t *)(uintptr_t)value);
    return 0;
}

void shadow_map_each_chunk(struct shadow_map *map,
                           void (*visit)(void *ctx, uint64_t number, uint64_t *chunk),
                           void *ctx)
{
    struct chunk_visit v = {visit, ctx};
    u64map_each(&map->directory, visit_chunk, &v);
}

size_t shadow_map_bytes(const struct shadow_map *map)
{
    return (map->chunks * SHADOW_CHUNK_CELLS * sizeof(uint64_t) << map->word_shift) +
           u64map_bytes(&map->directory);
}
