#include "trace/trace_reader.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyses/batch_event.h"
#include "common/oom.h"
#include "common/regular_file.h"
#include "trace/crc32.h"
#include "trace/event_codec.h"

#include <zstd.h>

struct reader {
    const char *path;
    FILE *fp;
    uint64_t offset;        /* of the block being read */
    uint8_t *payload;
    size_t capacity;
    struct routine_table *routines;
    int has_thread;
    uint32_t thread;
    struct trace_stats stats;
    uint32_t version;       /* of the file's format */
    uint32_t flags;         /* of its header */
    int resumed;            /* read from a position, not the start */
    sync_sink sync;
    void *sync_ctx;
    uint64_t skip;          /* records of the first block already delivered */
    struct trace_position *at;
    event_batch_sink batch;
    /* trace_read_options' room and written, or NULL */
    batch_room_sink room;
    int (*written)(void *ctx, struct batch_event *next, uint64_t accesses, uint64_t writes,
                   const struct flow_note *flows, size_t n_flows, struct trms_error *err);
    struct flow_note notes[TRACE_READ_RUN];
    ZSTD_DCtx *zstd;        /* for compressed blocks, made on the first */
    uint8_t *raw;           /* a compressed block's events */
    size_t raw_capacity;
    struct event run[TRACE_READ_RUN];
};

/* Reads exactly LEN bytes; 1 at a clean end of file, -1 on a short read. */
static int read_exact(struct reader *r, void *buf, size_t len, int eof_ok,
                      struct trms_error *err)
{
    size_t got = fread(buf, 1, len, r->fp);
    if (got == len)
        return 0;
    if (ferror(r->fp))
        return error_set(err, "%s: cannot read: %s", r->path, strerror(errno));
    if (got == 0 && eof_ok)
        return 1;
    return error_set(err, "%s: truncated at byte %" PRIu64 " (the recording is incomplete)",
                     r->path, r->offset + got);
}

/* First capacity of the payload buffer. */
#define PAYLOAD_START (64u << 10)

/* Reads a block's LEN payload bytes, growing the buffer only as they
 * arrive: a corrupt length in a short file costs no more memory than the
 * file has. */
static int read_payload(struct reader *r, size_t len, struct trms_error *err)
{
    if (!r->payload) {
        r->capacity = PAYLOAD_START;
        r->payload = xmalloc(r->capacity);
    }
    for (size_t got = 0; got < len;) {
        if (got == r->capacity) {
            r->capacity *= 2;
            r->payload = xrealloc(r->payload, r->capacity);
        }
        size_t n = (len < r->capacity ? len : r->capacity) - got;
        size_t in = fread(r->payload + got, 1, n, r->fp);
        got += in;
        if (in < n) {
            if (ferror(r->fp))
                return error_set(err, "%s: cannot read: %s", r->path, strerror(errno));
            return error_set(err, "%s: truncated at byte %" PRIu64
                                  " (the recording is incomplete)",
                             r->path, r->offset + got);
        }
    }
    return 0;
}

static int corrupt(struct reader *r, struct trms_error *err, const char *what)
{
    return error_set(err, "%s: corrupt recording: %s in the block at byte %" PRIu64,
                     r->path, what, r->offset);
}

static int define_routine(struct reader *r, const struct decoded_routine *d,
                          struct trms_error *err)
{
    if (d->id != r->routines->count)
        return corrupt(r, err, "routine defined out of order");
    uint32_t id;
    if (routine_table_append(r->routines, d->name, d->len, d->addr, &id) != 0)
        return corrupt(r, err, "too many routines");
    return 0;
}

/* The run of events collected so far, to the batch sink. */
static int deliver_run(struct reader *r, size_t n, uint32_t records, void *ctx,
                       struct trms_error *err)
{
    if (r->at)
        r->at->skip = records;
    return n ? r->batch(ctx, r->run, n, err) : 0;
}

static int read_events_block(struct reader *r, const uint8_t *payload, size_t len,
                             uint32_t expected_events, event_sink sink, void *ctx,
                             struct trms_error *err)
{
    struct event_decoder dec;
    event_decoder_start(&dec, payload, len, r->version, r->flags);
    uint32_t records = 0;
    uint64_t skip = r->skip;
    size_t in_run = 0;
    r->skip = 0;
    if (r->at)
        *r->at = (struct trace_position){.offset = r->offset, .events = r->stats.events,
                                         .blocks = r->stats.blocks,
                                         .routines = r->routines->count, .thread = r->thread,
                                         .has_thread = r->has_thread};
    struct event one;
    for (;;) {
        /* The common records straight into the consumer's batches, when it
         * has room, the events before them delivered first. */
        if (r->room && dec.slotted && r->has_thread && records >= skip) {
            if (in_run) {
                if (deliver_run(r, in_run, records, ctx, err) != 0)
                    return -1;
                memset(r->run, 0, in_run * sizeof *r->run); /* as below */
                in_run = 0;
            }
            struct batch_decode out = {.notes = r->notes};
            struct batch_event *end;
            if (r->room(ctx, &out.into, &end, &out.flows) == 0) {
                size_t max = (size_t)(end - out.into);
                if (max > TRACE_READ_RUN)
                    max = TRACE_READ_RUN;
                size_t n = event_decode_batch(&dec, &out, max, r->routines->count);
                records += (uint32_t)n;
                r->stats.events += n;
                if (r->at)
                    r->at->skip = records;
                if (r->written(ctx, out.into + n, n - out.n_notes, out.writes, r->notes,
                               out.n_notes, err) != 0)
                    return -1;
                if (n == max)
                    continue;
                goto general; /* a record the batches do not take */
            }
        }
        /* The common records, in runs, once no record is left to skip and a
         * thread is current. */
        if (r->batch && r->has_thread && records >= skip) {
            size_t n = event_decode_run(&dec, &r->run[in_run], TRACE_READ_RUN - in_run,
                                        r->routines->count);
            records += (uint32_t)n;
            r->stats.events += n;
            in_run += n;
            if (in_run == TRACE_READ_RUN) {
                if (deliver_run(r, in_run, records, ctx, err) != 0)
                    return -1;
                in_run = 0;
                continue;
            }
        }
    general:;
        /* Decoded in place: copying a just-written event costs a stall. */
        struct event *evp = r->batch ? &r->run[in_run] : &one;
        *evp = (struct event){0};
        struct decoded_routine routine;
        enum decode_status status = event_decode(&dec, evp, &routine);
        if (status == DECODE_END)
            break;
        if (status == DECODE_ERROR)
            return corrupt(r, err, dec.error);
        if (status == DECODE_ROUTINE) {
            if (define_routine(r, &routine, err) != 0)
                return -1;
            continue;
        }
        if (status == DECODE_SYNC) {
            if (!r->has_thread)
                return corrupt(r, err, "sync record before any thread");
            r->stats.sync_records++;
            /* Before a resumed read's position they were delivered already;
             * the events of the run so far go first, in order. */
            if (!r->sync || records < skip)
                continue;
            if (r->batch && in_run) {
                if (deliver_run(r, in_run, records, ctx, err) != 0)
                    return -1;
                /* The fast path fills only the fields of each type: a run
                 * that starts over here holds what a fresh read's would. */
                memset(r->run, 0, in_run * sizeof *r->run);
                in_run = 0;
            }
            dec.sync.tid = r->thread;
            if (r->sync(r->sync_ctx, &dec.sync, err) != 0)
                return -1;
            continue;
        }
        records++;
        if (evp->type == EVENT_CALL && evp->routine >= r->routines->count)
            return corrupt(r, err, "call of an undefined routine");
        if (evp->type == EVENT_THREAD) {
            if (r->has_thread && evp->tid == r->thread)
                continue; /* the block restating the current thread */
            r->has_thread = 1;
            r->thread = evp->tid;
        } else if (!r->has_thread) {
            return corrupt(r, err, "event before any thread");
        }
        r->stats.events++;
        if (records <= skip)
            continue; /* delivered before the read was resumed */
        if (r->batch) {
            if (++in_run == TRACE_READ_RUN) {
                if (deliver_run(r, in_run, records, ctx, err) != 0)
                    return -1;
                in_run = 0;
            }
            continue;
        }
        if (r->at)
            r->at->skip = records;
        if (sink(ctx, evp, err) != 0)
            return -1;
    }
    if (r->batch && deliver_run(r, in_run, records, ctx, err) != 0)
        return -1;
    if (records != expected_events || records < skip)
        return corrupt(r, err, "event count mismatch");
    return 0;
}

static int read_end_block(struct reader *r, size_t len, struct trms_error *err)
{
    const uint8_t *p = r->payload, *end = r->payload + len;
    uint64_t events, blocks, routines, version = r->version;
    if (get_varint(&p, end, &events) != 0 || get_varint(&p, end, &blocks) != 0 ||
        get_varint(&p, end, &routines) != 0 ||
        (r->version >= 3 && get_varint(&p, end, &version) != 0) || p != end ||
        version != r->version)
        return corrupt(r, err, "malformed end block");
    if (events != r->stats.events || blocks != r->stats.blocks ||
        routines != r->routines->count)
        return corrupt(r, err, "totals do not match the blocks read");
    /* The writer sets the flag only after a sync record: a header that
     * says so of a trace without one was changed (a resumed read saw only
     * part of the trace). */
    if ((r->flags & TRACE_FLAG_SYNC) && r->stats.sync_records == 0 && !r->resumed)
        return corrupt(r, err, "header flags that the records do not bear out");
    uint8_t extra;
    if (fread(&extra, 1, 1, r->fp) != 0)
        return error_set(err, "%s: corrupt recording: data after the end block", r->path);
    return 0;
}

/* The events of the compressed block in r->payload (LEN bytes) into
 * r->raw; *EVENTS_LEN their length. */
static int decompress(struct reader *r, size_t len, size_t *events_len, struct trms_error *err)
{
    if (len < 4)
        return corrupt(r, err, "compressed block too short");
    uint32_t raw_len = get_le32(r->payload);
    if (raw_len > TRACE_BLOCK_MAX_PAYLOAD)
        return corrupt(r, err, "bad block header");
    if (!r->zstd && !(r->zstd = ZSTD_createDCtx()))
        oom_exit("zstd");
    if (raw_len > r->raw_capacity) {
        r->raw_capacity = raw_len;
        r->raw = xrealloc(r->raw, raw_len);
    }
    size_t got = ZSTD_decompressDCtx(r->zstd, r->raw, raw_len, r->payload + 4, len - 4);
    if (ZSTD_isError(got) || got != raw_len)
        return corrupt(r, err, "compressed events that do not decompress");
    *events_len = raw_len;
    return 0;
}

/* Moves to FROM's block, with the counts and the thread read so far. */
static int resume(struct reader *r, const struct trace_position *from, struct trms_error *err)
{
    if (from->routines != r->routines->count)
        return error_set(err, "%s: resumed with %zu routines where %" PRIu64 " were defined",
                         r->path, r->routines->count, from->routines);
    if (from->offset < TRACE_FILE_HEADER_SIZE || from->offset > INT64_MAX ||
        fseeko(r->fp, (off_t)from->offset, SEEK_SET) != 0)
        return error_set(err, "%s: cannot resume at byte %" PRIu64 ": %s", r->path,
                         from->offset, strerror(errno));
    r->offset = from->offset;
    r->skip = from->skip;
    r->stats.events = from->events;
    r->stats.blocks = from->blocks;
    r->has_thread = from->has_thread;
    r->thread = from->thread;
    return 0;
}

static int read_blocks(struct reader *r, const struct trace_position *from, event_sink sink,
                       void *ctx, struct trms_error *err)
{
    uint8_t header[TRACE_FILE_HEADER_SIZE];
    if (from && fseeko(r->fp, 0, SEEK_SET) != 0)
        return error_set(err, "%s: cannot resume: %s", r->path, strerror(errno));
    int rc = read_exact(r, header, sizeof header, 1, err);
    if (rc != 0)
        return rc > 0 ? error_set(err, "%s: empty file, not a trms recording", r->path) : -1;
    if (memcmp(header, TRACE_MAGIC, 8) != 0)
        return error_set(err, "%s: not a trms event trace", r->path);
    r->version = get_le32(header + 8);
    if (r->version < TRACE_OLDEST_VERSION || r->version > TRACE_VERSION)
        return error_set(err, "%s: event trace format version %" PRIu32
                              " is not supported (this trms reads versions %u to %u)",
                         r->path, r->version, TRACE_OLDEST_VERSION, TRACE_VERSION);
    r->flags = get_le32(header + 12);
    if (r->flags & ~TRACE_KNOWN_FLAGS)
        return error_set(err, "%s: event trace uses features this trms does not know", r->path);
    r->stats.has_sync = (r->flags & TRACE_FLAG_SYNC) != 0;
    r->offset = TRACE_FILE_HEADER_SIZE;
    if (from && resume(r, from, err) != 0)
        return -1;
    r->resumed = from != NULL;
    for (;;) {
        uint8_t bh[TRACE_BLOCK_HEADER_SIZE];
        rc = read_exact(r, bh, sizeof bh, 1, err);
        if (rc > 0)
            return error_set(err, "%s: truncated after byte %" PRIu64
                                  " (no end block: the recording is incomplete)",
                             r->path, r->offset);
        if (rc < 0)
            return -1;
        uint32_t kind = get_le32(bh), len = get_le32(bh + 4);
        int zstd = kind == TRACE_BLOCK_ZSTD && r->version >= 3;
        if ((kind != TRACE_BLOCK_EVENTS && kind != TRACE_BLOCK_END && !zstd) ||
            len > TRACE_BLOCK_MAX_PAYLOAD)
            return corrupt(r, err, "bad block header");
        if (read_payload(r, len, err) != 0)
            return -1;
        if (crc32_update(0, r->payload, len) != get_le32(bh + 12))
            return corrupt(r, err, "checksum mismatch");
        if (kind == TRACE_BLOCK_END)
            return get_le32(bh + 8) ? corrupt(r, err, "bad block header")
                                    : read_end_block(r, len, err);
        const uint8_t *events = r->payload;
        size_t events_len = len;
        if (zstd && decompress(r, len, &events_len, err) != 0)
            return -1;
        if (zstd)
            events = r->raw;
        if (read_events_block(r, events, events_len, get_le32(bh + 8), sink, ctx, err) != 0)
            return -1;
        r->stats.blocks++;
        r->offset += TRACE_BLOCK_HEADER_SIZE + len;
    }
}

int trace_read_stream(FILE *fp, const char *name, struct routine_table *routines,
                      event_sink sink, void *ctx, const struct trace_read_options *options,
                      struct trace_stats *stats, struct trms_error *err)
{
    struct reader r = {.path = name, .fp = fp, .routines = routines,
                       .at = options ? options->at : NULL,
                       .batch = options ? options->batch : NULL,
                       .room = options && options->batch ? options->room : NULL,
                       .written = options && options->batch ? options->written : NULL,
                       .sync = options ? options->sync : NULL,
                       .sync_ctx = options ? options->sync_ctx : NULL};
    int rc = read_blocks(&r, options ? options->from : NULL, sink, ctx, err);
    r.stats.bytes = r.offset;
    if (stats)
        *stats = r.stats;
    free(r.payload);
    free(r.raw);
    ZSTD_freeDCtx(r.zstd);
    return rc;
}

int trace_may_hold_sync(FILE *fp)
{
    uint8_t header[TRACE_FILE_HEADER_SIZE];
    /* pread: FP's own position and buffer stay as they are. */
    if (pread(fileno(fp), header, sizeof header, 0) != (ssize_t)sizeof header ||
        memcmp(header, TRACE_MAGIC, 8) != 0)
        return 1;
    return (get_le32(header + 12) & TRACE_FLAG_SYNC) != 0;
}

int trace_read(const char *path, struct routine_table *routines, event_sink sink,
               void *ctx, struct trace_stats *stats, struct trms_error *err)
{
    const char *why;
    FILE *fp = regular_file_fopen(path, REGULAR_FILE_NOFOLLOW, &why);
    if (!fp)
        return error_set(err, "%s: cannot open: %s", path, why);
    int rc = trace_read_stream(fp, path, routines, sink, ctx, NULL, stats, err);
    fclose(fp);
    return rc;
}

int trace_read_synced(const char *path, struct routine_table *routines, event_sink sink,
                      void *ctx, sync_sink sync, void *sync_ctx, struct trms_error *err)
{
    const char *why;
    FILE *fp = regular_file_fopen(path, REGULAR_FILE_NOFOLLOW, &why);
    if (!fp)
        return error_set(err, "%s: cannot open: %s", path, why);
    struct trace_read_options options = {.sync = sync, .sync_ctx = sync_ctx};
    int rc = trace_read_stream(fp, path, routines, sink, ctx, &options, NULL, err);
    fclose(fp);
    return rc;
}
