/* A producer thread fills a small ring; consume_batch takes ITEMS values
 * from it. The ring's cells are the same few whatever ITEMS is, so the
 * consumer's RMS stays flat, while every value the producer wrote since
 * the consumer last read the cell is new input: its TRMS grows with ITEMS. */
#include <pthread.h>

#include "corpus.h"

#define RING 8

static long ring[RING];
static size_t head, tail, remaining;
static int stopping;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static pthread_t producer;

static void *produce(void *arg)
{
    (void)arg;
    long value = 1;
    pthread_mutex_lock(&lock);
    while (!stopping) {
        while (tail - head == RING && !stopping)
            pthread_cond_wait(&changed, &lock);
        if (remaining > 0 && tail - head < RING) {
            ring[tail++ % RING] = value++;
            remaining--;
            pthread_cond_broadcast(&changed);
        } else if (remaining == 0) {
            pthread_cond_wait(&changed, &lock);
        }
    }
    pthread_mutex_unlock(&lock);
    return NULL;
}

void start_producer(size_t total)
{
    remaining = total;
    pthread_create(&producer, NULL, produce, NULL);
}

void stop_producer(void)
{
    pthread_mutex_lock(&lock);
    stopping = 1;
    pthread_cond_broadcast(&changed);
    pthread_mutex_unlock(&lock);
    pthread_join(producer, NULL);
}

/* Some work per value, so that waiting for the producer is a small part
 * of the cost. */
static long digest(long v)
{
    unsigned long x = (unsigned long)v;
    for (int i = 0; i < 24; i++)
        x = (x ^ (x >> 29)) * 0xbf58476d1ce4e5b9u + (unsigned long)i;
    return (long)(x >> 1);
}

long consume_batch(size_t items)
{
    long sum = 0;
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < items; i++) {
        while (head == tail)
            pthread_cond_wait(&changed, &lock);
        sum += digest(ring[head++ % RING]);
        pthread_cond_broadcast(&changed);
    }
    pthread_mutex_unlock(&lock);
    return sum;
}
