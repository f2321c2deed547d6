/* test_code_class_cache: the call targets' code classes kept by address
 * (recorder/code_class_cache.h): an answer comes back only for its own
 * address, a slot's later address replaces it, address 0 is never kept,
 * and forgetting (the maps changed) drops every answer. */
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
    /* Two addresses of one slot: the later one's answer, not the earlier's. */
    uint64_t a = 0x7f0000001000, b = 0;
    for (uint64_t x = a + 16; !b; x += 16)
        if (code_class_slot(&cache, x) == code_class_slot(&cache, a))
            b = x;
    code_class_cache_put(&cache, a, &entry);
    code_class_cache_put(&cache, b, &recorder);
    CHECK(!code_class_cache_get(&cache, a, &got));
    CHECK(code_class_cache_get(&cache, b, &got) && got.is_recorder);
    /* Address 0 (a call through a null pointer) is asked every time. */
    code_class_cache_put(&cache, 0, &entry);
    CHECK(!code_class_cache_get(&cache, 0, &got));
    code_class_cache_forget(&cache);
    CHECK(!code_class_cache_get(&cache, 0x401000, &got));
    CHECK(!code_class_cache_get(&cache, 0x401030, &got));
    CHECK(!code_class_cache_get(&cache, b, &got));
    return check_report("test_code_class_cache");
}
