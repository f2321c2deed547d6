/* byte_buffer: a growable byte string to serialize into, and a cursor to
 * read one back with bounds checks that latch a failure flag (so a decoder
 * checks once at the end instead of after every field). */
#ifndef TRMS_BYTE_BUFFER_H
#define TRMS_BYTE_BUFFER_H

#include <stddef.h>
#include <stdint.h>

struct byte_buffer {
    uint8_t *data;
    size_t len;
    size_t capacity;
};

void byte_buffer_free(struct byte_buffer *b);
void byte_buffer_put(struct byte_buffer *b, const void *data, size_t len);
void byte_buffer_put_varint(struct byte_buffer *b, uint64_t v);
void byte_buffer_put_u128(struct byte_buffer *b, unsigned __int128 v);

struct byte_cursor {
    const uint8_t *p;
    const uint8_t *end;
    int failed;
};

static inline void byte_cursor_init(struct byte_cursor *c, const void *data, size_t len)
{
    c->p = data;
    c->end = c->p + len;
    c->failed = 0;
}

/* Each returns 0 (and sets failed) when the data runs out or is malformed. */
uint64_t byte_cursor_varint(struct byte_cursor *c);
unsigned __int128 byte_cursor_u128(struct byte_cursor *c);
const uint8_t *byte_cursor_bytes(struct byte_cursor *c, size_t len);

#endif
