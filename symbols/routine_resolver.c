#include "symbols/routine_resolver.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/oom.h"

/* A mapping (path owned) or, with no path, a routine's address. */
struct item {
    struct map_entry map;
    uint64_t addr;
};

struct queue {
    struct item *items;
    size_t count, capacity;
};

struct routine_resolver {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    struct queue pending;       /* under LOCK */
    int stopping;               /* under LOCK */
    struct symbolizer *symbols; /* the thread's until it has stopped */
};

/* Its work waits for the cores to be idle rather than slow the program:
 * whatever is left when the program ends, the caller does itself. */
#define RESOLVER_NICENESS 10

static void queue_free(struct queue *q)
{
    for (size_t i = 0; i < q->count; i++)
        free(q->items[i].map.path);
    free(q->items);
    *q = (struct queue){0};
}

static void push(struct routine_resolver *rr, struct item item)
{
    pthread_mutex_lock(&rr->lock);
    struct queue *q = &rr->pending;
    if (q->count == q->capacity) {
        q->capacity = q->capacity ? 2 * q->capacity : 256;
        q->items = xrealloc(q->items, q->capacity * sizeof *q->items);
    }
    q->items[q->count++] = item;
    pthread_cond_signal(&rr->wake);
    pthread_mutex_unlock(&rr->lock);
}

/* Takes everything queued, waiting for something; 0 once stopping. */
static int take(struct routine_resolver *rr, struct queue *out)
{
    pthread_mutex_lock(&rr->lock);
    while (rr->pending.count == 0 && !rr->stopping)
        pthread_cond_wait(&rr->wake, &rr->lock);
    int go_on = !rr->stopping;
    if (go_on) {
        *out = rr->pending;
        rr->pending = (struct queue){0};
    }
    pthread_mutex_unlock(&rr->lock);
    return go_on;
}

static int stopping(struct routine_resolver *rr)
{
    pthread_mutex_lock(&rr->lock);
    int stop = rr->stopping;
    pthread_mutex_unlock(&rr->lock);
    return stop;
}

static void *resolve_in_background(void *arg)
{
    struct routine_resolver *rr = arg;
    setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), RESOLVER_NICENESS);
    struct queue work;
    while (take(rr, &work)) {
        for (size_t i = 0; i < work.count && !stopping(rr); i++) {
            struct symbol_info info;
            if (work.items[i].map.path)
                symbolizer_add_map(rr->symbols, &work.items[i].map);
            else
                symbolizer_lookup(rr->symbols, work.items[i].addr, &info);
        }
        queue_free(&work);
    }
    return NULL;
}

struct routine_resolver *routine_resolver_start(void)
{
    struct routine_resolver *rr = xcalloc(1, sizeof *rr);
    rr->symbols = symbolizer_new();
    pthread_mutex_init(&rr->lock, NULL);
    pthread_cond_init(&rr->wake, NULL);
    if (pthread_create(&rr->thread, NULL, resolve_in_background, rr) != 0) {
        symbolizer_free(rr->symbols);
        pthread_mutex_destroy(&rr->lock);
        pthread_cond_destroy(&rr->wake);
        free(rr);
        return NULL;
    }
    return rr;
}

void routine_resolver_map(struct routine_resolver *rr, const struct map_entry *map)
{
    struct item item = {.map = *map};
    item.map.path = xstrdup(map->path);
    push(rr, item);
}

void routine_resolver_routine(struct routine_resolver *rr, uint64_t addr)
{
    push(rr, (struct item){.addr = addr});
}

struct symbolizer *routine_resolver_finish(struct routine_resolver *rr)
{
    pthread_mutex_lock(&rr->lock);
    rr->stopping = 1;
    pthread_cond_signal(&rr->wake);
    pthread_mutex_unlock(&rr->lock);
    pthread_join(rr->thread, NULL);
    struct symbolizer *s = rr->symbols;
    queue_free(&rr->pending);
    pthread_mutex_destroy(&rr->lock);
    pthread_cond_destroy(&rr->wake);
    free(rr);
    return s;
}
