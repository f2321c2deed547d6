#include "symbols/resolve_routines.h"

#include <stdlib.h>
#include <string.h>

#include "common/oom.h"
#include "store/symbol_store.h"

static int same_entry(const struct map_entry *a, const struct map_entry *b)
{
    return a->start == b->start && a->end == b->end && a->offset == b->offset &&
           a->prot == b->prot && strcmp(a->path, b->path) == 0 &&
           strcmp(a->build_id, b->build_id) == 0;
}

static int same_maps(const struct memory_maps *a, const struct memory_maps *b)
{
    if (a->count != b->count)
        return 0;
    for (size_t i = 0; i < a->count; i++)
        if (!same_entry(&a->items[i], &b->items[i]))
            return 0;
    return 1;
}

int symbols_describe_routine(struct symbolizer *s, uint64_t addr, struct symbol_name *out)
{
    struct symbol_info info;
    struct code_location where;
    int named = symbolizer_lookup(s, addr, &info) == 0;
    int located = symbolizer_locate(s, addr, &where) == 0;
    *out = (struct symbol_name){.addr = addr, .module = where.module,
                                .module_addr = where.module_addr};
    if (named) {
        out->name = info.name;
        out->offset = addr - info.entry;
    }
    /* Past a symbol's start, the function's declaration would say where
     * the function starts, not where this routine does. */
    if (named && out->offset == 0) {
        out->file = info.file;
        out->line = info.line;
    } else {
        out->file = where.file;
        out->line = where.line;
    }
    return named || located ? 0 : -1;
}

static int resolve_with(struct symbolizer *s, const char *rec_path,
                        const struct routine_table *routines, struct trms_error *err)
{
    struct symbol_name *names = xcalloc(routines->count ? routines->count : 1, sizeof *names);
    size_t n = 0;
    for (size_t i = 0; i < routines->count; i++) {
        const struct routine *r = &routines->items[i];
        if (!r->name && r->addr && symbols_describe_routine(s, r->addr, &names[n]) == 0)
            n++;
    }
    int rc = symbol_store_save(rec_path, names, n, err);
    free(names);
    return rc;
}

static struct symbolizer *symbolizer_of(const struct memory_maps *maps)
{
    struct symbolizer *s = symbolizer_new();
    for (size_t i = 0; i < maps->count; i++)
        symbolizer_add_map(s, &maps->items[i]); /* unusable files just stay unnamed */
    return s;
}

int symbols_resolve_routines(const char *rec_path, const struct memory_maps *maps,
                             const struct routine_table *routines, struct trms_error *err)
{
    struct symbolizer *s = symbolizer_of(maps);
    int rc = resolve_with(s, rec_path, routines, err);
    symbolizer_free(s);
    return rc;
}

int symbols_resolve_routines_with(struct symbolizer *live, const char *rec_path,
                                  const struct memory_maps *maps,
                                  const struct routine_table *routines, struct trms_error *err)
{
    /* Unmapped files come back; the rest is what LIVE holds already, its
     * files loaded and its answers cached. */
    for (size_t i = 0; i < maps->count; i++)
        symbolizer_add_map(live, &maps->items[i]);
    if (same_maps(symbolizer_maps(live), maps))
        return resolve_with(live, rec_path, routines, err);
    /* Not what this file expects of the two: start afresh rather than risk
     * a name. */
    return symbols_resolve_routines(rec_path, maps, routines, err);
}

void symbols_name_routines_since(struct symbolizer *s, const struct routine_table *routines,
                                 size_t *next, struct symbol_names *names)
{
    for (; *next < routines->count; ++*next) {
        const struct routine *r = &routines->items[*next];
        struct symbol_name found;
        if (!r->name && r->addr &&
            symbols_describe_routine(s, r->addr & ROUTINE_ADDR_MASK, &found) == 0) {
            found.addr = r->addr;
            symbol_names_add(names, &found);
        }
    }
}
