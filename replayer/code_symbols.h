/* code_symbols: what a symbolizer says about code, in the terms the rerun
 * decoder asks for (rerun_decoder_config's classify and function_of), for
 * the producers that follow a process's mappings with one: the rr adapter
 * and the step engine. */
#ifndef TRMS_CODE_SYMBOLS_H
#define TRMS_CODE_SYMBOLS_H

#include <stdint.h>

#include "recorder/call_tracker.h"
#include "symbols/symbolizer.h"

/* Whether ADDR is in a PLT stub, and whether it is a function's entry. */
void code_symbols_classify(struct symbolizer *s, uint64_t addr, struct code_class *out);

/* The entry of the function holding ADDR, 0 when none is known. */
uint64_t code_symbols_function_of(struct symbolizer *s, uint64_t addr);

#endif
