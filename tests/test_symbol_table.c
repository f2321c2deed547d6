/* test_symbol_table: the table answers every address exactly as libdw's
 * dwfl_module_addrinfo does (the same name string, entry and st_info), on
 * real binaries: the sample programs and library (with separate and
 * MiniDebugInfo symbols), every shared object this test maps (libc with
 * its debuginfo when installed, libdw, libelf, libsqlite3 when present),
 * sqlite3, xz and python3 with what it maps. The addresses asked are each
 * symbol's start, start +- 1, end - 1, end and end + 1, the middle between
 * neighbouring symbols, and each allocated section's ends: where the
 * choice between overlapping, sizeless, global and local symbols turns.
 * What is absent on the machine is skipped with a message. */
#include <dlfcn.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include "symbols/safe_debuginfo.h"
#include "symbols/symbol_table.h"
#include "tests/check.h"

static const Dwfl_Callbacks callbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = safe_find_debuginfo,
    .section_address = dwfl_offline_section_address,
};

struct u64s {
    uint64_t *v;
    size_t n, cap;
};

static void add(struct u64s *a, uint64_t x)
{
    if (a->n == a->cap) {
        a->cap = a->cap ? 2 * a->cap : 1024;
        a->v = realloc(a->v, a->cap * sizeof *a->v);
        if (!a->v)
            abort();
    }
    a->v[a->n++] = x;
}

static int by_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static void sort_unique(struct u64s *a)
{
    if (!a->n)
        return;
    qsort(a->v, a->n, sizeof *a->v, by_u64);
    size_t k = 1;
    for (size_t i = 1; i < a->n; i++)
        if (a->v[i] != a->v[k - 1])
            a->v[k++] = a->v[i];
    a->n = k;
}

static struct {
    char *paths[256];
    size_t n;
} files;

static int is_elf(const char *path)
{
    int fd = open(path, O_RDONLY);
    char magic[4] = {0};
    int ok = fd >= 0 && read(fd, magic, 4) == 4 && memcmp(magic, ELFMAG, SELFMAG) == 0;
    if (fd >= 0)
        close(fd);
    return ok;
}

static void add_file(const char *path)
{
    char real[PATH_MAX];
    if (!path || !path[0] || !realpath(path, real) || !is_elf(real))
        return;
    for (size_t i = 0; i < files.n; i++)
        if (strcmp(files.paths[i], real) == 0)
            return;
    if (files.n < sizeof files.paths / sizeof *files.paths)
        files.paths[files.n++] = strdup(real);
}

/* The files mapped in a process whose /proc/PID/maps is read from IN. */
static size_t add_mapped(FILE *in)
{
    size_t before = files.n;
    char line[4096];
    while (fgets(line, sizeof line, in)) {
        line[strcspn(line, "\n")] = '\0';
        char *path = strchr(line, '/');
        if (path)
            add_file(path);
    }
    return files.n - before;
}

static void add_from_path(const char *name)
{
    const char *path = getenv("PATH");
    char buf[PATH_MAX];
    while (path && *path) {
        size_t len = strcspn(path, ":");
        snprintf(buf, sizeof buf, "%.*s/%s", (int)len, path, name);
        if (access(buf, X_OK) == 0 && is_elf(buf)) {
            add_file(buf);
            return;
        }
        path += len + (path[len] == ':');
    }
    printf("skipped: no %s executable (ELF) in PATH\n", name);
}

#define BIG_MODULE 12000

struct tally {
    size_t probes, named, sizeless, local;
};

/* Compares the table with libdw at every probe of the file at PATH. */
static void compare_file(const char *path, struct tally *total)
{
    Dwfl *dwfl = dwfl_begin(&callbacks);
    int fd = open(path, O_RDONLY);
    CHECK(dwfl && fd >= 0);
    if (!dwfl || fd < 0)
        return;
    dwfl_report_begin(dwfl);
    /* A bias like a shared object's in a process (ignored for ET_EXEC). */
    Dwfl_Module *mod = dwfl_report_elf(dwfl, path, path, fd, UINT64_C(0x7f3a12340000), true);
    dwfl_report_end(dwfl, NULL, NULL);
    if (!mod) {
        printf("skipped: libdw does not load %s\n", path);
        close(fd);
        dwfl_end(dwfl);
        return;
    }
    struct symbol_table *t = symbol_table_build(mod);
    CHECK(t != NULL);
    if (!t) {
        fprintf(stderr, "  no table for %s\n", path);
        dwfl_end(dwfl);
        return;
    }
    struct u64s probes = {0}, starts = {0};
    int n = dwfl_module_getsymtab(mod);
    int first_global = dwfl_module_getsymtab_first_global(mod);
    for (int i = 1; i < n; i++) {
        GElf_Sym sym;
        GElf_Addr value;
        if (!dwfl_module_getsym_info(mod, i, &sym, &value, NULL, NULL, NULL))
            continue;
        uint64_t end = value + sym.st_size;
        const uint64_t around[] = {value - 1, value, value + 1, end - 1, end, end + 1};
        for (size_t j = 0; j < sizeof around / sizeof *around; j++)
            add(&probes, around[j]);
        add(&starts, value);
    }
    sort_unique(&starts);
    for (size_t i = 1; i < starts.n; i++)
        add(&probes, starts.v[i - 1] + (starts.v[i] - starts.v[i - 1]) / 2);
    Dwarf_Addr bias;
    Elf *elf = dwfl_module_getelf(mod, &bias);
    for (Elf_Scn *scn = elf ? elf_nextscn(elf, NULL) : NULL; scn; scn = elf_nextscn(elf, scn)) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC))
            continue;
        add(&probes, sh.sh_addr + bias);
        add(&probes, sh.sh_addr + bias + sh.sh_size - 1);
        add(&probes, sh.sh_addr + bias + sh.sh_size);
    }
    sort_unique(&probes);
    /* libdw reads every symbol for every probe: in a module of more than
     * BIG_MODULE symbols (libpython), one probe in four, in address order,
     * keeps the test within half a minute (libc is probed whole). */
    size_t stride = symbol_table_size(t) > BIG_MODULE ? 4 : 1;
    size_t wrong = 0;
    struct tally here = {0};
    for (size_t i = 0; i < probes.n; i += stride) {
        uint64_t addr = probes.v[i];
        GElf_Off offset;
        GElf_Sym sym;
        GElf_Word shndx;
        const char *expected = dwfl_module_addrinfo(mod, addr, &offset, &sym, &shndx, NULL, NULL);
        uint64_t value = 0;
        unsigned char info = 0;
        const char *got = symbol_table_find(t, addr, &value, &info);
        here.probes++;
        if (expected) {
            here.named++;
            here.sizeless += sym.st_size == 0;
            here.local += GELF_ST_BIND(sym.st_info) == STB_LOCAL;
        }
        if (got == expected && (!got || (value == addr - offset && info == sym.st_info)))
            continue;
        if (wrong++ < 10)
            fprintf(stderr, "  %s: %#" PRIx64 ": libdw %s at %#" PRIx64 " info %u, table %s at %#" PRIx64
                    " info %u\n", path, addr, expected ? expected : "(none)",
                    expected ? addr - offset : 0, expected ? sym.st_info : 0,
                    got ? got : "(none)", value, info);
    }
    CHECK_EQ(wrong, 0);
    printf("%s: %zu symbols kept of %d (first global %d), %zu addresses, %zu named "
           "(%zu sizeless, %zu local), %zu differ\n", path, symbol_table_size(t), n, first_global,
           here.probes, here.named, here.sizeless, here.local, wrong);
    total->probes += here.probes;
    total->named += here.named;
    total->sizeless += here.sizeless;
    total->local += here.local;
    free(probes.v);
    free(starts.v);
    symbol_table_free(t);
    dwfl_end(dwfl);
}

int main(void)
{
    elf_version(EV_CURRENT);
    add_file(SYM_SAMPLE_PIE);
    add_file(SYM_SAMPLE_NOPIE);
    add_file(SYM_SAMPLE_LIB);
    add_file(SYM_SAMPLE_STRIPPED);
    add_file(SYM_SAMPLE_MINIDEBUG);
    if (!dlopen("libsqlite3.so.0", RTLD_LAZY | RTLD_LOCAL))
        printf("skipped: libsqlite3.so.0 (%s)\n", dlerror());
    FILE *self = fopen("/proc/self/maps", "r");
    CHECK(self != NULL);
    if (self) {
        add_mapped(self);
        fclose(self);
    }
    add_from_path("sqlite3");
    add_from_path("xz");
    /* python3 is often a script (pyenv); the interpreter maps its files. */
    FILE *py = popen("python3 -c 'import sys; sys.stdout.write(open(\"/proc/self/maps\").read())' "
                     "2>/dev/null", "r");
    size_t from_python = py ? add_mapped(py) : 0;
    if (py)
        pclose(py);
    if (!from_python)
        printf("skipped: python3 (not found or maps nothing new)\n");
    struct tally total = {0};
    for (size_t i = 0; i < files.n; i++)
        compare_file(files.paths[i], &total);
    /* The comparison must have met the cases the rules are about. */
    CHECK(files.n >= 5);
    CHECK(total.sizeless > 0);
    CHECK(total.local > 0);
    printf("%zu files, %zu addresses, %zu named (%zu by a sizeless symbol, %zu local)\n", files.n,
           total.probes, total.named, total.sizeless, total.local);
    for (size_t i = 0; i < files.n; i++)
        free(files.paths[i]);
    return check_report("test_symbol_table");
}
