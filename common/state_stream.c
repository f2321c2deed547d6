#include "common/state_stream.h"

#include <stdlib.h>
#include <string.h>

#include "common/oom.h"
#include "common/varint.h"

void state_writer_init(struct state_writer *w,
                       int (*flush)(void *ctx, const uint8_t *data, size_t len), void *ctx)
{
    *w = (struct state_writer){.flush = flush, .ctx = ctx};
    w->buf = xmalloc(STATE_WRITER_BUFFER);
}

static void flush_buffer(struct state_writer *w)
{
    if (w->len && !w->failed && w->flush(w->ctx, w->buf, w->len) != 0)
        w->failed = 1;
    w->len = 0;
}

void state_put_bytes(struct state_writer *w, const void *data, size_t len)
{
    const uint8_t *p = data;
    w->total += len;
    while (len) {
        if (w->len == STATE_WRITER_BUFFER)
            flush_buffer(w);
        size_t n = STATE_WRITER_BUFFER - w->len < len ? STATE_WRITER_BUFFER - w->len : len;
        memcpy(w->buf + w->len, p, n);
        w->len += n;
        p += n;
        len -= n;
    }
}

void state_put_u64(struct state_writer *w, uint64_t v)
{
    if (STATE_WRITER_BUFFER - w->len < VARINT_MAX)
        flush_buffer(w);
    size_t n = put_varint(w->buf + w->len, v);
    w->len += n;
    w->total += n;
}

void state_put_i64(struct state_writer *w, int64_t v)
{
    state_put_u64(w, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

void state_put_u128(struct state_writer *w, unsigned __int128 v)
{
    state_put_u64(w, (uint64_t)v);
    state_put_u64(w, (uint64_t)(v >> 64));
}

void state_put_words(struct state_writer *w, const uint64_t *words, size_t n)
{
    /* x86-64 is little-endian: the words are their own byte form. */
    _Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "little-endian words");
    state_put_bytes(w, words, n * sizeof *words);
}

int state_writer_finish(struct state_writer *w)
{
    flush_buffer(w);
    free(w->buf);
    w->buf = NULL;
    return w->failed ? -1 : 0;
}

void state_writer_abandon(struct state_writer *w)
{
    free(w->buf);
    w->buf = NULL;
    w->failed = 1;
}

void state_reader_init(struct state_reader *r,
                       int (*fill)(void *ctx, const uint8_t **data, size_t *len), void *ctx,
                       uint64_t total)
{
    *r = (struct state_reader){.fill = fill, .ctx = ctx, .remaining = total};
}

void state_reader_fail(struct state_reader *r, const char *what)
{
    if (!r->failed)
        r->error = what;
    r->failed = 1;
}

/* Makes at least one byte available; 0 on success. */
static int refill(struct state_reader *r)
{
    while (r->p == r->end) {
        const uint8_t *data;
        size_t len;
        if (r->failed)
            return -1;
        if (r->fill(r->ctx, &data, &len) != 0) {
            state_reader_fail(r, "cannot read the saved state");
            return -1;
        }
        if (len == 0) {
            state_reader_fail(r, "the saved state ends early");
            return -1;
        }
        r->p = data;
        r->end = data + len;
    }
    return 0;
}

void state_get_bytes(struct state_reader *r, void *dst, size_t len)
{
    uint8_t *out = dst;
    if (len > r->remaining) {
        state_reader_fail(r, "the saved state ends early");
    }
    while (len && !r->failed && refill(r) == 0) {
        size_t n = (size_t)(r->end - r->p) < len ? (size_t)(r->end - r->p) : len;
        memcpy(out, r->p, n);
        r->p += n;
        r->remaining -= n;
        out += n;
        len -= n;
    }
    if (r->failed && dst)
        memset(out, 0, len);
}

uint64_t state_get_u64(struct state_reader *r)
{
    uint64_t v = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        uint8_t byte;
        state_get_bytes(r, &byte, 1);
        if (r->failed)
            return 0;
        if (shift == 63 && byte > 1)
            break;
        v |= (uint64_t)(byte & 0x7f) << shift;
        if (!(byte & 0x80))
            return v;
    }
    state_reader_fail(r, "a malformed number in the saved state");
    return 0;
}

int64_t state_get_i64(struct state_reader *r)
{
    uint64_t z = state_get_u64(r);
    return (int64_t)(z >> 1) ^ -(int64_t)(z & 1);
}

unsigned __int128 state_get_u128(struct state_reader *r)
{
    uint64_t lo = state_get_u64(r);
    uint64_t hi = state_get_u64(r);
    return (unsigned __int128)hi << 64 | lo;
}

void state_get_words(struct state_reader *r, uint64_t *dst, size_t n)
{
    if (n > r->remaining / sizeof *dst) {
        state_reader_fail(r, "the saved state ends early");
        memset(dst, 0, n * sizeof *dst);
        return;
    }
    state_get_bytes(r, dst, n * sizeof *dst);
}

uint64_t state_get_count(struct state_reader *r, uint64_t min_bytes)
{
    uint64_t n = state_get_u64(r);
    if (min_bytes && n > r->remaining / min_bytes) {
        state_reader_fail(r, "a count in the saved state is larger than the state");
        return 0;
    }
    return n;
}

int state_reader_finish(struct state_reader *r)
{
    if (!r->failed && (r->remaining != 0 || r->p != r->end))
        state_reader_fail(r, "the saved state has bytes left over");
    return r->failed ? -1 : 0;
}
