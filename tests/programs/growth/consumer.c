/* A producer thread fills a small ring; consume_batch takes ITEMS values
 * from it. The ring's cells are the same few whatever ITEMS is, so the
 * consumer's RMS stays flat, while every value the producer wrote since
 * the consumer last read the cell is new input: its TRMS grows with ITEMS.
 *
 * The two hand the ring over whole, in turns, by a one-byte token through
 * a pipe each way. A read of the pipe is one system call whether the token
 * is already there or the thread sleeps in the kernel until it comes, so
 * both threads run the same instructions and read the same cells whatever
 * the interleaving. (A mutex and condition variable do not: whether a
 * wait finds the other thread already done picks a different path through
 * glibc, with a different cost and other induced reads, and the verdict
 * then judges the scheduler's noise.) */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "corpus.h"

#define RING 8

static long ring[RING];
static size_t taken = RING;
static int handed_over;
static int to_consumer[2], to_producer[2];
static pthread_t producer;

static int pass_token(int fd)
{
    char token = 0;
    return write(fd, &token, 1) == 1;
}

static int take_token(int fd)
{
    char token;
    return read(fd, &token, 1) == 1;
}

static void *produce(void *arg)
{
    size_t remaining = (size_t)arg;
    long value = 1;
    while (remaining > 0) {
        size_t filled = remaining < RING ? remaining : RING;
        for (size_t i = 0; i < filled; i++)
            ring[i] = value++;
        remaining -= filled;
        if (!pass_token(to_consumer[1]) || (remaining > 0 && !take_token(to_producer[0])))
            break;
    }
    return NULL;
}

void start_producer(size_t total)
{
    if (pipe(to_consumer) != 0 || pipe(to_producer) != 0)
        abort();
    pthread_create(&producer, NULL, produce, (void *)total);
}

void stop_producer(void)
{
    /* The producer has stopped after the last value, or stops when its
     * read of the token finds the pipe closed. */
    close(to_producer[1]);
    pthread_join(producer, NULL);
    close(to_producer[0]);
    close(to_consumer[0]);
    close(to_consumer[1]);
}

/* Work per value, so that the hand-overs are a small part of the cost. */
static long digest(long v)
{
    unsigned long x = (unsigned long)v;
    for (int i = 0; i < 48; i++)
        x = (x ^ (x >> 29)) * 0xbf58476d1ce4e5b9u + (unsigned long)i;
    return (long)(x >> 1);
}

/* The caller takes no more values than it asked the producer for. */
long consume_batch(size_t items)
{
    long sum = 0;
    for (size_t i = 0; i < items; i++) {
        if (taken == RING) {
            if ((handed_over && !pass_token(to_producer[1])) || !take_token(to_consumer[0]))
                abort();
            handed_over = 1;
            taken = 0;
        }
        sum += digest(ring[taken++]);
    }
    return sum;
}
