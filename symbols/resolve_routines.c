#include "symbols/resolve_routines.h"

#include <stdlib.h>

#include "common/oom.h"
#include "store/symbol_store.h"
#include "symbols/symbolizer.h"

int symbols_resolve_routines(const char *rec_path, const struct memory_maps *maps,
                             const struct routine_table *routines, struct trms_error *err)
{
    struct symbolizer *s = symbolizer_new();
    for (size_t i = 0; i < maps->count; i++)
        symbolizer_add_map(s, &maps->items[i]); /* unusable files just stay unnamed */
    struct symbol_name *names = xcalloc(routines->count ? routines->count : 1, sizeof *names);
    size_t n = 0;
    for (size_t i = 0; i < routines->count; i++) {
        const struct routine *r = &routines->items[i];
        struct symbol_info info;
        if (r->name || !r->addr || symbolizer_lookup(s, r->addr, &info) != 0)
            continue;
        names[n++] = (struct symbol_name){r->addr, info.name, info.file, info.line};
    }
    int rc = symbol_store_save(rec_path, names, n, err);
    free(names);
    symbolizer_free(s);
    return rc;
}
