/* symbol_store: the names of a recording's address-only routines.
 *
 * Resolved once, when the recording is made (the binaries may be gone by
 * the time it is analyzed), and kept in the recording's symbols file
 * (store/symbol_file.h), apart from the result store, which holds only
 * what can be rebuilt. Each name is a versioned entry: name, source file
 * and line, and where the routine lies in the file mapped there (format
 * 2; format 1, without it, is still read). A routine no symbol covers is
 * kept for its file and address alone, so that reports print it as perf
 * and callgrind do, `0x190e0 [liblzma.so.5]`, with an address `addr2line
 * -e FILE` takes. Recordings made before the symbols file existed keep
 * their names in the "symbols" database of the result store (key the
 * routine's entry address as 8 big-endian bytes, value the entry): they
 * are read from there until a save writes the file. */
#ifndef TRMS_SYMBOL_STORE_H
#define TRMS_SYMBOL_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "common/u64map.h"

#define SYMBOL_CODEC_VERSION 2

struct symbol_name {
    uint64_t addr;
    const char *name;   /* the symbol holding addr; NULL when none does */
    const char *file;   /* source file, NULL when unknown */
    int line;           /* 0 when unknown */
    uint64_t offset;    /* addr - the symbol's start: a routine entered past it */
    const char *module; /* path of the file mapped at addr; NULL when unknown */
    uint64_t module_addr; /* addr in that file: its ELF virtual address (what
                             addr2line and objdump take) */
};

/* Stores the N NAMES in the recording (or staging directory) at REC_PATH,
 * replacing earlier names of the same addresses, in one rename of the
 * symbols file; those with neither a name nor a module are left out.
 * Results stored there are untouched. */
int symbol_store_save(const char *rec_path, const struct symbol_name *names, size_t n,
                      struct trms_error *err);

/* The stored names, loaded: they own their strings. */
struct symbol_names {
    struct symbol_name *items;
    size_t count;
    struct u64map by_addr;  /* address -> index */
};

/* Loads every stored name into OUT (empty when the recording has none). */
int symbol_store_load(const char *rec_path, struct symbol_names *out, struct trms_error *err);

void symbol_names_init(struct symbol_names *names);
void symbol_names_free(struct symbol_names *names);

/* Adds (or replaces) the name of ADDR, copying the strings (FILE may be
 * NULL). */
void symbol_names_put(struct symbol_names *names, uint64_t addr, const char *name,
                      const char *file, int line);

/* The same with every field of NAME (copied; its strings may be NULL). */
void symbol_names_add(struct symbol_names *names, const struct symbol_name *name);

/* The name of the routine at ADDR, or NULL. NAMES may be NULL. */
const struct symbol_name *symbol_names_find(const struct symbol_names *names, uint64_t addr);

#endif
