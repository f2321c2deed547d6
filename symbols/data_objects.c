/* data_objects: object symbols through libdw (data_objects.h). */
#include "symbols/data_objects.h"

#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/oom.h"

static const Dwfl_Callbacks callbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
};

void data_objects_init(struct data_objects *o)
{
    *o = (struct data_objects){0};
}

void data_objects_free(struct data_objects *o)
{
    for (size_t i = 0; i < o->count; i++) {
        free(o->items[i].name);
        free(o->items[i].module);
    }
    free(o->items);
    data_objects_init(o);
}

static void add(struct data_objects *o, uint64_t start, uint64_t size, const char *name,
                const char *module, int global)
{
    if (o->count == o->capacity) {
        o->capacity = o->capacity ? 2 * o->capacity : 64;
        o->items = xrealloc(o->items, o->capacity * sizeof *o->items);
    }
    o->items[o->count++] = (struct data_object){.start = start, .size = size,
                                                .name = xstrdup(name), .module = xstrdup(module),
                                                .global = global};
}

/* A variable: an object with a size in a writable allocated section that
 * is not thread-local. */
static int is_variable(const GElf_Sym *sym, Elf *elf, GElf_Word shndx)
{
    if (GELF_ST_TYPE(sym->st_info) != STT_OBJECT || sym->st_size == 0 || !elf ||
        shndx == SHN_UNDEF || shndx >= SHN_LORESERVE)
        return 0;
    GElf_Shdr sh;
    Elf_Scn *scn = elf_getscn(elf, shndx);
    if (!scn || !gelf_getshdr(scn, &sh))
        return 0;
    return (sh.sh_flags & (SHF_WRITE | SHF_ALLOC)) == (SHF_WRITE | SHF_ALLOC) &&
           !(sh.sh_flags & SHF_TLS);
}

/* Adds PATH's variables at BIAS (which libdw ignores for ET_EXEC). */
static int add_file(struct data_objects *o, const char *path, uint64_t bias)
{
    Dwfl *dwfl = dwfl_begin(&callbacks);
    if (!dwfl)
        oom_exit("data objects (libdw)");
    dwfl_report_begin(dwfl);
    Dwfl_Module *mod = dwfl_report_elf(dwfl, path, path, -1, bias, true);
    dwfl_report_end(dwfl, NULL, NULL);
    int n = mod ? dwfl_module_getsymtab(mod) : -1;
    for (int i = 1; i < n; i++) {
        GElf_Sym sym;
        GElf_Addr addr;
        GElf_Word shndx;
        Elf *elf = NULL;
        const char *name = dwfl_module_getsym_info(mod, i, &sym, &addr, &shndx, &elf, NULL);
        if (name && *name && is_variable(&sym, elf, shndx))
            add(o, addr, sym.st_size, name, path, GELF_ST_BIND(sym.st_info) != STB_LOCAL);
    }
    dwfl_end(dwfl);
    return n < 0 ? -1 : 0;
}

/* The load biases a mapping of PATH at START, file offset OFFSET, can
 * say: START - OFFSET - (p_vaddr - p_offset) of each segment holding
 * OFFSET (two, when one page holds the end of a segment and the start of
 * the next); 0 for ET_EXEC. Returns how many (at most 2) in BIAS. */
static int biases_of(const struct map_entry *map, uint64_t bias[2])
{
    int fd = open(map->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int n = 0;
    Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
    GElf_Ehdr ehdr;
    size_t phnum;
    if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &ehdr) ||
        (ehdr.e_type != ET_EXEC && ehdr.e_type != ET_DYN) || elf_getphdrnum(elf, &phnum) != 0)
        goto done;
    uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
    for (size_t i = 0; i < phnum && n < 2; i++) {
        GElf_Phdr ph;
        if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
            continue;
        if ((ph.p_offset & ~(page - 1)) <= map->offset && map->offset < ph.p_offset + ph.p_filesz)
            bias[n++] = ehdr.e_type == ET_EXEC
                            ? 0
                            : map->start - map->offset - (ph.p_vaddr - ph.p_offset);
    }
done:
    elf_end(elf);
    close(fd);
    return n;
}

/* Each file's load bias is the one most of its mappings agree on: a
 * mapping whose page holds two segments says two. */
void data_objects_from_maps(struct data_objects *o, const struct memory_maps *maps,
                            const char *only_path)
{
    elf_version(EV_CURRENT);
    struct vote {
        const char *path;
        uint64_t bias;
        size_t votes;
    } *votes = xcalloc(2 * maps->count + 1, sizeof *votes);
    size_t n_votes = 0;
    for (size_t i = 0; i < maps->count; i++) {
        const struct map_entry *m = &maps->items[i];
        uint64_t bias[2];
        int n = only_path && strcmp(m->path, only_path) != 0 ? 0 : biases_of(m, bias);
        for (int b = 0; b < n; b++) {
            size_t j = 0;
            while (j < n_votes && !(votes[j].bias == bias[b] && strcmp(votes[j].path, m->path) == 0))
                j++;
            if (j == n_votes)
                votes[n_votes++] = (struct vote){m->path, bias[b], 0};
            votes[j].votes++;
        }
    }
    for (size_t i = 0; i < n_votes; i++) {
        int best = 1;
        for (size_t j = 0; j < n_votes && best; j++)
            if (j != i && strcmp(votes[j].path, votes[i].path) == 0 &&
                (votes[j].votes > votes[i].votes || (votes[j].votes == votes[i].votes && j < i)))
                best = 0;
        if (best)
            add_file(o, votes[i].path, votes[i].bias);
    }
    free(votes);
    data_objects_sort(o);
}

int data_objects_names_in_file(const char *path, struct data_objects *out)
{
    elf_version(EV_CURRENT);
    return add_file(out, path, 0);
}

const char *data_objects_select(struct data_objects *o, const char *const *patterns, size_t n)
{
    if (n == 0)
        return NULL;
    char *hit = xcalloc(n, 1);
    size_t kept = 0;
    for (size_t i = 0; i < o->count; i++) {
        int keep = 0;
        for (size_t p = 0; p < n; p++)
            if (fnmatch(patterns[p], o->items[i].name, 0) == 0)
                keep = hit[p] = 1;
        if (keep) {
            o->items[kept++] = o->items[i];
        } else {
            free(o->items[i].name);
            free(o->items[i].module);
        }
    }
    o->count = kept;
    const char *unmatched = NULL;
    for (size_t p = 0; p < n && !unmatched; p++)
        if (!hit[p])
            unmatched = patterns[p];
    free(hit);
    return unmatched;
}

static size_t leading_underscores(const char *name)
{
    return strspn(name, "_");
}

/* Which of two aliases names the object: a global over a file's static,
 * then the fewest leading underscores, the shortest, the first in order. */
static int better_name(const struct data_object *a, const struct data_object *b)
{
    if (a->global != b->global)
        return a->global > b->global;
    size_t ua = leading_underscores(a->name), ub = leading_underscores(b->name);
    if (ua != ub)
        return ua < ub;
    size_t la = strlen(a->name), lb = strlen(b->name);
    if (la != lb)
        return la < lb;
    return strcmp(a->name, b->name) < 0;
}

static int by_address(const void *pa, const void *pb)
{
    const struct data_object *a = pa, *b = pb;
    if (a->start != b->start)
        return a->start < b->start ? -1 : 1;
    if (a->size != b->size)
        return a->size > b->size ? -1 : 1;  /* the larger first */
    return better_name(a, b) ? -1 : better_name(b, a) ? 1 : 0;
}

void data_objects_sort(struct data_objects *o)
{
    if (o->count == 0)
        return;
    qsort(o->items, o->count, sizeof *o->items, by_address);
    size_t kept = 1;
    for (size_t i = 1; i < o->count; i++) {
        struct data_object *prev = &o->items[kept - 1], *cur = &o->items[i];
        uint64_t prev_end = prev->start + prev->size, cur_end = cur->start + cur->size;
        if (cur_end <= prev_end) {  /* an alias, or inside the one before */
            free(cur->name);
            free(cur->module);
            continue;
        }
        if (cur->start < prev_end) {
            cur->size = cur_end - prev_end;
            cur->start = prev_end;
        }
        o->items[kept++] = *cur;
    }
    o->count = kept;
}

size_t data_objects_first_after(const struct data_objects *o, uint64_t addr)
{
    size_t lo = 0, hi = o->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (o->items[mid].start + o->items[mid].size <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

const struct data_object *data_objects_find(const struct data_objects *o, uint64_t addr)
{
    size_t i = data_objects_first_after(o, addr);
    return i < o->count && o->items[i].start <= addr ? &o->items[i] : NULL;
}
