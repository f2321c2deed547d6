#include "report/report.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/activation.h"
#include "common/oom.h"
#include "common/parse_number.h"
#include "store/symbol_store.h"
#include "symbols/demangle.h"

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

void report_demangle_names(struct routine_table *routines, struct symbol_names *symbols)
{
    for (size_t i = 0; routines && i < routines->count; i++) {
        char *plain = demangle_symbol(routines->items[i].name);
        if (plain) {
            free(routines->items[i].name);
            routines->items[i].name = plain;
        }
    }
    for (size_t i = 0; symbols && i < symbols->count; i++) {
        char *plain = demangle_symbol(symbols->items[i].name); /* NULL: no name */
        if (plain) {
            free((char *)symbols->items[i].name);
            symbols->items[i].name = plain;
        }
    }
}

const char *report_module_name(const char *path)
{
    const char *slash = path ? strrchr(path, '/') : NULL;
    return slash ? slash + 1 : path;
}

const char *report_symbol_name(const struct symbol_name *sym, char buf[static REPORT_LABEL_MAX])
{
    if (sym->name && sym->offset == 0)
        return sym->name;
    if (sym->name)
        snprintf(buf, REPORT_LABEL_MAX, "%s+0x%" PRIx64, sym->name, sym->offset);
    else if (sym->module)
        snprintf(buf, REPORT_LABEL_MAX, "0x%" PRIx64 " [%s]", sym->module_addr,
                 report_module_name(sym->module));
    else
        snprintf(buf, REPORT_LABEL_MAX, "0x%" PRIx64, sym->addr);
    return buf;
}

const char *report_routine_name(const struct routine_table *routines,
                                const struct symbol_names *symbols, uint32_t id,
                                char buf[static REPORT_LABEL_MAX])
{
    if (id == ROUTINE_ROOT)
        return ROUTINE_ROOT_LABEL;
    const struct symbol_name *sym = report_routine_symbol(routines, symbols, id);
    return sym ? report_symbol_name(sym, buf) : routine_table_label(routines, id, buf);
}

const char *report_routine_label(const struct routine_table *routines,
                                 const struct symbol_names *symbols, uint32_t id,
                                 char buf[static REPORT_LABEL_MAX])
{
    const struct symbol_name *sym = report_routine_symbol(routines, symbols, id);
    if (!sym || (sym->file ? sym->line <= 0 : !sym->name || !sym->module))
        return report_routine_name(routines, symbols, id, buf);
    char name[REPORT_LABEL_MAX];
    report_symbol_name(sym, name);
    size_t used = (size_t)snprintf(buf, REPORT_LABEL_MAX, "%s", name);
    if (used >= REPORT_LABEL_MAX)
        return buf;
    if (sym->file)
        snprintf(buf + used, REPORT_LABEL_MAX - used, " (%s:%d)", sym->file, sym->line);
    else
        snprintf(buf + used, REPORT_LABEL_MAX - used, " [%s]", report_module_name(sym->module));
    return buf;
}

void json_number(FILE *out, double v)
{
    if (isfinite(v))
        fprintf(out, "%.6g", v);
    else
        fputs("null", out);
}
