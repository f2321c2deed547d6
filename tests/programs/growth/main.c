/* growth_corpus: calls each routine of the corpus over a range of input
 * sizes, on data drawn from a fixed seed, so that every run is the same.
 *
 *   growth_corpus [full|small] [FAMILY...]
 *
 * `small` keeps every size small enough for the step engine (a ptrace step
 * per instruction); FAMILY names pick some of the families below (default:
 * all that were built). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static uint64_t next_random(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static int small;

/* Sizes from LO to HI, each about a quarter above the last. */
#define FOR_SIZES(n, lo, hi) for (size_t n = (lo); n <= (hi); n = n + (n + 3) / 4)

static void *checked(void *p)
{
    if (!p) {
        fprintf(stderr, "growth_corpus: out of memory\n");
        exit(1);
    }
    return p;
}

static void random_letters(char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t r = next_random();
        s[i] = (char)((r & 32 ? 'A' : 'a') + (r >> 8) % 26);
    }
    s[n] = '\0';
}

static void random_ints(int *a, size_t n)
{
    for (size_t i = 0; i < n; i++)
        a[i] = (int)(next_random() % 1000003);
}

static long sink;

static void run_strings(void)
{
    size_t max = small ? 160 : 4096;
    char *s = checked(malloc(2 * max + 1));
    FOR_SIZES(n, 8, max)
        for (int rep = 0; rep < 2; rep++) {
            random_letters(s, n);
            str_tolower(s);
            random_letters(s, 2 * n);
            str_tolower_hoisted(s);
        }
    free(s);

    size_t kmax = small ? 128 : 4096;
    char **v = checked(malloc(kmax * sizeof *v));
    for (size_t i = 0; i < kmax; i++) {
        size_t len = 1 + next_random() % 20;
        v[i] = checked(malloc(len + 1));
        random_letters(v[i], len);
    }
    enum { RECORD = 40 };
    char *src = checked(malloc(kmax * RECORD)), *dst = checked(malloc(kmax * RECORD));
    uint32_t *index = checked(malloc(kmax * sizeof *index));
    memset(src, 7, kmax * RECORD);
    for (size_t i = 0; i < kmax; i++)
        index[i] = (uint32_t)i;
    FOR_SIZES(k, 8, kmax) {
        sink += (long)sum_lengths(v + next_random() % (kmax - k + 1), k);
        /* K distinct records, in random order: each is read once. */
        for (size_t i = 0; i < k; i++) {
            size_t j = i + next_random() % (kmax - i);
            uint32_t t = index[i];
            index[i] = index[j];
            index[j] = t;
        }
        gather_records(dst, src, index, k, RECORD);
    }
    for (size_t i = 0; i < kmax; i++)
        free(v[i]);
    free(v);
    free(src);
    free(dst);
    free(index);
}

static void run_sorts(void)
{
    size_t max = small ? 160 : 16384, quadratic_max = small ? 160 : 1024;
    int *a = checked(malloc(max * sizeof *a)), *tmp = checked(malloc(max * sizeof *tmp));
    FOR_SIZES(n, 8, quadratic_max) {
        random_ints(a, n);
        insertion_sort(a, n);
    }
    FOR_SIZES(n, 8, max) {
        random_ints(a, n);
        sort_ints(a, n);
        random_ints(a, n);
        merge_sort(a, tmp, n);
    }
    free(a);
    free(tmp);
}

static void run_search(void)
{
    size_t max = small ? (size_t)1 << 12 : (size_t)1 << 20;
    int *a = checked(malloc(max * sizeof *a));
    for (size_t i = 0; i < max; i++)
        a[i] = (int)(2 * i);
    for (size_t n = 16; n <= max; n *= 2)
        for (int rep = 0; rep < (small ? 3 : 20); rep++)
            sink += search_sorted(a, n, (int)(next_random() % (2 * n)));
    free(a);
}

static void run_tables(void)
{
    size_t max = small ? 256 : 16384;
    uint32_t *keys = checked(malloc(max * sizeof *keys));
    uint32_t *slots = checked(malloc(4 * max * sizeof *slots));
    FOR_SIZES(n, 16, max) {
        for (size_t i = 0; i < n; i++)
            keys[i] = (uint32_t)next_random();
        size_t capacity = 1;
        while (capacity < 2 * n)
            capacity *= 2;
        sink += (long)hash_build(slots, capacity, keys, n);
    }
    free(keys);
    free(slots);

    /* Values with 1 to 8 distinct bytes. */
    for (int rep = 0; rep < (small ? 4 : 40); rep++)
        for (int distinct = 1; distinct <= 8; distinct++) {
            uint64_t x = 0;
            for (int i = 0; i < 8; i++)
                x |= (uint64_t)(((unsigned)rep * 31 + (unsigned)(i % distinct) * 17) & 0xff)
                     << (8 * i);
            sink += popcount_table(x);
        }

    size_t nmax = small ? 12 : 48;
    double *a = checked(malloc(nmax * nmax * sizeof *a)), *b = checked(malloc(nmax * nmax * sizeof *b));
    double *c = checked(malloc(nmax * nmax * sizeof *c));
    for (size_t i = 0; i < nmax * nmax; i++) {
        a[i] = (double)(next_random() % 100);
        b[i] = (double)(next_random() % 100);
    }
    FOR_SIZES(n, 3, nmax) {
        matrix_multiply(a, b, c, n);
        sink += (long)c[0];
    }
    free(a);
    free(b);
    free(c);
}

static void run_consumer(void)
{
    size_t max = small ? 48 : 512, total = 0;
    FOR_SIZES(n, 4, max)
        total += n;
    start_producer(total);
    FOR_SIZES(n, 4, max)
        sink += consume_batch(n);
    stop_producer();
}

#ifdef CORPUS_CXX
static void run_containers(void)
{
    size_t max = small ? 128 : 16384;
    int *a = checked(malloc(max * sizeof *a));
    FOR_SIZES(n, 16, max) {
        random_ints(a, n);
        sort_values(a, n);
        random_ints(a, n);
        sink += (long)build_map(a, n < 8192 ? n : 8192);
    }
    free(a);
}
#endif

static const struct family {
    const char *name;
    void (*run)(void);
} families[] = {
    {"strings", run_strings},   {"sorts", run_sorts},       {"search", run_search},
    {"tables", run_tables},     {"consumer", run_consumer},
#ifdef CORPUS_CXX
    {"containers", run_containers},
#endif
};

int main(int argc, char **argv)
{
    int first = 1;
    if (argc > 1 && (strcmp(argv[1], "small") == 0 || strcmp(argv[1], "full") == 0)) {
        small = strcmp(argv[1], "small") == 0;
        first = 2;
    }
    for (size_t f = 0; f < sizeof families / sizeof *families; f++) {
        int wanted = first >= argc;
        for (int i = first; i < argc; i++)
            wanted |= strcmp(argv[i], families[f].name) == 0;
        if (wanted)
            families[f].run();
    }
    printf("%ld\n", sink);
    return 0;
}
