/* parse_number: the project's one way to read an unsigned number from text,
 * decimal or 0x hexadecimal, rejecting signs, junk and overflow. */
#ifndef TRMS_PARSE_NUMBER_H
#define TRMS_PARSE_NUMBER_H

#include <stddef.h>
#include <stdint.h>

enum parse_number_status {
    PARSE_NUMBER_OK = 0,
    PARSE_NUMBER_INVALID,   /* empty, sign, or a character that is no digit */
    PARSE_NUMBER_OVERFLOW,  /* does not fit in 64 bits */
};

/* Parses exactly LEN bytes at TEXT. */
enum parse_number_status parse_u64(const char *text, size_t len, uint64_t *out);

/* Parses a NUL-terminated string. */
enum parse_number_status parse_u64_cstr(const char *text, uint64_t *out);

#endif
