/* varint: unsigned LEB128, the integer encoding of recordings and stored
 * results. Header-only and freestanding. */
#ifndef TRMS_VARINT_H
#define TRMS_VARINT_H

#include <stddef.h>
#include <stdint.h>

#define VARINT_MAX 10u

/* Writes V at DST (VARINT_MAX bytes available); returns bytes used. */
static inline size_t put_varint(uint8_t *dst, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        dst[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    dst[n++] = (uint8_t)v;
    return n;
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
