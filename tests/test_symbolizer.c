/* test_symbolizer: names the code of real processes. The sample programs
 * (tests/programs, built -g -O0 as PIE and as non-PIE, with a shared
 * library) print the addresses and declaration lines of some functions and
 * their /proc/self/maps; the symbolizer, fed those maps, must give back
 * each function's name, entry, source file and line, from inside the
 * function too, mark PLT stubs, use separate debuginfo, and refuse a file
 * whose build id differs from the map's. Routines named at the end of a
 * recording with the recorder's own symbolizer, or with the one the
 * resolver thread kept, get exactly the names a fresh symbolizer gives. */
#include <fcntl.h>
#include <inttypes.h>
#include <gelf.h>
#include <stdlib.h>
#include <unistd.h>

#include "store/symbol_store.h"
#include "symbols/resolve_routines.h"
#include "symbols/routine_resolver.h"
#include "symbols/symbolizer.h"
#include "tests/check.h"

struct sample {
    struct memory_maps maps;
    struct {
        char name[64];
        uint64_t addr;
        int line;
    } funcs[8];
    size_t n_funcs;
};

/* Runs EXE and collects what it prints. */
static int run_sample(const char *exe, struct sample *s)
{
    memory_maps_init(&s->maps);
    s->n_funcs = 0;
    FILE *p = popen(exe, "r");
    if (!p)
        return -1;
    char line[4096];
    while (fgets(line, sizeof line, p)) {
        line[strcspn(line, "\n")] = '\0';
        unsigned long long start, end, offset, addr;
        char perms[5];
        int at = 0, decl;
        if (sscanf(line, "map %llx-%llx %4s %llx %*s %*s %n", &start, &end, perms, &offset,
                   &at) == 4 && at > 0 && line[at] == '/') {
            struct map_entry e = {.start = start, .end = end, .offset = offset,
                                  .path = line + at};
            e.prot = (perms[0] == 'r') | (perms[1] == 'w') << 1 | (perms[2] == 'x') << 2;
            memory_maps_add(&s->maps, &e);
        } else if (s->n_funcs < 8 && sscanf(line, "func %63s %llx %d", s->funcs[s->n_funcs].name,
                                            &addr, &decl) == 3) {
            s->funcs[s->n_funcs].addr = addr;
            s->funcs[s->n_funcs++].line = decl;
        }
    }
    return pclose(p) == 0 && s->n_funcs == 4 && s->maps.count > 0 ? 0 : -1;
}

static uint64_t func_addr(const struct sample *s, const char *name, int *line)
{
    for (size_t i = 0; i < s->n_funcs; i++)
        if (strcmp(s->funcs[i].name, name) == 0) {
            if (line)
                *line = s->funcs[i].line;
            return s->funcs[i].addr;
        }
    fprintf(stderr, "the sample printed no %s\n", name);
    check_failures++;
    return 0;
}

static struct symbolizer *symbolizer_of(const struct memory_maps *maps)
{
    struct symbolizer *sym = symbolizer_new();
    for (size_t i = 0; i < maps->count; i++)
        symbolizer_add_map(sym, &maps->items[i]);
    return sym;
}

static const char *base(const char *path)
{
    const char *slash = path ? strrchr(path, '/') : NULL;
    return slash ? slash + 1 : path;
}

/* The value of symbol NAME in the .symtab of the ELF file PATH (its
 * address in the file, as addr2line and objdump take it), or 0. */
static uint64_t symtab_value(const char *path, const char *name)
{
    int fd = open(path, O_RDONLY);
    Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
    uint64_t value = 0;
    for (Elf_Scn *scn = elf ? elf_nextscn(elf, NULL) : NULL; scn && !value;
         scn = elf_nextscn(elf, scn)) {
        GElf_Shdr sh;
        Elf_Data *data = gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB
                             ? elf_getdata(scn, NULL) : NULL;
        for (size_t i = 0; data && sh.sh_entsize && i < sh.sh_size / sh.sh_entsize; i++) {
            GElf_Sym sym;
            const char *n = gelf_getsym(data, (int)i, &sym)
                                ? elf_strptr(elf, sh.sh_link, sym.st_name) : NULL;
            if (n && strcmp(n, name) == 0 && GELF_ST_TYPE(sym.st_info) == STT_FUNC)
                value = sym.st_value;
        }
    }
    elf_end(elf);
    close(fd);
    return value;
}

/* The unstripped file of a sample module. */
static const char *symtab_file(const char *module)
{
    if (strcmp(module, "sym_sample_pie") == 0)
        return SYM_SAMPLE_PIE;
    if (strcmp(module, "sym_sample_nopie") == 0)
        return SYM_SAMPLE_NOPIE;
    return SYM_SAMPLE_LIB;
}

/* Where FUNC lies in MODULE: at its symbol's value there, as addr2line
 * takes it (the run-time address itself in a non-PIE executable), and a
 * routine entered past its start is named "FUNC+OFFSET" at the line of
 * that address. */
static void check_location(struct symbolizer *sym, uint64_t addr, const char *func,
                           const char *module, int decl_line)
{
    struct code_location where;
    CHECK(symbolizer_locate(sym, addr, &where) == 0);
    CHECK_STR(base(where.module), module);
    uint64_t value = symtab_value(symtab_file(module), func);
    CHECK(value != 0);
    CHECK_EQ(where.module_addr, value);
    if (strcmp(module, "sym_sample_nopie") == 0)
        CHECK_EQ(where.module_addr, addr);
    struct symbol_name described;
    CHECK(symbols_describe_routine(sym, addr, &described) == 0);
    CHECK_STR(described.name, func);
    CHECK_EQ(described.offset, 0);
    CHECK_EQ(described.line, decl_line);
    CHECK_EQ(described.module_addr, value);
    /* Past the prologue: the function's body, not its declaration. */
    CHECK(symbols_describe_routine(sym, addr + 8, &described) == 0);
    CHECK_STR(described.name, func);
    CHECK_EQ(described.offset, 8);
    CHECK_EQ(described.module_addr, value + 8);
    CHECK(described.line > decl_line && described.line < decl_line + 12);
}

/* FUNC, printed by the sample, resolves to itself from its entry and from
 * inside, with its declaration line in FILE of MODULE. */
static void check_function(struct symbolizer *sym, const struct sample *s, const char *func,
                           const char *file, const char *module)
{
    int line = 0;
    uint64_t addr = func_addr(s, func, &line);
    struct symbol_info info;
    /* Classifying first leaves the source for the lookup after it. */
    CHECK(symbolizer_classify(sym, addr, &info) == 0);
    CHECK_STR(info.name, func);
    CHECK_EQ(info.entry, addr);
    CHECK(info.file == NULL && info.line == 0);
    CHECK(symbolizer_lookup(sym, addr, &info) == 0);
    CHECK_STR(info.name, func);
    CHECK_EQ(info.entry, addr);
    CHECK_EQ(info.is_plt, 0);
    CHECK_STR(info.file, file);
    CHECK_EQ(info.line, line);
    CHECK_STR(base(info.module), module);
    CHECK(symbolizer_is_function_entry(sym, addr));

    struct symbol_info inside;
    CHECK(symbolizer_lookup(sym, addr + 5, &inside) == 0);
    CHECK_STR(inside.name, func);
    CHECK_EQ(inside.entry, addr);
    CHECK_EQ(inside.line, line);
    CHECK(!symbolizer_is_function_entry(sym, addr + 5));
    /* A repeated lookup is answered from the cache: the same strings. */
    struct symbol_info again;
    symbolizer_lookup(sym, addr, &again);
    CHECK(again.name == info.name && again.file == info.file);
    check_location(sym, addr, func, module, line);
}

/* The load bias of PATH from its map at offset 0, and its PLT sections. */
static void check_plt_sections(struct symbolizer *sym, const struct sample *s, const char *path)
{
    const struct map_entry *first = NULL;
    for (size_t i = 0; i < s->maps.count && !first; i++)
        if (strcmp(base(s->maps.items[i].path), base(path)) == 0 && s->maps.items[i].offset == 0)
            first = &s->maps.items[i];
    CHECK(first != NULL);
    int fd = open(path, O_RDONLY);
    Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
    GElf_Phdr ph = {0};
    for (int i = 0; elf && gelf_getphdr(elf, i, &ph) && ph.p_type != PT_LOAD; i++)
        ;
    uint64_t bias = first ? first->start - (ph.p_vaddr & ~UINT64_C(0xfff)) : 0;
    size_t shstrndx, plts = 0;
    elf_getshdrstrndx(elf, &shstrndx);
    for (Elf_Scn *scn = elf ? elf_nextscn(elf, NULL) : NULL; scn; scn = elf_nextscn(elf, scn)) {
        GElf_Shdr sh;
        gelf_getshdr(scn, &sh);
        const char *name = elf_strptr(elf, shstrndx, sh.sh_name);
        struct symbol_info info;
        if (strcmp(name, ".plt") == 0 || strcmp(name, ".plt.sec") == 0 ||
            strcmp(name, ".plt.got") == 0) {
            plts++;
            uint64_t addr = sh.sh_addr + bias;
            symbolizer_lookup(sym, addr + sh.sh_size / 2, &info);
            CHECK_EQ(info.is_plt, 1);
            CHECK(info.name == NULL);
            symbolizer_lookup(sym, addr + sh.sh_size - 1, &info);
            CHECK_EQ(info.is_plt, 1);
        } else if (strcmp(name, ".text") == 0) {
            symbolizer_lookup(sym, sh.sh_addr + bias, &info);
            CHECK_EQ(info.is_plt, 0);
        }
    }
    CHECK(plts > 0);
    elf_end(elf);
    close(fd);
}

static void pie(const struct sample *s)
{
    struct symbolizer *sym = symbolizer_of(&s->maps);
    check_function(sym, s, "str_tolower", "sym_sample.c", "sym_sample_pie");
    check_function(sym, s, "count_words", "sym_sample.c", "sym_sample_pie");
    check_function(sym, s, "lib_count_vowels", "libsym_sample.c", "libsym_sample.so");
    check_function(sym, s, "lib_hidden_sum", "libsym_sample.c", "libsym_sample.so");
    check_plt_sections(sym, s, SYM_SAMPLE_PIE);
    check_plt_sections(sym, s, SYM_SAMPLE_LIB);
    struct symbol_info info;
    CHECK(symbolizer_lookup(sym, 0x10, &info) != 0);
    CHECK(info.module == NULL && info.name == NULL && info.entry == 0);
    struct code_location nowhere;
    CHECK(symbolizer_locate(sym, 0x10, &nowhere) != 0);
    CHECK(nowhere.module == NULL && nowhere.module_addr == 0 && nowhere.line == 0);
    struct symbol_name none;
    CHECK(symbols_describe_routine(sym, 0x10, &none) != 0);

    /* munmap of the text forgets it; mapping it again brings it back. */
    uint64_t addr = func_addr(s, "str_tolower", NULL);
    const struct map_entry *text = memory_maps_find(&s->maps, addr);
    CHECK(text != NULL);
    if (text) {
        symbolizer_remove_range(sym, text->start, text->end);
        CHECK(symbolizer_lookup(sym, addr, &info) != 0);
        CHECK(info.module == NULL);
        CHECK(symbolizer_add_map(sym, text) == 0);
        CHECK(symbolizer_lookup(sym, addr, &info) == 0);
        CHECK_STR(info.name, "str_tolower");
        /* A map whose recorded build id is not the file's: module only. */
        struct map_entry wrong = *text;
        strcpy(wrong.build_id, "00112233445566778899aabbccddeeff00112233");
        CHECK(symbolizer_add_map(sym, &wrong) != 0);
        CHECK(symbolizer_lookup(sym, addr, &info) != 0);
        CHECK_STR(base(info.module), "sym_sample_pie");
        /* Its ELF addresses are not known then: the file offset. */
        struct code_location where;
        CHECK(symbolizer_locate(sym, addr, &where) == 0);
        CHECK_STR(base(where.module), "sym_sample_pie");
        CHECK_EQ(where.module_addr, addr - wrong.start + wrong.offset);
        CHECK(where.file == NULL && where.line == 0);
        /* Not an ELF file at all. */
        struct map_entry junk = *text;
        junk.path = "/proc/self/status";
        junk.build_id[0] = '\0';
        CHECK(symbolizer_add_map(sym, &junk) != 0);
        CHECK(symbolizer_lookup(sym, addr, &info) != 0);
    }
    symbolizer_free(sym);
}

static void nopie(const struct sample *s)
{
    struct symbolizer *sym = symbolizer_of(&s->maps);
    check_function(sym, s, "str_tolower", "sym_sample.c", "sym_sample_nopie");
    check_function(sym, s, "count_words", "sym_sample.c", "sym_sample_nopie");
    check_function(sym, s, "lib_hidden_sum", "libsym_sample.c", "libsym_sample.so");
    /* Code that is not PIC takes the address of a library function as its
     * canonical PLT entry: what the program calls is the stub. */
    struct symbol_info info;
    CHECK(symbolizer_lookup(sym, func_addr(s, "lib_count_vowels", NULL), &info) != 0);
    CHECK_EQ(info.is_plt, 1);
    CHECK_STR(base(info.module), "sym_sample_nopie");
    check_plt_sections(sym, s, SYM_SAMPLE_NOPIE);
    symbolizer_free(sym);
}

static int has_symtab(const char *path)
{
    int fd = open(path, O_RDONLY), found = 0;
    Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
    for (Elf_Scn *scn = elf ? elf_nextscn(elf, NULL) : NULL; scn; scn = elf_nextscn(elf, scn)) {
        GElf_Shdr sh;
        found |= gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB;
    }
    elf_end(elf);
    close(fd);
    return found;
}

/* The library stripped, its symbols and DWARF in a file .gnu_debuglink names. */
static void separate_debuginfo(const struct sample *s)
{
    if (!*SYM_SAMPLE_STRIPPED) {
        printf("test_symbolizer: no objcopy; separate debuginfo untested\n");
        return;
    }
    CHECK(!has_symtab(SYM_SAMPLE_STRIPPED));
    struct memory_maps maps;
    memory_maps_init(&maps);
    for (size_t i = 0; i < s->maps.count; i++) {
        struct map_entry e = s->maps.items[i];
        if (strcmp(base(e.path), "libsym_sample.so") == 0)
            e.path = SYM_SAMPLE_STRIPPED;
        memory_maps_add(&maps, &e);
    }
    struct symbolizer *sym = symbolizer_of(&maps);
    check_function(sym, s, "lib_hidden_sum", "libsym_sample.c", "libsym_sample_stripped.so");
    check_function(sym, s, "lib_count_vowels", "libsym_sample.c", "libsym_sample_stripped.so");
    symbolizer_free(sym);
    memory_maps_free(&maps);
}

/* The library stripped, with its local functions' symbols in a compressed
 * .gnu_debugdata section (MiniDebugInfo): libdw names them from there. */
static void minidebuginfo(const struct sample *s)
{
    if (!*SYM_SAMPLE_MINIDEBUG) {
        printf("test_symbolizer: no objcopy, strip or xz; MiniDebugInfo untested\n");
        return;
    }
    CHECK(!has_symtab(SYM_SAMPLE_MINIDEBUG));
    struct memory_maps maps;
    memory_maps_init(&maps);
    for (size_t i = 0; i < s->maps.count; i++) {
        struct map_entry e = s->maps.items[i];
        if (strcmp(base(e.path), "libsym_sample.so") == 0)
            e.path = SYM_SAMPLE_MINIDEBUG;
        memory_maps_add(&maps, &e);
    }
    struct symbolizer *sym = symbolizer_of(&maps);
    uint64_t addr = func_addr(s, "lib_hidden_sum", NULL);
    struct symbol_name found;
    CHECK(symbols_describe_routine(sym, addr, &found) == 0);
    CHECK_STR(found.name, "lib_hidden_sum");
    CHECK_EQ(found.offset, 0);
    CHECK_STR(base(found.module), "libsym_sample_minidebug.so");
    CHECK_EQ(found.module_addr, symtab_value(SYM_SAMPLE_LIB, "lib_hidden_sum"));
    symbolizer_free(sym);
    memory_maps_free(&maps);
}

static void resolve_into_store(const struct sample *s)
{
    char dir[] = "/tmp/trms-test-symbolizer-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        check_failures++;
        return;
    }
    struct routine_table routines;
    routine_table_init(&routines);
    uint32_t id;
    int line;
    uint64_t tolower = func_addr(s, "str_tolower", &line);
    routine_table_intern_addr(&routines, tolower, &id);
    routine_table_intern_addr(&routines, func_addr(s, "lib_count_vowels", NULL), &id);
    routine_table_intern_addr(&routines, 0x10, &id); /* no map: stays unnamed */
    routine_table_intern_name(&routines, "named", 5, &id);
    struct trms_error err;
    CHECK(symbols_resolve_routines(dir, &s->maps, &routines, &err) == 0);
    struct symbol_names names;
    CHECK(symbol_store_load(dir, &names, &err) == 0);
    CHECK_EQ(names.count, 2);
    const struct symbol_name *n = symbol_names_find(&names, tolower);
    CHECK(n != NULL);
    if (n) {
        CHECK_STR(n->name, "str_tolower");
        CHECK_STR(n->file, "sym_sample.c");
        CHECK_EQ(n->line, line);
    }
    n = symbol_names_find(&names, func_addr(s, "lib_count_vowels", NULL));
    CHECK(n && strcmp(n->name, "lib_count_vowels") == 0);
    CHECK(symbol_names_find(&names, 0x10) == NULL);
    symbol_names_free(&names);
    routine_table_free(&routines);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
}

/* The stored names of the recording at DIR, as "addr name file line" lines. */
static void stored_names(const char *dir, char *out, size_t size)
{
    struct symbol_names names;
    struct trms_error err;
    out[0] = '\0';
    CHECK(symbol_store_load(dir, &names, &err) == 0);
    size_t len = 0;
    for (size_t i = 0; i < names.count && len < size; i++) {
        const struct symbol_name *n = &names.items[i];
        len += (size_t)snprintf(out + len, size - len, "%" PRIx64 " %s %s %d\n", n->addr,
                                n->name, n->file ? n->file : "-", n->line);
    }
    symbol_names_free(&names);
}

static void remove_dir(const char *dir)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
}

/* The recorder resolves its routines with the symbolizer that followed the
 * process (files loaded, answers cached), which may have seen mappings go
 * (a library unmapped before the end) and never saw the build ids: given
 * every mapping ever seen, it must name the routines exactly as a fresh
 * symbolizer of them does. */
static void resolve_with_live_symbolizer(const struct sample *s)
{
    char fresh_dir[] = "/tmp/trms-test-symbolizer-XXXXXX";
    char live_dir[] = "/tmp/trms-test-symbolizer-XXXXXX";
    if (!mkdtemp(fresh_dir) || !mkdtemp(live_dir)) {
        perror("mkdtemp");
        check_failures++;
        return;
    }
    struct memory_maps all;
    memory_maps_init(&all);
    for (size_t i = 0; i < s->maps.count; i++)
        memory_maps_add(&all, &s->maps.items[i]);
    memory_maps_fill_build_ids(&all);

    struct routine_table routines;
    routine_table_init(&routines);
    uint32_t id;
    for (size_t i = 0; i < s->n_funcs; i++)
        routine_table_intern_addr(&routines, s->funcs[i].addr, &id);
    routine_table_intern_addr(&routines, s->funcs[0].addr + 1, &id); /* inside one */
    routine_table_intern_addr(&routines, 0x10, &id);                 /* no map */

    struct symbolizer *live = symbolizer_of(&s->maps);
    struct symbol_info info;
    for (size_t i = 0; i < routines.count; i++)
        symbolizer_classify(live, routines.items[i].addr, &info);
    /* The library goes, as at dlclose: the live symbolizer forgets it. */
    uint64_t lib_func = func_addr(s, "lib_count_vowels", NULL);
    const struct map_entry *lib = memory_maps_find(&s->maps, lib_func);
    CHECK(lib != NULL);
    if (lib) {
        symbolizer_remove_range(live, lib->start, lib->end);
        CHECK(symbolizer_classify(live, lib_func, &info) != 0);
    }

    struct trms_error err;
    CHECK(symbols_resolve_routines(fresh_dir, &all, &routines, &err) == 0);
    CHECK(symbols_resolve_routines_with(live, live_dir, &all, &routines, &err) == 0);
    char fresh[4096], with_live[4096];
    stored_names(fresh_dir, fresh, sizeof fresh);
    stored_names(live_dir, with_live, sizeof with_live);
    CHECK_STR(with_live, fresh);
    CHECK(strstr(fresh, " lib_count_vowels libsym_sample.c ") != NULL);
    CHECK(strstr(fresh, " str_tolower sym_sample.c ") != NULL);

    symbolizer_free(live);
    routine_table_free(&routines);
    memory_maps_free(&all);
    remove_dir(fresh_dir);
    remove_dir(live_dir);
}

/* The resolver thread, fed the mappings and routines as the recorder
 * sees them and stopped at any point (at once, or after it had time to do
 * everything), leaves a symbolizer that names the routines exactly as a
 * fresh one of every mapping does. */
static void resolver_thread_names_alike(const struct sample *s)
{
    struct memory_maps all;
    memory_maps_init(&all);
    for (size_t i = 0; i < s->maps.count; i++)
        memory_maps_add(&all, &s->maps.items[i]);
    memory_maps_fill_build_ids(&all);
    struct routine_table routines;
    routine_table_init(&routines);
    uint32_t id;
    for (size_t i = 0; i < s->n_funcs; i++)
        routine_table_intern_addr(&routines, s->funcs[i].addr, &id);
    routine_table_intern_addr(&routines, 0x10, &id);

    char fresh_dir[] = "/tmp/trms-test-symbolizer-XXXXXX";
    struct trms_error err;
    if (!mkdtemp(fresh_dir)) {
        perror("mkdtemp");
        check_failures++;
        return;
    }
    CHECK(symbols_resolve_routines(fresh_dir, &all, &routines, &err) == 0);
    char fresh[4096];
    stored_names(fresh_dir, fresh, sizeof fresh);
    CHECK(strstr(fresh, " lib_count_vowels libsym_sample.c ") != NULL);

    for (int wait = 0; wait < 2; wait++) {
        struct routine_resolver *rr = routine_resolver_start();
        CHECK(rr != NULL);
        if (!rr)
            break;
        for (size_t i = 0; i < s->maps.count; i++)
            routine_resolver_map(rr, &s->maps.items[i]);
        for (size_t i = 0; i < routines.count; i++)
            routine_resolver_routine(rr, routines.items[i].addr);
        if (wait)
            usleep(500 * 1000);
        struct symbolizer *warm = routine_resolver_finish(rr);
        char dir[] = "/tmp/trms-test-symbolizer-XXXXXX";
        if (!mkdtemp(dir)) {
            perror("mkdtemp");
            check_failures++;
            symbolizer_free(warm);
            break;
        }
        CHECK(symbols_resolve_routines_with(warm, dir, &all, &routines, &err) == 0);
        char names[4096];
        stored_names(dir, names, sizeof names);
        CHECK_STR(names, fresh);
        symbolizer_free(warm);
        remove_dir(dir);
    }
    routine_table_free(&routines);
    memory_maps_free(&all);
    remove_dir(fresh_dir);
}

int main(void)
{
    elf_version(EV_CURRENT);
    struct sample s;
    if (run_sample(SYM_SAMPLE_PIE, &s) != 0) {
        fprintf(stderr, "test_symbolizer: cannot run %s\n", SYM_SAMPLE_PIE);
        return 1;
    }
    pie(&s);
    separate_debuginfo(&s);
    minidebuginfo(&s);
    resolve_into_store(&s);
    resolve_with_live_symbolizer(&s);
    resolver_thread_names_alike(&s);
    memory_maps_free(&s.maps);
    if (run_sample(SYM_SAMPLE_NOPIE, &s) != 0) {
        fprintf(stderr, "test_symbolizer: cannot run %s\n", SYM_SAMPLE_NOPIE);
        return 1;
    }
    nopie(&s);
    memory_maps_free(&s.maps);
    return check_report("test_symbolizer");
}
