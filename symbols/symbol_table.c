#include "symbols/symbol_table.h"

#include <gelf.h>
#include <stdlib.h>

#include "common/oom.h"

struct table_symbol {
    uint64_t value;         /* in the process */
    uint64_t size;
    uint64_t reach;         /* the highest end of this symbol and those before it */
    const char *name;
    uint32_t order;         /* index in libdw's table: ties go by it */
    unsigned char info;     /* st_info */
    unsigned char exact_only; /* absolute, common or not allocated: no section */
};

/* The symbols one of libdw's two passes reads, sorted by value, then order. */
struct pass {
    struct table_symbol *syms;
    size_t n;
};

/* An allocated section of the main file, in the process. */
struct section {
    uint64_t start, end;
    size_t ndx;
};

struct symbol_table {
    struct pass globals, locals;
    struct section *sections;   /* sorted by start, end, index */
    size_t n_sections;
};

static int bind_rank(unsigned char info)
{
    switch (GELF_ST_BIND(info)) {
    case STB_GLOBAL: return 3;
    case STB_WEAK: return 2;
    case STB_LOCAL: return 1;
    default: return 0;
    }
}

static int by_value_then_order(const void *a, const void *b)
{
    const struct table_symbol *x = a, *y = b;
    if (x->value != y->value)
        return x->value < y->value ? -1 : 1;
    return (x->order > y->order) - (x->order < y->order);
}

static int by_start_end_index(const void *a, const void *b)
{
    const struct section *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    if (x->end != y->end)
        return x->end < y->end ? -1 : 1;
    return (x->ndx > y->ndx) - (x->ndx < y->ndx);
}

/* The allocated sections of MOD's main file; none when one cannot be read,
 * as libdw then knows no section for any address either. */
static void read_sections(Dwfl_Module *mod, struct symbol_table *t)
{
    Dwarf_Addr bias;
    Elf *elf = dwfl_module_getelf(mod, &bias);
    size_t shstrndx;
    if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0)
        return;
    size_t cap = 0;
    for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) ||
            ((sh.sh_flags & SHF_ALLOC) && !elf_strptr(elf, shstrndx, sh.sh_name))) {
            t->n_sections = 0;
            return;
        }
        if (!(sh.sh_flags & SHF_ALLOC))
            continue;
        if (t->n_sections == cap) {
            cap = cap ? 2 * cap : 32;
            t->sections = xrealloc(t->sections, cap * sizeof *t->sections);
        }
        t->sections[t->n_sections++] = (struct section){sh.sh_addr + bias,
                                                        sh.sh_addr + bias + sh.sh_size,
                                                        elf_ndxscn(scn)};
    }
    if (t->n_sections)
        qsort(t->sections, t->n_sections, sizeof *t->sections, by_start_end_index);
}

/* The index of the section holding ADDR, SHN_UNDEF when none. Sections
 * may overlap or be empty, so the search is libdw's own: by halves, an
 * end inclusive unless the next section starts there. */
static size_t section_of(const struct symbol_table *t, uint64_t addr)
{
    size_t lo = 0, hi = t->n_sections;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const struct section *s = &t->sections[mid];
        if (addr < s->start) {
            hi = mid;
        } else if (addr > s->end) {
            lo = mid + 1;
        } else {
            if (addr == s->end && mid + 1 < t->n_sections && addr == t->sections[mid + 1].start)
                mid++;
            return t->sections[mid].ndx;
        }
    }
    return SHN_UNDEF;
}

static void push(struct pass *p, size_t *cap, const struct table_symbol *sym)
{
    if (p->n == *cap) {
        *cap = *cap ? 2 * *cap : 256;
        p->syms = xrealloc(p->syms, *cap * sizeof *p->syms);
    }
    p->syms[p->n++] = *sym;
}

static void finish(struct pass *p)
{
    if (!p->n)
        return;
    qsort(p->syms, p->n, sizeof *p->syms, by_value_then_order);
    uint64_t reach = 0;
    for (size_t i = 0; i < p->n; i++) {
        uint64_t end = p->syms[i].value + p->syms[i].size;
        reach = end > reach ? end : reach;
        p->syms[i].reach = reach;
    }
}

/* Whether libdw would read symbol SYM, its value VALUE, as this table does:
 * the st_value plus the file's bias when it lies in an allocated section,
 * the st_value as it is otherwise. */
static int plain_value(const GElf_Sym *sym, GElf_Addr value, GElf_Word shndx, Dwarf_Addr bias)
{
    int biased = sym->st_shndx != SHN_ABS && sym->st_shndx != SHN_COMMON &&
                 shndx != (GElf_Word)-1;
    return value == sym->st_value + (biased ? bias : 0);
}

struct symbol_table *symbol_table_build(Dwfl_Module *mod)
{
    Dwarf_Addr main_bias;
    Elf *main_elf = dwfl_module_getelf(mod, &main_bias);
    GElf_Ehdr ehdr;
    if (!main_elf || !gelf_getehdr(main_elf, &ehdr) || ehdr.e_type == ET_REL)
        return NULL;
    struct symbol_table *t = xcalloc(1, sizeof *t);
    int n = dwfl_module_getsymtab(mod);
    int first_global = n > 0 ? dwfl_module_getsymtab_first_global(mod) : 0;
    if (n <= 0 || first_global < 0)
        return t; /* libdw finds nothing either */
    size_t cap_globals = 0, cap_locals = 0;
    for (int i = 1; i < n; i++) {
        GElf_Sym sym;
        GElf_Addr value;
        GElf_Word shndx;
        Dwarf_Addr bias;
        const char *name = dwfl_module_getsym_info(mod, i, &sym, &value, &shndx, NULL, &bias);
        int type = GELF_ST_TYPE(sym.st_info);
        if (!name || !name[0] || sym.st_shndx == SHN_UNDEF || type == STT_SECTION ||
            type == STT_FILE || type == STT_TLS)
            continue;
        if (!plain_value(&sym, value, shndx, bias) || value + sym.st_size < value) {
            symbol_table_free(t);
            return NULL;
        }
        struct table_symbol s = {.value = value, .size = sym.st_size, .name = name,
                                 .order = (uint32_t)i, .info = sym.st_info,
                                 .exact_only = shndx >= SHN_LORESERVE};
        if (first_global == 0 || i >= first_global)
            push(&t->globals, &cap_globals, &s);
        else
            push(&t->locals, &cap_locals, &s);
    }
    finish(&t->globals);
    finish(&t->locals);
    read_sections(mod, t);
    return t;
}

void symbol_table_free(struct symbol_table *t)
{
    if (!t)
        return;
    free(t->globals.syms);
    free(t->locals.syms);
    free(t->sections);
    free(t);
}

size_t symbol_table_size(const struct symbol_table *t)
{
    return t ? t->globals.n + t->locals.n : 0;
}

/* How many symbols of P start at or below ADDR. */
static size_t at_or_below(const struct pass *p, uint64_t addr)
{
    size_t lo = 0, hi = p->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (p->syms[mid].value <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Whether S, which covers the address too and comes later in libdw's
 * table, takes the place of BEST. */
static int replaces(const struct table_symbol *best, const struct table_symbol *s)
{
    if (!best || best->value < s->value || bind_rank(best->info) < bind_rank(s->info))
        return 1;
    return best->value == s->value && best->size > s->size &&
           bind_rank(best->info) <= bind_rank(s->info);
}

/* libdw's choice among the sized symbols of P's first K that cover ADDR,
 * taken in table order; NULL when none does. The symbols that may cover
 * ADDR are those below it whose reach passes it. */
static const struct table_symbol *covering(const struct pass *p, size_t k, uint64_t addr)
{
    const struct table_symbol *best = NULL;
    uint32_t last_order = 0;
    for (;;) {
        const struct table_symbol *next = NULL;
        for (size_t j = k; j-- > 0 && p->syms[j].reach > addr;) {
            const struct table_symbol *s = &p->syms[j];
            if (s->size && addr - s->value < s->size && (!best || s->order > last_order) &&
                (!next || s->order < next->order))
                next = s;
        }
        if (!next)
            return best;
        if (replaces(best, next))
            best = next;
        last_order = next->order;
    }
}

/* The last sizeless symbol of P's first K, in table order, at LABEL and
 * in ADDR's section (*ADDR_SECTION, found on first need); NULL if none. */
static const struct table_symbol *sizeless_at(const struct symbol_table *t, const struct pass *p,
                                              size_t k, uint64_t label, uint64_t addr,
                                              size_t *addr_section)
{
    for (size_t j = k; j-- > 0 && p->syms[j].value >= label;) {
        const struct table_symbol *s = &p->syms[j];
        if (s->value != label || s->size)
            continue;
        if (s->exact_only) {
            if (s->value == addr)
                return s;
            continue;
        }
        if (*addr_section == (size_t)-1)
            *addr_section = section_of(t, addr);
        if (section_of(t, s->value) == *addr_section)
            return s;
    }
    return NULL;
}

const char *symbol_table_find(const struct symbol_table *t, uint64_t addr, uint64_t *value,
                              unsigned char *info)
{
    const struct table_symbol *found = NULL;
    size_t addr_section = (size_t)-1;
    /* The highest end of the symbols at or below ADDR: a sizeless symbol
     * applies only there, past every sized one (libdw's min_label). */
    uint64_t label = 0;
    size_t kg = at_or_below(&t->globals, addr);
    if (kg)
        label = t->globals.syms[kg - 1].reach;
    found = covering(&t->globals, kg, addr);
    const struct table_symbol *sizeless = NULL;
    if (!found)
        sizeless = sizeless_at(t, &t->globals, kg, label, addr, &addr_section);
    if (!found && !(sizeless && sizeless->value == addr) && t->locals.n) {
        size_t kl = at_or_below(&t->locals, addr);
        if (kl && t->locals.syms[kl - 1].reach > label)
            label = t->locals.syms[kl - 1].reach;
        found = covering(&t->locals, kl, addr);
        if (!found) {
            const struct table_symbol *local = sizeless_at(t, &t->locals, kl, label, addr,
                                                           &addr_section);
            if (local)
                sizeless = local;
            else if (sizeless && sizeless->value != label)
                sizeless = NULL;
        }
    }
    if (!found)
        found = sizeless;
    if (!found)
        return NULL;
    *value = found->value;
    *info = found->info;
    return found->name;
}
