/* A producer/consumer pipeline over a bounded queue (a mutex, two
 * condition variables) for the causal predictions: produce() is the
 * routine cut by CUT percent. Uncut, the producer is the bottleneck and
 * the consumer waits on an empty queue; cut by half or more, the consumer
 * is, and the producer waits on a full one. */
#include <pthread.h>
#include <stdio.h>

#include "causal_work.h"

#define ITEMS 24
#define CAPACITY 3
#define PRODUCE 400000L
#define CONSUME 260000L

static struct {
    pthread_mutex_t lock;
    pthread_cond_t not_empty, not_full;
    long items[CAPACITY];
    int head, count;
} queue = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER,
           {0}, 0, 0};

static volatile long sink;

__attribute__((noinline)) long produce(int i) { return work(CUT_ITERATIONS(PRODUCE)) + i; }
__attribute__((noinline)) long consume(long item) { return work(CONSUME) + item; }

static void push(long item)
{
    pthread_mutex_lock(&queue.lock);
    while (queue.count == CAPACITY)
        pthread_cond_wait(&queue.not_full, &queue.lock);
    queue.items[(queue.head + queue.count++) % CAPACITY] = item;
    pthread_cond_signal(&queue.not_empty);
    pthread_mutex_unlock(&queue.lock);
}

static long pop(void)
{
    pthread_mutex_lock(&queue.lock);
    while (queue.count == 0)
        pthread_cond_wait(&queue.not_empty, &queue.lock);
    long item = queue.items[queue.head];
    queue.head = (queue.head + 1) % CAPACITY;
    queue.count--;
    pthread_cond_signal(&queue.not_full);
    pthread_mutex_unlock(&queue.lock);
    return item;
}

static void *producer(void *arg)
{
    for (int i = 0; i < ITEMS; i++)
        push(produce(i));
    return arg;
}

static void *consumer(void *arg)
{
    for (int i = 0; i < ITEMS; i++)
        sink += consume(pop());
    return arg;
}

int main(void)
{
    pthread_t p, c;
    if (pthread_create(&p, NULL, producer, NULL) != 0 ||
        pthread_create(&c, NULL, consumer, NULL) != 0)
        return 1;
    pthread_join(p, NULL);
    pthread_join(c, NULL);
    printf("%ld\n", sink);
    return 0;
}
