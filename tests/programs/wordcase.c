/* wordcase: the word-frequency case study of the input-sensitive profiling
 * slides, reduced to what the report tests need.
 *
 * The main thread makes one word of each length MIN..MAX and queues it; the
 * counting thread lower-cases each word three ways and counts it:
 * str_tolower recomputes the length in its loop condition (quadratic in
 * the word's length), str_tolower_fixed computes it once (linear), and
 * lower_word does one or the other as MODE says. Then the main thread
 * sorts arrays of sizes SORTMIN (default 8) up to SORTMAX, growing by half
 * each time, with sort_numbers, a merge sort (n log n). The length is computed by text_length, a byte loop, rather
 * than libc's vectorized strlen, whose reads in aligned blocks would make
 * the input sizes move in steps of 32 bytes.
 *
 *   wordcase slow|fast MIN MAX [SORTMAX [SORTMIN]] */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_WORD 1024
#define QUEUE 8

static char queue[QUEUE][MAX_WORD];
static int head, tail, done;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static int lower_slowly;
static long counts[MAX_WORD];

size_t text_length(const char *s)
{
    size_t n = 0;
    while (s[n])
        n++;
    return n;
}

char lower_char(char c)
{
    return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

void str_tolower(char *s)
{
    for (size_t i = 0; i < text_length(s); i++) /* the length, again and again */
        s[i] = lower_char(s[i]);
}

void str_tolower_fixed(char *s)
{
    size_t n = text_length(s);
    for (size_t i = 0; i < n; i++)
        s[i] = lower_char(s[i]);
}

void lower_word(char *s)
{
    if (lower_slowly)
        str_tolower(s);
    else
        str_tolower_fixed(s);
}

void count_word(const char *word)
{
    counts[text_length(word)]++;
}

void put_word(const char *word)
{
    pthread_mutex_lock(&lock);
    while ((tail + 1) % QUEUE == head)
        pthread_cond_wait(&changed, &lock);
    strcpy(queue[tail], word);
    tail = (tail + 1) % QUEUE;
    pthread_cond_broadcast(&changed);
    pthread_mutex_unlock(&lock);
}

int take_word(char *word)
{
    pthread_mutex_lock(&lock);
    while (head == tail && !done)
        pthread_cond_wait(&changed, &lock);
    int got = head != tail;
    if (got) {
        strcpy(word, queue[head]);
        head = (head + 1) % QUEUE;
        pthread_cond_broadcast(&changed);
    }
    pthread_mutex_unlock(&lock);
    return got;
}

void *counter(void *arg)
{
    (void)arg;
    static char word[MAX_WORD], a[MAX_WORD], b[MAX_WORD], c[MAX_WORD];
    while (take_word(word)) {
        strcpy(a, word);
        strcpy(b, word);
        strcpy(c, word);
        str_tolower(a);
        str_tolower_fixed(b);
        lower_word(c);
        count_word(c);
    }
    return NULL;
}

static int scratch[1 << 16];

void merge_sort(int *a, int lo, int hi)
{
    if (hi - lo < 2)
        return;
    int mid = lo + (hi - lo) / 2;
    merge_sort(a, lo, mid);
    merge_sort(a, mid, hi);
    int i = lo, j = mid, k = lo;
    while (i < mid && j < hi)
        scratch[k++] = a[i] <= a[j] ? a[i++] : a[j++];
    while (i < mid)
        scratch[k++] = a[i++];
    while (j < hi)
        scratch[k++] = a[j++];
    for (k = lo; k < hi; k++)
        a[k] = scratch[k];
}

void sort_numbers(int *a, int n)
{
    merge_sort(a, 0, n);
}

int main(int argc, char **argv)
{
    if (argc < 4 || (strcmp(argv[1], "slow") != 0 && strcmp(argv[1], "fast") != 0)) {
        fprintf(stderr, "usage: wordcase slow|fast MIN MAX [SORTMAX [SORTMIN]]\n");
        return 2;
    }
    lower_slowly = strcmp(argv[1], "slow") == 0;
    int min = atoi(argv[2]), max = atoi(argv[3]), sort_max = argc > 4 ? atoi(argv[4]) : 0;
    int sort_min = argc > 5 ? atoi(argv[5]) : 8;
    if (min < 1 || max >= MAX_WORD || min > max || sort_max > (1 << 16) || sort_min < 2) {
        fprintf(stderr, "wordcase: lengths 1..%d, sizes up to %d\n", MAX_WORD - 1, 1 << 16);
        return 2;
    }
    pthread_t thread;
    pthread_create(&thread, NULL, counter, NULL);
    char word[MAX_WORD];
    for (int len = min; len <= max; len++) {
        for (int i = 0; i < len; i++)
            word[i] = (char)('A' + (i * 7 + len) % 26);
        word[len] = '\0';
        put_word(word);
    }
    pthread_mutex_lock(&lock);
    done = 1;
    pthread_cond_broadcast(&changed);
    pthread_mutex_unlock(&lock);
    pthread_join(thread, NULL);

    unsigned seed = 12345;
    int *numbers = malloc((size_t)(sort_max ? sort_max : 1) * sizeof *numbers);
    for (int n = sort_min; n <= sort_max; n += n / 2) {
        for (int i = 0; i < n; i++) {
            seed = seed * 1103515245u + 12345u;
            numbers[i] = (int)(seed >> 8);
        }
        sort_numbers(numbers, n);
    }
    free(numbers);
    int most = min;
    for (int len = min; len <= max; len++)
        if (counts[len] > counts[most])
            most = len;
    printf("%d words; length %d seen %ld times\n", max - min + 1, most, counts[most]);
    return 0;
}
