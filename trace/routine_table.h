/* routine_table: the routines a trace names, indexed densely from 0.
 *
 * A routine is known by a symbol name (text traces, resolved recordings) or
 * only by its entry address (engines that see raw code; names come later
 * from the symbol store). Call events refer to routines by index. */
#ifndef TRMS_ROUTINE_TABLE_H
#define TRMS_ROUTINE_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "common/u64map.h"

struct routine {
    char *name;     /* NULL when only the address is known */
    uint64_t addr;  /* entry address, 0 when unknown */
};

struct routine_table {
    struct routine *items;
    size_t count;
    size_t capacity;
    struct u64map by_name;  /* name hash (probed on collision) -> index */
    struct u64map by_addr;  /* address of an address-only routine -> index */
    uint64_t addr_tag;      /* ORed into addresses interned (routine_table_tag_addresses) */
};

void routine_table_init(struct routine_table *table);
void routine_table_free(struct routine_table *table);

/* Index of the routine named NAME[0..LEN), added when new. -1 when the
 * table is full (2^32 - 2 routines). */
int routine_table_intern_name(struct routine_table *table, const char *name,
                              size_t len, uint32_t *id);

/* From now on, addresses interned are ADDR | TAG (bits above the 48 of
 * user addresses): a program exec'd within a recording has routines of its
 * own at the addresses the previous program used, and they must not be
 * taken for the old ones (nor named after them). */
void routine_table_tag_addresses(struct routine_table *table, uint64_t tag);

/* The address bits of a routine's (possibly tagged) address. */
#define ROUTINE_ADDR_MASK ((UINT64_C(1) << 56) - 1)

/* Index of the address-only routine at ADDR (tagged as above), added when
 * new; -1 when full. */
int routine_table_intern_addr(struct routine_table *table, uint64_t addr, uint32_t *id);

/* Appends a routine as a binary trace defines it (NAME may be NULL).
 * Duplicates are allowed here: the trace, not the table, owns identity. */
int routine_table_append(struct routine_table *table, const char *name, size_t len,
                         uint64_t addr, uint32_t *id);

/* Makes DST (uninitialized) an independent copy of SRC. */
void routine_table_copy(struct routine_table *dst, const struct routine_table *src);

/* What a report prints for routine ID: its name, else its address in hex.
 * BUF receives the address form and must hold 19 bytes. */
const char *routine_table_label(const struct routine_table *table, uint32_t id,
                                char buf[static 19]);

#endif
