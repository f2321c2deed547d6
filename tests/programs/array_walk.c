/* walk() reads each of its n ints once: its RMS is n * sizeof(int) / cell. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) long walk(const int *a, size_t n)
{
    long sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += a[i];
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
