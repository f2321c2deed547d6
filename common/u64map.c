#include "common/u64map.h"

#include <stdlib.h>

#include "common/oom.h"

/* Empty slots hold this key; a real entry with this key lives in
 * reserved_value instead of the table. */
#define EMPTY_KEY UINT64_MAX

static inline size_t slot_of(uint64_t key, size_t mask)
{
    /* Fibonacci-style mixing: addresses and ids are far from random in
     * their low bits. */
    key ^= key >> 31;
    key *= 0x9e3779b97f4a7c15ull;
    key ^= key >> 29;
    return (size_t)key & mask;
}

void u64map_init(struct u64map *map)
{
    map->slots = NULL;
    map->capacity = 0;
    map->count = 0;
    map->has_reserved = 0;
    map->reserved_value = 0;
}

void u64map_free(struct u64map *map)
{
    free(map->slots);
    u64map_init(map);
}

uint64_t *u64map_find(const struct u64map *map, uint64_t key)
{
    if (key == EMPTY_KEY)
        return map->has_reserved ? (uint64_t *)&map->reserved_value : NULL;
    if (map->capacity == 0)
        return NULL;
    size_t mask = map->capacity - 1;
    for (size_t i = slot_of(key, mask);; i = (i + 1) & mask) {
        if (map->slots[i].key == key)
            return &map->slots[i].value;
        if (map->slots[i].key == EMPTY_KEY)
            return NULL;
    }
}

void u64map_prefetch(const struct u64map *map, uint64_t key)
{
    if (map->capacity)
        __builtin_prefetch(&map->slots[slot_of(key, map->capacity - 1)]);
}

/* Out of line and cold: inlined, it made every upsert save and restore
 * the registers its loops need (a third of an upsert's instructions on
 * the profiles' and the input-size pass's maps). */
static __attribute__((noinline, cold)) void grow(struct u64map *map)
{
    size_t capacity = map->capacity ? map->capacity * 2 : 16;
    struct u64map_slot *slots = xmalloc(capacity * sizeof *slots);
    for (size_t i = 0; i < capacity; i++)
        slots[i].key = EMPTY_KEY;
    size_t mask = capacity - 1;
    for (size_t i = 0; i < map->capacity; i++) {
        if (map->slots[i].key == EMPTY_KEY)
            continue;
        size_t j = slot_of(map->slots[i].key, mask);
        while (slots[j].key != EMPTY_KEY)
            j = (j + 1) & mask;
        slots[j] = map->slots[i];
    }
    free(map->slots);
    map->slots = slots;
    map->capacity = capacity;
}

/* The key that marks empty slots, kept aside. */
static __attribute__((noinline, cold)) uint64_t *upsert_reserved(struct u64map *map,
                                                                int *inserted)
{
    if (!map->has_reserved) {
        map->has_reserved = 1;
        map->reserved_value = 0;
        map->count++;
        if (inserted)
            *inserted = 1;
    }
    return &map->reserved_value;
}

uint64_t *u64map_upsert(struct u64map *map, uint64_t key, int *inserted)
{
    if (inserted)
        *inserted = 0;
    if (key == EMPTY_KEY)
        return upsert_reserved(map, inserted);
    /* Keep the load factor at or below 1/2 so probe runs stay short. */
    if ((map->count + 1) * 2 > map->capacity)
        grow(map);
    size_t mask = map->capacity - 1;
    size_t i = slot_of(key, mask);
    while (map->slots[i].key != EMPTY_KEY) {
        if (map->slots[i].key == key)
            return &map->slots[i].value;
        i = (i + 1) & mask;
    }
    map->slots[i] = (struct u64map_slot){.key = key, .value = 0};
    map->count++;
    if (inserted)
        *inserted = 1;
    return &map->slots[i].value;
}

int u64map_each(const struct u64map *map,
                int (*visit)(void *ctx, uint64_t key, uint64_t value), void *ctx)
{
    for (size_t i = 0; i < map->capacity; i++) {
        if (map->slots[i].key == EMPTY_KEY)
            continue;
        int rc = visit(ctx, map->slots[i].key, map->slots[i].value);
        if (rc)
            return rc;
    }
    if (map->has_reserved)
        return visit(ctx, EMPTY_KEY, map->reserved_value);
    return 0;
}

size_t u64map_bytes(const struct u64map *map)
{
    return map->capacity * 2 * sizeof(uint64_t);
}

static int add_value(void *ctx, uint64_t key, uint64_t value)
{
    (void)key;
    *(uint64_t *)ctx += value;
    return 0;
}

uint64_t u64map_sum(const struct u64map *map)
{
    uint64_t total = 0;
    u64map_each(map, add_value, &total);
    return total;
}
