/* tiny: a few thousand instructions of work (built static, so that the
 * dynamic loader's hundred thousand do not dominate): what the benchmarks
 * run under an engine as slow as single-stepping (bench/record.sh). */
#include <stdio.h>

static unsigned checksum(const unsigned *v, unsigned n)
{
    unsigned sum = 0;
    for (unsigned i = 0; i < n; i++)
        sum = sum * 31 + v[i];
    return sum;
}

int main(void)
{
    unsigned v[256];
    for (unsigned i = 0; i < 256; i++)
        v[i] = i * i;
    printf("%u\n", checksum(v, 256));
    return 0;
}
