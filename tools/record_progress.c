#include "tools/record_progress.h"

#include <errno.h>
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/oom.h"
#include "tools/progress.h"
#include "trace/staging.h"

#define POLL_MS 250

struct record_progress {
    char *path;
    struct progress *line;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    int stop;
    struct timespec started;
};

static void *watch(void *arg)
{
    struct record_progress *rp = arg;
    pthread_mutex_lock(&rp->lock);
    while (!rp->stop) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += POLL_MS * 1000000L;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        if (pthread_cond_timedwait(&rp->wake, &rp->lock, &until) != ETIMEDOUT || rp->stop)
            continue;
        uint64_t bytes = staging_bytes_written(rp->path);
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        char detail[48];
        snprintf(detail, sizeof detail, "%lds",
                 (long)(now.tv_sec - rp->started.tv_sec));
        progress_update_detail(rp->line, bytes, detail);
    }
    pthread_mutex_unlock(&rp->lock);
    return NULL;
}

struct record_progress *record_progress_start(const char *path)
{
    /* The program writes to the terminal too: the line keeps to its last row. */
    struct progress *line = progress_start_status("recording", "bytes written", 0);
    if (!line)
        return NULL;
    struct record_progress *rp = xcalloc(1, sizeof *rp);
    rp->path = xstrdup(path);
    rp->line = line;
    clock_gettime(CLOCK_MONOTONIC, &rp->started);
    pthread_mutex_init(&rp->lock, NULL);
    pthread_cond_init(&rp->wake, NULL);
    if (pthread_create(&rp->thread, NULL, watch, rp) != 0) {
        progress_finish(line);
        pthread_mutex_destroy(&rp->lock);
        pthread_cond_destroy(&rp->wake);
        free(rp->path);
        free(rp);
        return NULL; /* no line, no harm */
    }
    return rp;
}

void record_progress_finish(struct record_progress *rp)
{
    if (!rp)
        return;
    pthread_mutex_lock(&rp->lock);
    rp->stop = 1;
    pthread_cond_signal(&rp->wake);
    pthread_mutex_unlock(&rp->lock);
    pthread_join(rp->thread, NULL);
    progress_finish(rp->line);
    pthread_mutex_destroy(&rp->lock);
    pthread_cond_destroy(&rp->wake);
    free(rp->path);
    free(rp);
}
