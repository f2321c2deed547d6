/* code_symbols: symbolizer answers for the decoder (code_symbols.h). */
#include "replayer/code_symbols.h"

void code_symbols_classify(struct symbolizer *s, uint64_t addr, struct code_class *out)
{
    struct symbol_info info;
    symbolizer_classify(s, addr, &info);
    out->is_plt = info.is_plt;
    out->is_function_entry = info.name && info.entry == addr;
}

uint64_t code_symbols_function_of(struct symbolizer *s, uint64_t addr)
{
    struct symbol_info info;
    symbolizer_classify(s, addr, &info);
    return info.name ? info.entry : 0;
}
