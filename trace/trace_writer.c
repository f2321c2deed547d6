#define _GNU_SOURCE  /* sync_file_range */
#include "trace/trace_writer.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>
#if defined(__SSE2__)
#include <emmintrin.h> /* _mm_stream_si128 */
#endif

#include "analyses/batch_event.h"
#include "common/oom.h"
#include "trace/crc32.h"
#include "trace/event_codec.h"

/* Written blocks are handed to the disk every this many bytes, so that
 * the fsync at the end has little left to wait for. */
#define WRITEBACK_BYTES (8u << 20)
/* Sealed blocks waiting for the writer thread, at most: the caller waits
 * beyond (bounded memory). */
#define BLOCK_BUFFERS 24
/* Events written through the writer wait for the tap in runs of this many. */
#define TAP_RUN 256
/* Calls, returns and costs noted at most in the tap's held room (8 KiB,
 * within the first-level cache). */
#define HELD_FLOWS 512

/* A block buffer: room for the block header, then the payload. */
struct trace_block {
    uint8_t *data;
    size_t capacity;            /* of the payload */
    size_t used;                /* payload bytes */
    uint32_t kind;
    uint32_t events;
    int refs;                   /* holders: the writer thread */
    /* An events block: the trace's totals once it is written. */
    uint64_t events_after, blocks_after;
    uint32_t routines_after;
    int sync_after;             /* a sync record was written up to it */
    int sources_after;          /* a source record was written up to it */
    struct trace_block *next;   /* in the queue or the free list */
};

struct trace_writer {
    char *path;
    int fd;
    /* The caller's side: the block being filled. */
    struct trace_block *current;
    uint8_t *payload;           /* current->data + TRACE_BLOCK_HEADER_SIZE */
    size_t used;
    uint32_t block_events;
    uint64_t total_events;
    uint64_t blocks;
    uint32_t routines_written;
    struct event_encoder encoder;
    int has_thread;
    uint32_t thread;
    int wrote_sync;             /* the header gets TRACE_FLAG_SYNC */
    int wrote_sources;          /* the header gets TRACE_FLAG_SOURCES */
    struct trace_event_tap tap;
    struct event tap_run[TAP_RUN];
    size_t tap_n;
    /* The room in the tap's batches kept past a run of accesses
     * (trace_event_tap's FLOWS): the calls, returns and costs between
     * runs go straight there, not a struct event each for RUN. */
    int held;
    struct batch_event *held_start, *held_next, *held_end;
    uint64_t held_accesses, held_writes;
    size_t held_n;
    struct flow_note held_flows[HELD_FLOWS];
    int level;                  /* zstd level; 0 stores blocks as they are */
    int discard;                /* no file: blocks are dropped once sealed */
    /* Shared with the writer thread, under lock. */
    pthread_mutex_t lock;
    pthread_cond_t queued;      /* a block is queued, or the end */
    pthread_cond_t freed;       /* a buffer came back */
    struct trace_block *queue_head, *queue_tail;
    struct trace_block *free_list;
    unsigned buffers;           /* allocated so far */
    int closing;
    int failed;                 /* errno of a write that failed, or 0 */
    char failure[sizeof(((struct trms_error *)0)->message)];
    /* The whole events blocks in the file, for trace_writer_salvage. */
    uint64_t kept_events, kept_blocks;
    uint32_t kept_routines;
    int kept_sync;
    int kept_sources;
    pthread_t thread_id;
    int thread_started;
    /* The writer thread's own. */
    ZSTD_CCtx *zstd;
    uint8_t *packed;            /* a compressed block: header, raw length, frame */
    size_t packed_capacity;
    uint64_t written;           /* bytes in the file */
    uint64_t writeback_start;   /* bytes before this were handed to the disk */
};

/* ---- the writer thread: compresses, checksums and writes, in order ---- */

/* 0, or the errno of a write that failed (W->failure then says it). */
static int write_bytes(struct trace_writer *w, const void *data, size_t len)
{
    const char *p = data;
    while (len > 0) {
        ssize_t n = write(w->fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int errnum = errno ? errno : EIO;
            snprintf(w->failure, sizeof w->failure, "%s: cannot write: %s", w->path,
                     strerror(errnum));
            return errnum;
        }
        p += n;
        len -= (size_t)n;
        __atomic_store_n(&w->written, w->written + (uint64_t)n, __ATOMIC_RELAXED);
    }
    return 0;
}

/* Starts the disk writes of what is complete without waiting for them: a
 * hint, so a file system that cannot is no error. */
static void start_writeback(struct trace_writer *w)
{
    if (w->written - w->writeback_start < WRITEBACK_BYTES)
        return;
    sync_file_range(w->fd, (off_t)w->writeback_start,
                    (off_t)(w->written - w->writeback_start), SYNC_FILE_RANGE_WRITE);
    w->writeback_start = w->written;
}

static void put_header(uint8_t *h, uint32_t kind, size_t len, uint32_t events,
                       const uint8_t *payload)
{
    put_le32(h, kind);
    put_le32(h + 4, (uint32_t)len);
    put_le32(h + 8, events);
    put_le32(h + 12, crc32_update(0, payload, len));
}

/* An events block, compressed when that makes it smaller. */
static int write_events_block(struct trace_writer *w, struct trace_block *b)
{
    uint8_t *payload = b->data + TRACE_BLOCK_HEADER_SIZE;
    if (w->level) {
        size_t bound = ZSTD_compressBound(b->used) + TRACE_BLOCK_HEADER_SIZE + 4;
        if (bound > w->packed_capacity) {
            w->packed_capacity = bound;
            w->packed = xrealloc(w->packed, bound);
        }
        uint8_t *stored = w->packed + TRACE_BLOCK_HEADER_SIZE;
        size_t frame = ZSTD_compress2(w->zstd, stored + 4, bound - TRACE_BLOCK_HEADER_SIZE - 4,
                                      payload, b->used);
        if (!ZSTD_isError(frame) && frame + 4 < b->used) {
            put_le32(stored, (uint32_t)b->used);
            put_header(w->packed, TRACE_BLOCK_ZSTD, frame + 4, b->events, stored);
            return write_bytes(w, w->packed, TRACE_BLOCK_HEADER_SIZE + frame + 4);
        }
    }
    put_header(b->data, TRACE_BLOCK_EVENTS, b->used, b->events, payload);
    return write_bytes(w, b->data, TRACE_BLOCK_HEADER_SIZE + b->used);
}

/* With W->lock held: B goes back to the free list when nobody holds it. */
static void release_locked(struct trace_writer *w, struct trace_block *b)
{
    if (--b->refs > 0)
        return;
    b->next = w->free_list;
    w->free_list = b;
    pthread_cond_signal(&w->freed);
}

static void *writer_thread(void *arg)
{
    struct trace_writer *w = arg;
    pthread_mutex_lock(&w->lock);
    for (;;) {
        while (!w->queue_head && !w->closing)
            pthread_cond_wait(&w->queued, &w->lock);
        struct trace_block *b = w->queue_head;
        if (!b)
            break;
        w->queue_head = b->next;
        if (!w->queue_head)
            w->queue_tail = NULL;
        int failed = w->failed;
        pthread_mutex_unlock(&w->lock);
        int rc = 0;
        uint64_t start = w->written;
        if (!failed) {
            if (b->kind == TRACE_BLOCK_EVENTS) {
                rc = write_events_block(w, b);
            } else {
                put_header(b->data, b->kind, b->used, b->events, b->data + TRACE_BLOCK_HEADER_SIZE);
                rc = write_bytes(w, b->data, TRACE_BLOCK_HEADER_SIZE + b->used);
            }
            if (rc == 0) {
                start_writeback(w);
            } else if (ftruncate(w->fd, (off_t)start) == 0 &&
                       lseek(w->fd, (off_t)start, SEEK_SET) >= 0) {
                /* The whole blocks before stay readable: the partial one goes. */
                __atomic_store_n(&w->written, start, __ATOMIC_RELAXED);
            }
        }
        pthread_mutex_lock(&w->lock);
        if (rc != 0) {
            w->failed = rc;
        } else if (!failed && b->kind == TRACE_BLOCK_EVENTS) {
            w->kept_events = b->events_after;
            w->kept_blocks = b->blocks_after;
            w->kept_routines = b->routines_after;
            w->kept_sync = b->sync_after;
            w->kept_sources = b->sources_after;
        }
        release_locked(w, b);
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

/* ---- the caller's side ---- */

static int failure(struct trace_writer *w, struct trms_error *err)
{
    pthread_mutex_lock(&w->lock);
    int failed = w->failed;
    if (failed)
        error_set(err, "%s", w->failure);
    pthread_mutex_unlock(&w->lock);
    return failed ? -1 : 0;
}

/* A buffer to fill: a free one, a new one while there are fewer than
 * BLOCK_BUFFERS, or the next one handed back. */
static struct trace_block *take_buffer(struct trace_writer *w)
{
    pthread_mutex_lock(&w->lock);
    while (!w->free_list && w->buffers == BLOCK_BUFFERS)
        pthread_cond_wait(&w->freed, &w->lock);
    struct trace_block *b = w->free_list;
    if (b)
        w->free_list = b->next;
    else
        w->buffers++;
    pthread_mutex_unlock(&w->lock);
    if (!b) {
        b = xcalloc(1, sizeof *b);
        b->capacity = TRACE_BLOCK_TARGET_PAYLOAD + 4096;
        b->data = xmalloc(TRACE_BLOCK_HEADER_SIZE + b->capacity);
    }
    b->used = 0;
    b->events = 0;
    b->next = NULL;
    return b;
}

static void use_buffer(struct trace_writer *w, struct trace_block *b)
{
    w->current = b;
    w->payload = b->data + TRACE_BLOCK_HEADER_SIZE;
    w->used = 0;
}

/* The block being filled goes to the writer thread. */
static void seal(struct trace_writer *w, uint32_t kind, uint32_t events)
{
    struct trace_block *b = w->current;
    if (w->discard) { /* the tap has had the events: the buffer is used again */
        w->used = 0;
        return;
    }
    b->kind = kind;
    b->used = w->used;
    b->events = events;
    b->refs = 1;
    b->events_after = w->total_events;
    b->blocks_after = w->blocks;
    b->routines_after = w->routines_written;
    b->sync_after = w->wrote_sync;
    b->sources_after = w->wrote_sources;
    pthread_mutex_lock(&w->lock);
    if (w->queue_tail)
        w->queue_tail->next = b;
    else
        w->queue_head = b;
    w->queue_tail = b;
    pthread_cond_signal(&w->queued);
    pthread_mutex_unlock(&w->lock);
    use_buffer(w, take_buffer(w));
}

uint64_t trace_writer_events(const struct trace_writer *w)
{
    return w->total_events;
}

uint64_t trace_writer_bytes(const struct trace_writer *w)
{
    return __atomic_load_n(&w->written, __ATOMIC_RELAXED);
}

/* The held room goes back to the tap with what was written there. */
static void release_held(struct trace_writer *w)
{
    w->held = 0;
    w->tap.accesses_written(w->tap.ctx, w->held_next, w->held_accesses, w->held_writes,
                            w->held_flows, w->held_n);
}

static int flush_tap(struct trace_writer *w, struct trms_error *err)
{
    if (w->held) /* (the run is empty then: it comes after) */
        release_held(w);
    size_t n = w->tap_n;
    w->tap_n = 0;
    return n ? w->tap.run(w->tap.ctx, w->tap_run, n, err) : 0;
}

/* A call, return or cost EV into the held room (with room left, and for a
 * note), as the analysis's batches hold it (analysis_access_room). */
static inline void hold_flow(struct trace_writer *w, const struct event *ev)
{
    struct batch_event flow = batch_flow_event(ev);
    struct batch_event *slot = w->held_next++;
    batch_event_store(slot, flow);
    w->held_flows[w->held_n++] = (struct flow_note){
        .value = flow.value, .at = (uint32_t)(slot - w->held_start), .type = flow.type};
}

/* EV, just written, for the tap. */
static inline int tap_one(struct trace_writer *w, const struct event *ev, struct trms_error *err)
{
    if (!w->tap.run)
        return 0;
    if (w->held) {
        if (event_is_flow(ev->type) && w->held_next != w->held_end && w->held_n < HELD_FLOWS) {
            hold_flow(w, ev);
            return 0;
        }
        release_held(w);
    }
    w->tap_run[w->tap_n++] = *ev;
    return w->tap_n == TAP_RUN ? flush_tap(w, err) : 0;
}

int trace_writer_tapped(const struct trace_writer *w)
{
    return w->tap.run != NULL;
}

int trace_writer_tap(struct trace_writer *w, const struct event *events, size_t n,
                     struct trms_error *err)
{
    if (!w->tap.run)
        return 0;
    if (flush_tap(w, err) != 0)
        return -1;
    return n ? w->tap.run(w->tap.ctx, events, n, err) : 0;
}

int trace_writer_discards(const struct trace_writer *w)
{
    return w->discard;
}

/* (The block's own count is not moved: a discarding writer's blocks are
 * never written, and a block that holds no bytes would never fill.) */
void trace_writer_count_unencoded(struct trace_writer *w, uint64_t records)
{
    w->total_events += records;
}

int trace_writer_access_room(struct trace_writer *w, struct batch_event **next,
                             struct batch_event **end, struct trms_error *err)
{
    if (!w->tap.access_room)
        return 1;
    if (w->held && w->held_next != w->held_end) {
        *next = w->held_next;
        *end = w->held_end;
        return 0;
    }
    if (flush_tap(w, err) != 0)
        return -1;
    int flows = 0;
    if (w->tap.access_room(w->tap.ctx, next, end, &flows) != 0)
        return 1;
    if (flows) {
        w->held = 1;
        w->held_start = w->held_next = *next;
        w->held_end = *end;
        w->held_accesses = w->held_writes = 0;
        w->held_n = 0;
    }
    return 0;
}

void trace_writer_accesses_written(struct trace_writer *w, struct batch_event *next,
                                   uint64_t accesses, uint64_t writes)
{
    if (w->held) {
        w->held_next = next;
        w->held_accesses += accesses;
        w->held_writes += writes;
        return;
    }
    w->tap.accesses_written(w->tap.ctx, next, accesses, writes, NULL, 0);
}

static void free_buffers(struct trace_block *b)
{
    while (b) {
        struct trace_block *next = b->next;
        free(b->data);
        free(b);
        b = next;
    }
}

/* Stops the writer thread once it has written what is queued. */
static void stop_thread(struct trace_writer *w)
{
    if (!w->thread_started)
        return;
    pthread_mutex_lock(&w->lock);
    w->closing = 1;
    pthread_cond_signal(&w->queued);
    pthread_mutex_unlock(&w->lock);
    pthread_join(w->thread_id, NULL);
    w->thread_started = 0;
}

/* Frees W once every buffer is back from the writer thread. */
/* With W->lock held: no buffer is with the writer thread. */
static int all_buffers_back(const struct trace_writer *w)
{
    unsigned back = w->current ? 1 : 0;
    for (const struct trace_block *b = w->free_list; b; b = b->next)
        back++;
    return back == w->buffers;
}

static void free_writer(struct trace_writer *w)
{
    pthread_mutex_lock(&w->lock);
    while (!all_buffers_back(w))
        pthread_cond_wait(&w->freed, &w->lock);
    pthread_mutex_unlock(&w->lock);
    free_buffers(w->free_list);
    if (w->current)
        free_buffers(w->current);
    ZSTD_freeCCtx(w->zstd);
    pthread_mutex_destroy(&w->lock);
    pthread_cond_destroy(&w->queued);
    pthread_cond_destroy(&w->freed);
    free(w->packed);
    free(w->path);
    free(w);
}

int trace_writer_check_level(int level, struct trms_error *err)
{
    if (level == 0 || (level >= ZSTD_minCLevel() && level <= ZSTD_maxCLevel()))
        return 0;
    return error_set(err, "a compression level is 0 (none) or zstd's, %d to %d, not %d",
                     ZSTD_minCLevel(), ZSTD_maxCLevel(), level);
}

struct trace_writer *trace_writer_create(const char *path, struct trms_error *err)
{
    struct trace_writer_options options = {.level = TRACE_ZSTD_LEVEL};
    return trace_writer_create_with(path, &options, err);
}

/* A writer that keeps nothing: the encoding stays (the recorder's fast
 * path writes into the block), the file, the compression and the writer
 * thread go. */
static struct trace_writer *discarding_writer(const struct trace_writer_options *options)
{
    struct trace_writer *w = xcalloc(1, sizeof *w);
    w->fd = -1;
    w->path = xstrdup("(no trace)");
    w->discard = 1;
    w->tap = options->tap;
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->queued, NULL);
    pthread_cond_init(&w->freed, NULL);
    use_buffer(w, take_buffer(w));
    return w;
}

struct trace_writer *trace_writer_create_with(const char *path,
                                              const struct trace_writer_options *options,
                                              struct trms_error *err)
{
    if (options->discard)
        return discarding_writer(options);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0) {
        error_set(err, "%s: cannot create: %s", path, strerror(errno));
        return NULL;
    }
    struct trace_writer *w = xcalloc(1, sizeof *w);
    w->fd = fd;
    w->path = xmalloc(strlen(path) + 1);
    strcpy(w->path, path);
    w->level = options->level;
    w->tap = options->tap;
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->queued, NULL);
    pthread_cond_init(&w->freed, NULL);
    if (w->level) {
        w->zstd = ZSTD_createCCtx();
        if (!w->zstd)
            oom_exit("zstd");
        ZSTD_CCtx_setParameter(w->zstd, ZSTD_c_compressionLevel, w->level);
    }
    uint8_t header[TRACE_FILE_HEADER_SIZE];
    memcpy(header, TRACE_MAGIC, 8);
    put_le32(header + 8, TRACE_VERSION);
    put_le32(header + 12, 0);
    if (write_bytes(w, header, sizeof header) != 0) {
        error_set(err, "%s", w->failure);
        close(fd);
        free_writer(w);
        return NULL;
    }
    use_buffer(w, take_buffer(w));
    if (pthread_create(&w->thread_id, NULL, writer_thread, w) != 0)
        oom_exit("trace writer thread");
    w->thread_started = 1;
    return w;
}

static int flush_events(struct trace_writer *w, struct trms_error *err)
{
    if (w->used == 0)
        return 0;
    if (failure(w, err) != 0)
        return -1;
    w->blocks++;
    seal(w, TRACE_BLOCK_EVENTS, w->block_events);
    w->block_events = 0;
    return 0;
}

static void reserve(struct trace_writer *w, size_t len)
{
    struct trace_block *b = w->current;
    if (w->used + len > b->capacity) {
        b->capacity = w->used + len + 4096;
        b->data = xrealloc(b->data, TRACE_BLOCK_HEADER_SIZE + b->capacity);
        w->payload = b->data + TRACE_BLOCK_HEADER_SIZE;
    }
}

/* Every block restates the current thread so that it decodes alone. */
static void start_block(struct trace_writer *w)
{
    event_encoder_start_block(&w->encoder);
    if (w->has_thread) {
        struct event ev = {.type = EVENT_THREAD, .tid = w->thread};
        w->used += event_encode(&w->encoder, &ev, w->payload + w->used);
        w->block_events++;
    }
}

static void write_routines(struct trace_writer *w, const struct routine_table *routines,
                           uint32_t upto)
{
    for (; w->routines_written <= upto && w->routines_written < routines->count;
         w->routines_written++) {
        const struct routine *r = &routines->items[w->routines_written];
        size_t len = r->name ? strlen(r->name) : 0;
        reserve(w, ROUTINE_RECORD_MAX + len);
        w->used += routine_encode(w->routines_written, r->name, len, r->addr,
                                  w->payload + w->used);
    }
}

/* Makes the current block ready for one more event: flushes a full one,
 * starts a new one. */
static inline int open_block(struct trace_writer *w, struct trms_error *err)
{
    if (w->used >= TRACE_BLOCK_TARGET_PAYLOAD && flush_events(w, err) != 0)
        return -1;
    if (w->used == 0)
        start_block(w);
    return 0;
}

/* Any event (trace_writer_event). */
static __attribute__((noinline)) int write_event(struct trace_writer *w, const struct event *ev,
                                                 const struct routine_table *routines,
                                                 struct trms_error *err)
{
    if (open_block(w, err) != 0)
        return -1;
    if (ev->type == EVENT_CALL && ev->routine >= w->routines_written) {
        if (ev->routine >= routines->count)
            return error_set(err, "call of routine %" PRIu32 " that the trace never defined",
                             ev->routine);
        write_routines(w, routines, ev->routine);
    }
    if (ev->type == EVENT_THREAD) {
        if (w->has_thread && w->thread == ev->tid)
            return 0; /* not a switch; the block already says so */
        w->has_thread = 1;
        w->thread = ev->tid;
    }
    if (ev->type == EVENT_KWRITE && ev->routine)
        w->wrote_sources = 1;
    reserve(w, EVENT_RECORD_MAX);
    w->used += event_encode(&w->encoder, ev, w->payload + w->used);
    w->block_events++;
    w->total_events++;
    return tap_one(w, ev, err);
}

/* A block's buffer holds TRACE_BLOCK_TARGET_PAYLOAD + 4096 bytes at least
 * (take_buffer), and open_block seals it once it is filled past the target. */
_Static_assert(EVENT_RECORD_MAX < 4096, "an event always fits a block short of its target");

int trace_writer_event(struct trace_writer *w, const struct event *ev,
                       const struct routine_table *routines, struct trms_error *err)
{
    /* Calls of routines already defined, returns and costs in a block begun
     * and short of its target: nothing to write before them, nothing to
     * note, and room (one event in three of call-heavy programs). */
    int defined = ev->type != EVENT_CALL || ev->routine < w->routines_written;
    if (event_is_flow(ev->type) && defined && w->used - 1 < TRACE_BLOCK_TARGET_PAYLOAD - 1) {
        w->used += event_encode_flow(ev->type, ev->routine, ev->size, w->payload + w->used);
        w->block_events++;
        w->total_events++;
        return tap_one(w, ev, err);
    }
    return write_event(w, ev, routines, err);
}

int trace_writer_sync(struct trace_writer *w, const struct sync_event *ev,
                      struct trms_error *err)
{
    if (!w->has_thread)
        return error_set(err, "%s record before any thread", sync_kind_name(ev->kind));
    if (open_block(w, err) != 0)
        return -1;
    reserve(w, SYNC_RECORD_MAX);
    w->used += sync_encode(ev, w->payload + w->used);
    w->wrote_sync = 1;
    if (!w->tap.sync)
        return 0;
    /* After the events before it, as a read of the file delivers it. */
    if (flush_tap(w, err) != 0)
        return -1;
    struct sync_event tapped = *ev;
    tapped.tid = w->thread;
    return w->tap.sync(w->tap.ctx, &tapped, err);
}

int trace_writer_access(struct trace_writer *w, enum event_type type, uint64_t addr,
                        uint64_t size, struct trms_error *err)
{
    if (open_block(w, err) != 0)
        return -1;
    reserve(w, EVENT_RECORD_MAX);
    w->used += event_encode_access(&w->encoder, type, addr, size, w->payload + w->used);
    w->block_events++;
    w->total_events++;
    if (!w->tap.run)
        return 0;
    struct event ev = {.type = type, .addr = addr, .size = size};
    return tap_one(w, &ev, err);
}

int trace_writer_open_window(struct trace_writer *w, struct trace_window *win,
                             struct trms_error *err)
{
    if (open_block(w, err) != 0)
        return -1;
    reserve(w, TRACE_BLOCK_TARGET_PAYLOAD - w->used + EVENT_RECORD_MAX);
    win->next = w->payload + w->used;
    win->end = w->payload + TRACE_BLOCK_TARGET_PAYLOAD;
    win->encoder = &w->encoder;
    return 0;
}

void trace_writer_close_window(struct trace_writer *w, const struct trace_window *win,
                               uint32_t records)
{
    w->used = (size_t)(win->next - w->payload);
    w->block_events += records;
    w->total_events += records;
}

int trace_writer_drain(struct trace_writer *w, struct trms_error *err)
{
    if (w->tap.run && flush_tap(w, err) != 0)
        return -1;
    if (flush_events(w, err) != 0)
        return -1;
    pthread_mutex_lock(&w->lock);
    while (w->queue_head || !all_buffers_back(w))
        pthread_cond_wait(&w->freed, &w->lock);
    pthread_mutex_unlock(&w->lock);
    return failure(w, err);
}

int trace_writer_failed(const struct trace_writer *w)
{
    struct trace_writer *shared = (struct trace_writer *)w; /* the lock only */
    pthread_mutex_lock(&shared->lock);
    int failed = shared->failed;
    pthread_mutex_unlock(&shared->lock);
    return failed;
}

/* The header's flags, once the file's content is known: the header was
 * written before the first record. */
static int write_flags(struct trace_writer *w, int sync, int sources, struct trms_error *err)
{
    uint32_t bits = (sync ? TRACE_FLAG_SYNC : 0) | (sources ? TRACE_FLAG_SOURCES : 0);
    if (!bits || w->discard)  /* a discarding writer has no file */
        return 0;
    uint8_t flags[4];
    put_le32(flags, bits);
    if (pwrite(w->fd, flags, sizeof flags, 12) != (ssize_t)sizeof flags)
        return error_set(err, "%s: cannot write: %s", w->path, strerror(errno ? errno : EIO));
    return 0;
}

int trace_writer_salvage(struct trace_writer *w, uint64_t *events, struct trms_error *err)
{
    /* The writer thread passes over what is queued once a write failed. */
    stop_thread(w);
    *events = w->kept_events;
    if (w->discard) {  /* no file to end */
        free_writer(w);
        return 0;
    }
    uint8_t end[TRACE_BLOCK_HEADER_SIZE + 4 * 10];
    uint8_t *payload = end + TRACE_BLOCK_HEADER_SIZE;
    size_t len = put_varint(payload, w->kept_events);
    len += put_varint(payload + len, w->kept_blocks);
    len += put_varint(payload + len, w->kept_routines);
    len += put_varint(payload + len, TRACE_VERSION);
    put_header(end, TRACE_BLOCK_END, len, 0, payload);
    int rc = 0;
    if (write_bytes(w, end, TRACE_BLOCK_HEADER_SIZE + len) != 0)
        rc = error_set(err, "%s", w->failure);
    if (rc == 0)
        rc = write_flags(w, w->kept_sync, w->kept_sources, err);
    if (rc == 0 && fsync(w->fd) != 0)
        rc = error_set(err, "%s: cannot write: %s", w->path, strerror(errno));
    if (close(w->fd) != 0 && rc == 0)
        rc = error_set(err, "%s: cannot write: %s", w->path, strerror(errno));
    free_writer(w);
    return rc;
}

void trace_writer_abandon(struct trace_writer *w)
{
    if (!w)
        return;
    /* Whatever is queued is written; the file stays without an end block. */
    stop_thread(w);
    if (w->fd >= 0)
        close(w->fd);
    free_writer(w);
}

int trace_writer_close(struct trace_writer *w, const struct routine_table *routines,
                       struct trms_error *err)
{
    int rc = 0;
    /* Routines never called are still part of the trace's table. */
    if (routines && w->routines_written < routines->count) {
        if (w->used == 0)
            start_block(w);
        write_routines(w, routines, (uint32_t)routines->count);
    }
    if (w->tap.run && flush_tap(w, err) != 0)
        rc = -1;
    if (rc == 0 && flush_events(w, err) != 0)
        rc = -1;
    if (rc == 0) {
        w->used += put_varint(w->payload, w->total_events);
        w->used += put_varint(w->payload + w->used, w->blocks);
        w->used += put_varint(w->payload + w->used, w->routines_written);
        w->used += put_varint(w->payload + w->used, TRACE_VERSION);
        seal(w, TRACE_BLOCK_END, 0);
    }
    /* The writer thread writes everything queued, then stops. */
    stop_thread(w);
    if (rc == 0 && failure(w, err) != 0)
        rc = -1;
    if (rc == 0)
        rc = write_flags(w, w->wrote_sync, w->wrote_sources, err);
    if (w->discard) {
        free_writer(w);
        return rc;
    }
    if (rc == 0 && fsync(w->fd) != 0)
        rc = error_set(err, "%s: cannot write: %s", w->path, strerror(errno));
    if (close(w->fd) != 0 && rc == 0)
        rc = error_set(err, "%s: cannot write: %s", w->path, strerror(errno));
    free_writer(w);
    return rc;
}
