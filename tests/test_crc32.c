/* test_crc32: the trace checksum against published values and against a
 * bit-at-a-time reference, on every length and alignment around the fast
 * method's 16- and 64-byte steps, on large random buffers, and continued
 * across splits. Values from zlib's crc32 (python3 -c 'import zlib; ...'). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/check.h"
#include "trace/crc32.h"

/* The definition itself: one bit at a time, reflected, inverted. */
static uint32_t crc32_bitwise(uint32_t crc, const unsigned char *p, size_t len)
{
    crc = ~crc;
    for (size_t i = 0; i < len; i++) {
        crc ^= p[i];
        for (int k = 0; k < 8; k++)
            crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1)));
    }
    return ~crc;
}

static uint32_t crc_of(const void *p, size_t len)
{
    return crc32_update(0, p, len);
}

static void known_values(void)
{
    CHECK_EQ(crc_of("", 0), 0);
    CHECK_EQ(crc_of("a", 1), 0xe8b7be43);
    CHECK_EQ(crc_of("123456789", 9), 0xcbf43926);
    const char *fox = "The quick brown fox jumps over the lazy dog";
    CHECK_EQ(crc_of(fox, strlen(fox)), 0x414fa339);

    unsigned char *buf = malloc(100003);
    if (!buf)
        abort();
    for (size_t i = 0; i < 1024; i++)
        buf[i] = (unsigned char)i;
    CHECK_EQ(crc_of(buf, 1024), 0xb70b4c26);    /* bytes(range(256)) * 4 */
    memset(buf, 0, 1000);
    CHECK_EQ(crc_of(buf, 1000), 0x060b1780);    /* bytes(1000) */
    memset(buf, 0xff, 4096);
    CHECK_EQ(crc_of(buf, 4096), 0xf154670a);    /* b'\xff' * 4096 */
    for (size_t i = 0; i < 100003; i++)
        buf[i] = (unsigned char)(i * 7 + 3);
    CHECK_EQ(crc_of(buf, 100003), 0xcd676dab);  /* (i * 7 + 3) & 0xff */
    CHECK_EQ(crc32_portable(0, buf, 100003), 0xcd676dab);
    free(buf);
}

static uint64_t next_random(uint64_t *state)
{
    *state = *state * 6364136223846793005u + 1442695040888963407u;
    return *state >> 24;
}

/* Lengths 0..400 at 16 alignments, from a zero and a non-zero start. */
static void every_short_length(void)
{
    unsigned char buf[400 + 16];
    uint64_t state = 1;
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = (unsigned char)next_random(&state);
    int before = check_failures;
    for (size_t align = 0; align < 16 && check_failures == before; align++)
        for (size_t len = 0; len <= 400 && check_failures == before; len++)
            for (uint32_t start = 0; start < 2; start++) {
                uint32_t from = start ? 0x12345678u : 0;
                uint32_t want = crc32_bitwise(from, buf + align, len);
                CHECK_EQ(crc32_update(from, buf + align, len), want);
                CHECK_EQ(crc32_portable(from, buf + align, len), want);
                if (check_failures != before)
                    fprintf(stderr, "  (length %zu, alignment %zu, start %08x)\n", len, align,
                            from);
            }
}

/* Large random buffers, whole and continued from every kind of split. */
static void large_buffers_and_splits(void)
{
    size_t size = (1u << 20) + 80;  /* the longest length, 3 bytes in */
    unsigned char *buf = malloc(size);
    if (!buf)
        abort();
    uint64_t state = 99;
    for (size_t i = 0; i < size; i++)
        buf[i] = (unsigned char)next_random(&state);
    static const size_t lengths[] = {64, 65, 127, 128, 1000, 65536, 65536 + 13, (1u << 20) + 77};
    for (size_t i = 0; i < sizeof lengths / sizeof lengths[0]; i++) {
        size_t len = lengths[i];
        uint32_t want = crc32_bitwise(0, buf + 3, len);
        CHECK_EQ(crc_of(buf + 3, len), want);
        static const size_t splits[] = {1, 15, 16, 63, 64, 100};
        for (size_t k = 0; k < sizeof splits / sizeof splits[0]; k++) {
            size_t cut = splits[k] < len ? splits[k] : len / 2;
            uint32_t head = crc_of(buf + 3, cut);
            CHECK_EQ(crc32_update(head, buf + 3 + cut, len - cut), want);
            cut = len - cut;
            head = crc_of(buf + 3, cut);
            CHECK_EQ(crc32_update(head, buf + 3 + cut, len - cut), want);
        }
    }
    free(buf);
}

int main(void)
{
    printf("test_crc32: crc32_update uses %s here\n", crc32_method());
    known_values();
    every_short_length();
    large_buffers_and_splits();
    return check_report("test_crc32");
}
