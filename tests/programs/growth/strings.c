/* String routines that call glibc's strlen, memcpy and tolower, as users
 * write them. */
#include <ctype.h>
#include <string.h>

#include "corpus.h"

/* The slides' case: the length is recomputed on every iteration. */
void str_tolower(char *s)
{
    for (size_t i = 0; i < strlen(s); i++)
        s[i] = (char)tolower((unsigned char)s[i]);
}

void str_tolower_hoisted(char *s)
{
    size_t n = strlen(s);
    for (size_t i = 0; i < n; i++)
        s[i] = (char)tolower((unsigned char)s[i]);
}

size_t sum_lengths(char *const *v, size_t k)
{
    size_t total = 0;
    for (size_t i = 0; i < k; i++)
        total += strlen(v[i]);
    return total;
}

/* The record size is a variable, so memcpy stays a call. */
void gather_records(char *dst, const char *src, const uint32_t *index, size_t k,
                    size_t record_size)
{
    for (size_t i = 0; i < k; i++)
        memcpy(dst + i * record_size, src + (size_t)index[i] * record_size, record_size);
}
