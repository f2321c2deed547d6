#include "symbols/symbolizer.h"

#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/oom.h"
#include "common/u64map.h"
#include "common/regular_file.h"
#include "symbols/build_id.h"
#include "symbols/safe_debuginfo.h"
#include "symbols/symbol_table.h"

/* A loadable segment of a file: what a map's file offset says about where
 * the file was loaded. */
struct segment {
    uint64_t file_start, file_end;  /* page-aligned start, end of p_filesz */
    uint64_t vaddr_minus_offset;    /* p_vaddr - p_offset */
};

struct address_range {
    uint64_t start, end;
};

/* The file loaded at one bias: one Dwfl of its own, so that modules of
 * files mapped over each other over time never overlap inside libdw. */
struct module {
    uint64_t bias;
    Dwfl *dwfl;                 /* NULL until the first lookup in it */
    Dwfl_Module *mod;           /* NULL when libdw refused the file */
    struct symbol_table *symbols; /* NULL: ask libdw (dwfl_module_addrinfo) */
    struct address_range *plt;  /* PLT sections, in the process */
    size_t n_plt;
    struct symbol_info *unnamed[2]; /* answers without a name, by is_plt */
};

struct sym_file {
    char *path;
    int usable;                 /* an ELF file with loadable segments */
    int is_exec;                /* ET_EXEC: loaded at its link addresses */
    char build_id[41];
    struct segment *segments;
    size_t n_segments;
    struct module **modules;    /* by bias; few (a file is rarely loaded twice) */
    size_t n_modules;
    struct symbol_info *unnamed;    /* the answer when no module applies */
};

struct symbolizer {
    struct memory_maps maps;
    struct sym_file **files;
    size_t n_files;
    struct u64map file_by_hash;     /* path hash (probed on collision) -> index */
    struct u64map by_addr;          /* address -> struct symbol_info * */
    struct u64map by_entry;         /* function entry -> struct symbol_info * */
    struct answer **infos;          /* every answer, freed with the symbolizer */
    size_t n_infos, cap_infos;
};

/* An answer, with what it takes to find its source line when asked: the
 * line table and DWARF are read only for names a report needs, not for
 * every jump target the recorder classifies. */
struct answer {
    struct symbol_info info;    /* first: answers are handed out as this */
    Dwfl_Module *mod;           /* where to look for the source, or NULL */
};

static struct answer no_module;  /* never given a source: mod stays NULL */

static const Dwfl_Callbacks callbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = safe_find_debuginfo,
    .section_address = dwfl_offline_section_address,
};

struct symbolizer *symbolizer_new(void)
{
    elf_version(EV_CURRENT);
    struct symbolizer *s = xcalloc(1, sizeof *s);
    memory_maps_init(&s->maps);
    u64map_init(&s->file_by_hash);
    u64map_init(&s->by_addr);
    u64map_init(&s->by_entry);
    return s;
}

void symbolizer_free(struct symbolizer *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n_files; i++) {
        struct sym_file *f = s->files[i];
        for (size_t j = 0; j < f->n_modules; j++) {
            if (f->modules[j]->dwfl)
                dwfl_end(f->modules[j]->dwfl);
            symbol_table_free(f->modules[j]->symbols);
            free(f->modules[j]->plt);
            free(f->modules[j]);
        }
        free(f->modules);
        free(f->segments);
        free(f->path);
        free(f);
    }
    free(s->files);
    for (size_t i = 0; i < s->n_infos; i++)
        free(s->infos[i]);
    free(s->infos);
    memory_maps_free(&s->maps);
    u64map_free(&s->file_by_hash);
    u64map_free(&s->by_addr);
    u64map_free(&s->by_entry);
    free(s);
}

static struct symbol_info *new_info(struct symbolizer *s, const char *module)
{
    if (s->n_infos == s->cap_infos) {
        s->cap_infos = s->cap_infos ? 2 * s->cap_infos : 64;
        s->infos = xrealloc(s->infos, s->cap_infos * sizeof *s->infos);
    }
    struct answer *a = xcalloc(1, sizeof *a);
    a->info.module = module;
    s->infos[s->n_infos++] = a;
    return &a->info;
}

/* Reads what the bias computation needs: the type and the PT_LOADs. */
static void read_segments(struct sym_file *f)
{
    const char *why;
    int fd = regular_file_open(f->path, 0, &why);  /* a map's path is a name, not an order */
    if (fd < 0)
        return;
    Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
    GElf_Ehdr ehdr;
    size_t phnum;
    if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &ehdr) ||
        (ehdr.e_type != ET_EXEC && ehdr.e_type != ET_DYN) || elf_getphdrnum(elf, &phnum) != 0)
        goto done;
    uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
    f->segments = xcalloc(phnum ? phnum : 1, sizeof *f->segments);
    for (size_t i = 0; i < phnum; i++) {
        GElf_Phdr ph;
        if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
            continue;
        struct segment *seg = &f->segments[f->n_segments++];
        seg->file_start = ph.p_offset & ~(page - 1);
        seg->file_end = ph.p_offset + ph.p_filesz;
        seg->vaddr_minus_offset = ph.p_vaddr - ph.p_offset;
    }
    f->is_exec = ehdr.e_type == ET_EXEC;
    f->usable = f->n_segments > 0;
    elf_build_id_hex(elf, f->build_id);
done:
    elf_end(elf);
    close(fd);
}

static uint64_t path_hash(const char *path)
{
    uint64_t h = UINT64_C(14695981039346656037); /* FNV-1a */
    for (const unsigned char *p = (const unsigned char *)path; *p; p++)
        h = (h ^ *p) * UINT64_C(1099511628211);
    return h;
}

static struct sym_file *file_for(struct symbolizer *s, const char *path)
{
    uint64_t key = path_hash(path);
    uint64_t *slot;
    while ((slot = u64map_find(&s->file_by_hash, key)) != NULL) {
        if (strcmp(s->files[*slot]->path, path) == 0)
            return s->files[*slot];
        key++;
    }
    struct sym_file *f = xcalloc(1, sizeof *f);
    f->path = strdup(path);
    if (!f->path)
        oom_exit("symbolizer");
    read_segments(f);
    s->files = xrealloc(s->files, (s->n_files + 1) * sizeof *s->files);
    s->files[s->n_files] = f;
    *u64map_upsert(&s->file_by_hash, key, NULL) = s->n_files++;
    f->unnamed = new_info(s, f->path);
    return f;
}

/* The module MAP belongs to, or NULL when its file cannot be used for it.
 * A map of file F at START with file offset OFFSET inside segment SEG
 * says F was loaded with bias START - OFFSET - (p_vaddr - p_offset). */
static struct module *module_for(struct symbolizer *s, const struct map_entry *map)
{
    struct sym_file *f = file_for(s, map->path);
    if (!f->usable || (map->build_id[0] && strcmp(map->build_id, f->build_id) != 0))
        return NULL;
    const struct segment *seg = NULL;
    for (size_t i = 0; i < f->n_segments && !seg; i++)
        if (f->segments[i].file_start <= map->offset && map->offset < f->segments[i].file_end)
            seg = &f->segments[i];
    if (!seg)
        return NULL;
    uint64_t bias = map->start - map->offset - seg->vaddr_minus_offset;
    if (f->is_exec && bias != 0)
        return NULL; /* not the file that was mapped there */
    for (size_t i = 0; i < f->n_modules; i++)
        if (f->modules[i]->bias == bias)
            return f->modules[i];
    struct module *m = xcalloc(1, sizeof *m);
    m->bias = bias;
    f->modules = xrealloc(f->modules, (f->n_modules + 1) * sizeof *f->modules);
    f->modules[f->n_modules++] = m;
    m->unnamed[0] = new_info(s, f->path);
    m->unnamed[1] = new_info(s, f->path);
    m->unnamed[1]->is_plt = 1;
    return m;
}

static int is_plt_name(const char *name)
{
    return name && (strcmp(name, ".plt") == 0 || strcmp(name, ".plt.sec") == 0 ||
                    strcmp(name, ".plt.got") == 0);
}

static void find_plt_sections(struct module *m)
{
    Dwarf_Addr bias;
    Elf *elf = dwfl_module_getelf(m->mod, &bias);
    size_t shstrndx;
    if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0)
        return;
    for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) ||
            !is_plt_name(elf_strptr(elf, shstrndx, sh.sh_name)))
            continue;
        m->plt = xrealloc(m->plt, (m->n_plt + 1) * sizeof *m->plt);
        m->plt[m->n_plt++] = (struct address_range){sh.sh_addr + bias, sh.sh_addr + sh.sh_size + bias};
    }
}

/* Loads the module into libdw on first use: most mapped libraries are
 * never asked about. */
static Dwfl_Module *loaded(struct sym_file *f, struct module *m)
{
    if (m->dwfl)
        return m->mod;
    m->dwfl = dwfl_begin(&callbacks);
    if (!m->dwfl)
        oom_exit("symbolizer (libdw)");
    dwfl_report_begin(m->dwfl);
    /* add_p_vaddr: BASE is the bias itself; libdw ignores it for ET_EXEC. */
    const char *why;
    int fd = regular_file_open(f->path, 0, &why);
    m->mod = fd < 0 ? NULL : dwfl_report_elf(m->dwfl, f->path, f->path, fd, m->bias, true);
    if (!m->mod && fd >= 0)
        close(fd);
    dwfl_report_end(m->dwfl, NULL, NULL);
    if (m->mod) {
        find_plt_sections(m);
        m->symbols = symbol_table_build(m->mod);
    }
    return m->mod;
}

static const char *base_name(const char *path)
{
    if (!path)
        return NULL;
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* The DW_TAG_subprogram among the children of PARENT (and of the
 * namespaces and classes there) whose own code holds PC, into *OUT. */
static int concrete_subprogram(Dwarf_Die *parent, Dwarf_Addr pc, Dwarf_Die *out, int depth)
{
    Dwarf_Die child;
    if (depth > 8 || dwarf_child(parent, &child) != 0)
        return 0;
    do {
        switch (dwarf_tag(&child)) {
        case DW_TAG_subprogram:
            if (dwarf_haspc(&child, pc) > 0) {
                *out = child;
                return 1;
            }
            break;
        case DW_TAG_namespace:
        case DW_TAG_class_type:
        case DW_TAG_structure_type:
        case DW_TAG_union_type:
            if (concrete_subprogram(&child, pc, out, depth + 1))
                return 1;
            break;
        default:
            break;
        }
    } while (dwarf_siblingof(&child, &child) == 0);
    return 0;
}

/* Source file and line of the function at ENTRY: its declaration when the
 * DWARF has the subprogram, else the line table row of the entry.
 *
 * The subprogram is the concrete one whose code holds ENTRY: when code
 * inlined from elsewhere starts at ENTRY (a vector's constructor checking
 * its length, from stl_vector.h), libdw's scopes continue from the inlined
 * instance into its abstract definition, a DW_TAG_subprogram without code
 * of its own, which is not the routine the symbol names. So the subprogram
 * is looked for among the compilation unit's own, by address. */
static void source_of(Dwfl_Module *mod, uint64_t entry, struct symbol_info *info)
{
    Dwarf_Addr bias;
    Dwarf_Die *cu = dwfl_module_addrdie(mod, entry, &bias);
    Dwarf_Die sub;
    int line = 0;
    if (cu && concrete_subprogram(cu, entry - bias, &sub, 0) &&
        dwarf_decl_line(&sub, &line) == 0 && line > 0) {
        info->line = line;
        info->file = base_name(dwarf_decl_file(&sub));
    }
    if (info->line)
        return;
    Dwfl_Line *row = dwfl_module_getsrc(mod, entry);
    line = 0;
    const char *file = row ? dwfl_lineinfo(row, NULL, &line, NULL, NULL, NULL) : NULL;
    if (file && line > 0) {
        info->file = base_name(file);
        info->line = line;
    }
}

static const struct symbol_info *resolve(struct symbolizer *s, uint64_t addr)
{
    const struct map_entry *map = memory_maps_find(&s->maps, addr);
    if (!map)
        return &no_module.info;
    struct sym_file *f = file_for(s, map->path);
    struct module *m = module_for(s, map);
    Dwfl_Module *mod = m ? loaded(f, m) : NULL;
    if (!mod)
        return f->unnamed;
    for (size_t i = 0; i < m->n_plt; i++)
        if (m->plt[i].start <= addr && addr < m->plt[i].end)
            return m->unnamed[1]; /* stubs have no symbols; a neighbour's would mislead */
    uint64_t entry = 0;
    unsigned char st_info = 0;
    const char *name;
    if (m->symbols) {
        name = symbol_table_find(m->symbols, addr, &entry, &st_info);
    } else {
        GElf_Off offset;
        GElf_Sym sym;
        name = dwfl_module_addrinfo(mod, addr, &offset, &sym, NULL, NULL, NULL);
        entry = addr - offset;
        st_info = name ? sym.st_info : 0;
    }
    int type = name ? GELF_ST_TYPE(st_info) : -1;
    if (type != STT_FUNC && type != STT_GNU_IFUNC && type != STT_NOTYPE)
        return m->unnamed[0];
    uint64_t *cached = u64map_find(&s->by_entry, entry);
    if (cached)
        return (const struct symbol_info *)(uintptr_t)*cached;
    struct symbol_info *info = new_info(s, f->path);
    info->name = name;
    info->entry = entry;
    ((struct answer *)info)->mod = mod;
    *u64map_upsert(&s->by_entry, entry, NULL) = (uintptr_t)info;
    return info;
}

static const struct symbol_info *cached(struct symbolizer *s, uint64_t addr)
{
    int inserted;
    uint64_t *slot = u64map_upsert(&s->by_addr, addr, &inserted);
    if (inserted) {
        const struct symbol_info *info = resolve(s, addr);
        /* resolve() does not touch by_addr, so SLOT is still valid. */
        *slot = (uintptr_t)info;
    }
    return (const struct symbol_info *)(uintptr_t)*slot;
}

int symbolizer_classify(struct symbolizer *s, uint64_t addr, struct symbol_info *out)
{
    *out = *cached(s, addr);
    out->file = NULL;
    out->line = 0;
    return out->name ? 0 : -1;
}

int symbolizer_lookup(struct symbolizer *s, uint64_t addr, struct symbol_info *out)
{
    struct answer *a = (struct answer *)(uintptr_t)cached(s, addr);
    if (a->mod) {
        source_of(a->mod, a->info.entry, &a->info);
        a->mod = NULL;
    }
    *out = a->info;
    return out->name ? 0 : -1;
}

int symbolizer_locate(struct symbolizer *s, uint64_t addr, struct code_location *out)
{
    *out = (struct code_location){0};
    const struct map_entry *map = memory_maps_find(&s->maps, addr);
    if (!map)
        return -1;
    struct sym_file *f = file_for(s, map->path);
    out->module = f->path;
    struct module *m = module_for(s, map);
    if (!m) {
        out->module_addr = addr - map->start + map->offset;
        return 0;
    }
    out->module_addr = addr - m->bias;
    Dwfl_Module *mod = loaded(f, m);
    Dwfl_Line *row = mod ? dwfl_module_getsrc(mod, addr) : NULL;
    int line = 0;
    const char *file = row ? dwfl_lineinfo(row, NULL, &line, NULL, NULL, NULL) : NULL;
    if (file && line > 0) {
        out->file = base_name(file);
        out->line = line;
    }
    return 0;
}

int symbolizer_is_function_entry(struct symbolizer *s, uint64_t addr)
{
    struct symbol_info info;
    return symbolizer_lookup(s, addr, &info) == 0 && info.entry == addr;
}

/* The cached answers outside [START, END): an answer depends only on the
 * map holding its address (and, by entry, on the module of that map). */
struct keep_outside {
    struct u64map *kept;
    uint64_t start, end;
};

static int keep_if_outside(void *ctx, uint64_t key, uint64_t value)
{
    struct keep_outside *k = ctx;
    if (key < k->start || key >= k->end)
        *u64map_upsert(k->kept, key, NULL) = value;
    return 0;
}

static void forget_in(struct u64map *cache, uint64_t start, uint64_t end)
{
    struct u64map kept;
    u64map_init(&kept);
    struct keep_outside k = {&kept, start, end};
    u64map_each(cache, keep_if_outside, &k);
    u64map_free(cache);
    *cache = kept;
}

/* A change of the maps over [START, END) may change the answers there. */
static void forget_answers(struct symbolizer *s, uint64_t start, uint64_t end)
{
    forget_in(&s->by_addr, start, end);
    forget_in(&s->by_entry, start, end);
}

/* Whether MAP's build id rules its file out (module_for refuses it). */
static int refused_by_build_id(struct symbolizer *s, const struct map_entry *map)
{
    return map->build_id[0] && strcmp(map->build_id, file_for(s, map->path)->build_id) != 0;
}

/* Whether NEW gives every address the answers OLD gave: the same file at
 * the same place, and a build id (known now, perhaps not before) that
 * accepts or refuses the file alike. */
static int same_answers(struct symbolizer *s, const struct map_entry *old,
                        const struct map_entry *new)
{
    return old && old->start == new->start && old->end == new->end &&
           old->offset == new->offset && strcmp(old->path, new->path) == 0 &&
           (strcmp(old->build_id, new->build_id) == 0 ||
            refused_by_build_id(s, old) == refused_by_build_id(s, new));
}

int symbolizer_add_map(struct symbolizer *s, const struct map_entry *map)
{
    if (!map->path)
        return -1;
    int same = same_answers(s, memory_maps_find(&s->maps, map->start), map);
    if (memory_maps_add(&s->maps, map) != 0)
        return -1;
    if (!same)
        forget_answers(s, map->start, map->end);
    return module_for(s, map) ? 0 : -1;
}

void symbolizer_remove_range(struct symbolizer *s, uint64_t start, uint64_t end)
{
    memory_maps_remove(&s->maps, start, end);
    forget_answers(s, start, end);
}

const struct memory_maps *symbolizer_maps(const struct symbolizer *s)
{
    return &s->maps;
}
