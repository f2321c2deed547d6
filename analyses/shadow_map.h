/* shadow_map: a fixed-size record per memory cell (or cache line), created
 * on first touch, zero until written.
 *
 * Records are one, two or four 64-bit words. Cells are grouped in chunks of
 * SHADOW_CHUNK_CELLS consecutive indices; only touched chunks exist. A
 * chunk is found through a page of SHADOW_PAGE_CHUNKS chunk pointers, and
 * pages through a hash directory, with a small cache of recent pages in
 * front of it. Recently used chunks are remembered in a direct-mapped
 * cache, since a program's accesses keep returning to a handful of places
 * (its stack, the array it scans, an I/O buffer); scattered lookups in a
 * large region still find their chunk in two loads. Memory
 * is proportional to the touched chunks: one record per cell when accesses
 * are dense, at most one chunk per cell when they are scattered.
 *
 * A map of one-word records may widen some of its chunks to two words a
 * record (shadow_map_widen), for a pass that needs more per cell in a few
 * places only (input size: the times of the threads a cell changed hands
 * among, beside the cell's record). The width of a chunk is in the low
 * bits of its pointer, so finding it costs nothing more. Chunks never
 * move while they keep their width, so a record pointer stays valid until
 * its chunk is widened. */
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
/* A page holds its chunks in a short list while it has at most this many
 * (sparse memory: a page touched in one place), then in an array of all. */
#define SHADOW_SMALL_PAGE 8

/* A chunk's address with the log2 of its words per record in the low
 * bits (chunks are page-aligned); 0: no chunk. */
typedef uintptr_t shadow_chunk;
#define SHADOW_SHIFT_MASK ((uintptr_t)3)

static ALWAYS_INLINE uint64_t *shadow_chunk_base(shadow_chunk c)
{
    return (uint64_t *)(c & ~SHADOW_SHIFT_MASK);
}

static ALWAYS_INLINE unsigned shadow_chunk_shift(shadow_chunk c)
{
    return (unsigned)(c & SHADOW_SHIFT_MASK);
}

/* The record of cell INDEX in chunk C. */
static ALWAYS_INLINE uint64_t *shadow_chunk_record(shadow_chunk c, uint64_t index)
{
    return shadow_chunk_base(c) + ((index & (SHADOW_CHUNK_CELLS - 1)) << shadow_chunk_shift(c));
}

struct shadow_cache_entry {
    uint64_t number;           /* chunk number, SHADOW_NO_CHUNK while empty */
    shadow_chunk chunk;        /* (never 0 in an entry with a number) */
};

/* No chunk has this number (cells have 64-bit indices, chunks hold
 * several): an empty cache entry, which a lookup finds with the one
 * comparison of the number, no test of the chunk. */
#define SHADOW_NO_CHUNK UINT64_MAX

/* Chunks are carved from blocks obtained from the kernel (zeroed). Blocks
 * double in size; those of the first 64 MiB ask for transparent huge
 * pages, because a shadow memory is accessed as randomly as the program's
 * own memory and TLB misses would otherwise dominate; beyond, the first
 * touch of a huge page costs more than it saves (shadow_map.c). */
struct shadow_block {
    void *base;
    size_t size;
};

struct shadow_page_entry {
    uint64_t number;           /* page number: chunk number >> SHADOW_PAGE_BITS */
    shadow_chunk *page;        /* NULL while the entry is empty */
};

struct shadow_map {
    struct shadow_cache_entry cache[SHADOW_CACHE_WAYS];
    struct shadow_page_entry page_cache[SHADOW_PAGE_CACHE];
    unsigned word_shift;       /* log2 of the words per record */
    struct u64map directory;   /* page number -> page of chunk addresses */
    size_t pages;              /* full pages (arrays of SHADOW_PAGE_CHUNKS addresses) */
    size_t small_pages;        /* pages of SHADOW_SMALL_PAGE chunks at most */
    size_t chunks;             /* of the map's width */
    size_t widened;            /* chunks widened to two words a record */
    uint64_t *spare;           /* chunks left by widening, for reuse (a list) */
    size_t spares;
    struct shadow_block *blocks;
    size_t n_blocks;
    size_t block_used;         /* bytes handed out from the last block */
    uint64_t cache_misses;     /* lookups the chunk cache missed (a sign of
                                  scattered accesses, which prefetching pays for) */
};

/* WORDS per record: 1, 2 or 4. */
void shadow_map_init(struct shadow_map *map, unsigned words);
void shadow_map_free(struct shadow_map *map);

/* The chunk NUMBER, created when CREATE; 0 when absent and not created. */
shadow_chunk shadow_map_chunk(struct shadow_map *map, uint64_t number, int create);

/* The chunk of cell INDEX, created (zero) on first use. */
static ALWAYS_INLINE shadow_chunk shadow_map_chunk_of(struct shadow_map *map, uint64_t index)
{
    uint64_t number = index >> SHADOW_CHUNK_BITS;
    struct shadow_cache_entry *e = &map->cache[number % SHADOW_CACHE_WAYS];
    if (e->number != number) {
        /* Scattered accesses miss the chunk cache; their page is most
         * often a recent one, and the chunk exists. */
        const struct shadow_page_entry *p =
            &map->page_cache[(number >> SHADOW_PAGE_BITS) % SHADOW_PAGE_CACHE];
        shadow_chunk chunk = p->page && p->number == number >> SHADOW_PAGE_BITS
                                 ? p->page[number & (SHADOW_PAGE_CHUNKS - 1)]
                                 : 0;
        e->chunk = chunk ? chunk : shadow_map_chunk(map, number, 1);
        e->number = number;
        map->cache_misses++;
    }
    return e->chunk;
}

/* The record of cell INDEX, created (zero) on first use. */
static ALWAYS_INLINE uint64_t *shadow_map_slot(struct shadow_map *map, uint64_t index)
{
    return shadow_chunk_record(shadow_map_chunk_of(map, index), index);
}

/* log2 of the words of a widened chunk's records. */
#define SHADOW_WIDE_SHIFT 1

/* Chunk NUMBER (it exists, of one word a record) becomes one of two words
 * a record, each record's first word the one it had (the second zero);
 * returns it. Record pointers into the old chunk are void from here. */
shadow_chunk shadow_map_widen(struct shadow_map *map, uint64_t number);

/* Cell INDEX's record when its page is a recent one and its chunk exists,
 * else NULL: a hint for prefetching, which creates nothing and calls
 * nothing. */
static ALWAYS_INLINE const uint64_t *shadow_map_hint(const struct shadow_map *map, uint64_t index)
{
    uint64_t number = index >> SHADOW_CHUNK_BITS, page = number >> SHADOW_PAGE_BITS;
    const struct shadow_page_entry *p = &map->page_cache[page % SHADOW_PAGE_CACHE];
    if (!p->page || p->number != page)
        return NULL;
    shadow_chunk chunk = p->page[number & (SHADOW_PAGE_CHUNKS - 1)];
    return chunk ? shadow_chunk_record(chunk, index) : NULL;
}

/* The same, found first through the chunk cache: a page holding a few
 * chunks only (a program's stack, in a map of cache lines) is no full
 * page, never in the page cache, and its records had no hint; looked up
 * at the access instead, the two ways alternated, each turn a
 * mispredicted branch. Creates nothing, calls nothing, changes nothing. */
static ALWAYS_INLINE const uint64_t *shadow_map_hint_recent(const struct shadow_map *map,
                                                            uint64_t index)
{
    uint64_t number = index >> SHADOW_CHUNK_BITS;
    const struct shadow_cache_entry *e = &map->cache[number % SHADOW_CACHE_WAYS];
    if (e->number == number)
        return shadow_chunk_record(e->chunk, index);
    return shadow_map_hint(map, index);
}

/* The same for a map of one-word records whose chunks are never widened
 * (the reuse stack's): a chunk's address is then its record array, so a
 * record in the chunk cache costs a mask and an add (no width to apply),
 * and is never NULL. */
static ALWAYS_INLINE const uint64_t *shadow_map_hint_recent_narrow(const struct shadow_map *map,
                                                                   uint64_t index)
{
    uint64_t number = index >> SHADOW_CHUNK_BITS;
    const struct shadow_cache_entry *e = &map->cache[number % SHADOW_CACHE_WAYS];
    if (e->number == number)
        return (const uint64_t *)e->chunk + (index & (SHADOW_CHUNK_CELLS - 1));
    return shadow_map_hint(map, index);
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
    shadow_chunk chunk = e->number == number ? e->chunk : shadow_map_chunk(map, number, 0);
    return chunk ? shadow_chunk_record(chunk, index) : NULL;
}

/* The first word of cell INDEX's record, 0 when it was never created;
 * creates nothing. */
static inline uint64_t shadow_map_peek(struct shadow_map *map, uint64_t index)
{
    const uint64_t *record = shadow_map_find(map, index);
    return record ? *record : 0;
}

/* Calls VISIT on every chunk, in unspecified order; a chunk holds
 * SHADOW_CHUNK_CELLS records of 2^SHIFT words, cell number *
 * SHADOW_CHUNK_CELLS first. */
void shadow_map_each_chunk(struct shadow_map *map,
                           void (*visit)(void *ctx, uint64_t number, uint64_t *chunk,
                                         unsigned shift),
                           void *ctx);

size_t shadow_map_bytes(const struct shadow_map *map);

/* DST (initialized, empty) gets a copy of every chunk of SRC. */
void shadow_map_copy(struct shadow_map *dst, struct shadow_map *src);

#endif
