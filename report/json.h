/* json: string quoting for every JSON the CLI writes. */
#ifndef TRMS_JSON_H
#define TRMS_JSON_H

#include <stdio.h>

/* Writes S as a JSON string, quotes included: control characters (C0,
 * DEL, C1) as \u escapes, and a byte of no valid UTF-8 sequence as the
 * code point of its value, so that the JSON is valid UTF-8 and nothing
 * raw reaches a terminal (common/visible.h). */
void json_string(FILE *out, const char *s);

#endif
