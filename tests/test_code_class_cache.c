/* test_code_class_cache: the call targets' code classes kept by address
 * (recorder/code_class_cache.h): an answer comes back only for its own
 * address, a set keeps its two latest addresses (the third replaces the
 * oldest), address 0 is never kept, and forgetting (the maps changed)
 * drops every answer, however often the maps change. */
#include "recorder/code_class_cache.h"
#include "tests/check.h"

static struct code_class_cache cache;

int main(void)
{
    struct code_class plt = {.is_plt = 1}, entry = {.is_function_entry = 1},
                      recorder = {.is_recorder = 1, .is_function_entry = 1}, got;
    CHECK(!code_class_cache_get(&cache, 0x401000, &got));
    code_class_cache_put(&cache, 0x401000, &entry);
    code_class_cache_put(&cache, 0x401030, &plt);
    CHECK(code_class_cache_get(&cache, 0x401000, &got));
    CHECK(got.is_function_entry && !got.is_plt && !got.is_recorder);
    CHECK(code_class_cache_get(&cache, 0x401030, &got));
    CHECK(got.is_plt && !got.is_function_entry);
    CHECK(!code_class_cache_get(&cache, 0x401010, &got));
    /* Three addresses of one set: the two later ones' answers, not the
     * first's. */
    uint64_t a = 0x7f0000001000, same[2] = {0, 0};
    for (uint64_t x = a + 16, k = 0; k < 2; x += 16)
        if (code_class_slot(&cache, x) == code_class_slot(&cache, a))
            same[k++] = x;
    uint64_t b = same[0], c = same[1];
    code_class_cache_put(&cache, a, &entry);
    code_class_cache_put(&cache, b, &recorder);
    CHECK(code_class_cache_get(&cache, a, &got) && got.is_function_entry && !got.is_recorder);
    CHECK(code_class_cache_get(&cache, b, &got) && got.is_recorder);
    code_class_cache_put(&cache, c, &plt);
    CHECK(!code_class_cache_get(&cache, a, &got));
    CHECK(code_class_cache_get(&cache, b, &got) && got.is_recorder);
    CHECK(code_class_cache_get(&cache, c, &got) && got.is_plt && !got.is_recorder);
    /* Many addresses, each in the cache right after its answer. */
    for (uint64_t x = 0x400000; x < 0x400000 + 4096 * 16; x += 16) {
        code_class_cache_put(&cache, x, x & 32 ? &plt : &entry);
        CHECK(code_class_cache_get(&cache, x, &got) && got.is_plt == !!(x & 32));
    }
    /* Address 0 (a call through a null pointer) is asked every time. */
    code_class_cache_put(&cache, 0, &entry);
    CHECK(!code_class_cache_get(&cache, 0, &got));
    code_class_cache_forget(&cache);
    CHECK(!code_class_cache_get(&cache, 0x401000, &got));
    CHECK(!code_class_cache_get(&cache, 0x401030, &got));
    CHECK(!code_class_cache_get(&cache, b, &got));
    /* Answers put after forgetting come back; and after the generation
     * wraps, nothing from before does. */
    code_class_cache_put(&cache, 0x401000, &plt);
    CHECK(code_class_cache_get(&cache, 0x401000, &got) && got.is_plt);
    cache.generation = UINT32_MAX - 2;
    code_class_cache_put(&cache, 0x402000, &entry);
    CHECK(code_class_cache_get(&cache, 0x402000, &got));
    code_class_cache_forget(&cache);
    CHECK(!code_class_cache_get(&cache, 0x402000, &got));
    code_class_cache_put(&cache, 0x403000, &entry);
    code_class_cache_forget(&cache);    /* wraps: cleared */
    CHECK(cache.generation == 0);
    CHECK(!code_class_cache_get(&cache, 0x403000, &got));
    CHECK(!code_class_cache_get(&cache, 0x401000, &got));
    return check_report("test_code_class_cache");
}
