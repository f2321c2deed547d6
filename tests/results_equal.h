/* results_equal: whether two analysis results are the same, byte for byte
 * as the store encodes them (for the store tests). */
#ifndef TRMS_TESTS_RESULTS_EQUAL_H
#define TRMS_TESTS_RESULTS_EQUAL_H

#include <string.h>

#include "common/byte_buffer.h"
#include "store/result_codec.h"

static inline int results_equal(const struct analysis_result *a, const struct analysis_result *b)
{
    struct byte_buffer x = {0}, y = {0};
    result_encode(a, &x);
    result_encode(b, &y);
    int same = x.len == y.len && memcmp(x.data, y.data, x.len) == 0;
    byte_buffer_free(&x);
    byte_buffer_free(&y);
    return same;
}

#endif
