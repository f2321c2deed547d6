/* libsym_sample: a shared library whose functions the symbol tests name.
 * Built -g -O0; each *_line constant is the line of the declaration that
 * follows it, as DWARF records it. */
#include <stddef.h>

const int lib_count_vowels_line = __LINE__ + 1;
int lib_count_vowels(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == 'a' || *s == 'e' || *s == 'i' || *s == 'o' || *s == 'u';
    return n;
}

/* Local: only in .symtab, so a stripped copy names it through its
 * separate debuginfo. */
const int lib_hidden_sum_line = __LINE__ + 1;
static int lib_hidden_sum(const int *v, size_t n)
{
    int sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += v[i];
    return sum;
}

void *lib_hidden_sum_address(void)
{
    int v[2] = {1, 2};
    return lib_hidden_sum(v, 2) == 3 ? (void *)lib_hidden_sum : NULL;
}
