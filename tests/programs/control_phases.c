/* Runs the phases its standard input names, one line each ("a 300" runs
 * phase_a 300 times), and says "done" on standard output after each: a
 * test turns collection on and off with `trms control` while the program
 * waits for its next line, and knows exactly which phases a window holds. */
#include <stdio.h>
#include <stdlib.h>

static volatile unsigned cells[64];

__attribute__((noinline)) static unsigned phase_a(unsigned k)
{
    unsigned sum = 0;
    for (unsigned i = 0; i < 16; i++)
        sum += cells[(i + k) % 64];
    return sum;
}

__attribute__((noinline)) static unsigned phase_b(unsigned k)
{
    for (unsigned i = 0; i < 16; i++)
        cells[(i * 3 + k) % 64] = k + i;
    return k;
}

int main(void)
{
    char line[64];
    unsigned total = 0;
    while (fgets(line, sizeof line, stdin)) {
        unsigned n = (unsigned)strtoul(line + 1, NULL, 10);
        for (unsigned k = 0; k < n; k++)
            total += line[0] == 'a' ? phase_a(k) : phase_b(k);
        printf("done %u\n", total);
        fflush(stdout);
    }
    return 0;
}
