/* A bounded queue between producer and consumer threads, as pthread
 * programs write it: a ring of Q_CAPACITY slots under one mutex, two
 * condition variables (not full, not empty). PRODUCERS threads put ITEMS
 * values each, as many consumers take them. Its variables are the q_*
 * globals, for `trms explore --object 'q_*'` (bench/explore.sh).
 *
 *     bounded_queue [PRODUCERS [ITEMS]]      (default 2 producers, 8 items) */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define Q_CAPACITY 4

static int q_items[Q_CAPACITY];
static unsigned q_head, q_tail, q_count;
static pthread_mutex_t q_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t q_not_full = PTHREAD_COND_INITIALIZER;
static pthread_cond_t q_not_empty = PTHREAD_COND_INITIALIZER;
static long q_total;
static int items_each;

__attribute__((noinline)) static void put(int v)
{
    pthread_mutex_lock(&q_lock);
    while (q_count == Q_CAPACITY)
        pthread_cond_wait(&q_not_full, &q_lock);
    q_items[q_tail] = v;
    q_tail = (q_tail + 1) % Q_CAPACITY;
    q_count++;
    pthread_cond_signal(&q_not_empty);
    pthread_mutex_unlock(&q_lock);
}

__attribute__((noinline)) static int take(void)
{
    pthread_mutex_lock(&q_lock);
    while (q_count == 0)
        pthread_cond_wait(&q_not_empty, &q_lock);
    int v = q_items[q_head];
    q_head = (q_head + 1) % Q_CAPACITY;
    q_count--;
    pthread_cond_signal(&q_not_full);
    pthread_mutex_unlock(&q_lock);
    return v;
}

static void *producer(void *arg)
{
    int base = (int)(long)arg * 1000;
    for (int i = 1; i <= items_each; i++)
        put(base + i);
    return NULL;
}

static void *consumer(void *arg)
{
    (void)arg;
    long sum = 0;
    for (int i = 0; i < items_each; i++)
        sum += take();
    pthread_mutex_lock(&q_lock);
    q_total += sum;
    pthread_mutex_unlock(&q_lock);
    return NULL;
}

int main(int argc, char **argv)
{
    int producers = argc > 1 ? atoi(argv[1]) : 2;
    items_each = argc > 2 ? atoi(argv[2]) : 8;
    if (producers < 1 || producers > 64 || items_each < 0)
        return 2;
    pthread_t threads[128];
    for (int i = 0; i < producers; i++) {
        pthread_create(&threads[2 * i], NULL, consumer, NULL);
        pthread_create(&threads[2 * i + 1], NULL, producer, (void *)(long)i);
    }
    for (int i = 0; i < 2 * producers; i++)
        pthread_join(threads[i], NULL);
    printf("%ld\n", q_total);
    return 0;
}
