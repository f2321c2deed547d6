#include "common/parse_number.h"

#include <string.h>

static int digit_value(char c, unsigned base)
{
    int v;
    if (c >= '0' && c <= '9')
        v = c - '0';
    else if (c >= 'a' && c <= 'f')
        v = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F')
        v = c - 'A' + 10;
    else
        return -1;
    return (unsigned)v < base ? v : -1;
}

enum parse_number_status parse_u64(const char *text, size_t len, uint64_t *out)
{
    unsigned base = 10;
    if (len > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
        base = 16;
        text += 2;
        len -= 2;
    }
    if (len == 0)
        return PARSE_NUMBER_INVALID;
    uint64_t value = 0;
    for (size_t i = 0; i < len; i++) {
        int d = digit_value(text[i], base);
        if (d < 0)
            return PARSE_NUMBER_INVALID;
        if (value > (UINT64_MAX - (uint64_t)d) / base)
            return PARSE_NUMBER_OVERFLOW;
        value = value * base + (uint64_t)d;
    }
    *out = value;
    return PARSE_NUMBER_OK;
}

enum parse_number_status parse_u64_cstr(const char *text, uint64_t *out)
{
    return parse_u64(text, strlen(text), out);
}
