/* visible: what a recording holds, made safe to show on a terminal.
 *
 * A recording from elsewhere can hold any bytes in its routine and file
 * names, its meta values, its paths: escape sequences that retitle or
 * clear a terminal, move its cursor, answer back. One rule says what may
 * reach a terminal as it is: printable ASCII, newline and tab, and valid
 * UTF-8 above the C1 controls. Anything else (C0 controls, DEL, C1
 * controls, a byte of no valid UTF-8 sequence) is shown as \xNN.
 *
 * trms applies it to whole streams: its standard error always (every line
 * there is its own), its standard output on a terminal, and the text
 * formats (report, diff, explore) wherever they go; data formats written
 * to a file (CSV, the text event format of export) keep the bytes as they
 * are, and JSON escapes the same characters by its own rules
 * (report/json.h). */
#ifndef TRMS_VISIBLE_H
#define TRMS_VISIBLE_H

#include <stddef.h>
#include <stdio.h>

/* The bytes of the character at P (N bytes available, N >= 1) that may
 * be shown as they are, or 0 when *P must be escaped. A UTF-8 sequence cut
 * by the end of the N bytes is -1: more bytes are needed to tell. */
int visible_char(const unsigned char *p, size_t n);

/* Writes S (LEN bytes) to OUT, escaped. */
void visible_write(FILE *out, const char *s, size_t len);

/* visible_write of a string. */
void visible_fputs(const char *s, FILE *out);

/* A stream that writes what it is given to RAW's descriptor, escaped;
 * closing it closes RAW when OWN. Line-buffered. NULL when it cannot be
 * made (then RAW is left as it was). */
FILE *visible_stream(FILE *raw, int own);

/* Escapes trms's standard error, and its standard output when that is a
 * terminal (main() calls it first). */
void visible_std_streams(void);

#endif
