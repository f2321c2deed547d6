/* event_codec: the byte layout of binary recordings (format version 4).
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
 *
 * Accesses (version 4). A block keeps ACCESS_SLOTS slots, each the end and
 * size of the last access recorded through it (0 and 0 at the block's
 * start). The writer picks an access's slot from its address's 64 KiB
 * region (access_slot_of), so that the stack, the heap and each array a
 * loop walks keep their own base: interleaved streams cost what one
 * stream costs. The reader never computes a slot; it reads it.
 *   0x08..0x0e size   the next record, an access, is of 1 << (op - 8) bytes
 *   0x0f       size   varint:size follows, likewise; a size record is only
 *        ever followed by an access record, and belongs to it
 *   0x40 | kind << 4 | slot   access; kind 0 read, 1 write, 2 kread, 3
 *        kwrite; of the slot's size unless a size record precedes it; then
 *        zigzag varint of addr minus the slot's end
 *   0x80 | kind << 6 | slot << 2 | zigzag   short access: a read (kind 0)
 *        or write (1) of the slot's size at a zigzag distance below 4 from
 *        its end (the next element of a scan): one byte
 *   0x10..0x3f are no record.
 * Blocks decode independently: the writer repeats the current thread at the
 * start of each block, and the slots restart empty.
 *
 * Up to version 3 accesses had one base, the previous access's end:
 *   0x80 | kind << 3 | size-class   access; size-class 0..6 is 1..64 bytes,
 *        7 means varint:size follows; then zigzag varint of addr minus the
 *        end of the previous access in the block
 *   0xc0 | kind << 5 | zigzag        short access (version 2): a read or
 *        write of the previous access's size, zigzag distance below 32
 * and 0x08..0x7f were no record. Version 1 is version 2 without the short
 * access; version 2 is version 3 without compressed blocks; version 3 is
 * version 4 with those accesses. Readers read all four; writers write 4.
 * Events blocks hold about TRACE_BLOCK_TARGET_PAYLOAD bytes (64 KiB up to
 * version 2, 256 KiB since: zstd finds more to share in a larger block).
 *
 * Header flags: bit 0 (TRACE_FLAG_SYNC) says the trace may hold sync
 * records; the writer sets it once it wrote one. Bit 1
 * (TRACE_FLAG_SOURCES) likewise for source records. A reader refuses a flag it
 * does not know ("uses features this trms does not know"), so an older
 * trms refuses such a trace plainly instead of calling the record corrupt.
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
#define TRACE_VERSION 4u
#define TRACE_OLDEST_VERSION 1u   /* the oldest a reader still reads */
#define TRACE_FILE_HEADER_SIZE 16u
#define TRACE_BLOCK_HEADER_SIZE 16u
#define TRACE_BLOCK_EVENTS 1u
#define TRACE_BLOCK_END 2u
#define TRACE_BLOCK_ZSTD 3u
#define TRACE_FIRST_SLOTTED_VERSION 4u /* accesses through slots */
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
    OP_SIZE = 0x08,          /* version 4: | size class; 0x0f: varint:size */
    OP_SLOT_ACCESS = 0x40,   /* version 4 */
    OP_SLOT_SHORT = 0x80,    /* version 4 */
    OP_ACCESS = 0x80,        /* up to version 3 */
    OP_SHORT_ACCESS = 0xc0,  /* versions 2 and 3 */
};

#define SHORT_ACCESS_ZIGZAG_LIMIT 32u  /* versions 2 and 3 */
#define SLOT_SHORT_ZIGZAG_LIMIT 4u

/* Slots of a block (version 4): 16, one opcode nibble. A power of two. */
#define ACCESS_SLOTS 16u
#define ACCESS_SLOT_REGION_SHIFT 16

struct access_slot {
    uint64_t end;   /* end of the last access through the slot */
    uint64_t size;  /* its size; 0 before the slot's first access */
};

/* The writer's choice of slot for an access at ADDR: its 64 KiB region,
 * hashed (Fibonacci hashing), so that a few regions far apart (stack,
 * heap, data) rarely share one. Measured on the bench's programs: regions
 * of 16 slots cut the bytes before zstd by a fifth to a third and after
 * it by a quarter to a half against version 3's single base. */
static inline unsigned access_slot_of(uint64_t addr)
{
    uint64_t region = addr >> ACCESS_SLOT_REGION_SHIFT;
    return (unsigned)((region * UINT64_C(0x9e3779b97f4a7c15)) >> 60);
}
_Static_assert(ACCESS_SLOTS == 16, "access_slot_of keeps the top 4 bits");

struct event_encoder {
    struct access_slot slots[ACCESS_SLOTS];
};

static inline void event_encoder_start_block(struct event_encoder *enc)
{
    for (unsigned i = 0; i < ACCESS_SLOTS; i++)
        enc->slots[i] = (struct access_slot){0, 0};
}

/* 0..6 for the powers of two 1..64, 7 for any other size. */
static inline unsigned event_size_class(uint64_t size)
{
    if (size != 0 && size <= 64 && (size & (size - 1)) == 0)
        return (unsigned)__builtin_ctzll(size);
    return 7;
}

#define EVENT_SIZE_FOLLOWS 7u

/* An access's address as the record holds it: its distance from the end
 * of the slot's previous access, zigzag-encoded (small either way). */
static inline uint64_t event_address_zigzag(uint64_t prev_end, uint64_t addr)
{
    uint64_t delta = addr - prev_end;
    return (delta << 1) ^ (uint64_t)((int64_t)delta >> 63);
}

/* A read's or write's two opcodes, for a size of class 0..6: the size
 * record's in the low byte, the short form's (slot 0, zigzag 0) in the
 * high one, which also gives the long form's kind. */
static inline uint16_t event_load_store_opcodes(enum event_type type, uint64_t size)
{
    unsigned kind = type == EVENT_WRITE;
    return (uint16_t)((OP_SIZE | event_size_class(size)) | (OP_SLOT_SHORT | kind << 6) << 8);
}

/* Longest record of event_encode_load_store: size, opcode, address. */
#define LOAD_STORE_RECORD_MAX (2u + VARINT_MAX)

/* Encodes a read or write of OPCODES (event_load_store_opcodes) at DST
 * (LOAD_STORE_RECORD_MAX bytes available): one byte when the short form
 * holds it. PDEP: the address spread by BMI2's pdep (a constant where it
 * is inlined; only where cpu_fast_pext() says so). Returns the end of the record (a loop that moves on by it adds
 * no length). Inline: the recorder writes hundreds of millions of these. */
static inline __attribute__((always_inline)) uint8_t *
event_put_load_store_with(struct event_encoder *enc, uint16_t opcodes, uint64_t addr,
                          uint64_t size, uint8_t *dst, int pdep)
{
    unsigned k = access_slot_of(addr);
    struct access_slot *slot = &enc->slots[k];
    uint64_t zigzag = event_address_zigzag(slot->end, addr);
    uint64_t prev_size = slot->size;
    slot->end = addr + size;
    slot->size = size;
    unsigned shortform = (unsigned)opcodes >> 8;
    /* One test of the size decides both the short form and the size
     * record; Q moves on with what is written (no count to keep). */
    uint8_t *q = dst;
    if (size != prev_size) {
        *q++ = (uint8_t)opcodes;
    } else if (zigzag < SLOT_SHORT_ZIGZAG_LIMIT) {
        *q = (uint8_t)(shortform | k << 2 | zigzag);
        return q + 1;
    }
    /* The long form's opcode from the short form's: 0x80 | kind << 6 shifted
     * is 0x20 | kind << 4, plus 0x20 is 0x40 | kind << 4 (the kind bit moves
     * from bit 6 to bit 4; two instructions, not four). */
    *q++ = (uint8_t)(((shortform >> 2) + (OP_SLOT_ACCESS - (OP_SLOT_SHORT >> 2))) | k);
    if (zigzag < 0x80) {
        *q = (uint8_t)zigzag;
        return q + 1;
    }
    return q + put_varint_with(q, zigzag, pdep);
}

static inline uint8_t *event_put_load_store(struct event_encoder *enc, uint16_t opcodes,
                                            uint64_t addr, uint64_t size, uint8_t *dst)
{
    return event_put_load_store_with(enc, opcodes, addr, size, dst, 0);
}

/* event_put_load_store, returning the bytes used. */
static inline size_t event_encode_load_store(struct event_encoder *enc, uint16_t opcodes,
                                             uint64_t addr, uint64_t size, uint8_t *dst)
{
    return (size_t)(event_put_load_store(enc, opcodes, addr, size, dst) - dst);
}

/* Encodes an access of TYPE (event_is_access) at DST, EVENT_RECORD_MAX
 * bytes available; returns bytes used. */
static inline size_t event_encode_access(struct event_encoder *enc, enum event_type type,
                                         uint64_t addr, uint64_t size, uint8_t *dst)
{
    unsigned cls = event_size_class(size);
    int load_store = type == EVENT_READ || type == EVENT_WRITE;
    if (cls != EVENT_SIZE_FOLLOWS && load_store)
        return event_encode_load_store(enc, event_load_store_opcodes(type, size), addr, size,
                                       dst);
    unsigned k = access_slot_of(addr);
    struct access_slot *slot = &enc->slots[k];
    uint64_t zigzag = event_address_zigzag(slot->end, addr);
    int same_size = size == slot->size;
    slot->end = addr + size;
    slot->size = size;
    if (same_size && load_store && zigzag < SLOT_SHORT_ZIGZAG_LIMIT) {
        *dst = (uint8_t)(OP_SLOT_SHORT | (unsigned)(type - EVENT_READ) << 6 | k << 2 | zigzag);
        return 1;
    }
    size_t n = 0;
    if (!same_size) {
        dst[n++] = (uint8_t)(OP_SIZE | cls);
        if (cls == EVENT_SIZE_FOLLOWS)
            n += put_varint(dst + n, size);
    }
    dst[n++] = (uint8_t)(OP_SLOT_ACCESS | (unsigned)(type - EVENT_READ) << 4 | k);
    return n + put_varint(dst + n, zigzag);
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
    uint64_t prev_end;      /* up to version 3: the previous access's end */
    uint64_t prev_size;     /* its size; 0 before the block's first access */
    int short_accesses;     /* the trace's version has them (2 and 3) */
    int slotted;            /* version 4: accesses through slots */
    struct access_slot slots[ACCESS_SLOTS];  /* version 4 */
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

struct batch_event;
struct flow_note;

/* Where event_decode_batch writes, and what it says of what it wrote. */
struct batch_decode {
    struct batch_event *into;  /* room for MAX */
    int flows;                 /* calls, returns and costs go there too */
    struct flow_note *notes;   /* room for MAX: the flows written, in order */
    size_t n_notes;
    uint64_t writes;           /* the stores among the accesses written */
};

/* event_decode_run straight into an analysis's batches (analysis.h,
 * analysis_access_room), for a version 4 block: the loads and stores that
 * follow, and with OUT->flows the calls of routines below ROUTINES,
 * returns and costs, each as the analysis driver holds it; at most MAX.
 * Returns how many; stops before anything else (0 for an older version),
 * which event_decode() then takes. */
size_t event_decode_batch(struct event_decoder *dec, struct batch_decode *out, size_t max,
                          uint64_t routines);

#endif
