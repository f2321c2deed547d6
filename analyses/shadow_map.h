/* shadow_map: a fixed-size record per memory cell (or cache line), created
 * on first touch, zero until written.
 *
 * Records are one or two 64-bit words. Cells are grouped in chunks of
 * SHADOW_CHUNK_CELLS consecutive indices; only touched chunks exist. A
 * chunk is found through a page of SHADOW_PAGE_CHUNKS chunk pointers, and
 * pages through a hash directory, with a small cache of recent pages in
 * front of it. Recently used chunks are remembered in a direct-mapped
 * cache, since a program's accesses keep returning to a handful of places
 * (its stack, the array it scans, an I/O buffer); scattered lookups in a
 * large region still find their chunk in two loads. Memory
 * is proportional to the touched chunks: one record per cell when accesses
 * are dense, at most one chunk per cell when they are scattered. Chunks
 * never move, so a record pointer stays valid for the map's lifetime. */
#ifndef TRMS_SHADOW_MAP_H
#define TRMS_SHADOW_MAP_H

#include <stddef.h>
#include <stdint.h>

#include "common/compiler.h"
#include "common/u64map.h"

#define SHADOW_CHUNK_BITS 9
#define SHADOW_CHUNK_CELLS (1u << SHADOW_CHUNK_BITS)
#define SHADOW_CACHE_WAYS 64
#define SHADOW_PAGE_BITS 10
#define SHADOW_PAGE_CHUNKS (1u << SHADOW_PAGE_BITS)
#define SHADOW_PAGE_CACHE 16

struct shadow_cache_entry {
    uint64_t number;           /* chunk number */
    uint64_t *chunk;           /* NULL while the entry is empty */
};

/* Chunks are carved from blocks obtained from the kernel (zeroed). Blocks
 * double in size; large ones ask for transparent huge pages, because a
 * shadow memory is accessed as randomly as the program's own memory and TLB
 * misses would otherwise dominate. */
struct shadow_block {
    void *base;
    size_t size;
};

struct shadow_page_entry {
    uint64_t number;           /* page number: chunk number >> SHADOW_PAGE_BITS */
    uint64_t **page;           /* NULL while the entry is empty */
};

struct shadow_map {
    struct shadow_cache_entry cache[SHADOW_CACHE_WAYS];
    struct shadow_page_entry page_cache[SHADOW_PAGE_CACHE];
    unsigned word_shift;       /* log2 of the words per record */
    struct u64map directory;   /* page number -> page of chunk addresses */
    size_t pages;
    size_t chunks;
    struct shadow_block *blocks;
    size_t n_blocks;
    size_t block_used;         /* bytes handed out from the last block */
};

/* WORDS per record: 1 or 2. */
void shadow_map_init(struct shadow_map *map, unsigned words);
void shadow_map_free(struct shadow_map *map);

/* The chunk NUMBER, created when CREATE; NULL when absent and not created. */
uint64_t *shadow_map_chunk(struct shadow_map *map, uint64_t number, int create);

/* The record of cell INDEX, created (zero) on first use. */
static ALWAYS_INLINE uint64_t *shadow_map_slot(struct shadow_map *map, uint64_t index)
{
    uint64_t number = index >> SHADOW_CHUNK_BITS;
    struct shadow_cache_entry *e = &map->cache[number % SHADOW_CACHE_WAYS];
    if (!e->chunk || e->number != number) {
        /* Scattered accesses miss the chunk cache; their page is most
         * often a recent one, and the chunk exists. */
        const struct shadow_page_entry *p =
            &map->page_cache[(number >> SHADOW_PAGE_BITS) % SHADOW_PAGE_CACHE];
        uint64_t *chunk = p->page && p->number == number >> SHADOW_PAGE_BITS
                              ? p->page[number & (SHADOW_PAGE_CHUNKS - 1)]
                              : NULL;
        e->chunk = chunk ? chunk : shadow_map_chunk(map, number, 1);
        e->number = number;
    }
    return &e->chunk[(index & (SHADOW_CHUNK_CELLS - 1)) << map->word_shift];
}

/* Cell INDEX's record when its page is a recent one and its chunk exists,
 * else NULL: a hint for prefetching, which creates nothing and calls
 * nothing. */
static ALWAYS_INLINE const uint64_t *shadow_map_hint(const struct shadow_map *map, uint64_t index)
{
    uint64_t number = index >> SHADOW_CHUNK_BITS, page = number >> SHADOW_PAGE_BITS;
    const struct shadow_page_entry *p = &map->page_cache[page % SHADOW_PAGE_CACHE];
    if (!p->page || p->number != page)
        return NULL;
    const uint64_t *chunk = p->page[number & (SHADOW_PAGE_CHUNKS - 1)];
    return chunk ? &chunk[(index & (SHADOW_CHUNK_CELLS - 1)) << map->word_shift] : NULL;
}

/* Asks the caches for cell INDEX's record ahead of its use (see
 * shadow_map_hint). */
static ALWAYS_INLINE void shadow_map_prefetch(const struct shadow_map *map, uint64_t index)
{
    const uint64_t *record = shadow_map_hint(map, index);
    if (record)
        __builtin_prefetch(record, 1);
}

/* Cell INDEX's record, NULL when it was never created; creates nothing. */
static inline uint64_t *shadow_map_find(struct shadow_map *map, uint64_t index)
{
    uint64_t number = index >> SHADOW_CHUNK_BITS;
    struct shadow_cache_entry *e = &map->cache[number % SHADOW_CACHE_WAYS];
    uint64_t *chunk = e->chunk && e->number == number ? e->chunk : shadow_map_chunk(map, number, 0);
    return chunk ? &chunk[(index & (SHADOW_CHUNK_CELLS - 1)) << map->word_shift] : NULL;
}

/* The first word of cell INDEX's record, 0 when it was never created;
 * creates nothing. */
static inline uint64_t shadow_map_peek(struct shadow_map *map, uint64_t index)
{
    const uint64_t *record = shadow_map_find(map, index);
    return record ? *record : 0;
}

/* Calls VISIT on every chunk, in unspecified order; a chunk holds
 * SHADOW_CHUNK_CELLS records, cell number * SHADOW_CHUNK_CELLS first. */
void shadow_map_each_chunk(struct shadow_map *map,
                           void (*visit)(void *ctx, uint64_t number, uint64_t *chunk),
                           void *ctx);

size_t shadow_map_bytes(const struct shadow_map *map);

/* DST (initialized, empty) gets a copy of every chunk of SRC. */
void shadow_map_copy(struct shadow_map *dst, struct shadow_map *src);

#endif
