/* wordfreq: counts the words of a text, the case study of the input-sensitive
 * profiling papers. The reader thread read(2)s the text in small chunks and
 * cuts it into words; the counter thread lowercases and counts them.
 * str_tolower calls glibc's strlen in its loop condition, as the slides'
 * did, so its cost grows with the square of the word's length: a profile by
 * input size shows it, on long words (the slides' protein sequences). On
 * short ones glibc's strlen, which reads 32 bytes at a time, costs about
 * the same whatever the length, and the square does not show yet.
 *
 *   wordfreq FILE [TOP]      prints the TOP (default 10) most frequent words */
#include <ctype.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_WORD 8192
#define QUEUE 64
#define BUCKETS 4096

struct entry {
    char *word;
    long count;
    struct entry *next;
};

static struct entry *table[BUCKETS];
static char queue[QUEUE][MAX_WORD];
static int head, tail, done;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;

void str_tolower(char *s)
{
    for (size_t i = 0; i < strlen(s); i++)  /* the length, again and again */
        s[i] = (char)tolower((unsigned char)s[i]);
}

unsigned hash(const char *s)
{
    unsigned h = 5381;
    while (*s)
        h = h * 33 + (unsigned char)*s++;
    return h % BUCKETS;
}

void count_word(const char *word)
{
    unsigned h = hash(word);
    for (struct entry *e = table[h]; e; e = e->next)
        if (strcmp(e->word, word) == 0) {
            e->count++;
            return;
        }
    struct entry *e = malloc(sizeof *e);
    e->word = strdup(word);
    e->count = 1;
    e->next = table[h];
    table[h] = e;
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
    char word[MAX_WORD];
    while (take_word(word)) {
        str_tolower(word);
        count_word(word);
    }
    return NULL;
}

/* Reads the text through a small buffer and hands out its words. */
void read_words(int fd)
{
    char buf[128], word[MAX_WORD];
    size_t len = 0;
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0)
        for (ssize_t i = 0; i < n; i++) {
            if (isalpha((unsigned char)buf[i]) && len < MAX_WORD - 1) {
                word[len++] = buf[i];
            } else if (len > 0) {
                word[len] = '\0';
                put_word(word);
                len = 0;
            }
        }
    if (len > 0) {
        word[len] = '\0';
        put_word(word);
    }
}

int by_count(const void *a, const void *b)
{
    const struct entry *x = *(const struct entry *const *)a, *y = *(const struct entry *const *)b;
    return x->count != y->count ? (y->count > x->count) - (y->count < x->count)
                                : strcmp(x->word, y->word);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: wordfreq FILE [TOP]\n");
        return 2;
    }
    int fd = open(argv[1], O_RDONLY);
    if (fd < 0) {
        perror(argv[1]);
        return 1;
    }
    pthread_t thread;
    pthread_create(&thread, NULL, counter, NULL);
    read_words(fd);
    close(fd);
    pthread_mutex_lock(&lock);
    done = 1;
    pthread_cond_broadcast(&changed);
    pthread_mutex_unlock(&lock);
    pthread_join(thread, NULL);

    size_t n = 0;
    for (int b = 0; b < BUCKETS; b++)
        for (struct entry *e = table[b]; e; e = e->next)
            n++;
    struct entry **all = malloc((n ? n : 1) * sizeof *all);
    n = 0;
    for (int b = 0; b < BUCKETS; b++)
        for (struct entry *e = table[b]; e; e = e->next)
            all[n++] = e;
    qsort(all, n, sizeof *all, by_count);
    long top = argc > 2 ? atol(argv[2]) : 10;
    for (size_t i = 0; i < n && (long)i < top; i++)
        printf("%7ld %s\n", all[i]->count, all[i]->word);
    return 0;
}
