#define _GNU_SOURCE  /* sync_file_range */
#include "trace/trace_writer.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/oom.h"
#include "trace/crc32.h"
#include "trace/event_codec.h"

/* Written blocks are handed to the disk every this many bytes, so that
 * the fsync at the end has little left to wait for. */
#define WRITEBACK_BYTES (8u << 20)

struct trace_writer {
    int fd;
    char *path;
    uint8_t *block;     /* the block header, then the payload: one write each */
    uint8_t *payload;   /* block + TRACE_BLOCK_HEADER_SIZE */
    size_t used;
    size_t capacity;    /* of the payload */
    uint32_t block_events;
    uint64_t total_events;
    uint64_t blocks;
    uint32_t routines_written;
    struct event_encoder encoder;
    int has_thread;
    uint32_t thread;
    uint64_t written;           /* bytes in the file */
    uint64_t writeback_start;   /* bytes before this were handed to the disk */
    /* The whole blocks in the file, for trace_writer_salvage. */
    uint64_t kept_events, kept_blocks;
    uint32_t kept_routines;
    int failed;                 /* errno of a write that failed */
};

static int write_bytes(struct trace_writer *w, const void *data, size_t len,
                       struct trms_error *err)
{
    const char *p = data;
    while (len > 0) {
        ssize_t n = write(w->fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            w->failed = errno;
            return error_set(err, "%s: cannot write: %s", w->path, strerror(w->failed));
        }
        p += n;
        len -= (size_t)n;
        w->written += (uint64_t)n;
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

static void free_writer(struct trace_writer *w)
{
    free(w->block);
    free(w->path);
    free(w);
}

struct trace_writer *trace_writer_create(const char *path, struct trms_error *err)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0) {
        error_set(err, "%s: cannot create: %s", path, strerror(errno));
        return NULL;
    }
    struct trace_writer *w = xcalloc(1, sizeof *w);
    w->fd = fd;
    w->path = xmalloc(strlen(path) + 1);
    strcpy(w->path, path);
    w->capacity = TRACE_BLOCK_TARGET_PAYLOAD + 4096;
    w->block = xmalloc(TRACE_BLOCK_HEADER_SIZE + w->capacity);
    w->payload = w->block + TRACE_BLOCK_HEADER_SIZE;
    uint8_t header[TRACE_FILE_HEADER_SIZE];
    memcpy(header, TRACE_MAGIC, 8);
    put_le32(header + 8, TRACE_VERSION);
    put_le32(header + 12, 0);
    if (write_bytes(w, header, sizeof header, err) != 0) {
        trace_writer_abandon(w);
        return NULL;
    }
    return w;
}

static int write_block(struct trace_writer *w, uint32_t kind, uint32_t events,
                       struct trms_error *err)
{
    put_le32(w->block, kind);
    put_le32(w->block + 4, (uint32_t)w->used);
    put_le32(w->block + 8, events);
    put_le32(w->block + 12, crc32_update(0, w->payload, w->used));
    uint64_t start = w->written;
    if (write_bytes(w, w->block, TRACE_BLOCK_HEADER_SIZE + w->used, err) != 0) {
        /* The whole blocks before stay readable: cut the partial one off. */
        if (!w->failed)
            w->failed = EIO;
        if (ftruncate(w->fd, (off_t)start) == 0 && lseek(w->fd, (off_t)start, SEEK_SET) >= 0)
            w->written = start;
        return -1;
    }
    w->used = 0;
    start_writeback(w);
    return 0;
}

static int flush_events(struct trace_writer *w, struct trms_error *err)
{
    if (w->used == 0)
        return 0;
    if (w->failed)
        return error_set(err, "%s: cannot write: %s", w->path, strerror(w->failed));
    if (write_block(w, TRACE_BLOCK_EVENTS, w->block_events, err) != 0)
        return -1;
    w->blocks++;
    w->kept_events = w->total_events;  /* the block held the last of them */
    w->kept_blocks = w->blocks;
    w->kept_routines = w->routines_written;
    w->block_events = 0;
    return 0;
}

static void reserve(struct trace_writer *w, size_t len)
{
    if (w->used + len > w->capacity) {
        w->capacity = w->used + len + 4096;
        w->block = xrealloc(w->block, TRACE_BLOCK_HEADER_SIZE + w->capacity);
        w->payload = w->block + TRACE_BLOCK_HEADER_SIZE;
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

int trace_writer_event(struct trace_writer *w, const struct event *ev,
                       const struct routine_table *routines, struct trms_error *err)
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
    reserve(w, EVENT_RECORD_MAX);
    w->used += event_encode(&w->encoder, ev, w->payload + w->used);
    w->block_events++;
    w->total_events++;
    return 0;
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
    return 0;
}

int trace_writer_open_window(struct trace_writer *w, struct trace_window *win,
                             struct trms_error *err)
{
    if (open_block(w, err) != 0)
        return -1;
    reserve(w, TRACE_BLOCK_TARGET_PAYLOAD - w->used + EVENT_RECORD_MAX);
    win->next = w->payload + w->used;
    win->end = w->payload + TRACE_BLOCK_TARGET_PAYLOAD;
    win->encoder = w->encoder;
    return 0;
}

void trace_writer_close_window(struct trace_writer *w, const struct trace_window *win,
                               uint32_t records)
{
    w->used = (size_t)(win->next - w->payload);
    w->encoder = win->encoder;
    w->block_events += records;
    w->total_events += records;
}

int trace_writer_failed(const struct trace_writer *w)
{
    return w->failed;
}

int trace_writer_salvage(struct trace_writer *w, uint64_t *events, struct trms_error *err)
{
    *events = w->kept_events;
    w->failed = 0;
    w->used = put_varint(w->payload, w->kept_events);
    w->used += put_varint(w->payload + w->used, w->kept_blocks);
    w->used += put_varint(w->payload + w->used, w->kept_routines);
    int rc = write_block(w, TRACE_BLOCK_END, 0, err);
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
    if (flush_events(w, err) != 0)
        rc = -1;
    if (rc == 0) {
        w->used += put_varint(w->payload, w->total_events);
        w->used += put_varint(w->payload + w->used, w->blocks);
        w->used += put_varint(w->payload + w->used, w->routines_written);
        rc = write_block(w, TRACE_BLOCK_END, 0, err);
    }
    if (rc == 0 && fsync(w->fd) != 0)
        rc = error_set(err, "%s: cannot write: %s", w->path, strerror(errno));
    if (close(w->fd) != 0 && rc == 0)
        rc = error_set(err, "%s: cannot write: %s", w->path, strerror(errno));
    free_writer(w);
    return rc;
}
