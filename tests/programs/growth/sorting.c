/* Sorting and searching. */
#include <stdlib.h>
#include <string.h>

#include "corpus.h"

void insertion_sort(int *a, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        int v = a[i];
        size_t j = i;
        while (j > 0 && a[j - 1] > v) {
            a[j] = a[j - 1];
            j--;
        }
        a[j] = v;
    }
}

static int compare_ints(const void *x, const void *y)
{
    int a = *(const int *)x, b = *(const int *)y;
    return (a > b) - (a < b);
}

/* At -O2 this is `jmp qsort`: the wrapper's activation is qsort's. */
void sort_ints(int *a, size_t n)
{
    qsort(a, n, sizeof *a, compare_ints);
}

static void merge(int *a, int *tmp, size_t half, size_t n)
{
    size_t i = 0, j = half, k = 0;
    while (i < half && j < n)
        tmp[k++] = a[j] < a[i] ? a[j++] : a[i++];
    while (i < half)
        tmp[k++] = a[i++];
    while (j < n)
        tmp[k++] = a[j++];
    memcpy(a, tmp, n * sizeof *a);
}

void merge_sort(int *a, int *tmp, size_t n)
{
    if (n < 2)
        return;
    size_t half = n / 2;
    merge_sort(a, tmp, half);
    merge_sort(a + half, tmp + half, n - half);
    merge(a, tmp, half, n);
}

long search_sorted(const int *a, size_t n, int key)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (a[mid] < key)
            lo = mid + 1;
        else if (a[mid] > key)
            hi = mid;
        else
            return (long)mid;
    }
    return -1;
}
