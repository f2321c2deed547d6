/* record_analysis: the analysis of `trms record` (see record_analysis.h). */
#include "tools/record_analysis.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/oom.h"
#include "store/result_store.h"
#include "trace/trace_reader.h"

/* Blocks waiting for the analysis thread, at most: more than the writer
 * ever holds, so that handing one over never waits. */
#define QUEUE 64

struct record_analysis {
    struct analysis *analysis;
    struct routine_table routines;     /* as the blocks define them */
    struct trace_block_reader *reader;
    struct trace_writer *writer;
    uint64_t events;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    struct trace_block *queue[QUEUE];
    size_t head, count;
    int ended;                         /* no block will come */
    int failed;
    struct trms_error error;
};

static int feed(void *ctx, const struct event *events, size_t n, struct trms_error *err)
{
    struct record_analysis *ra = ctx;
    size_t done;
    if (analysis_events(ra->analysis, events, n, &done, err) != 0) {
        char inner[sizeof err->message];
        memcpy(inner, err->message, sizeof inner);
        return error_set(err, "event %" PRIu64 ": %s", ra->events + done + 1, inner);
    }
    ra->events += n;
    return 0;
}

/* Decodes the blocks as they come, in order; after a failure, only hands
 * them back. */
static void *analyze_blocks(void *arg)
{
    struct record_analysis *ra = arg;
    pthread_mutex_lock(&ra->lock);
    for (;;) {
        while (!ra->count && !ra->ended)
            pthread_cond_wait(&ra->changed, &ra->lock);
        if (!ra->count)
            break;
        struct trace_block *b = ra->queue[ra->head];
        ra->head = (ra->head + 1) % QUEUE;
        ra->count--;
        int failed = ra->failed;
        pthread_mutex_unlock(&ra->lock);
        struct trms_error err;
        int rc = 0;
        if (!failed) {
            size_t len;
            uint32_t records;
            const uint8_t *payload = trace_block_payload(b, &len, &records);
            rc = trace_block_reader_feed(ra->reader, payload, len, records, &err);
        }
        trace_block_release(ra->writer, b);
        pthread_mutex_lock(&ra->lock);
        if (rc != 0 && !ra->failed) {
            ra->failed = 1;
            ra->error = err;
        }
    }
    pthread_mutex_unlock(&ra->lock);
    return NULL;
}

static void observe(void *ctx, struct trace_block *b)
{
    struct record_analysis *ra = ctx;
    pthread_mutex_lock(&ra->lock);
    ra->queue[(ra->head + ra->count++) % QUEUE] = b;
    pthread_cond_signal(&ra->changed);
    pthread_mutex_unlock(&ra->lock);
}

struct record_analysis *record_analysis_start(const struct analysis_options *opt,
                                              struct trms_error *err)
{
    struct analysis *a = analysis_new(opt, err);
    if (!a)
        return NULL;
    struct record_analysis *ra = xcalloc(1, sizeof *ra);
    ra->analysis = a;
    routine_table_init(&ra->routines);
    ra->reader = trace_block_reader_new("the recording's events", &ra->routines, feed, ra);
    pthread_mutex_init(&ra->lock, NULL);
    pthread_cond_init(&ra->changed, NULL);
    if (pthread_create(&ra->thread, NULL, analyze_blocks, ra) != 0)
        oom_exit("analysis thread");
    return ra;
}

struct trace_block_observer record_analysis_observer(struct record_analysis *ra)
{
    return (struct trace_block_observer){.block = observe, .ctx = ra};
}

void record_analysis_attach(struct record_analysis *ra, struct trace_writer *w)
{
    ra->writer = w;
}

/* Waits for the thread to take every block, and frees what it used. */
static void stop(struct record_analysis *ra)
{
    pthread_mutex_lock(&ra->lock);
    ra->ended = 1;
    pthread_cond_signal(&ra->changed);
    pthread_mutex_unlock(&ra->lock);
    pthread_join(ra->thread, NULL);
    trace_block_reader_free(ra->reader);
    pthread_mutex_destroy(&ra->lock);
    pthread_cond_destroy(&ra->changed);
}

static void free_analysis(struct record_analysis *ra)
{
    analysis_free(ra->analysis);
    routine_table_free(&ra->routines);
    free(ra);
}

void record_analysis_abandon(struct record_analysis *ra)
{
    if (!ra)
        return;
    stop(ra);
    free_analysis(ra);
}

int record_analysis_finish(struct record_analysis *ra, const char *rec_path, const char *shown,
                           char *said, size_t said_size, struct trms_error *err)
{
    stop(ra);
    if (ra->failed) {
        fprintf(stderr, "trms: warning: the analysis while recording failed (%s); the recording "
                        "is complete: `trms analyze %s`\n", ra->error.message, shown);
        free_analysis(ra);
        return -1;
    }
    struct analysis_result *result = analysis_finish(ra->analysis, &ra->routines);
    struct result_key key = {.cell_size = result->cell_size, .line_size = result->line_size,
                             .contexts = result->n_contexts > 0};
    struct result_store *store = NULL;
    int rc = result_store_open(rec_path, 1, &store, err);
    if (rc == 0)
        rc = result_store_save_key(store, result, &key, err);
    result_store_close(store);
    if (rc == 0)
        snprintf(said, said_size, "trms: analyzed as it recorded: %" PRIu64 " activations of %zu "
                                  "routines, cell size %" PRIu64 ", line size %" PRIu64 "%s "
                                  "(`trms report %s`)\n",
                 result->activations, result->routines.count, result->cell_size,
                 result->line_size, key.contexts ? ", calling contexts" : "", shown);
    analysis_result_free(result);
    free_analysis(ra);
    return rc;
}
