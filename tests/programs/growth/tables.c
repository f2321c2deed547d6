/* Table-driven code: a hash table build, a lookup-table popcount and a
 * matrix product. */
#include <string.h>

#include "corpus.h"

/* Open addressing with linear probing; the table is cleared first, so its
 * slots are written before they are read and only the keys are input. */
size_t hash_build(uint32_t *slots, size_t capacity, const uint32_t *keys, size_t n)
{
    memset(slots, 0xff, capacity * sizeof *slots);
    size_t stored = 0;
    for (size_t i = 0; i < n; i++) {
        size_t h = (keys[i] * 2654435761u) & (capacity - 1);
        while (slots[h] != UINT32_MAX && slots[h] != keys[i])
            h = (h + 1) & (capacity - 1);
        if (slots[h] == UINT32_MAX) {
            slots[h] = keys[i];
            stored++;
        }
    }
    return stored;
}

static const unsigned char bits_in_byte[256] = {
#define B2(n) n, n + 1, n + 1, n + 2
#define B4(n) B2(n), B2(n + 1), B2(n + 1), B2(n + 2)
#define B6(n) B4(n), B4(n + 1), B4(n + 1), B4(n + 2)
    B6(0), B6(1), B6(1), B6(2)};

/* Eight table reads whatever x is: its input (the distinct table entries
 * it reads) varies with x, its cost does not. */
unsigned popcount_table(uint64_t x)
{
    unsigned n = 0;
    for (int i = 0; i < 8; i++)
        n += bits_in_byte[(x >> (8 * i)) & 0xff];
    return n;
}

void matrix_multiply(const double *a, const double *b, double *c, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            double sum = 0;
            for (size_t k = 0; k < n; k++)
                sum += a[i * n + k] * b[k * n + j];
            c[i * n + j] = sum;
        }
}
