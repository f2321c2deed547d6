#include "common/byte_buffer.h"

#include <stdlib.h>
#include <string.h>

#include "common/oom.h"
#include "common/varint.h"

void byte_buffer_free(struct byte_buffer *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->capacity = 0;
}

static void reserve(struct byte_buffer *b, size_t more)
{
    if (b->len + more <= b->capacity)
        return;
    size_t capacity = b->capacity ? b->capacity : 256;
    while (capacity < b->len + more)
        capacity *= 2;
    b->data = xrealloc(b->data, capacity);
    b->capacity = capacity;
}

void byte_buffer_put(struct byte_buffer *b, const void *data, size_t len)
{
    reserve(b, len);
    if (len)
        memcpy(b->data + b->len, data, len);
    b->len += len;
}

void byte_buffer_put_varint(struct byte_buffer *b, uint64_t v)
{
    reserve(b, VARINT_MAX);
    b->len += put_varint(b->data + b->len, v);
}

void byte_buffer_put_u128(struct byte_buffer *b, unsigned __int128 v)
{
    byte_buffer_put_varint(b, (uint64_t)v);
    byte_buffer_put_varint(b, (uint64_t)(v >> 64));
}

uint64_t byte_cursor_varint(struct byte_cursor *c)
{
    uint64_t v;
    if (c->failed || get_varint(&c->p, c->end, &v) != 0) {
        c->failed = 1;
        return 0;
    }
    return v;
}

unsigned __int128 byte_cursor_u128(struct byte_cursor *c)
{
    uint64_t lo = byte_cursor_varint(c);
    uint64_t hi = byte_cursor_varint(c);
    return (unsigned __int128)hi << 64 | lo;
}

const uint8_t *byte_cursor_bytes(struct byte_cursor *c, size_t len)
{
    if (c->failed || (size_t)(c->end - c->p) < len) {
        c->failed = 1;
        return NULL;
    }
    const uint8_t *p = c->p;
    c->p += len;
    return p;
}
