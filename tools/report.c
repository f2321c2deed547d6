#include "tools/report.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/activation.h"
#include "common/oom.h"
#include "common/parse_number.h"
#include "store/symbol_store.h"

const char *format_u128(unsigned __int128 v, char buf[static 40])
{
    char *p = buf + 39;
    *p = '\0';
    do {
        *--p = (char)('0' + (int)(v % 10));
        v /= 10;
    } while (v);
    return p;
}

const struct symbol_name *report_routine_symbol(const struct routine_table *routines,
                                                const struct symbol_names *symbols, uint32_t id)
{
    if (id == ROUTINE_ROOT || id >= routines->count || routines->items[id].name)
        return NULL;
    return symbol_names_find(symbols, routines->items[id].addr);
}

const char *report_routine_name(const struct routine_table *routines,
                                const struct symbol_names *symbols, uint32_t id,
                                char buf[static REPORT_LABEL_MAX])
{
    if (id == ROUTINE_ROOT)
        return ROUTINE_ROOT_LABEL;
    const struct symbol_name *sym = report_routine_symbol(routines, symbols, id);
    return sym ? sym->name : routine_table_label(routines, id, buf);
}

const char *report_routine_label(const struct routine_table *routines,
                                 const struct symbol_names *symbols, uint32_t id,
                                 char buf[static REPORT_LABEL_MAX])
{
    const struct symbol_name *sym = report_routine_symbol(routines, symbols, id);
    if (!sym || !sym->file || sym->line <= 0)
        return report_routine_name(routines, symbols, id, buf);
    snprintf(buf, REPORT_LABEL_MAX, "%s (%s:%d)", sym->name, sym->file, sym->line);
    return buf;
}

int report_routine_matches(const struct routine_table *routines,
                           const struct symbol_names *symbols, uint32_t id, const char *text)
{
    char buf[REPORT_LABEL_MAX];
    if (strcmp(report_routine_name(routines, symbols, id, buf), text) == 0)
        return 1;
    uint64_t addr;
    return id != ROUTINE_ROOT && id < routines->count && routines->items[id].addr &&
           strncmp(text, "0x", 2) == 0 && parse_u64_cstr(text, &addr) == PARSE_NUMBER_OK &&
           addr == routines->items[id].addr;
}

static const struct analysis_result *sort_result;
static const struct symbol_names *sort_symbols;

static int by_cost(const void *x, const void *y)
{
    const struct routine_profile *a = *(const struct routine_profile *const *)x;
    const struct routine_profile *b = *(const struct routine_profile *const *)y;
    if (a->cost != b->cost)
        return a->cost < b->cost ? 1 : -1;
    char ba[REPORT_LABEL_MAX], bb[REPORT_LABEL_MAX];
    int c = strcmp(report_routine_label(&sort_result->routines, sort_symbols, a->routine, ba),
                   report_routine_label(&sort_result->routines, sort_symbols, b->routine, bb));
    if (c)
        return c;
    return (a->tid > b->tid) - (a->tid < b->tid);
}

const struct routine_profile **profiles_by_cost(const struct analysis_result *r,
                                                const struct symbol_names *symbols)
{
    const struct routine_profile **order = xcalloc(r->n_profiles, sizeof *order);
    for (size_t i = 0; i < r->n_profiles; i++)
        order[i] = &r->profiles[i];
    sort_result = r;
    sort_symbols = symbols;
    qsort(order, r->n_profiles, sizeof *order, by_cost);
    return order;
}
