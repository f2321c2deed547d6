/* shadow_map_state: a shadow map's chunks, saved and loaded.
 *
 *   u64:chunks, then per chunk u64:number (bit 63 set for a widened
 *   chunk), a bitmap of its non-zero words (one bit per word, as raw
 *   words) and those words, raw
 *
 * Scattered accesses touch a chunk for a few records: the zero words,
 * most of such a chunk, are not written out. */
#include <string.h>

#include "analyses/state_parts.h"

#define MAX_CHUNK_WORDS (4 * SHADOW_CHUNK_CELLS)
#define WIDENED (UINT64_C(1) << 63)

struct chunk_saver {
    struct state_writer *w;
    unsigned map_shift;
};

static void save_chunk(void *ctx, uint64_t number, uint64_t *chunk, unsigned shift)
{
    struct chunk_saver *s = ctx;
    uint64_t present[MAX_CHUNK_WORDS / 64] = {0}, packed[MAX_CHUNK_WORDS];
    size_t n = 0, words = (size_t)SHADOW_CHUNK_CELLS << shift;
    for (size_t i = 0; i < words; i++)
        if (chunk[i]) {
            present[i / 64] |= 1ull << (i % 64);
            packed[n++] = chunk[i];
        }
    state_put_u64(s->w, number | (shift != s->map_shift ? WIDENED : 0));
    state_put_words(s->w, present, words / 64);
    state_put_words(s->w, packed, n);
}

void shadow_map_save(struct shadow_map *map, struct state_writer *w)
{
    struct chunk_saver s = {w, map->word_shift};
    state_put_u64(w, map->chunks + map->widened);
    shadow_map_each_chunk(map, save_chunk, &s);
}

void shadow_map_load(struct shadow_map *map, struct state_reader *r, int may_widen)
{
    uint64_t chunks = state_get_count(r, 1 + ((size_t)SHADOW_CHUNK_CELLS << map->word_shift) / 8);
    for (uint64_t i = 0; i < chunks && !r->failed; i++) {
        uint64_t number = state_get_u64(r);
        int widened = (number & WIDENED) != 0;
        number &= ~WIDENED;
        if (widened && (!may_widen || map->word_shift != 0)) {
            state_reader_fail(r, "a widened shadow chunk where none can be");
            return;
        }
        unsigned shift = widened ? SHADOW_WIDE_SHIFT : map->word_shift;
        size_t words = (size_t)SHADOW_CHUNK_CELLS << shift;
        if (number > UINT64_MAX >> SHADOW_CHUNK_BITS) {
            state_reader_fail(r, "a shadow chunk past the address space");
            return;
        }
        if (shadow_map_chunk(map, number, 0)) {
            state_reader_fail(r, "a shadow chunk saved twice");
            return;
        }
        uint64_t present[MAX_CHUNK_WORDS / 64], packed[MAX_CHUNK_WORDS];
        state_get_words(r, present, words / 64);
        size_t n = 0;
        for (size_t k = 0; k < words / 64; k++)
            n += (size_t)__builtin_popcountll(present[k]);
        state_get_words(r, packed, n);
        if (r->failed)
            return;
        shadow_map_chunk(map, number, 1);
        uint64_t *chunk = shadow_chunk_base(widened ? shadow_map_widen(map, number)
                                                    : shadow_map_chunk(map, number, 0));
        for (size_t k = 0, j = 0; k < words; k++)
            if (present[k / 64] >> (k % 64) & 1)
                chunk[k] = packed[j++];
    }
}
