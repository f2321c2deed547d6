#include "trace/event_codec.h"

#include "analyses/batch_event.h"
#include "common/compiler.h"
#include "common/cpu_features.h"

/* Access kinds in opcode order. */
static const enum event_type access_types[4] = {EVENT_READ, EVENT_WRITE, EVENT_KREAD,
                                                EVENT_KWRITE};

void put_le32(uint8_t *dst, uint32_t v)
{
    dst[0] = (uint8_t)v;
    dst[1] = (uint8_t)(v >> 8);
    dst[2] = (uint8_t)(v >> 16);
    dst[3] = (uint8_t)(v >> 24);
}

uint32_t get_le32(const uint8_t *src)
{
    return (uint32_t)src[0] | (uint32_t)src[1] << 8 | (uint32_t)src[2] << 16 |
           (uint32_t)src[3] << 24;
}

_Static_assert(EVENT_WRITE == EVENT_READ + 1 && EVENT_KREAD == EVENT_READ + 2 &&
                   EVENT_KWRITE == EVENT_READ + 3,
               "access kinds are consecutive event types");

size_t event_encode(struct event_encoder *enc, const struct event *ev, uint8_t *dst)
{
    size_t n = 0;
    if (ev->type == EVENT_KWRITE && ev->routine) { /* a read's bytes, from a channel */
        dst[n++] = OP_SOURCE;
        n += put_varint(dst + n, ev->routine);
        return n + event_encode_access(enc, ev->type, ev->addr, ev->size, dst + n);
    }
    if (event_is_access(ev->type))
        return event_encode_access(enc, ev->type, ev->addr, ev->size, dst);
    if (event_is_flow(ev->type))
        return event_encode_flow(ev->type, ev->routine, ev->size, dst);
    if (ev->type == EVENT_THREAD) {
        dst[n++] = OP_THREAD;
        n += put_varint(dst + n, ev->tid);
    }
    return n;
}

size_t routine_encode(uint32_t id, const char *name, size_t len, uint64_t addr, uint8_t *dst)
{
    size_t n = 0;
    dst[n++] = OP_ROUTINE;
    n += put_varint(dst + n, id);
    n += put_varint(dst + n, addr);
    n += put_varint(dst + n, name ? (uint64_t)len + 1 : 0);
    for (size_t i = 0; name && i < len; i++)
        dst[n++] = (uint8_t)name[i];
    return n;
}

size_t sync_encode(const struct sync_event *ev, uint8_t *dst)
{
    size_t n = 0;
    dst[n++] = OP_SYNC;
    n += put_varint(dst + n, ev->kind);
    n += put_varint(dst + n, ev->addr);
    n += put_varint(dst + n, ev->value);
    return n;
}

void event_decoder_start(struct event_decoder *dec, const uint8_t *payload, size_t len,
                         uint32_t version, uint32_t flags)
{
    dec->sync_records = (flags & TRACE_FLAG_SYNC) != 0;
    dec->source_records = (flags & TRACE_FLAG_SOURCES) != 0;
    dec->p = payload;
    dec->end = payload + len;
    dec->prev_end = 0;
    dec->prev_size = 0;
    dec->short_accesses = version >= 2 && version < TRACE_FIRST_SLOTTED_VERSION;
    dec->slotted = version >= TRACE_FIRST_SLOTTED_VERSION;
    if (dec->slotted)
        for (unsigned i = 0; i < ACCESS_SLOTS; i++)
            dec->slots[i] = (struct access_slot){0, 0};
    dec->error = 0;
}

static enum decode_status fail(struct event_decoder *dec, const char *why)
{
    dec->error = why;
    return DECODE_ERROR;
}

static uint64_t unzigzag(uint64_t zigzag)
{
    return (zigzag >> 1) ^ (~(zigzag & 1) + 1);
}

/* The address of the access EV, of its size, at ZIGZAG from the end of
 * the previous one. */
static enum decode_status access_at(struct event_decoder *dec, struct event *ev,
                                    uint64_t zigzag)
{
    ev->addr = dec->prev_end + unzigzag(zigzag);
    if (ev->addr + (ev->size - 1) < ev->addr)
        return fail(dec, "access wraps around the address space");
    dec->prev_end = ev->addr + ev->size;
    dec->prev_size = ev->size;
    return DECODE_EVENT;
}

/* A version 4 access at ZIGZAG from SLOT's end, of SIZE bytes. */
static enum decode_status slot_access_at(struct event_decoder *dec, struct event *ev,
                                         struct access_slot *slot, uint64_t size,
                                         uint64_t zigzag)
{
    ev->size = size;
    ev->addr = slot->end + unzigzag(zigzag);
    if (ev->addr + (size - 1) < ev->addr)
        return fail(dec, "access wraps around the address space");
    slot->end = ev->addr + size;
    slot->size = size;
    return DECODE_EVENT;
}

/* A version 4 access record, or size record and access, from its opcode
 * OP (0x08 and above, already read). */
static enum decode_status slotted_access(struct event_decoder *dec, struct event *ev,
                                         uint8_t op)
{
    uint64_t size = 0, zigzag;
    if (op < OP_SLOT_ACCESS) {
        if (op > (OP_SIZE | EVENT_SIZE_FOLLOWS))
            return fail(dec, "unknown opcode");
        if (op < (OP_SIZE | EVENT_SIZE_FOLLOWS))
            size = 1ull << (op - OP_SIZE);
        else if (get_varint(&dec->p, dec->end, &size) != 0)
            return fail(dec, "truncated access size");
        if (size == 0 || size > EVENT_MAX_ACCESS_SIZE)
            return fail(dec, "access size out of range");
        if (dec->p == dec->end || (*dec->p & 0xc0) != OP_SLOT_ACCESS)
            return fail(dec, "size record not before an access");
        op = *dec->p++;
    }
    if (op & OP_SLOT_SHORT) {
        struct access_slot *slot = &dec->slots[(op >> 2) & (ACCESS_SLOTS - 1)];
        if (slot->size == 0)
            return fail(dec, "short access through a slot without an access before it");
        ev->type = access_types[(op >> 6) & 1];
        return slot_access_at(dec, ev, slot, slot->size, op & (SLOT_SHORT_ZIGZAG_LIMIT - 1));
    }
    struct access_slot *slot = &dec->slots[op & (ACCESS_SLOTS - 1)];
    if (size == 0 && (size = slot->size) == 0)
        return fail(dec, "access without a size");
    if (get_varint(&dec->p, dec->end, &zigzag) != 0)
        return fail(dec, "truncated access address");
    ev->type = access_types[(op >> 4) & 3];
    return slot_access_at(dec, ev, slot, size, zigzag);
}

/* Whether the record at the decoder is a kernel write (after a source). */
static int kernel_write_follows(const struct event_decoder *dec)
{
    const uint8_t *p = dec->p, *end = dec->end;
    if (!dec->slotted)
        return p < end && (*p & 0xf8) == (OP_ACCESS | 3u << 3);
    if (p < end && *p >= OP_SIZE && *p <= (OP_SIZE | EVENT_SIZE_FOLLOWS)) {
        /* Past the size record to the access it belongs to. */
        uint64_t size;
        p++;
        if (*(p - 1) == (OP_SIZE | EVENT_SIZE_FOLLOWS) && get_varint(&p, end, &size) != 0)
            return 0;
    }
    return p < end && (*p & 0xf0) == (OP_SLOT_ACCESS | 3u << 4);
}

enum decode_status event_decode(struct event_decoder *dec, struct event *ev,
                                struct decoded_routine *routine)
{
    if (dec->p == dec->end)
        return DECODE_END;
    uint8_t op = *dec->p++;
    uint64_t v;
    if (dec->slotted && op >= OP_SIZE)
        return slotted_access(dec, ev, op);
    if ((op & OP_SHORT_ACCESS) == OP_SHORT_ACCESS) {
        if (!dec->short_accesses)
            return fail(dec, "unknown opcode");
        if (dec->prev_size == 0)
            return fail(dec, "short access without an access before it");
        ev->type = access_types[(op >> 5) & 1];
        ev->size = dec->prev_size;
        return access_at(dec, ev, op & (SHORT_ACCESS_ZIGZAG_LIMIT - 1));
    }
    if (op & OP_ACCESS) {
        if (op & 0x60)
            return fail(dec, "unknown opcode");
        unsigned cls = op & 7;
        ev->type = access_types[(op >> 3) & 3];
        if (cls < 7)
            ev->size = 1ull << cls;
        else if (get_varint(&dec->p, dec->end, &ev->size) != 0)
            return fail(dec, "truncated access size");
        if (ev->size == 0 || ev->size > EVENT_MAX_ACCESS_SIZE)
            return fail(dec, "access size out of range");
        if (get_varint(&dec->p, dec->end, &v) != 0)
            return fail(dec, "truncated access address");
        return access_at(dec, ev, v);
    }
    switch (op) {
    case OP_THREAD:
        if (get_varint(&dec->p, dec->end, &v) != 0 || v > UINT32_MAX)
            return fail(dec, "bad thread id");
        ev->type = EVENT_THREAD;
        ev->tid = (uint32_t)v;
        return DECODE_EVENT;
    case OP_CALL:
        if (get_varint(&dec->p, dec->end, &v) != 0 || v >= UINT32_MAX)
            return fail(dec, "bad routine id");
        ev->type = EVENT_CALL;
        ev->routine = (uint32_t)v;
        return DECODE_EVENT;
    case OP_RETURN:
        ev->type = EVENT_RETURN;
        return DECODE_EVENT;
    case OP_COST:
        if (get_varint(&dec->p, dec->end, &ev->size) != 0)
            return fail(dec, "truncated cost");
        ev->type = EVENT_COST;
        return DECODE_EVENT;
    case OP_ROUTINE:
        if (get_varint(&dec->p, dec->end, &routine->id) != 0 ||
            get_varint(&dec->p, dec->end, &routine->addr) != 0 ||
            get_varint(&dec->p, dec->end, &v) != 0)
            return fail(dec, "truncated routine definition");
        if (v > (uint64_t)(dec->end - dec->p) + 1)
            return fail(dec, "routine name runs past the block");
        routine->name = v ? (const char *)dec->p : 0;
        routine->len = v ? (size_t)(v - 1) : 0;
        dec->p += routine->len;
        return DECODE_ROUTINE;
    case OP_SYNC:
        if (!dec->sync_records)
            return fail(dec, "unknown opcode");
        if (get_varint(&dec->p, dec->end, &v) != 0 ||
            get_varint(&dec->p, dec->end, &dec->sync.addr) != 0 ||
            get_varint(&dec->p, dec->end, &dec->sync.value) != 0)
            return fail(dec, "truncated sync record");
        if (v == 0 || v >= SYNC_KIND_END)
            return fail(dec, "unknown sync kind");
        dec->sync.kind = (uint32_t)v;
        return DECODE_SYNC;
    case OP_SOURCE: {
        if (!dec->source_records)
            return fail(dec, "unknown opcode");
        if (get_varint(&dec->p, dec->end, &v) != 0 || v == 0 || v > UINT32_MAX)
            return fail(dec, "bad source record");
        if (!kernel_write_follows(dec))
            return fail(dec, "source record not before a kernel write");
        enum decode_status status = event_decode(dec, ev, routine);
        ev->routine = (uint32_t)v;
        return status;
    }
    default:
        return fail(dec, "unknown opcode");
    }
}

/* A varint at P of at most 9 bytes, 64 bits wide: 0 when it is not (or
 * runs past END), else its length. */
static inline size_t short_varint(const uint8_t *p, const uint8_t *end, uint64_t *v)
{
    uint64_t value = 0;
    for (size_t i = 0; i < 9 && p + i < end; i++) {
        value |= (uint64_t)(p[i] & 0x7f) << (7 * i);
        if (!(p[i] & 0x80)) {
            *v = value;
            return i + 1;
        }
    }
    return 0;
}

/* The varint operand after the opcode at P, into V: the record's length,
 * 0 when it does not read. Operands take one to seven bytes,
 * unpredictably: read in one word while the block surely holds it. PEXT:
 * gathered by BMI2's pext (a constant where it is inlined). */
static ALWAYS_INLINE size_t operand_after(const uint8_t *p, const uint8_t *end, uint64_t *v,
                                          int pext)
{
    size_t len = end - p > 8 ? get_varint8_with(p + 1, v, pext) : 0;
    if (!len)
        len = short_varint(p + 1, end, v);
    return len ? len + 1 : 0;
}

/* A return, a cost, or a call of a routine below ROUTINES at P, into EV:
 * the record's length; 0 for anything else (the general path takes it).
 * The same in every version. */
static ALWAYS_INLINE size_t decode_flow(const uint8_t *p, const uint8_t *end,
                                        uint64_t routines, struct event *ev, int pext)
{
    uint8_t op = *p;
    uint64_t v;
    if (op == OP_RETURN) {
        ev->type = EVENT_RETURN;
        return 1;
    }
    if (op != OP_COST && op != OP_CALL)
        return 0;
    size_t len = operand_after(p, end, &v, pext);
    if (!len || (op == OP_CALL && v >= routines))
        return 0;
    if (op == OP_CALL) {
        ev->type = EVENT_CALL;
        ev->routine = (uint32_t)v;
    } else {
        ev->type = EVENT_COST;
        ev->size = v;
    }
    return len;
}

/* The fast loop of a version 4 block, once into struct events (EVENTS,
 * for event_decode_run) and once into batch events (OUT->into, for
 * event_decode_batch): one reading of each record. INTO_BATCH is a
 * constant where it is inlined. */
static ALWAYS_INLINE size_t slotted_loop(struct event_decoder *dec, struct event *events,
                                         struct batch_decode *out, int into_batch,
                                         int pext, size_t max, uint64_t routines)
{
    const uint8_t *p = dec->p, *end = dec->end;
    struct access_slot *slots = dec->slots;
    size_t n = 0;
    uint64_t writes = 0;
    /* Kept here: a store to the batch could be to *OUT, as the compiler
     * sees it, which would reload them at every event. */
    struct batch_event *into = into_batch ? out->into : NULL;
    struct flow_note *notes = into_batch ? out->notes : NULL;
    size_t n_notes = into_batch ? out->n_notes : 0;
    int flows = into_batch && out->flows;
    while (n < max && p < end) {
        struct event flow;
        struct event *ev = into_batch ? &flow : &events[n];
        const uint8_t *record = p;
        uint8_t op = *p;
        uint64_t size, zigzag;
        unsigned kind;
        struct access_slot *slot;
        if (op & OP_SLOT_SHORT) {
            slot = &slots[(op >> 2) & (ACCESS_SLOTS - 1)];
            size = slot->size;
            if (size == 0)
                break;
            zigzag = op & (SLOT_SHORT_ZIGZAG_LIMIT - 1);
            kind = (op >> 6) & 1;
            p++;
        } else if (op >= OP_SIZE) {
            /* A size record of a class, then its access; the general path
             * takes a spelled-out size. */
            const uint8_t *q = p;
            size = 0;
            if (op < OP_SLOT_ACCESS) {
                if (op >= (OP_SIZE | EVENT_SIZE_FOLLOWS) || end - p < 2)
                    break;
                size = 1ull << (op - OP_SIZE);
                op = *++q;
                if ((op & 0xc0) != OP_SLOT_ACCESS)
                    break;
            }
            /* Kernel writes take the general path, which clears the
             * event's source (`routine`) field or sets it; the batches
             * take loads and stores only (the driver counts kernel reads
             * apart). */
            kind = (op >> 4) & 3;
            if (kind == 3 || (into_batch && kind == 2))
                break;
            slot = &slots[op & (ACCESS_SLOTS - 1)];
            if (size == 0 && (size = slot->size) == 0)
                break;
            size_t len = operand_after(q, end, &zigzag, pext);
            if (!len)
                break;
            p = q + len;
        } else {
            if (into_batch && !flows)
                break;
            size_t len = decode_flow(p, end, routines, ev, pext);
            if (!len)
                break;
            if (into_batch) {
                /* As the driver holds them (batch_flow_event): a call's
                 * routine, a cost's instructions; noted for its books. */
                uint64_t value = ev->type == EVENT_CALL   ? ev->routine
                                 : ev->type == EVENT_COST ? ev->size
                                                          : 0;
                batch_event_store(&into[n],
                                  (struct batch_event){.value = value,
                                                       .size = ev->type == EVENT_COST
                                                                   ? (uint32_t)value
                                                                   : 0,
                                                       .type = (uint8_t)ev->type,
                                                       .shards = 0xff});
                notes[n_notes++] =
                    (struct flow_note){.value = value, .at = (uint32_t)n,
                                       .type = (uint8_t)ev->type};
            }
            p += len;
            n++;
            continue;
        }
        uint64_t addr = slot->end + unzigzag(zigzag);
        if (addr + (size - 1) < addr) {
            p = record;  /* the general path says why */
            break;
        }
        slot->end = addr + size;
        slot->size = size;
        if (into_batch) {
            batch_event_store(&into[n],
                              (struct batch_event){.value = addr, .size = (uint32_t)size,
                                                   .type = (uint8_t)(EVENT_READ + kind),
                                                   .shards = 0xff});
            writes += kind;
        } else {
            ev->type = (enum event_type)(EVENT_READ + kind);
            ev->addr = addr;
            ev->size = size;
        }
        n++;
    }
    dec->p = p;
    if (into_batch) {
        out->writes = writes;
        out->n_notes = n_notes;
    }
    return n;
}

/* event_decode_run of a version 4 block. */
static size_t decode_run_slotted(struct event_decoder *dec, struct event *events, size_t max,
                                 uint64_t routines)
{
    return slotted_loop(dec, events, NULL, 0, 0, max, routines);
}

/* event_decode_batch's loop, once with pext and once without: in its own
 * function, the loop has the registers of its callers. */
static __attribute__((noinline)) size_t decode_batch(struct event_decoder *dec,
                                                     struct batch_decode *out, size_t max,
                                                     uint64_t routines)
{
    return slotted_loop(dec, NULL, out, 1, 0, max, routines);
}

static __attribute__((noinline)) size_t decode_batch_pext(struct event_decoder *dec,
                                                          struct batch_decode *out, size_t max,
                                                          uint64_t routines)
{
    return slotted_loop(dec, NULL, out, 1, 1, max, routines);
}

size_t event_decode_batch(struct event_decoder *dec, struct batch_decode *out, size_t max,
                          uint64_t routines)
{
    out->n_notes = 0;
    out->writes = 0;
    if (!dec->slotted)
        return 0;
    return cpu_fast_pext() ? decode_batch_pext(dec, out, max, routines)
                           : decode_batch(dec, out, max, routines);
}

size_t event_decode_run(struct event_decoder *dec, struct event *events, size_t max,
                        uint64_t routines)
{
    if (dec->slotted)
        return decode_run_slotted(dec, events, max, routines);
    const uint8_t *p = dec->p, *end = dec->end;
    uint64_t prev_end = dec->prev_end, prev_size = dec->prev_size;
    size_t n = 0;
    while (n < max && p < end) {
        struct event *ev = &events[n];
        uint8_t op = *p;
        uint64_t size, zigzag;
        size_t len;
        if ((op & OP_SHORT_ACCESS) == OP_SHORT_ACCESS) {
            if (!dec->short_accesses || prev_size == 0)
                break;
            size = prev_size;
            zigzag = op & (SHORT_ACCESS_ZIGZAG_LIMIT - 1);
            ev->type = access_types[(op >> 5) & 1];
            len = 1;
        } else if (op & OP_ACCESS) {
            /* Kernel writes take the general path, which clears the
                 * event's source (`routine`) field or sets it. */
            if ((op & 0x60) || (op & 7) == EVENT_SIZE_FOLLOWS || (op & 0x18) == 0x18)
                break;
            size = 1ull << (op & 7);
            len = operand_after(p, end, &zigzag, 0);
            if (!len)
                break;
            ev->type = access_types[(op >> 3) & 3];
        } else {
            len = decode_flow(p, end, routines, ev, 0);
            if (!len)
                break;
            p += len;
            n++;
            continue;
        }
        uint64_t addr = prev_end + ((zigzag >> 1) ^ (~(zigzag & 1) + 1));
        if (addr + (size - 1) < addr)
            break;
        ev->addr = addr;
        ev->size = size;
        prev_end = addr + size;
        prev_size = size;
        p += len;
        n++;
    }
    dec->p = p;
    dec->prev_end = prev_end;
    dec->prev_size = prev_size;
    return n;
}
