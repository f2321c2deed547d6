/* result_codec: the byte form of an analysis result inside the store.
 *
 * Varint-encoded, versioned: a store written by a newer trms is refused
 * with a message rather than misread. Since version 3 a CRC-32 of the
 * bytes ends it, so a damaged value is refused rather than reported as
 * other numbers; and whatever its version, a result whose indices do not
 * hold together (a profile of a routine or calling context it does not
 * have, a context tree out of order) is refused: a store may come from
 * anyone. */
#ifndef TRMS_RESULT_CODEC_H
#define TRMS_RESULT_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "analyses/result.h"
#include "common/byte_buffer.h"
#include "common/error.h"

#define RESULT_CODEC_VERSION 5

void result_encode(const struct analysis_result *r, struct byte_buffer *out);

/* NULL with ERR filled when DATA is not a result this trms can read. */
struct analysis_result *result_decode(const void *data, size_t len, struct trms_error *err);

#endif
