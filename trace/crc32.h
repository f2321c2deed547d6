/* crc32: CRC-32 (IEEE 802.3, reflected, as zlib computes it) of the trace
 * blocks, so a flipped bit in a recording is caught rather than decoded
 * into wrong numbers. Freestanding: engines without libc link it too. */
#ifndef TRMS_CRC32_H
#define TRMS_CRC32_H

#include <stddef.h>
#include <stdint.h>

/* Continues CRC (0 to start) over LEN bytes at DATA. */
uint32_t crc32_update(uint32_t crc, const void *data, size_t len);

#endif
