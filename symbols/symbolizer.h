/* symbolizer: names the code addresses of a recorded process.
 *
 * Fed the process's file-backed maps as they appear, it resolves an
 * address to the function symbol containing it (ELF .symtab or .dynsym,
 * of the file or of its separate debuginfo), the source file and line of
 * that function (DWARF), and whether the address is a PLT stub. Each file
 * is loaded once per distinct load bias, with libdw. The recorder asks
 * for every indirect jump target, so results are cached per address and a
 * repeated lookup is one hash probe.
 *
 * C++ names are returned mangled. */
#ifndef TRMS_SYMBOLIZER_H
#define TRMS_SYMBOLIZER_H

#include <stdint.h>

#include "symbols/memory_maps.h"

struct symbol_info {
    const char *name;   /* function containing the address, NULL if none */
    uint64_t entry;     /* that function's start in the process, 0 if unknown */
    int is_plt;         /* the address lies in .plt, .plt.sec or .plt.got */
    const char *file;   /* basename of the function's source file, or NULL */
    int line;           /* line of its declaration (else of its entry), 0 if unknown */
    const char *module; /* path of the mapped file, NULL when no map holds the address */
};

struct symbolizer;

struct symbolizer *symbolizer_new(void);
void symbolizer_free(struct symbolizer *s);

/* Adds a mapping of the process (a later one replaces what it overlaps).
 * 0 when its file is an ELF file the symbolizer can use; -1 when it is
 * not (unreadable, not ELF, no loadable segment at that offset, or a build
 * id that differs from the map's): addresses in it then resolve to the
 * module only. */
int symbolizer_add_map(struct symbolizer *s, const struct map_entry *map);

/* Forgets [START, END) (munmap). */
void symbolizer_remove_range(struct symbolizer *s, uint64_t start, uint64_t end);

/* The maps it holds now. */
const struct memory_maps *symbolizer_maps(const struct symbolizer *s);

/* Resolves ADDR into OUT (always filled). 0 when a function name was
 * found, -1 otherwise. The strings stay valid until symbolizer_free. */
int symbolizer_lookup(struct symbolizer *s, uint64_t addr, struct symbol_info *out);

/* symbolizer_lookup without the source file and line (left NULL and 0),
 * which cost a DWARF search: for the recorder, which only asks whether an
 * address is a PLT stub or a function's entry. */
int symbolizer_classify(struct symbolizer *s, uint64_t addr, struct symbol_info *out);

/* Where ADDR lies in the file mapped there, as perf and callgrind print
 * code no symbol covers: the file, and ADDR as an address of that file
 * (its ELF virtual address, what `addr2line -e FILE` and objdump take;
 * the file offset when the file cannot be read as ELF), with the source
 * line the line table gives for ADDR (FILE NULL, LINE 0 when none). */
struct code_location {
    const char *module;     /* path of the mapped file; NULL: no map holds ADDR */
    uint64_t module_addr;
    const char *file;       /* basename */
    int line;
};

/* Fills OUT (always); 0 when a map holds ADDR, -1 otherwise. The strings
 * stay valid until symbolizer_free. */
int symbolizer_locate(struct symbolizer *s, uint64_t addr, struct code_location *out);

/* True when ADDR is the first instruction of a known function. */
int symbolizer_is_function_entry(struct symbolizer *s, uint64_t addr);

#endif
