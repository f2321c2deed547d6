/* sorting: insertion sort and merge sort of arrays of growing size; the
 * recording benchmark's compute-bound program (and a textbook pair of cost
 * functions, n^2 and n log n, for the profiles). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static void merge(int *a, int *tmp, size_t mid, size_t n)
{
    size_t i = 0, j = mid, k = 0;
    while (i < mid && j < n)
        tmp[k++] = a[i] <= a[j] ? a[i++] : a[j++];
    while (i < mid)
        tmp[k++] = a[i++];
    while (j < n)
        tmp[k++] = a[j++];
    memcpy(a, tmp, n * sizeof *a);
}

void merge_sort(int *a, int *tmp, size_t n)
{
    if (n < 2)
        return;
    size_t mid = n / 2;
    merge_sort(a, tmp, mid);
    merge_sort(a + mid, tmp, n - mid);
    merge(a, tmp, mid, n);
}

int main(int argc, char **argv)
{
    size_t max = argc > 1 ? strtoul(argv[1], NULL, 10) : 2000;
    unsigned seed = 1;
    long check = 0;
    int *a = malloc(max * sizeof *a), *tmp = malloc(max * sizeof *a);
    for (size_t n = 16; n <= max; n += n / 4) {
        for (size_t i = 0; i < n; i++)
            a[i] = (int)((seed = seed * 1103515245 + 12345) >> 8);
        insertion_sort(a, n);
        for (size_t i = 0; i < n; i++)
            a[i] = (int)((seed = seed * 1103515245 + 12345) >> 8);
        merge_sort(a, tmp, n);
        check += a[n / 2];
    }
    printf("%ld\n", check);
    return 0;
}
