/* symbol_store: the names of a recording's address-only routines.
 *
 * Resolved once, when the recording is made (the binaries may be gone by
 * the time it is analyzed), and kept in the recording's symbols file
 * (store/symbol_file.h), apart from the result store, which holds only
 * what can be rebuilt. Recordings made before that file existed keep their
 * names in the "symbols" database of the result store (key the routine's
 * entry address as 8 big-endian bytes, value the entry's encoding): they
 * are read from there until a save writes the file. */
#ifndef TRMS_SYMBOL_STORE_H
#define TRMS_SYMBOL_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "common/u64map.h"

#define SYMBOL_CODEC_VERSION 1

struct symbol_name {
    uint64_t addr;
    const char *name;
    const char *file;   /* NULL when unknown */
    int line;           /* 0 when unknown */
};

/* Stores the N NAMES in the recording (or staging directory) at REC_PATH,
 * replacing earlier names of the same addresses, in one rename of the
 * symbols file. Results stored there are untouched. */
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

/* The name of the routine at ADDR, or NULL. NAMES may be NULL. */
const struct symbol_name *symbol_names_find(const struct symbol_names *names, uint64_t addr);

#endif
