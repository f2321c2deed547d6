/* symbol_table: the symbol libdw's dwfl_module_addrinfo names for an
 * address, found by binary search in a table built once per module.
 *
 * dwfl_module_addrinfo reads the module's whole symbol table for every
 * lookup (hundreds of thousands of instructions in libc or libsqlite3,
 * and the recorder asks for thousands of new addresses). The table keeps
 * the symbols libdw considers, sorted by address, and applies libdw's
 * choice among them (elfutils 0.188, libdwfl/dwfl_module_addrsym.c):
 *
 *  - a symbol with a size covers [value, value + size); among those
 *    covering the address, in libdw's table order, a later one replaces
 *    the one kept when it starts higher, or binds more strongly (GLOBAL >
 *    WEAK > LOCAL > others), or starts at the same address, is smaller
 *    and binds at least as strongly;
 *  - the global symbols are searched first, the local ones only when no
 *    global one applies (and no global sizeless symbol is exactly at the
 *    address);
 *  - with no covering symbol, a sizeless one (an assembly label) applies
 *    when it starts at the highest end of the symbols at or below the
 *    address, lies in the same section as the address (absolute and
 *    non-allocated ones: only at their own address), the last such in
 *    table order.
 *
 * tests/test_symbol_table.c compares every answer with libdw's on real
 * binaries. */
#ifndef TRMS_SYMBOL_TABLE_H
#define TRMS_SYMBOL_TABLE_H

#include <elfutils/libdwfl.h>
#include <stdint.h>

struct symbol_table;

/* The table of MOD's symbols; NULL when libdw's values of them are not
 * plain biased st_values (function descriptors, Thumb bits, relocatable
 * files, sizes that wrap): then only dwfl_module_addrinfo knows. A module
 * without symbols gets an empty table. The names point into MOD's data. */
struct symbol_table *symbol_table_build(Dwfl_Module *mod);
void symbol_table_free(struct symbol_table *t);

/* The name dwfl_module_addrinfo(MOD, ADDR) gives, or NULL; with it the
 * symbol's address in the process (ADDR minus libdw's offset) and its
 * st_info. */
const char *symbol_table_find(const struct symbol_table *t, uint64_t addr, uint64_t *value,
                              unsigned char *info);

/* Symbols kept, for the memory budget. */
size_t symbol_table_size(const struct symbol_table *t);

#endif
