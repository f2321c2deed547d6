/* shadow_map_state: a shadow map's chunks, saved and loaded.
 *
 *   u64:chunks, then per chunk u64:number and its records as raw words */
#include "analyses/state_parts.h"

struct chunk_saver {
    struct state_writer *w;
    size_t words;
};

static void save_chunk(void *ctx, uint64_t number, uint64_t *chunk)
{
    struct chunk_saver *s = ctx;
    state_put_u64(s->w, number);
    state_put_words(s->w, chunk, s->words);
}

void shadow_map_save(struct shadow_map *map, struct state_writer *w)
{
    struct chunk_saver s = {w, (size_t)SHADOW_CHUNK_CELLS << map->word_shift};
    state_put_u64(w, map->chunks);
    shadow_map_each_chunk(map, save_chunk, &s);
}

void shadow_map_load(struct shadow_map *map, struct state_reader *r)
{
    size_t words = (size_t)SHADOW_CHUNK_CELLS << map->word_shift;
    uint64_t chunks = state_get_count(r, 1 + words * sizeof(uint64_t));
    for (uint64_t i = 0; i < chunks && !r->failed; i++) {
        uint64_t number = state_get_u64(r);
        if (number > UINT64_MAX >> SHADOW_CHUNK_BITS) {
            state_reader_fail(r, "a shadow chunk past the address space");
            return;
        }
        if (shadow_map_chunk(map, number, 0)) {
            state_reader_fail(r, "a shadow chunk saved twice");
            return;
        }
        state_get_words(r, shadow_map_chunk(map, number, 1), words);
    }
}
