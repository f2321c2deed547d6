/* event_codec: the byte layout of binary recordings (format version 3).
 *
 *   file   = header block* end-block
 *   header = "TRMSEVTS" u32:version u32:flags(0)            (16 bytes)
 *   block  = u32:kind u32:payload-length u32:events u32:crc32(payload) payload
 *            kind 1 holds events, kind 2 ends the file with
 *            varint:total-events varint:event-blocks varint:routines
 *            varint:version (the version since version 3: a header whose
 *            version was changed does not read),
 *            kind 3 (version 3) holds events compressed: its payload is
 *            u32:length of the events payload, then one zstd frame that
 *            decompresses to it (the checksum is of the stored bytes)
 *
 * All integers little-endian; varints are LEB128. Inside an events payload
 * each record starts with one opcode byte:
 *   0x01 thread  varint:tid
 *   0x02 call    varint:routine
 *   0x03 return
 *   0x04 cost    varint:instructions
 *   0x05 routine varint:id varint:addr varint:(name length + 1, 0 = none) name
 *   0x06 sync    varint:kind varint:addr varint:value (trace/sync_event.h),
 *        the current thread's; only in a trace whose header flags hold
 *        TRACE_FLAG_SYNC. Not an event: no event count includes it.
 *   0x07 source  varint:channel (1..2^32-1), then a kwrite access record:
 *        the kernel wrote a read's bytes from that pipe, FIFO or socket
 *        (its inode; the event's `routine` field carries it). Only in a
 *        trace whose header flags hold TRACE_FLAG_SOURCES. Not an event.
 *   0x80 | kind << 3 | size-class   access; kind 0 read, 1 write, 2 kread,
 *        3 kwrite; size-class 0..6 is 1..64 bytes, 7 means varint:size
 *        follows; then zigzag varint of addr minus the end of the previous
 *        access in the block (sequential scans cost one byte).
 *   0xc0 | kind << 5 | zigzag        short access (version 2): a read (kind
 *        0) or write (1) of the size of the previous access in the block,
 *        whose zigzag distance, as above, is below 32: one byte for most
 *        of a program's loads and stores. Not the block's first access.
 *   0xa0..0xbf are no record.
 * Blocks decode independently: the writer repeats the current thread at the
 * start of each block, and the address base restarts at 0.
 *
 * Header flags: bit 0 (TRACE_FLAG_SYNC) says the trace may hold sync
 * records; the writer sets it once it wrote one. Bit 1
 * (TRACE_FLAG_SOURCES) likewise for source records. A reader refuses a flag it
 * does not know ("uses features this trms does not know"), so an older
 * trms refuses such a trace plainly instead of calling the record corrupt;
 * the version stays 3 and every trace without sync records reads there.
 *
 * Version 1 is version 2 without the short access; version 2 is version 3
 * without compressed blocks. Readers read all three. Writers write events
 * blocks of about TRACE_BLOCK_TARGET_PAYLOAD bytes (64 KiB up to version 2,
 * 256 KiB since: zstd finds more to share in a larger block).
 *
 * Freestanding (no libc), so engines that run without libc encode with it. */
#ifndef TRMS_EVENT_CODEC_H
#define TRMS_EVENT_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "common/varint.h"
#include "trace/event.h"
#include "trace/sync_event.h"

#define TRACE_MAGIC "TRMSEVTS"
#define TRACE_VERSION 3u
#define TRACE_OLDEST_VERSION 1u   /* the oldest a reader still reads */
#define TRACE_FILE_HEADER_SIZE 16u
#define TRACE_BLOCK_HEADER_SIZE 16u
#define TRACE_BLOCK_EVENTS 1u
#define TRACE_BLOCK_END 2u
#define TRACE_BLOCK_ZSTD 3u
#define TRACE_FLAG_SYNC 1u
#define TRACE_FLAG_SOURCES 2u
#define TRACE_KNOWN_FLAGS (TRACE_FLAG_SYNC | TRACE_FLAG_SOURCES)
/* zstd's fastest regular level: about 4.5 times smaller on the traces of
 * real programs, at some 400 MB/s of trace per core here. */
#define TRACE_ZSTD_LEVEL 1
/* Writers close a block once its payload passes this size... */
#define TRACE_BLOCK_TARGET_PAYLOAD (256u << 10)
/* ...and readers reject blocks larger than this (a corrupt length). */
#define TRACE_BLOCK_MAX_PAYLOAD (16u << 20)
/* Longest encoding of one event record (a kwrite with its source record). */
#define EVENT_RECORD_MAX 27u
/* Longest encoding of a routine record, name excluded. */
#define ROUTINE_RECORD_MAX 31u

enum {
    OP_THREAD = 0x01,
    OP_CALL = 0x02,
    OP_RETURN = 0x03,
    OP_COST = 0x04,
    OP_ROUTINE = 0x05,
    OP_SYNC = 0x06,
    OP_SOURCE = 0x07,
    OP_ACCESS = 0x80,
    OP_SHORT_ACCESS = 0xc0,
};

#define SHORT_ACCESS_ZIGZAG_LIMIT 32u

struct event_encoder {
    uint64_t prev_end;  /* end of the previous access in this block */
    uint64_t prev_size; /* its size; 0 before the block's first access */
};

static inline void event_encoder_start_block(struct event_encoder *enc)
{
    enc->prev_end = 0;
    enc->prev_size = 0;
}

/* 0..6 for the powers of two 1..64, 7 for any other size. */
static inline unsigned event_size_class(uint64_t size)
{
    if (size != 0 && size <= 64 && (size & (size - 1)) == 0)
        return (unsigned)__builtin_ctzll(size);
    return 7;
}

#define EVENT_SIZE_FOLLOWS 7u

/* The opcode byte of an access of TYPE (event_is_access) and SIZE. */
static inline uint8_t event_access_opcode(enum event_type type, uint64_t size)
{
    /* The opcode's kind field follows the event types' order. */
    return (uint8_t)(OP_ACCESS | (unsigned)(type - EVENT_READ) << 3 | event_size_class(size));
}

/* An access's address as the record holds it: its distance from the end
 * of the previous access, zigzag-encoded (small either way). */
static inline uint64_t event_address_zigzag(uint64_t prev_end, uint64_t addr)
{
    uint64_t delta = addr - prev_end;
    return (delta << 1) ^ (uint64_t)((int64_t)delta >> 63);
}

/* A read's or write's two opcodes: the long form's (event_access_opcode,
 * with its size class) in the low byte, the short form's (zigzag 0) in the
 * high one. */
static inline uint16_t event_load_store_opcodes(enum event_type type, uint64_t size)
{
    uint8_t opcode = event_access_opcode(type, size);
    /* The kind bit moves from bit 3 of the long form to bit 5. */
    return (uint16_t)(opcode | (OP_SHORT_ACCESS | (opcode & 0x08u) << 2) << 8);
}

/* Encodes a read or write of OPCODES (event_load_store_opcodes) at DST
 * (1 + VARINT_MAX bytes available): one byte when the short form holds
 * it. Returns bytes used. Inline: the recorder writes hundreds of
 * millions of these. */
static inline size_t event_encode_load_store(struct event_encoder *enc, uint16_t opcodes,
                                             uint64_t addr, uint64_t size, uint8_t *dst)
{
    uint64_t zigzag = event_address_zigzag(enc->prev_end, addr);
    int same_size = size == enc->prev_size;
    enc->prev_end = addr + size;
    enc->prev_size = size;
    if (same_size && zigzag < SHORT_ACCESS_ZIGZAG_LIMIT) {
        *dst = (uint8_t)((opcodes >> 8) | zigzag);
        return 1;
    }
    uint8_t opcode = (uint8_t)opcodes;
    dst[0] = opcode;
    if (zigzag < 0x80) {
        dst[1] = (uint8_t)zigzag;
        return 2;
    }
    return 1 + put_varint(dst + 1, zigzag);
}

/* Encodes an access of TYPE (event_is_access) at DST, EVENT_RECORD_MAX
 * bytes available; returns bytes used. */
static inline size_t event_encode_access(struct event_encoder *enc, enum event_type type,
                                         uint64_t addr, uint64_t size, uint8_t *dst)
{
    uint8_t opcode = event_access_opcode(type, size);
    if ((opcode & 7) != EVENT_SIZE_FOLLOWS && (type == EVENT_READ || type == EVENT_WRITE))
        return event_encode_load_store(enc, event_load_store_opcodes(type, size), addr, size,
                                       dst);
    size_t n = 0;
    dst[n++] = opcode;
    if ((opcode & 7) == EVENT_SIZE_FOLLOWS)
        n += put_varint(dst + n, size);
    n += put_varint(dst + n, event_address_zigzag(enc->prev_end, addr));
    enc->prev_end = addr + size;
    enc->prev_size = size;
    return n;
}

/* Encodes a call of ROUTINE, a return or a cost of SIZE instructions (TYPE
 * says which; the other operand is ignored) at DST (1 + VARINT_MAX bytes
 * available); returns bytes used. Inline: calls, returns and costs are the
 * recorder's most common events after the loads and stores. */
static inline size_t event_encode_flow(enum event_type type, uint32_t routine, uint64_t size,
                                       uint8_t *dst)
{
    if (type == EVENT_RETURN) {
        dst[0] = OP_RETURN;
        return 1;
    }
    dst[0] = type == EVENT_CALL ? OP_CALL : OP_COST;
    return 1 + put_varint(dst + 1, type == EVENT_CALL ? routine : size);
}

static inline int event_is_flow(enum event_type type)
{
    return type == EVENT_CALL || type == EVENT_RETURN || type == EVENT_COST;
}

/* Encodes EV at DST (EVENT_RECORD_MAX bytes available); returns bytes used. */
size_t event_encode(struct event_encoder *enc, const struct event *ev, uint8_t *dst);

/* Encodes a routine definition at DST (ROUTINE_RECORD_MAX + LEN bytes
 * available); NAME NULL for an address-only routine. */
size_t routine_encode(uint32_t id, const char *name, size_t len, uint64_t addr, uint8_t *dst);

/* Encodes a sync record at DST (1 + 3 * VARINT_MAX bytes available). */
size_t sync_encode(const struct sync_event *ev, uint8_t *dst);
#define SYNC_RECORD_MAX 31u

void put_le32(uint8_t *dst, uint32_t v);
uint32_t get_le32(const uint8_t *src);

struct decoded_routine {
    uint64_t id;
    uint64_t addr;
    const char *name;   /* points into the payload; NULL when none */
    size_t len;
};

enum decode_status {
    DECODE_EVENT,
    DECODE_ROUTINE,
    DECODE_SYNC,        /* a sync record, into the decoder's sync */
    DECODE_END,         /* payload exhausted */
    DECODE_ERROR,
};

struct event_decoder {
    const uint8_t *p;
    const uint8_t *end;
    uint64_t prev_end;
    uint64_t prev_size;     /* 0 before the block's first access */
    int short_accesses;     /* the trace's version has them */
    int sync_records;       /* the trace's flags allow them */
    int source_records;     /* the trace's flags allow them */
    struct sync_event sync; /* with DECODE_SYNC; tid not set */
    const char *error;      /* set with DECODE_ERROR */
};

/* Starts decoding a block of a trace of format VERSION and header FLAGS. */
void event_decoder_start(struct event_decoder *dec, const uint8_t *payload, size_t len,
                         uint32_t version, uint32_t flags);

/* Decodes the next record into EV or ROUTINE. */
enum decode_status event_decode(struct event_decoder *dec, struct event *ev,
                                struct decoded_routine *routine);

/* The readers' fast path: decodes the records that follow into EVENTS (at
 * most MAX) while they are accesses, costs, returns, or calls of routines
 * below ROUTINES; returns how many. Stops before anything else (a thread,
 * a routine definition, anything malformed), which event_decode() then
 * takes. */
size_t event_decode_run(struct event_decoder *dec, struct event *events, size_t max,
                        uint64_t routines);

#endif
