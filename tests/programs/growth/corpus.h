/* The growth corpus: routines of known growth, compiled as users compile
 * (-O2 -g, glibc, libstdc++), that the verdict tests record. Each routine
 * lives in a file apart from the driver so that the optimizer cannot fold
 * it into its caller, as in a real program built from many files. */
#ifndef CORPUS_H
#define CORPUS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* strings.c */
void str_tolower(char *s);                /* strlen in the loop condition: n^2 */
void str_tolower_hoisted(char *s);        /* strlen once, tolower per byte: n */
size_t sum_lengths(char *const *v, size_t k); /* strlen of k short strings: n */
void gather_records(char *dst, const char *src, const uint32_t *index, size_t k,
                    size_t record_size);  /* k memcpy calls: n */

/* sorting.c */
void insertion_sort(int *a, size_t n);    /* n^2 */
void sort_ints(int *a, size_t n);         /* ends in a tail call of qsort: n log n */
void merge_sort(int *a, int *tmp, size_t n); /* recursive: n log n */
long search_sorted(const int *a, size_t n, int key); /* binary search: linear in its RMS */

/* tables.c */
size_t hash_build(uint32_t *slots, size_t capacity, const uint32_t *keys, size_t n); /* n */
unsigned popcount_table(uint64_t x);      /* 8 table reads whatever x: 1 */
void matrix_multiply(const double *a, const double *b, double *c, size_t n); /* RMS^1.5 */

/* consumer.c */
long consume_batch(size_t items);         /* TRMS ~ items, RMS flat */
void start_producer(size_t total);
void stop_producer(void);

/* containers.cc */
void sort_values(int *values, size_t n);  /* std::sort: n log n */
size_t build_map(const int *keys, size_t n); /* std::map of n keys: n log n */

#ifdef __cplusplus
}
#endif

#endif
