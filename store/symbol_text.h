/* symbol_text: a recording's routine names carried through the text event
 * format, so that `trms export` then `trms import` keeps the names, source
 * lines and modules of the routines known by address:
 *
 *   #@symbol ADDR<TAB>NAME<TAB>FILE<TAB>LINE<TAB>OFFSET<TAB>MODULE<TAB>MODULE_ADDR
 *
 * numbers in 0x hex or decimal, an empty field for what is unknown, and a
 * tab, newline or backslash inside a field written \t, \n, \\. To a reader
 * that does not know the line, it is a comment. */
#ifndef TRMS_SYMBOL_TEXT_H
#define TRMS_SYMBOL_TEXT_H

#include <stdio.h>

#include "common/error.h"
#include "store/symbol_store.h"

/* The keyword after "#@". */
#define SYMBOL_TEXT_KEYWORD "symbol"

/* Writes the line of NAME. */
void symbol_text_write(FILE *out, const struct symbol_name *name);

/* Adds the name LINE (what follows "#@symbol ") holds to NAMES: 0, or -1
 * with ERR saying what is wrong with it. */
int symbol_text_parse(const char *line, struct symbol_names *names, struct trms_error *err);

#endif
