/* A producer thread fills a small ring; consume_batch takes ITEMS values
 * from it. The ring's cells are the same few whatever ITEMS is, so the
 * consumer's RMS stays flat, while every value the producer wrote since
 * the consumer last read the cell is new input: its TRMS grows with ITEMS.
 *
 * The two hand the ring over whole, in turns, under one lock that the
 * consumer holds but while it waits: it waits exactly once per ring, in
 * whatever order the threads are scheduled, so that its cost and input do
 * not depend on the interleaving. */
#include <pthread.h>

#include "corpus.h"

#define RING 8

static long ring[RING];
static size_t filled, taken, remaining;
static int consumers_turn, stopping;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static pthread_t producer;

static void *produce(void *arg)
{
    (void)arg;
    long value = 1;
    pthread_mutex_lock(&lock);
    for (;;) {
        while ((consumers_turn || remaining == 0) && !stopping)
            pthread_cond_wait(&changed, &lock);
        if (stopping)
            break;
        filled = remaining < RING ? remaining : RING;
        for (size_t i = 0; i < filled; i++)
            ring[i] = value++;
        taken = 0;
        remaining -= filled;
        consumers_turn = 1;
        pthread_cond_broadcast(&changed);
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

/* Work per value, so that the waits are a small part of the cost. */
static long digest(long v)
{
    unsigned long x = (unsigned long)v;
    for (int i = 0; i < 48; i++)
        x = (x ^ (x >> 29)) * 0xbf58476d1ce4e5b9u + (unsigned long)i;
    return (long)(x >> 1);
}

long consume_batch(size_t items)
{
    long sum = 0;
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < items; i++) {
        while (!consumers_turn)
            pthread_cond_wait(&changed, &lock);
        sum += digest(ring[taken++]);
        if (taken == filled) {
            consumers_turn = 0;
            pthread_cond_broadcast(&changed);
        }
    }
    pthread_mutex_unlock(&lock);
    return sum;
}
