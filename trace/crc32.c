/* crc32: CRC-32 two ways, one result (see crc32.h).
 *
 * Portable: slicing-by-8 tables, 8 bytes per step (about 1.5 GB/s).
 * x86-64 with PCLMULQDQ: carry-less multiplication folds 64 bytes per
 * step into four 128-bit remainders (several times faster), and the
 * tables finish the last 16 to 79 bytes. Every trace block is checksummed
 * on writing and on reading, so this is on both hot paths. */
#include "trace/crc32.h"

#define POLY_REFLECTED 0xEDB88320u  /* x^32 + 0x04C11DB7, bit-reversed */
#define POLY 0x04C11DB7u

static uint32_t table[8][256];
static int ready;           /* tables built and the method chosen */
static int have_clmul;

static uint32_t update_tables(uint32_t crc, const unsigned char *p, size_t len)
{
    while (len >= 8) {
        uint32_t lo = crc ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                             (uint32_t)p[3] << 24);
        uint32_t hi = (uint32_t)p[4] | (uint32_t)p[5] << 8 | (uint32_t)p[6] << 16 |
                      (uint32_t)p[7] << 24;
        crc = table[7][lo & 0xff] ^ table[6][(lo >> 8) & 0xff] ^ table[5][(lo >> 16) & 0xff] ^
              table[4][lo >> 24] ^ table[3][hi & 0xff] ^ table[2][(hi >> 8) & 0xff] ^
              table[1][(hi >> 16) & 0xff] ^ table[0][hi >> 24];
        p += 8;
        len -= 8;
    }
    while (len--)
        crc = table[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
    return crc;
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#include <immintrin.h>

/* The folding, in the reflected bit order of the data: a 128-bit lane
 * loaded little-endian holds a chunk C(x) of the message with the
 * coefficient of x^127 in bit 0, so its low half is the high-degree half H
 * and its high half the low-degree half L. Carry-less products of such
 * halves come out reflected and multiplied by x. Moving a remainder
 * H x^64 + L forward by D bits (onto the chunk D bits later) is
 * H (x^(D+63) mod P) x + L (x^(D-1) mod P) x, which fits in 96 bits. */
struct fold_constants {
    __m128i by512;  /* the four remainders onto the next 64 bytes */
    __m128i by128;  /* one remainder onto the next 16 bytes */
};
static struct fold_constants fold;

/* x^N mod P, reflected into a 64-bit lane (x^k at bit 63 - k). */
static uint64_t power_mod_p(unsigned n)
{
    uint32_t r = 1;
    for (unsigned i = 0; i < n; i++)
        r = (r << 1) ^ (r >> 31 ? POLY : 0);
    uint64_t lane = 0;
    for (unsigned k = 0; k < 32; k++)
        lane |= (uint64_t)(r >> k & 1) << (63 - k);
    return lane;
}

static __m128i fold_constant(unsigned distance)
{
    return _mm_set_epi64x((long long)power_mod_p(distance - 1),
                          (long long)power_mod_p(distance + 63));
}

__attribute__((target("pclmul"))) static inline __m128i fold_onto(__m128i rem, __m128i k,
                                                                   __m128i next)
{
    __m128i high = _mm_clmulepi64_si128(rem, k, 0x00);  /* H (low half) by its constant */
    __m128i low = _mm_clmulepi64_si128(rem, k, 0x11);   /* L (high half) by its own */
    return _mm_xor_si128(_mm_xor_si128(high, low), next);
}

static __m128i load(const unsigned char *p)
{
    return _mm_loadu_si128((const __m128i *)(const void *)p);
}

/* CRC (already inverted) continued over LEN >= 64 bytes at P, inverted. */
__attribute__((target("pclmul"))) static uint32_t update_clmul(uint32_t crc,
                                                               const unsigned char *p,
                                                               size_t len)
{
    /* The register so far joins the message: XOR it into the first bytes. */
    __m128i r0 = _mm_xor_si128(load(p), _mm_cvtsi32_si128((int)crc));
    __m128i r1 = load(p + 16), r2 = load(p + 32), r3 = load(p + 48);
    p += 64;
    len -= 64;
    for (; len >= 64; p += 64, len -= 64) {
        r0 = fold_onto(r0, fold.by512, load(p));
        r1 = fold_onto(r1, fold.by512, load(p + 16));
        r2 = fold_onto(r2, fold.by512, load(p + 32));
        r3 = fold_onto(r3, fold.by512, load(p + 48));
    }
    __m128i r = fold_onto(fold_onto(fold_onto(r0, fold.by128, r1), fold.by128, r2),
                          fold.by128, r3);
    for (; len >= 16; p += 16, len -= 16)
        r = fold_onto(r, fold.by128, load(p));
    /* R is congruent to everything before the tail: as 16 bytes of
     * message, the tables finish from a zero register. */
    unsigned char rest[16];
    _mm_storeu_si128((__m128i *)(void *)rest, r);
    return update_tables(update_tables(0, rest, 16), p, len);
}

static int cpu_has_clmul(void)
{
    unsigned eax, ebx, ecx, edx;
    return __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & bit_PCLMUL);
}
#endif

static void prepare(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = (c & 1) ? POLY_REFLECTED ^ (c >> 1) : c >> 1;
        table[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; i++)
        for (int s = 1; s < 8; s++)
            table[s][i] = (table[s - 1][i] >> 8) ^ table[0][table[s - 1][i] & 0xff];
#if defined(__x86_64__) && defined(__GNUC__)
    fold.by512 = fold_constant(512);
    fold.by128 = fold_constant(128);
    have_clmul = cpu_has_clmul();
#endif
    __atomic_store_n(&ready, 1, __ATOMIC_RELEASE);
}

uint32_t crc32_update(uint32_t crc, const void *data, size_t len)
{
    /* Threads racing here compute the same values. */
    if (!__atomic_load_n(&ready, __ATOMIC_ACQUIRE))
        prepare();
    crc = ~crc;
#if defined(__x86_64__) && defined(__GNUC__)
    if (have_clmul && len >= 64)
        return ~update_clmul(crc, data, len);
#endif
    return ~update_tables(crc, data, len);
}

uint32_t crc32_portable(uint32_t crc, const void *data, size_t len)
{
    if (!__atomic_load_n(&ready, __ATOMIC_ACQUIRE))
        prepare();
    return ~update_tables(~crc, data, len);
}

const char *crc32_method(void)
{
    if (!__atomic_load_n(&ready, __ATOMIC_ACQUIRE))
        prepare();
    return have_clmul ? "pclmul" : "tables";
}
