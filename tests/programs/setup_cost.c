/* setup_cost: routines whose cost is a + b f(n) for each model the growth
 * verdict knows, with a large fixed set-up a, over spans of 4x to 64x (the
 * hand-made cases of growth_setup in tests/e2e/growth_e2e.py).
 *
 * The set-up is a loop in registers: it reads no memory, so it adds cost
 * and no input. Each routine then reads its n ints once or more, so that
 * its input size (RMS, 4-byte cells) is n, and does f(n) work on them:
 *
 *   constant_*   256 loads spread over the n ints (n <= 256): input n, cost fixed
 *   linear_*     a sum of the n ints
 *   nlogn_*      a merge sort of the n ints (in its own buffer)
 *   quadratic_*  every pair of the n ints
 *   cubic_*      every triple of the n ints
 *
 * A routine ending in _4x is called at sizes from its smallest to 4 times
 * that, a quarter octave apart, twice each; its set-up costs about as much
 * as its work at its largest size, so that at its smallest the set-up is
 * nearly all of its cost. (log n has no routine: reading n cells takes at
 * least n / 8 loads, so no cost grows as log n of its input; the unit test
 * covers it on synthetic data.) */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOINLINE __attribute__((noinline))

static long sink;

/* About 3 instructions an iteration, no memory. */
static inline unsigned long spin(unsigned long k)
{
    unsigned long x = k;
    for (unsigned long i = 0; i < k; i++)
        __asm__ volatile("" : "+r"(x));
    return x;
}

static inline long constant_work(const int *a, size_t n)
{
    long s = 0;
    for (size_t i = 0; i < 256; i++)
        s += a[i * n / 256];
    return s;
}

static inline long linear_work(const int *a, size_t n)
{
    long s = 0;
    for (size_t i = 0; i < n; i++)
        s += a[i];
    return s;
}

/* Top-down merge sort of FROM[0..n) through TO (both the routine's own
 * buffer): n log2 n element moves, smoothly, where a bottom-up sort would
 * make a step at every power of two. */
NOINLINE static void merge_sort(int *from, int *to, size_t n)
{
    if (n < 2)
        return;
    size_t half = n / 2;
    merge_sort(to, from, half);
    merge_sort(to + half, from + half, n - half);
    size_t i = 0, j = half, k = 0;
    while (i < half && j < n)
        from[k++] = to[i] <= to[j] ? to[i++] : to[j++];
    while (i < half)
        from[k++] = to[i++];
    while (j < n)
        from[k++] = to[j++];
}

static inline long nlogn_work(const int *a, size_t n, int *buf)
{
    for (size_t i = 0; i < n; i++)
        buf[i] = buf[n + i] = a[i];
    merge_sort(buf, buf + n, n);
    return buf[n / 2];
}

static inline long quadratic_work(const int *a, size_t n)
{
    long s = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            s += a[i] ^ a[j];
    return s;
}

static inline long cubic_work(const int *a, size_t n)
{
    long s = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            for (size_t k = 0; k < n; k++)
                s += (a[i] + a[j]) ^ a[k];
    return s;
}

/* One routine per model and span, each with its own set-up. */
#define ROUTINE(name, work)                                                                 \
    NOINLINE long name(const int *a, size_t n, int *buf, unsigned long setup)              \
    {                                                                                      \
        (void)buf;                                                                         \
        return (long)spin(setup) + work;                                                   \
    }
#define SPANS(model, work)                                                                 \
    ROUTINE(model##_4x, work) ROUTINE(model##_8x, work) ROUTINE(model##_16x, work)         \
        ROUTINE(model##_64x, work)

SPANS(constant, constant_work(a, n))
SPANS(linear, linear_work(a, n))
SPANS(nlogn, nlogn_work(a, n, buf))
SPANS(quadratic, quadratic_work(a, n))
SPANS(cubic, cubic_work(a, n))

typedef long routine(const int *, size_t, int *, unsigned long);

static const struct {
    routine *fn;
    size_t smallest, span;
    double per_unit; /* set-up iterations per unit of f at the largest size */
    int model;       /* 0 constant, 1 linear, 2 n log n, 3 n^2, 4 n^3 */
} cases[] = {
    {constant_4x, 4, 4, 2, 0},   {constant_8x, 4, 8, 2, 0},   {constant_16x, 4, 16, 2, 0},
    {constant_64x, 4, 64, 2, 0}, {linear_4x, 16, 4, 2, 1},    {linear_8x, 16, 8, 2, 1},
    {linear_16x, 16, 16, 2, 1},  {linear_64x, 16, 64, 2, 1},  {nlogn_4x, 16, 4, 3, 2},
    {nlogn_8x, 16, 8, 3, 2},     {nlogn_16x, 16, 16, 3, 2},   {nlogn_64x, 16, 64, 3, 2},
    {quadratic_4x, 8, 4, 2, 3},  {quadratic_8x, 8, 8, 2, 3},  {quadratic_16x, 8, 16, 2, 3},
    {quadratic_64x, 8, 64, 2, 3}, {cubic_4x, 2, 4, 2, 4},     {cubic_8x, 2, 8, 2, 4},
    {cubic_16x, 2, 16, 2, 4},    {cubic_64x, 2, 64, 2, 4},
};

static double work_units(int model, double n)
{
    double logn = 0;
    for (double m = n; m > 1; m /= 2)
        logn++;
    const double units[] = {256, n, n * logn, n * n, n * n * n};
    return units[model];
}

int main(void)
{
    size_t most = 4096;
    int *a = malloc(most * sizeof *a), *buf = malloc(2 * most * sizeof *buf);
    if (!a || !buf)
        return 1;
    unsigned seed = 1;
    for (size_t i = 0; i < most; i++) {
        seed = seed * 1103515245u + 12345u;
        a[i] = (int)(seed >> 8);
    }
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        size_t top = cases[c].smallest * cases[c].span;
        unsigned long setup =
            (unsigned long)(cases[c].per_unit * work_units(cases[c].model, (double)top));
        for (size_t n = cases[c].smallest; n <= top; n = n + (n + 4) / 5)
            for (int twice = 0; twice < 2; twice++)
                sink += cases[c].fn(a, n, buf, setup);
        /* the largest size itself, whatever the steps hit */
        for (int twice = 0; twice < 2; twice++)
            sink += cases[c].fn(a, top, buf, setup);
    }
    printf("%ld\n", sink & 1);
    return 0;
}
