/* The bytes of a checkpoint, before the analysis state:
 *
 *   "TRMSCKPT" u64:version
 *   u64: trace_bytes head_crc tail_crc meta_crc
 *   u64: offset skip events blocks routines thread has_thread (the read)
 *   u64: events the analysis has had
 *   u64:routines, per routine u64:addr u64:(name length + 1, 0 = none) name:
 *       every routine defined up to the position, those before its block
 *       (the read's own count) first */
#include "tools/analyze_checkpoint.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyses/analysis_state.h"
#include "common/oom.h"
#include "common/regular_file.h"
#include "common/state_stream.h"
#include "store/checkpoint_store.h"
#include "trace/crc32.h"
#include "trace/recording.h"

#define MAGIC "TRMSCKPT"
#define SAMPLE (64u << 10)

/* CRC-32 of LEN bytes of FD at OFFSET. */
static int crc_of(int fd, uint64_t offset, size_t len, uint32_t *crc)
{
    uint8_t *buf = xmalloc(len ? len : 1);
    ssize_t got = pread(fd, buf, len, (off_t)offset);
    *crc = got == (ssize_t)len ? crc32_update(0, buf, len) : 0;
    free(buf);
    return got == (ssize_t)len ? 0 : -1;
}

static int file_identity(const char *path, uint64_t *bytes, uint32_t *head, uint32_t *tail,
                         struct trms_error *err)
{
    const char *why;
    int fd = regular_file_open(path, REGULAR_FILE_NOFOLLOW, &why);
    struct stat st;
    if (fd < 0)
        return error_set(err, "%s: cannot open: %s", path, why);
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return error_set(err, "%s: cannot open: %s", path, strerror(e));
    }
    *bytes = (uint64_t)st.st_size;
    size_t n = *bytes < SAMPLE ? (size_t)*bytes : SAMPLE;
    int rc = crc_of(fd, 0, n, head);
    if (rc == 0 && tail)
        rc = crc_of(fd, *bytes - n, n, tail);
    close(fd);
    return rc ? error_set(err, "%s: cannot read", path) : 0;
}

int recording_identity_of(const char *rec_path, struct recording_identity *id,
                          struct trms_error *err)
{
    char *events = recording_file(rec_path, RECORDING_EVENTS);
    char *meta = recording_file(rec_path, RECORDING_META);
    uint64_t meta_bytes;
    int rc = file_identity(events, &id->trace_bytes, &id->head_crc, &id->tail_crc, err);
    if (rc == 0)
        rc = file_identity(meta, &meta_bytes, &id->meta_crc, NULL, err);
    free(events);
    free(meta);
    return rc;
}

static void put_position(struct state_writer *w, const struct trace_position *p)
{
    const uint64_t fields[] = {p->offset, p->skip,    p->events,          p->blocks,
                               p->routines, p->thread, (uint64_t)p->has_thread};
    for (size_t i = 0; i < sizeof fields / sizeof *fields; i++)
        state_put_u64(w, fields[i]);
}

int analyze_checkpoint_save(struct result_store *s, const struct result_key *key,
                            const struct recording_identity *id,
                            const struct trace_position *at, uint64_t events,
                            const struct routine_table *routines, struct analysis *a,
                            struct trms_error *err)
{
    struct checkpoint_save *c;
    if (checkpoint_save_begin(s, key, &c, err) != 0)
        return -1;
    struct state_writer w;
    state_writer_init(&w, checkpoint_save_bytes, c);
    state_put_bytes(&w, MAGIC, 8);
    state_put_u64(&w, ANALYZE_CHECKPOINT_VERSION);
    state_put_u64(&w, id->trace_bytes);
    state_put_u64(&w, id->head_crc);
    state_put_u64(&w, id->tail_crc);
    state_put_u64(&w, id->meta_crc);
    put_position(&w, at);
    state_put_u64(&w, events);
    /* All of them: the analysis may name a routine its block defined
     * before the position, which a resumed read defines again. */
    state_put_u64(&w, routines->count);
    for (uint64_t i = 0; i < routines->count; i++) {
        const struct routine *rt = &routines->items[i];
        size_t len = rt->name ? strlen(rt->name) : 0;
        state_put_u64(&w, rt->addr);
        state_put_u64(&w, rt->name ? len + 1 : 0);
        state_put_bytes(&w, rt->name, len);
    }
    analysis_save(a, &w);
    /* A flush that failed is an LMDB failure C keeps: the commit reports it. */
    (void)state_writer_finish(&w);
    return checkpoint_save_commit(c, err);
}

static void get_position(struct state_reader *r, struct trace_position *p)
{
    p->offset = state_get_u64(r);
    p->skip = state_get_u64(r);
    p->events = state_get_u64(r);
    p->blocks = state_get_u64(r);
    p->routines = state_get_u64(r);
    uint64_t thread = state_get_u64(r);
    p->has_thread = state_get_u64(r) != 0;
    if (thread > UINT32_MAX)
        state_reader_fail(r, "a thread id past 32 bits");
    p->thread = (uint32_t)thread;
}

static int load_routines(struct state_reader *r, struct routine_table *routines)
{
    uint64_t n = state_get_count(r, 2);
    char *name = NULL;
    for (uint64_t i = 0; i < n && !r->failed; i++) {
        uint64_t addr = state_get_u64(r);
        uint64_t len = state_get_count(r, 1);
        uint32_t id;
        if (len) {
            name = xrealloc(name, (size_t)len);
            state_get_bytes(r, name, (size_t)len - 1);
        }
        if (!r->failed &&
            routine_table_append(routines, len ? name : NULL, len ? (size_t)len - 1 : 0, addr,
                                 &id) != 0)
            state_reader_fail(r, "too many routines");
    }
    free(name);
    return r->failed ? -1 : 0;
}

int analyze_checkpoint_load(struct result_store *s, const struct result_key *key,
                            const struct recording_identity *id, int threads,
                            struct resume_point *point, struct routine_table *routines,
                            struct trms_error *err)
{
    struct checkpoint_load *c;
    uint64_t total;
    int rc = checkpoint_load_open(s, key, &c, &total, err);
    if (rc != 0)
        return rc;
    struct state_reader r;
    state_reader_init(&r, checkpoint_load_fill, c, total);
    char magic[8];
    state_get_bytes(&r, magic, sizeof magic);
    uint64_t version = state_get_u64(&r);
    struct recording_identity saved;
    saved.trace_bytes = state_get_u64(&r);
    saved.head_crc = (uint32_t)state_get_u64(&r);
    saved.tail_crc = (uint32_t)state_get_u64(&r);
    saved.meta_crc = (uint32_t)state_get_u64(&r);
    rc = -1;
    if (r.failed || memcmp(magic, MAGIC, sizeof magic) != 0)
        error_set(err, "the checkpoint is not one of `trms analyze`");
    else if (version != ANALYZE_CHECKPOINT_VERSION)
        error_set(err, "the checkpoint has format %" PRIu64 ", this trms reads %d", version,
                  ANALYZE_CHECKPOINT_VERSION);
    else if (saved.trace_bytes != id->trace_bytes || saved.head_crc != id->head_crc ||
             saved.tail_crc != id->tail_crc || saved.meta_crc != id->meta_crc)
        error_set(err, "the checkpoint was taken of another recording, or of this one before "
                       "it changed");
    else
        rc = 0;
    struct routine_table known; /* up to the position */
    routine_table_init(&known);
    if (rc == 0) {
        get_position(&r, &point->from);
        point->events = state_get_u64(&r);
        if (load_routines(&r, &known) != 0 || known.count < point->from.routines) {
            error_set(err, "the checkpoint is damaged (%s)",
                      r.error ? r.error : "routines do not add up");
            rc = -1;
        }
    }
    if (rc == 0) {
        struct trms_error inner;
        point->analysis = analysis_load(&r, threads, known.count, &inner);
        if (point->analysis && state_reader_finish(&r) != 0) {
            snprintf(inner.message, sizeof inner.message, "%s", r.error);
            analysis_free(point->analysis);
            point->analysis = NULL;
        }
        if (!point->analysis) {
            error_set(err, "the checkpoint's analysis cannot be loaded: %s", inner.message);
            rc = -1;
        }
    }
    /* The read starts with those before the position's block and defines
     * the rest again. */
    for (uint64_t i = 0; rc == 0 && i < point->from.routines; i++) {
        const struct routine *rt = &known.items[i];
        uint32_t index;
        (void)routine_table_append(routines, rt->name, rt->name ? strlen(rt->name) : 0, rt->addr,
                                   &index); /* fewer than known held */
    }
    routine_table_free(&known);
    checkpoint_load_close(c);
    return rc;
}
