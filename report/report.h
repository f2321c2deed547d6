/* report: the formats `trms report` prints a report model in (see
 * report_model.h), and the routine names they share. */
#ifndef TRMS_REPORT_H
#define TRMS_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analyses/result.h"

struct symbol_names;
struct report_model;

struct report_options {
    size_t top;             /* text, html: rows shown (by cost), 0 = all */
    int details;            /* text: each shown row's tuples and fits */
    int metric;             /* text: the growth column's metric (enum report_metric) */
};

/* Room for a routine label (demangled C++ names run to hundreds of
 * characters); longer ones are cut. */
#define REPORT_LABEL_MAX 4096

/* Demangles, in place, the C++ names among the routines' own names and the
 * stored SYMBOLS (either may be NULL), so that every format and export
 * shows source-level names. */
void report_demangle_names(struct routine_table *routines, struct symbol_names *symbols);

struct symbol_name;

/* The last component of PATH (NULL stays NULL). */
const char *report_module_name(const char *path);

/* A stored symbol as perf and callgrind print it: "name", "name+0x1a"
 * for a routine entered past the symbol's start, "0x190e0 [liblzma.so.5]"
 * (its address in the file mapped there, which addr2line takes) for one
 * no symbol covers, the address in hex when not even a file is known. */
const char *report_symbol_name(const struct symbol_name *sym, char buf[static REPORT_LABEL_MAX]);

/* The name reports use for routine ID of ROUTINES (ROUTINE_ROOT included):
 * its own name; for an address-only routine the symbol stored for its
 * address (report_symbol_name), else the address in hex. The JSON "name"
 * and the CSV routine column, so that scripts match bare names. BUF holds
 * REPORT_LABEL_MAX. */
const char *report_routine_name(const struct routine_table *routines,
                                const struct symbol_names *symbols, uint32_t id,
                                char buf[static REPORT_LABEL_MAX]);

/* The same with the source location when it is known, "name (file:line)",
 * else the file a symbol is in, "name [libc.so.6]": the label of the text
 * report. */
const char *report_routine_label(const struct routine_table *routines,
                                 const struct symbol_names *symbols, uint32_t id,
                                 char buf[static REPORT_LABEL_MAX]);

/* The stored symbol of routine ID when it is address-only, else NULL. */
const struct symbol_name *report_routine_symbol(const struct routine_table *routines,
                                                const struct symbol_names *symbols,
                                                uint32_t id);

/* The formats. */
int report_text(FILE *out, const struct report_model *m, const struct report_options *o);
int report_json(FILE *out, const struct report_model *m, const struct report_options *o);
int report_csv(FILE *out, const struct report_model *m, const struct report_options *o);
int report_html(FILE *out, const struct report_model *m, const struct report_options *o);

/* Decimal digits of V in BUF. */
const char *format_u128(unsigned __int128 v, char buf[static 40]);

/* V as JSON: a number, or null when it is not finite. */
void json_number(FILE *out, double v);

#endif
