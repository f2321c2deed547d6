/* json: string quoting for every JSON the CLI writes. */
#ifndef TRMS_JSON_H
#define TRMS_JSON_H

#include <stdio.h>

/* Writes S as a JSON string, quotes included. */
void json_string(FILE *out, const char *s);

#endif
