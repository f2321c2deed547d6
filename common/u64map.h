/* u64map: an open-addressing hash map from 64-bit keys to 64-bit values.
 *
 * The one associative container of the project: thread tables, profile
 * tables and shadow-memory directories are all built on it. Every key is
 * allowed (UINT64_MAX included). Not thread-safe. */
#ifndef TRMS_U64MAP_H
#define TRMS_U64MAP_H

#include <stddef.h>
#include <stdint.h>

/* A key beside its value: a lookup that finds its key has its value in the
 * same cache line (two arrays cost a second miss on large maps). */
struct u64map_slot {
    uint64_t key;
    uint64_t value;
};

struct u64map {
    struct u64map_slot *slots;
    size_t capacity;      /* power of two, or 0 before the first insert */
    size_t count;         /* keys stored, the reserved one included */
    int has_reserved;     /* the key that marks empty slots is stored aside */
    uint64_t reserved_value;
};

void u64map_init(struct u64map *map);
void u64map_free(struct u64map *map);

/* Returns a pointer to the value of KEY, or NULL when KEY is absent. */
uint64_t *u64map_find(const struct u64map *map, uint64_t key);

/* Returns a pointer to the value of KEY, inserting KEY with value 0 when it
 * is absent (*inserted tells which, when non-NULL). The pointer is valid
 * until the next insertion. */
uint64_t *u64map_upsert(struct u64map *map, uint64_t key, int *inserted);

/* Asks the caches for the line where KEY's entry is, or its search starts
 * (a hint: changes nothing). */
void u64map_prefetch(const struct u64map *map, uint64_t key);

/* Visits every entry in unspecified order; stops early when VISIT returns
 * non-zero and returns that value. */
int u64map_each(const struct u64map *map,
                int (*visit)(void *ctx, uint64_t key, uint64_t value), void *ctx);

/* Bytes of heap the map holds (for memory accounting in benchmarks). */
size_t u64map_bytes(const struct u64map *map);

/* The sum of the values (counts kept by key). */
uint64_t u64map_sum(const struct u64map *map);

#endif
