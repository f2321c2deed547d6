/* pack_format: the archive `trms pack` writes, one file of plain records.
 *
 *   header     "TRMSPACK" (8 bytes), format (1 byte: 1, or 2 for the
 *              archive of a process tree, which adds the 'P' record)
 *   records    a kind byte, its fields, then the CRC-32 of the record's
 *              bytes from its kind on (4 bytes, little-endian):
 *     'F'      a file of the recording: name (varint length, bytes: one
 *              or two names joined by '/', like "meta" or "rr/events"),
 *              size (varint), the bytes
 *     'R'      a stored result: key (varint length, bytes: "cell=4/line=64"
 *              as the store spells it), when it was stored (varint length,
 *              bytes), latest (1 byte, 0 or 1), the result's encoded bytes
 *              (varint length, bytes; store/result_codec.h)
 *     'P'      (format 2) a process of a tree: its recording's directory
 *              (varint length, bytes: "processes/N-PID"); the 'F' and 'R'
 *              records after it, up to the next 'P' or the end, are that
 *              process's recording's. Those before the first 'P' are the
 *              recording's own (the tree's first process)
 *     'E'      the end: records before it (varint), bytes before it
 *              (varint); its CRC-32 covers every byte of the archive
 *              before it, not only its own
 *
 * Nothing follows the end record. Varints are LEB128, as in the trace.
 * The reader checks each record's checksum before anything uses the
 * record, and the end's against the whole, so a damaged archive is refused
 * naming the record and its byte offset. */
#ifndef TRMS_PACK_FORMAT_H
#define TRMS_PACK_FORMAT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/error.h"

#define PACK_FORMAT_SINGLE 1    /* one recording: what trms wrote before trees */
#define PACK_FORMAT_TREE 2      /* a process tree: adds the 'P' record */
#define PACK_FILE 'F'
#define PACK_RESULT 'R'
#define PACK_PROCESS 'P'
#define PACK_END 'E'

struct pack_writer {
    FILE *fp;
    uint32_t whole_crc, record_crc;
    uint64_t bytes, records;
};

/* Writes the header to FP (FORMAT: PACK_FORMAT_SINGLE, or _TREE when the
 * archive holds 'P' records, so that an older trms refuses it in one line
 * rather than unpacking only its first process). Write errors show at
 * pack_writer_finish. */
void pack_writer_start(struct pack_writer *w, FILE *fp, int format);
void pack_begin(struct pack_writer *w, int kind);
void pack_put(struct pack_writer *w, const void *data, size_t len);
void pack_put_varint(struct pack_writer *w, uint64_t v);
void pack_put_string(struct pack_writer *w, const char *s, size_t len); /* length, bytes */
void pack_end(struct pack_writer *w);
/* Writes the end record and flushes: 0, or -1 (errno says why). */
int pack_writer_finish(struct pack_writer *w);

struct pack_reader {
    FILE *fp;
    const char *name;           /* for messages */
    uint32_t whole_crc, record_crc;
    uint64_t offset;            /* bytes read */
    uint64_t record_start;      /* offset of the current record */
    uint64_t records;           /* records completed */
    int kind;                   /* of the current record */
    int format;                 /* the header's */
};

/* Reads and checks the header (either format). */
int pack_reader_start(struct pack_reader *r, FILE *fp, const char *name, struct trms_error *err);
/* Starts the next record: *KIND is its kind ('P' only in format 2). */
int pack_next(struct pack_reader *r, int *kind, struct trms_error *err);
int pack_get(struct pack_reader *r, void *buf, size_t len, struct trms_error *err);
int pack_get_varint(struct pack_reader *r, uint64_t *v, struct trms_error *err);
/* A length-prefixed string of at most MAX bytes into BUF (MAX + 1 bytes),
 * refused when it holds a NUL. */
int pack_get_string(struct pack_reader *r, char *buf, size_t max, const char *what,
                    struct trms_error *err);
/* Ends the current record, checking its checksum. */
int pack_end_record(struct pack_reader *r, struct trms_error *err);
/* Reads the end record's fields and checks them and the whole archive's
 * checksum, and that nothing follows. */
int pack_read_end(struct pack_reader *r, struct trms_error *err);

#endif
