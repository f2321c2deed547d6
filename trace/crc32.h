/* crc32: CRC-32 (IEEE 802.3, reflected, as zlib computes it) of the trace
 * blocks, so a flipped bit in a recording is caught rather than decoded
 * into wrong numbers. Freestanding: engines without libc link it too. */
#ifndef TRMS_CRC32_H
#define TRMS_CRC32_H

#include <stddef.h>
#include <stdint.h>

/* Continues CRC (0 to start) over LEN bytes at DATA, with the fastest
 * method this processor has. */
uint32_t crc32_update(uint32_t crc, const void *data, size_t len);

/* The same with the portable tables alone: what the fast method is tested
 * against. */
uint32_t crc32_portable(uint32_t crc, const void *data, size_t len);

/* The method crc32_update uses here: "pclmul" or "tables". */
const char *crc32_method(void);

#endif
