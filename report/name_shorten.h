/* name_shorten: a long routine name made to fit a column, readably.
 *
 * Demangled C++ names run to hundreds of characters, most of them template
 * arguments and parameter types. Cutting from either end loses what tells
 * routines apart (`__memcpy_avx_unaligned_erms` and `__mempcpy_...` both
 * end in `naligned_erms`), so the name is simplified step by step until it
 * fits: the return type of a template function goes, then the parameter
 * list becomes `(...)` and a clone's ` [clone .isra.0]` `.isra.0`, then
 * template arguments are collapsed to `<...>`
 * from the innermost out; only a name still too long is cut, in the
 * middle, keeping its start and its end. Reports keep the full name in
 * JSON, CSV and the HTML page's hover text. */
#ifndef TRMS_NAME_SHORTEN_H
#define TRMS_NAME_SHORTEN_H

#include <stddef.h>

/* NAME in at most WIDTH characters (WIDTH >= 8) into OUT (OUT_SIZE bytes,
 * more than WIDTH); returns 1 when it had to be cut, 0 when it fits
 * whole or simplified. */
int name_shorten(const char *name, size_t width, char *out, size_t out_size);

/* Calls FN with each simplified form of NAME that name_shorten passes
 * through on its way (clones compacted, return type dropped, parameters
 * collapsed, templates collapsed from three deep to one), each once, so
 * that a short name a report printed can be found again. */
void name_short_forms(const char *name, void (*fn)(const char *form, void *arg), void *arg);

#endif
