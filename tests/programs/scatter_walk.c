/* walk() reads n ints of an array in a pseudo-random order (a linear
 * congruential sequence): a trace whose addresses no encoding predicts,
 * so that its size on disk stays near a few bytes an access. The fault
 * tests use it where a full trace must outgrow a small disk. */
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>

__attribute__((noinline)) long walk(const int *a, size_t n)
{
    long sum = 0;
    uint64_t x = 1;
    for (size_t i = 0; i < n; i++) {
        x = x * 6364136223846793005u + 1442695040888963407u;
        sum += a[(x >> 33) % n];
    }
    return sum;
}

int main(int argc, char **argv)
{
    /* argv: the sizes to walk */
    long total = 0;
    for (int i = 1; i < argc; i++) {
        size_t n = strtoul(argv[i], NULL, 10);
        int *a = malloc(n * sizeof *a);
        for (size_t j = 0; j < n; j++)
            a[j] = (int)j;
        total += walk(a, n);
        free(a);
    }
    printf("%ld\n", total);
    return 0;
}
