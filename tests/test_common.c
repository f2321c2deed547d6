/* test_common: the shared containers and parsers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/shadow_map.h"
#include "common/cpu_features.h"
#include "common/parse_number.h"
#include "common/u64map.h"
#include "common/varint.h"
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

/* LEB128 as a byte loop: what put_varint's word store and get_varint8's
 * word load must agree with, byte for byte. */
static size_t reference_put_varint(uint8_t *dst, uint64_t v)
{
    size_t n = 0;
    do {
        dst[n] = (uint8_t)(v & 0x7f);
        v >>= 7;
        if (v)
            dst[n] |= 0x80;
        n++;
    } while (v);
    return n;
}

static void varints(void)
{
    uint64_t rng = 11;
    size_t pext_checked = 0;
    for (int i = 0; i < 200000; i++) {
        /* Every length: values up to a random bit width, and the edges of
         * each length (2^7k - 1, 2^7k) and of the word path (2^56). */
        unsigned bits = (unsigned)(random_next(&rng) % 65);
        uint64_t v = bits == 64 ? random_next(&rng) : random_next(&rng) & ((UINT64_C(1) << bits) - 1);
        if (i % 4 == 1)
            v = (UINT64_C(1) << (7 * (i / 4 % 9 + 1))) - (uint64_t)(i % 8 < 4);
        uint8_t want[VARINT_MAX + 8], got[VARINT_MAX + 8];
        memset(want, 0xa5, sizeof want);
        memset(got, 0xa5, sizeof got);
        size_t n = reference_put_varint(want, v);
        size_t m = put_varint(got, v);
        if (m != n || memcmp(want, got, n) != 0) {
            fprintf(stderr, "put_varint(%" PRIu64 "): %zu bytes, expected %zu\n", v, m, n);
            check_failures++;
            return;
        }
        /* Followed by anything: get_varint8 reads 8 bytes whatever the length. */
        for (size_t j = n; j < sizeof got; j++)
            got[j] = (uint8_t)random_next(&rng);
        uint64_t back = 0;
        size_t len = get_varint8(got, &back);
        if (n <= 8 ? len != n || back != v : len != 0) {
            fprintf(stderr, "get_varint8 of %" PRIu64 " (%zu bytes): %zu bytes, %" PRIu64 "\n", v,
                    n, len, back);
            check_failures++;
            return;
        }
        if (cpu_fast_pext()) { /* the same by BMI2's pdep and pext */
            uint8_t by_pdep[VARINT_MAX + 8];
            uint64_t by_pext = 0;
            size_t pdep_len = put_varint_with(by_pdep, v, 1);
            size_t pext_len = get_varint8_with(got, &by_pext, 1);
            if (pdep_len != n || memcmp(want, by_pdep, n) != 0 || pext_len != len ||
                (len && by_pext != v)) {
                fprintf(stderr, "BMI2 varint of %" PRIu64 " (%zu bytes): put %zu bytes, got %zu"
                                " bytes, %" PRIu64 "\n", v, n, pdep_len, pext_len, by_pext);
                check_failures++;
                return;
            }
            pext_checked++;
        }
        const uint8_t *p = got;
        CHECK(get_varint(&p, got + n, &back) == 0 && back == v && p == got + n);
    }
    if (cpu_fast_pext())
        CHECK(pext_checked == 200000);
    else
        printf("test_common: no fast pext on this processor: the BMI2 varints not checked\n");
}

int main(void)
{
    u64map_against_array();
    shadow_map_slots();
    numbers();
    routines();
    varints();
    return check_report("test_common");
}
