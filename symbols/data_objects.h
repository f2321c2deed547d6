/* data_objects: the global and static variables of a process, named from
 * the symbols of the files it mapped.
 *
 * A variable is an object symbol (STT_OBJECT) with a size, in a writable
 * allocated section that is not thread-local (.data, .bss and their
 * kin), from the file's .symtab, its separate debuginfo, or else its
 * .dynsym (libdw finds them as for code). Its address in the process is
 * the symbol's plus the file's load bias, which a mapping of the file
 * says. Aliases (two names, one address and size: environ and __environ)
 * are one object; an object overlapping the one before it in memory is
 * cut to start after it, so that every address belongs to one object at
 * most. */
#ifndef TRMS_DATA_OBJECTS_H
#define TRMS_DATA_OBJECTS_H

#include <stddef.h>
#include <stdint.h>

#include "symbols/memory_maps.h"

struct data_object {
    uint64_t start, size;   /* in the process */
    char *name;
    char *module;           /* the file's path */
    int global;             /* its binding: global (else a file's static) */
};

struct data_objects {
    struct data_object *items;  /* by start, disjoint, after data_objects_sort */
    size_t count, capacity;
};

void data_objects_init(struct data_objects *o);
void data_objects_free(struct data_objects *o);

/* Adds the variables of every ELF file in MAPS (with ONLY_PATH, of that
 * file only), each file once per load bias, and sorts. */
void data_objects_from_maps(struct data_objects *o, const struct memory_maps *maps,
                            const char *only_path);

/* Keeps the objects whose name matches one of the N shell PATTERNS (all
 * when N is 0). Returns the first pattern that matched nothing, or NULL. */
const char *data_objects_select(struct data_objects *o, const char *const *patterns, size_t n);

/* Sorts by address and makes the objects disjoint (see above). */
void data_objects_sort(struct data_objects *o);

/* The object holding ADDR, or NULL. */
const struct data_object *data_objects_find(const struct data_objects *o, uint64_t addr);

/* Index of the first object that ends after ADDR (count when none):
 * where a walk over the objects an access overlaps begins. */
size_t data_objects_first_after(const struct data_objects *o, uint64_t addr);

/* The names of the variables in the ELF file PATH (without addresses),
 * for checking names before the program runs: 0, or -1 when PATH is not
 * an ELF file libdw can read. */
int data_objects_names_in_file(const char *path, struct data_objects *out);

#endif
