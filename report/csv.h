/* csv: RFC 4180 quoting of one field, for every CSV the CLI writes. */
#ifndef TRMS_CSV_H
#define TRMS_CSV_H

#include <stdio.h>

void csv_field(FILE *out, const char *text);

#endif
