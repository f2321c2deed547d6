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

/* Writes V at DST (VARINT_MAX bytes available); returns bytes used. */
static inline size_t put_varint(uint8_t *dst, uint64_t v)
{
    if (v < VARINT_SWAR_LIMIT) {
        unsigned lead = (unsigned)__builtin_clzll(v | 1);
        varint_store_le64(dst, varint_spread(v) | VARINT_MORE_BY_CLZ[lead]);
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

/* Reads a varint of at most 8 bytes at P, which has 8 readable bytes:
 * returns its length, 0 when it is longer (nothing is read then). */
static inline size_t get_varint8(const uint8_t *p, uint64_t *v)
{
    uint64_t w = varint_load_le64(p);
    uint64_t stop = ~w & 0x8080808080808080ull; /* bytes without a continuation */
    if (!stop)
        return 0;
    uint64_t kept = (stop ^ (stop - 1)) & 0x7f7f7f7f7f7f7f7full; /* up to the first */
    *v = varint_gather(w & kept);
    return (size_t)__builtin_ctzll(stop) / 8 + 1;
}

#if defined(__x86_64__) && defined(__GNUC__)
/* BMI2's pext: SRC's bits under MASK, packed low. Spelled in assembly so
 * that a function built for any x86-64 can hold it; only code that asked
 * cpu_fast_pext() (common/cpu_features.h) runs it. */
static inline uint64_t varint_pext(uint64_t src, uint64_t mask)
{
    uint64_t packed;
    __asm__("pextq %2, %1, %0" : "=r"(packed) : "r"(src), "r"(mask));
    return packed;
}

/* BMI2's pdep: SRC's low bits spread to MASK's. */
static inline uint64_t varint_pdep(uint64_t src, uint64_t mask)
{
    uint64_t spread;
    __asm__("pdepq %2, %1, %0" : "=r"(spread) : "r"(src), "r"(mask));
    return spread;
}

/* put_varint by pdep (V's groups spread in one instruction, not nine). */
static inline size_t put_varint_pdep(uint8_t *dst, uint64_t v)
{
    if (v >= VARINT_SWAR_LIMIT)
        return put_varint(dst, v);
    unsigned lead = (unsigned)__builtin_clzll(v | 1);
    varint_store_le64(dst, varint_pdep(v, 0x7f7f7f7f7f7f7f7full) | VARINT_MORE_BY_CLZ[lead]);
    return VARINT_BYTES_BY_CLZ[lead];
}

/* get_varint8 by pext: one instruction for varint_gather's twelve. */
static inline size_t get_varint8_pext(const uint8_t *p, uint64_t *v)
{
    uint64_t w = varint_load_le64(p);
    uint64_t stop = ~w & 0x8080808080808080ull;
    if (!stop)
        return 0;
    *v = varint_pext(w, (stop ^ (stop - 1)) & 0x7f7f7f7f7f7f7f7full);
    return (size_t)__builtin_ctzll(stop) / 8 + 1;
}
#else
/* Elsewhere the word-wise forms stand in (cpu_fast_pext() is 0 there). */
static inline size_t put_varint_pdep(uint8_t *dst, uint64_t v)
{
    return put_varint(dst, v);
}

static inline size_t get_varint8_pext(const uint8_t *p, uint64_t *v)
{
    return get_varint8(p, v);
}
#endif

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
