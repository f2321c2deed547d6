/* fuzz_target: what the fuzz targets share. Each defines
 * LLVMFuzzerTestOneInput; libFuzzer drives it (tools/fuzz.sh), and
 * fuzz_replay.c replays the seed corpora and every crash found so far as
 * an ordinary test. */
#ifndef TRMS_FUZZ_TARGET_H
#define TRMS_FUZZ_TARGET_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A refusal must say why: RC non-zero with an empty message is a bug. */
static inline void fuzz_expect_message(int rc, const struct trms_error *err)
{
    if (rc != 0 && err->message[0] == '\0')
        __builtin_trap();
}

#endif
