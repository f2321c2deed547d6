/* varint: unsigned LEB128, the integer encoding of recordings and stored
 * results. Header-only and freestanding. */
#ifndef TRMS_VARINT_H
#define TRMS_VARINT_H

#include <stddef.h>
#include <stdint.h>

#define VARINT_MAX 10u

/* Values below 2^56 (up to 8 bytes) are written by one 8-byte store of
 * their 7-bit groups spread to bytes: no loop whose trip count the branch
 * predictor must guess (addresses take 1 to 7 bytes, unpredictably). The
 * bytes are those of the loop below. */
#define VARINT_SWAR_LIMIT (UINT64_C(1) << 56)

/* V's 7-bit groups, one per byte, low group first (V < 2^56). */
static inline uint64_t varint_spread(uint64_t v)
{
    uint64_t x = (v & 0x000000000fffffffull) | (v & 0x00fffffff0000000ull) << 4;
    x = (x & 0x00003fff00003fffull) | (x & 0x0fffc0000fffc000ull) << 2;
    return (x & 0x007f007f007f007full) | (x & 0x3f803f803f803f80ull) << 1;
}

/* The inverse: 8 bytes of 7-bit groups (high bits clear) to their value. */
static inline uint64_t varint_gather(uint64_t x)
{
    x = (x & 0x007f007f007f007full) | (x & 0x7f007f007f007f00ull) >> 1;
    x = (x & 0x00003fff00003fffull) | (x & 0x3fff00003fff0000ull) >> 2;
    return (x & 0x000000000fffffffull) | (x & 0x0fffffff00000000ull) >> 4;
}

/* The same two by BMI2's pdep and pext, one instruction each for the nine
 * and twelve above. Spelled in assembly so that a function built for any
 * x86-64 can hold them; only code that asked cpu_fast_pext()
 * (common/cpu_features.h) runs them. Elsewhere the word-wise forms stand
 * in (cpu_fast_pext() is 0 there). */
#define VARINT_GROUPS 0x7f7f7f7f7f7f7f7full
static inline uint64_t varint_spread_bmi2(uint64_t v)
{
#if defined(__x86_64__) && defined(__GNUC__)
    uint64_t spread;
    __asm__("pdepq %2, %1, %0" : "=r"(spread) : "r"(v), "r"(VARINT_GROUPS));
    return spread;
#else
    return varint_spread(v);
#endif
}

/* (W's groups under GROUPS, whole groups of VARINT_GROUPS: one pext, no
 * mask of W first.) */
static inline uint64_t varint_gather_bmi2(uint64_t w, uint64_t groups)
{
#if defined(__x86_64__) && defined(__GNUC__)
    uint64_t packed;
    __asm__("pextq %2, %1, %0" : "=r"(packed) : "r"(w), "r"(groups));
    return packed;
#else
    return varint_gather(w & groups);
#endif
}

/* (__builtin_memcpy: one unaligned load or store, also freestanding) */
static inline uint64_t varint_load_le64(const uint8_t *p)
{
    uint64_t w;
    __builtin_memcpy(&w, p, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    w = __builtin_bswap64(w);
#endif
    return w;
}

static inline void varint_store_le64(uint8_t *p, uint64_t w)
{
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    w = __builtin_bswap64(w);
#endif
    __builtin_memcpy(p, &w, 8);
}

/* By the count of leading zeros of V | 1 (V < 2^56): its bytes, and the
 * continuation bits of all but the last (tables: fewer instructions than
 * a division by 7 and a variable shift, on the recorder's hottest path). */
static const uint8_t VARINT_BYTES_BY_CLZ[64] = {
    10, 9, 9, 9, 9, 9, 9, 9, 8, 8, 8, 8, 8, 8, 8, 7,
    7, 7, 7, 7, 7, 7, 6, 6, 6, 6, 6, 6, 6, 5, 5, 5,
    5, 5, 5, 5, 4, 4, 4, 4, 4, 4, 4, 3, 3, 3, 3, 3,
    3, 3, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1,
};
static const uint64_t VARINT_MORE_BY_CLZ[64] = {
    0x8080808080808080ull, 0x8080808080808080ull, 0x8080808080808080ull, 0x8080808080808080ull,
    0x8080808080808080ull, 0x8080808080808080ull, 0x8080808080808080ull, 0x8080808080808080ull,
    0x0080808080808080ull, 0x0080808080808080ull, 0x0080808080808080ull, 0x0080808080808080ull,
    0x0080808080808080ull, 0x0080808080808080ull, 0x0080808080808080ull, 0x0000808080808080ull,
    0x0000808080808080ull, 0x0000808080808080ull, 0x0000808080808080ull, 0x0000808080808080ull,
    0x0000808080808080ull, 0x0000808080808080ull, 0x0000008080808080ull, 0x0000008080808080ull,
    0x0000008080808080ull, 0x0000008080808080ull, 0x0000008080808080ull, 0x0000008080808080ull,
    0x0000008080808080ull, 0x0000000080808080ull, 0x0000000080808080ull, 0x0000000080808080ull,
    0x0000000080808080ull, 0x0000000080808080ull, 0x0000000080808080ull, 0x0000000080808080ull,
    0x0000000000808080ull, 0x0000000000808080ull, 0x0000000000808080ull, 0x0000000000808080ull,
    0x0000000000808080ull, 0x0000000000808080ull, 0x0000000000808080ull, 0x0000000000008080ull,
    0x0000000000008080ull, 0x0000000000008080ull, 0x0000000000008080ull, 0x0000000000008080ull,
    0x0000000000008080ull, 0x0000000000008080ull, 0x0000000000000080ull, 0x0000000000000080ull,
    0x0000000000000080ull, 0x0000000000000080ull, 0x0000000000000080ull, 0x0000000000000080ull,
    0x0000000000000080ull, 0x0000000000000000ull, 0x0000000000000000ull, 0x0000000000000000ull,
    0x0000000000000000ull, 0x0000000000000000ull, 0x0000000000000000ull, 0x0000000000000000ull,
};

/* Writes V at DST (VARINT_MAX bytes available); returns bytes used. BMI2:
 * spread by varint_spread_bmi2 (a constant where it is inlined). */
static inline size_t put_varint_with(uint8_t *dst, uint64_t v, int bmi2)
{
    if (__builtin_expect(v < VARINT_SWAR_LIMIT, 1)) { /* addresses, counts */
        unsigned lead = (unsigned)__builtin_clzll(v | 1);
        uint64_t spread = bmi2 ? varint_spread_bmi2(v) : varint_spread(v);
        varint_store_le64(dst, spread | VARINT_MORE_BY_CLZ[lead]);
        return VARINT_BYTES_BY_CLZ[lead];
    }
    size_t n = 0;
    while (v >= 0x80) {
        dst[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    dst[n++] = (uint8_t)v;
    return n;
}

static inline size_t put_varint(uint8_t *dst, uint64_t v)
{
    return put_varint_with(dst, v, 0);
}

/* Reads a varint of at most 8 bytes at P, which has 8 readable bytes:
 * returns its length, 0 when it is longer (nothing is read then). BMI2:
 * gathered by varint_gather_bmi2 (a constant where it is inlined). */
static inline __attribute__((always_inline)) size_t get_varint8_with(const uint8_t *p,
                                                                     uint64_t *v, int bmi2)
{
    uint64_t w = varint_load_le64(p);
    uint64_t stop = ~w & 0x8080808080808080ull; /* bytes without a continuation */
    if (!stop)
        return 0;
    uint64_t kept = (stop ^ (stop - 1)) & VARINT_GROUPS; /* up to the first */
    *v = bmi2 ? varint_gather_bmi2(w, kept) : varint_gather(w & kept);
    return (size_t)__builtin_ctzll(stop) / 8 + 1;
}

static inline size_t get_varint8(const uint8_t *p, uint64_t *v)
{
    return get_varint8_with(p, v, 0);
}

/* Reads a varint at *P, not past END; 0 on success, -1 when truncated or
 * wider than 64 bits. */
static inline int get_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    uint64_t value = 0;
    const uint8_t *q = *p;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        if (q == end)
            return -1;
        uint8_t byte = *q++;
        if (shift == 63 && byte > 1)
            return -1;
        value |= (uint64_t)(byte & 0x7f) << shift;
        if (!(byte & 0x80)) {
            *p = q;
            *v = value;
            return 0;
        }
    }
    return -1;
}

#endif
