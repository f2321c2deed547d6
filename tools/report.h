/* report: the formats `trms report` prints a stored result in. */
#ifndef TRMS_REPORT_H
#define TRMS_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analyses/result.h"

struct symbol_names;

struct report_options {
    const char *recording;  /* path, for the heading */
    size_t top;             /* text: routines shown, 0 = all */
    const char *routine;    /* text: also print this routine's tuples */
    const struct symbol_names *symbols; /* names of address-only routines, or NULL */
};

/* Room for a routine label; longer ones are cut. */
#define REPORT_LABEL_MAX 512

/* The name reports use for routine ID of ROUTINES (ROUTINE_ROOT included):
 * its own name; for an address-only routine the symbol name stored for
 * its address, else the address in hex. The JSON "name" and the CSV
 * routine column, so that scripts match bare names. BUF holds
 * REPORT_LABEL_MAX. */
const char *report_routine_name(const struct routine_table *routines,
                                const struct symbol_names *symbols, uint32_t id,
                                char buf[static REPORT_LABEL_MAX]);

/* The same with the source location when it is known, "name (file:line)":
 * the label of the text report. */
const char *report_routine_label(const struct routine_table *routines,
                                 const struct symbol_names *symbols, uint32_t id,
                                 char buf[static REPORT_LABEL_MAX]);

/* The stored symbol of routine ID when it is address-only, else NULL. */
const struct symbol_name *report_routine_symbol(const struct routine_table *routines,
                                                const struct symbol_names *symbols,
                                                uint32_t id);

/* True when --routine TEXT names routine ID: its name (a symbol name for
 * an address-only routine) or its address in hex. */
int report_routine_matches(const struct routine_table *routines,
                           const struct symbol_names *symbols, uint32_t id, const char *text);

/* Each returns -1, having printed nothing, when the options ask for
 * something the result lacks (a routine it never saw). */
int report_text(FILE *out, const struct analysis_result *r, const struct report_options *o);
int report_json(FILE *out, const struct analysis_result *r, const struct report_options *o);
int report_csv(FILE *out, const struct analysis_result *r, const struct report_options *o);

/* Decimal digits of V in BUF. */
const char *format_u128(unsigned __int128 v, char buf[static 40]);

/* Profiles ordered by cumulative cost, highest first (ties by name, then
 * thread); the caller frees the array of pointers. */
const struct routine_profile **profiles_by_cost(const struct analysis_result *r,
                                                const struct symbol_names *symbols);

#endif
