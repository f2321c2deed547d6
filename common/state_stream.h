/* state_stream: the bytes of a saved analysis state, out and back in.
 *
 * The analyses write their state through a state_writer and read it back
 * through a state_reader, in integers (LEB128), raw 64-bit words and byte
 * strings. Where the bytes go is the caller's business: a writer hands
 * full buffers to a flush callback (the result store writes them into
 * LMDB), a reader asks a fill callback for the next piece (LMDB values,
 * read in place). So the analyses never see the store, and the store
 * never sees an analysis; integrity (a checksum) is the carrier's. Both
 * sides latch the first failure: a caller checks once, at the end. */
#ifndef TRMS_STATE_STREAM_H
#define TRMS_STATE_STREAM_H

#include <stddef.h>
#include <stdint.h>

#define STATE_WRITER_BUFFER (256u << 10)

struct state_writer {
    /* Receives the bytes in order; non-zero stops the writer. */
    int (*flush)(void *ctx, const uint8_t *data, size_t len);
    void *ctx;
    uint8_t *buf;           /* STATE_WRITER_BUFFER bytes */
    size_t len;
    uint64_t total;         /* bytes written so far, flushed or not */
    int failed;
};

void state_writer_init(struct state_writer *w,
                       int (*flush)(void *ctx, const uint8_t *data, size_t len), void *ctx);
void state_put_u64(struct state_writer *w, uint64_t v);
void state_put_i64(struct state_writer *w, int64_t v);   /* zigzag */
void state_put_u128(struct state_writer *w, unsigned __int128 v);
void state_put_bytes(struct state_writer *w, const void *data, size_t len);
/* N words, 8 little-endian bytes each (shadow records do not shrink as
 * varints; raw words copy fast). */
void state_put_words(struct state_writer *w, const uint64_t *words, size_t n);
/* Flushes what is left and frees the buffer; non-zero when the writer
 * failed. */
int state_writer_finish(struct state_writer *w);
/* Frees the buffer of a writer that will not finish. */
void state_writer_abandon(struct state_writer *w);

struct state_reader {
    /* Hands over the next piece of the bytes (*LEN 0 at the end); non-zero
     * on failure. The piece must stay valid until the next call. */
    int (*fill)(void *ctx, const uint8_t **data, size_t *len);
    void *ctx;
    const uint8_t *p, *end;
    uint64_t remaining;     /* bytes not yet consumed */
    int failed;
    const char *error;      /* what failed first */
};

/* TOTAL: how many bytes the pieces hold in all (what the writer wrote,
 * state_writer's total after finish). */
void state_reader_init(struct state_reader *r,
                       int (*fill)(void *ctx, const uint8_t **data, size_t *len), void *ctx,
                       uint64_t total);
uint64_t state_get_u64(struct state_reader *r);
int64_t state_get_i64(struct state_reader *r);
unsigned __int128 state_get_u128(struct state_reader *r);
void state_get_bytes(struct state_reader *r, void *dst, size_t len);
void state_get_words(struct state_reader *r, uint64_t *dst, size_t n);
/* A count of items that take at least MIN_BYTES each: fails (and returns
 * 0) when the bytes left could not hold them, so a corrupt count never
 * becomes a huge allocation. */
uint64_t state_get_count(struct state_reader *r, uint64_t min_bytes);
/* Marks the reader failed with WHAT (a loader's consistency check). */
void state_reader_fail(struct state_reader *r, const char *what);
/* Checks that every byte was read; non-zero when anything failed
 * (r->error says what). */
int state_reader_finish(struct state_reader *r);

#endif
