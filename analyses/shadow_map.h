/* shadow_map: one 64-bit slot per memory cell (or cache line), created on
 * first touch, zero until written.
 *
 * Cells are grouped in chunks of SHADOW_CHUNK_CELLS consecutive indices;
 * only touched chunks exist, found through a hash directory, and the chunk
 * of the previous lookup is remembered because consecutive accesses mostly
 * fall in the same chunk. Memory is proportional to the touched chunks:
 * 8 bytes per cell when a program's accesses are dense, at most one chunk
 * per cell when they are scattered. Chunks never move, so a slot pointer
 * stays valid for the map's lifetime. */
#ifndef TRMS_SHADOW_MAP_H
#define TRMS_SHADOW_MAP_H

#include <stddef.h>
#include <stdint.h>

#include "common/u64map.h"

#define SHADOW_CHUNK_BITS 9
#define SHADOW_CHUNK_CELLS (1u << SHADOW_CHUNK_BITS)

struct shadow_map {
    struct u64map directory;   /* chunk number -> chunk address */
    uint64_t cached_number;    /* chunk number of cached_chunk */
    uint64_t *cached_chunk;    /* NULL until the first lookup */
    size_t chunks;
};

void shadow_map_init(struct shadow_map *map);
void shadow_map_free(struct shadow_map *map);

uint64_t *shadow_map_chunk(struct shadow_map *map, uint64_t number);

/* The slot of cell INDEX, created (zero) on first use. */
static inline uint64_t *shadow_map_slot(struct shadow_map *map, uint64_t index)
{
    uint64_t number = index >> SHADOW_CHUNK_BITS;
    if (!map->cached_chunk || number != map->cached_number) {
        map->cached_chunk = shadow_map_chunk(map, number);
        map->cached_number = number;
    }
    return &map->cached_chunk[index & (SHADOW_CHUNK_CELLS - 1)];
}

/* Calls VISIT on every chunk, in unspecified order. */
void shadow_map_each_chunk(struct shadow_map *map,
                           void (*visit)(void *ctx, uint64_t number, uint64_t *chunk),
                           void *ctx);

size_t shadow_map_bytes(const struct shadow_map *map);

#endif
