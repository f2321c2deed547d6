/* analysis_parts: the `--analyses` list (rms, trms, reuse) as the bits of
 * enum analysis_part, and as the passes that compute them: RMS and TRMS
 * come from the one input-size pass (without TRMS it leaves kernel writes
 * out: only TRMS and induced input need write times), reuse distances from
 * the reuse stacks, which are not kept at all without it. */
#ifndef TRMS_ANALYSIS_PARTS_H
#define TRMS_ANALYSIS_PARTS_H

#include <stddef.h>

#include "analyses/result.h"

/* "rms,trms,reuse" (any non-empty subset, any order; "all" for every
 * part) into *PARTS; -1 when TEXT names something else. */
int analysis_parts_parse(const char *text, unsigned *parts);

/* PARTS as "rms,trms,reuse" (in that order); "none" when empty. BUF holds
 * ANALYSIS_PARTS_TEXT_MAX bytes. */
#define ANALYSIS_PARTS_TEXT_MAX 16
const char *analysis_parts_text(unsigned parts, char *buf);

/* The parts PARTS leaves out, in words for a report ("reuse distances",
 * "RMS and TRMS"...); "" when none. BUF holds ANALYSIS_PARTS_WORDS_MAX. */
#define ANALYSIS_PARTS_WORDS_MAX 64
const char *analysis_parts_missing(unsigned parts, char *buf);

/* The analysis passes (enum analysis_pass) that compute PARTS, and back. */
unsigned analysis_parts_passes(unsigned parts);
unsigned analysis_passes_parts(unsigned passes);

#endif
