#include "analyses/shadow_map.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "common/huge_pages.h"
#include "common/oom.h"

/* Blocks double from one chunk: a map that holds a few chunks (a thread's
 * own reuse stack, scattered accesses) takes their memory, not a block's. */
#define FIRST_BLOCK (4u << 10)
#define LAST_BLOCK (64u << 20)
#define HUGE_PAGE (2u << 20)

/* Directory entries: a full page (an array of SHADOW_PAGE_CHUNKS chunk
 * addresses), or with this tag a small one. */
#define SMALL_TAG ((uint64_t)1)

void shadow_map_init(struct shadow_map *map, unsigned words)
{
    for (unsigned i = 0; i < SHADOW_CACHE_WAYS; i++)
        map->cache[i] = (struct shadow_cache_entry){SHADOW_NO_CHUNK, 0};
    for (unsigned i = 0; i < SHADOW_PAGE_CACHE; i++)
        map->page_cache[i] = (struct shadow_page_entry){0, NULL};
    map->word_shift = words == 4 ? 2 : words == 2 ? 1 : 0;
    u64map_init(&map->directory);
    map->pages = 0;
    map->small_pages = 0;
    map->chunks = 0;
    map->widened = 0;
    map->spare = NULL;
    map->spares = 0;
    map->blocks = NULL;
    map->n_blocks = 0;
    map->block_used = 0;
    map->cache_misses = 0;
}

static int free_page(void *ctx, uint64_t key, uint64_t value)
{
    (void)ctx;
    (void)key;
    free((void *)(uintptr_t)(value & ~SMALL_TAG));
    return 0;
}

/* Small blocks come from the heap, large ones from the kernel (zeroed,
 * aligned for huge pages). */
static int block_is_mapped(size_t size)
{
    return size >= HUGE_PAGE;
}

void shadow_map_free(struct shadow_map *map)
{
    u64map_each(&map->directory, free_page, NULL);
    for (size_t i = 0; i < map->n_blocks; i++) {
        if (block_is_mapped(map->blocks[i].size))
            munmap(map->blocks[i].base, map->blocks[i].size);
        else
            free(map->blocks[i].base);
    }
    free(map->blocks);
    u64map_free(&map->directory);
    shadow_map_init(map, 1u << map->word_shift);
}

/* Whether a mapped block of SIZE asks for huge pages: those below
 * LAST_BLOCK, the first 64 MiB of a map, always; the 64 MiB blocks past
 * them where the first touch of a huge page costs this machine little
 * more than that of small pages. A huge page saves TLB misses for as long
 * as the map is used, but costs its first touch: on a virtual machine
 * whose host takes back the guest's free memory (free page reporting),
 * 2-4 ms for each 2 MiB, against about a quarter of that for small pages;
 * on another, half what small pages cost. The first 64 MiB hold what a
 * program keeps coming back to (xz's whole map: 63 MiB); a map that grows
 * past them spreads its accesses over hundreds of MiB, a few to each
 * cell, where the first touch sets the pace (bench/README.md, "Huge pages
 * for the first 64 MiB of a shadow map" and "Huge pages past 64 MiB where
 * they pay"). */
static int wants_huge_pages(size_t size)
{
    return size < LAST_BLOCK || huge_pages_first_touch_pays();
}

/* A new block of at least BYTES, twice the previous one; from 2 MiB on,
 * mapped and aligned, and below LAST_BLOCK marked for huge pages. */
static void new_block(struct shadow_map *map, size_t bytes)
{
    size_t size = map->n_blocks ? map->blocks[map->n_blocks - 1].size * 2 : FIRST_BLOCK;
    if (size > LAST_BLOCK)
        size = LAST_BLOCK;
    while (size < bytes)
        size *= 2;
    char *base;
    if (!block_is_mapped(size)) {
        base = xaligned_alloc(64, size);
    } else {
        char *raw = mmap(NULL, size + HUGE_PAGE, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (raw == MAP_FAILED)
            oom_exit("shadow memory");
        base = (char *)(((uintptr_t)raw + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
        if (base > raw)
            munmap(raw, (size_t)(base - raw));
        if (base + size < raw + size + HUGE_PAGE)
            munmap(base + size, (size_t)(raw + size + HUGE_PAGE - (base + size)));
#ifdef MADV_HUGEPAGE
        if (wants_huge_pages(size))
            madvise(base, size, MADV_HUGEPAGE); /* a hint */
#endif
    }
    map->blocks = xrealloc(map->blocks, (map->n_blocks + 1) * sizeof *map->blocks);
    map->blocks[map->n_blocks++] = (struct shadow_block){base, size};
    map->block_used = 0;
}

static size_t chunk_bytes(unsigned shift)
{
    return (size_t)SHADOW_CHUNK_CELLS * sizeof(uint64_t) << shift;
}

/* A zeroed chunk of records of 2^SHIFT words, tagged with SHIFT. */
static shadow_chunk new_chunk(struct shadow_map *map, unsigned shift)
{
    size_t bytes = chunk_bytes(shift);
    if (shift == map->word_shift && map->spare) {
        uint64_t *chunk = map->spare;
        map->spare = (uint64_t *)(uintptr_t)chunk[0];
        map->spares--;
        memset(chunk, 0, bytes);
        return (shadow_chunk)chunk | shift;
    }
    if (!map->n_blocks || map->block_used + bytes > map->blocks[map->n_blocks - 1].size)
        new_block(map, bytes);
    const struct shadow_block *b = &map->blocks[map->n_blocks - 1];
    char *chunk = (char *)b->base + map->block_used;
    map->block_used += bytes;
    if (!block_is_mapped(b->size)) {
        memset(chunk, 0, bytes);  /* the heap's is not zeroed */
    } else {
        /* The first access to a record reads it: a read of untouched
         * memory would map the kernel's zero page, and the write after it
         * would copy it and flush the other cores' TLBs. Writing first
         * maps the page once. */
        for (size_t page = 0; page < bytes; page += 4096)
            ((volatile char *)chunk)[page] = 0;
    }
    return (shadow_chunk)chunk | shift;
}

/* A small page: the chunks a page holds while they are few, by their
 * index in the page (a page touched in one place costs a few words, not
 * an array of SHADOW_PAGE_CHUNKS addresses). */
struct small_page {
    unsigned n;
    uint16_t index[SHADOW_SMALL_PAGE];
    shadow_chunk chunk[SHADOW_SMALL_PAGE];
};

/* The full page of SMALL's chunks, which replaces it in ENTRY. */
static shadow_chunk *promote(struct shadow_map *map, uint64_t *entry, struct small_page *small)
{
    shadow_chunk *page = xcalloc(SHADOW_PAGE_CHUNKS, sizeof(shadow_chunk));
    for (unsigned i = 0; i < small->n; i++)
        page[small->index[i]] = small->chunk[i];
    free(small);
    *entry = (uint64_t)(uintptr_t)page;
    map->small_pages--;
    map->pages++;
    return page;
}

/* The slot of chunk NUMBER (its address, 0 while it has none), its page
 * created (small) when CREATE; NULL when absent. A slot in a small page
 * moves when the page grows: use it at once. */
static shadow_chunk *slot_of(struct shadow_map *map, uint64_t number, int create)
{
    uint64_t page = number >> SHADOW_PAGE_BITS;
    unsigned index = (unsigned)(number & (SHADOW_PAGE_CHUNKS - 1));
    struct shadow_page_entry *p = &map->page_cache[page % SHADOW_PAGE_CACHE];
    if (p->page && p->number == page)
        return &p->page[index];
    uint64_t *entry = create ? u64map_upsert(&map->directory, page, NULL)
                             : u64map_find(&map->directory, page);
    if (!entry)
        return NULL;
    if (!*entry) {
        *entry = (uint64_t)(uintptr_t)xcalloc(1, sizeof(struct small_page)) | SMALL_TAG;
        map->small_pages++;
    }
    if (*entry & SMALL_TAG) {
        struct small_page *small = (struct small_page *)(uintptr_t)(*entry & ~SMALL_TAG);
        for (unsigned i = 0; i < small->n; i++)
            if (small->index[i] == index)
                return &small->chunk[i];
        if (!create)
            return NULL;
        if (small->n < SHADOW_SMALL_PAGE) {
            small->index[small->n] = (uint16_t)index;
            small->chunk[small->n] = 0;
            return &small->chunk[small->n++];
        }
        promote(map, entry, small);
    }
    /* A full page: the cache keeps it (only full pages are cached, so
     * the inline lookups index them directly). */
    p->number = page;
    p->page = (shadow_chunk *)(uintptr_t)*entry;
    return &p->page[index];
}

shadow_chunk shadow_map_chunk(struct shadow_map *map, uint64_t number, int create)
{
    shadow_chunk *slot = slot_of(map, number, create);
    if (!slot)
        return 0;
    if (!*slot && create) {
        *slot = new_chunk(map, map->word_shift);
        map->chunks++;
    }
    return *slot;
}

shadow_chunk shadow_map_widen(struct shadow_map *map, uint64_t number)
{
    shadow_chunk wide = new_chunk(map, SHADOW_WIDE_SHIFT);
    shadow_chunk *slot = slot_of(map, number, 0);
    uint64_t *narrow = shadow_chunk_base(*slot);
    uint64_t *records = shadow_chunk_base(wide);
    for (unsigned i = 0; i < SHADOW_CHUNK_CELLS; i++)
        records[(size_t)i << SHADOW_WIDE_SHIFT] = narrow[i];
    narrow[0] = (uint64_t)(uintptr_t)map->spare;
    map->spare = narrow;
    map->spares++;
    *slot = wide;
    map->chunks--;
    map->widened++;
    struct shadow_cache_entry *e = &map->cache[number % SHADOW_CACHE_WAYS];
    if (e->number == number)
        e->chunk = wide;
    return wide;
}

struct chunk_visit {
    void (*visit)(void *ctx, uint64_t number, uint64_t *chunk, unsigned shift);
    void *ctx;
};

static int visit_page(void *ctx, uint64_t key, uint64_t value)
{
    struct chunk_visit *v = ctx;
    if (value & SMALL_TAG) {
        const struct small_page *small = (const struct small_page *)(uintptr_t)(value & ~SMALL_TAG);
        for (unsigned i = 0; i < small->n; i++)
            if (small->chunk[i])
                v->visit(v->ctx, key << SHADOW_PAGE_BITS | small->index[i],
                         shadow_chunk_base(small->chunk[i]), shadow_chunk_shift(small->chunk[i]));
        return 0;
    }
    const shadow_chunk *page = (const shadow_chunk *)(uintptr_t)value;
    for (uint64_t i = 0; i < SHADOW_PAGE_CHUNKS; i++)
        if (page[i])
            v->visit(v->ctx, key << SHADOW_PAGE_BITS | i, shadow_chunk_base(page[i]),
                     shadow_chunk_shift(page[i]));
    return 0;
}

void shadow_map_each_chunk(struct shadow_map *map,
                           void (*visit)(void *ctx, uint64_t number, uint64_t *chunk,
                                         unsigned shift),
                           void *ctx)
{
    struct chunk_visit v = {visit, ctx};
    u64map_each(&map->directory, visit_page, &v);
}

static void copy_chunk(void *ctx, uint64_t number, uint64_t *chunk, unsigned shift)
{
    struct shadow_map *dst = ctx;
    shadow_chunk copy = shadow_map_chunk(dst, number, 1);
    if (shift != shadow_chunk_shift(copy))
        copy = shadow_map_widen(dst, number);
    memcpy(shadow_chunk_base(copy), chunk, chunk_bytes(shift));
}

void shadow_map_copy(struct shadow_map *dst, struct shadow_map *src)
{
    shadow_map_each_chunk(src, copy_chunk, dst);
}

size_t shadow_map_bytes(const struct shadow_map *map)
{
    /* Chunks handed out; the rest of the last block is address space. */
    return (map->chunks + map->spares) * chunk_bytes(map->word_shift) +
           map->widened * chunk_bytes(SHADOW_WIDE_SHIFT) +
           map->pages * SHADOW_PAGE_CHUNKS * sizeof(uint64_t *) +
           map->small_pages * sizeof(struct small_page) + u64map_bytes(&map->directory) +
           map->n_blocks * sizeof *map->blocks;
}
