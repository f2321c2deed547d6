/* test_common: the shared containers and parsers. */
#include <stdlib.h>

#include "analyses/shadow_map.h"
#include "common/parse_number.h"
#include "common/u64map.h"
#include "tests/check.h"
#include "tests/random_trace.h"
#include "trace/routine_table.h"

static void u64map_against_array(void)
{
    struct u64map map;
    u64map_init(&map);
    enum { N = 50000 };
    uint64_t *keys = malloc(N * sizeof *keys);
    uint64_t rng = 7;
    for (int i = 0; i < N; i++) {
        /* Dense small keys, random keys, and the reserved key. */
        keys[i] = i % 3 == 0 ? (uint64_t)i : i % 3 == 1 ? random_next(&rng) : UINT64_MAX - (uint64_t)(i % 5);
        int inserted;
        *u64map_upsert(&map, keys[i], &inserted) += 1;
    }
    for (int i = 0; i < N; i++) {
        uint64_t expected = 0;
        for (int j = 0; j < N; j += 1)
            if (keys[j] == keys[i])
                expected++;
        uint64_t *v = u64map_find(&map, keys[i]);
        if (!v || *v != expected) {
            fprintf(stderr, "key %" PRIu64 ": count %" PRIu64 ", expected %" PRIu64 "\n", keys[i],
                    v ? *v : 0, expected);
            check_failures++;
            break;
        }
        if (i > 2000)
            i += 97; /* the quadratic check on a sample is enough */
    }
    CHECK(u64map_find(&map, 12345678901ull) == NULL);
    CHECK(u64map_find(&map, UINT64_MAX) != NULL);
    free(keys);
    u64map_free(&map);
}

static void shadow_map_slots(void)
{
    struct shadow_map m;
    shadow_map_init(&m, 1);
    /* The chunk cache's empty entries name no chunk, chunk 0 included. */
    CHECK(shadow_map_find(&m, 0) == NULL);
    CHECK(shadow_map_peek(&m, 7) == 0);
    uint64_t *a = shadow_map_slot(&m, 5);
    *a = 11;
    uint64_t *b = shadow_map_slot(&m, UINT64_MAX);
    *b = 22;
    CHECK(*shadow_map_slot(&m, 5) == 11);
    CHECK(*shadow_map_slot(&m, UINT64_MAX) == 22);
    CHECK(*shadow_map_slot(&m, 6) == 0);
    CHECK(shadow_map_slot(&m, 5) == a); /* slots never move */
    for (uint64_t i = 0; i < 100000; i += 17)
        *shadow_map_slot(&m, i * 4099) = i + 1;
    CHECK(shadow_map_slot(&m, 5) == a && *a == 11);
    for (uint64_t i = 0; i < 100000; i += 17)
        CHECK_EQ(*shadow_map_slot(&m, i * 4099), i + 1);
    /* Cells 2^23 apart: the same place in pages that share a page cache
     * entry and a chunk cache way, so each look-up goes to the directory. */
    for (uint64_t i = 1; i <= 100; i++)
        *shadow_map_slot(&m, i << 23) = i;
    for (uint64_t i = 1; i <= 100; i++) {
        CHECK_EQ(*shadow_map_slot(&m, i << 23), i);
        CHECK_EQ(shadow_map_peek(&m, (i << 23) + 1), 0);
    }
    shadow_map_free(&m);
}

static void numbers(void)
{
    uint64_t v;
    CHECK(parse_u64_cstr("0", &v) == PARSE_NUMBER_OK && v == 0);
    CHECK(parse_u64_cstr("18446744073709551615", &v) == PARSE_NUMBER_OK && v == UINT64_MAX);
    CHECK(parse_u64_cstr("18446744073709551616", &v) == PARSE_NUMBER_OVERFLOW);
    CHECK(parse_u64_cstr("0xffffffffffffffff", &v) == PARSE_NUMBER_OK && v == UINT64_MAX);
    CHECK(parse_u64_cstr("0x1ffffffffffffffff", &v) == PARSE_NUMBER_OVERFLOW);
    CHECK(parse_u64_cstr("0XaB", &v) == PARSE_NUMBER_OK && v == 0xab);
    CHECK(parse_u64_cstr("", &v) == PARSE_NUMBER_INVALID);
    CHECK(parse_u64_cstr("0x", &v) == PARSE_NUMBER_INVALID);
    CHECK(parse_u64_cstr("+1", &v) == PARSE_NUMBER_INVALID);
    CHECK(parse_u64_cstr("12a", &v) == PARSE_NUMBER_INVALID);
    CHECK(parse_u64_cstr("0b1", &v) == PARSE_NUMBER_INVALID);
}

static void routines(void)
{
    struct routine_table t;
    routine_table_init(&t);
    uint32_t a, b, c, d, e;
    CHECK(routine_table_intern_name(&t, "main", 4, &a) == 0);
    CHECK(routine_table_intern_name(&t, "mainx", 4, &b) == 0 && b == a); /* by length */
    CHECK(routine_table_intern_addr(&t, 0x1000, &c) == 0 && c != a);
    CHECK(routine_table_intern_addr(&t, 0x1000, &d) == 0 && d == c);
    CHECK(routine_table_append(&t, "main", 4, 0, &e) == 0 && e != a); /* duplicates allowed */
    CHECK(routine_table_intern_name(&t, "main", 4, &b) == 0 && b == a);
    char buf[19];
    CHECK_STR(routine_table_label(&t, c, buf), "0x1000");
    CHECK_STR(routine_table_label(&t, 99, buf), "?");
    struct routine_table copy;
    routine_table_copy(&copy, &t);
    CHECK_EQ(copy.count, t.count);
    CHECK_STR(routine_table_label(&copy, e, buf), "main");
    routine_table_free(&copy);
    routine_table_free(&t);
}

int main(void)
{
    u64map_against_array();
    shadow_map_slots();
    numbers();
    routines();
    return check_report("test_common");
}
