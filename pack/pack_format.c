#include "pack/pack_format.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "trace/crc32.h"

static const char MAGIC[8] = "TRMSPACK";

/* ---- writing ---- */

static void write_raw(struct pack_writer *w, const void *data, size_t len)
{
    fwrite(data, 1, len, w->fp);
    w->whole_crc = crc32_update(w->whole_crc, data, len);
    w->bytes += len;
}

static void write_u32(struct pack_writer *w, uint32_t v)
{
    const uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    write_raw(w, b, sizeof b);
}

void pack_put(struct pack_writer *w, const void *data, size_t len)
{
    write_raw(w, data, len);
    w->record_crc = crc32_update(w->record_crc, data, len);
}

void pack_put_varint(struct pack_writer *w, uint64_t v)
{
    uint8_t b[10];
    size_t n = 0;
    do {
        b[n] = (uint8_t)(v & 0x7f);
        v >>= 7;
        if (v)
            b[n] |= 0x80;
        n++;
    } while (v);
    pack_put(w, b, n);
}

void pack_put_string(struct pack_writer *w, const char *s, size_t len)
{
    pack_put_varint(w, len);
    pack_put(w, s, len);
}

void pack_writer_start(struct pack_writer *w, FILE *fp, int format_number)
{
    *w = (struct pack_writer){.fp = fp};
    write_raw(w, MAGIC, sizeof MAGIC);
    uint8_t format = (uint8_t)format_number;
    write_raw(w, &format, 1);
}

void pack_begin(struct pack_writer *w, int kind)
{
    w->record_crc = 0;
    uint8_t k = (uint8_t)kind;
    pack_put(w, &k, 1);
}

void pack_end(struct pack_writer *w)
{
    write_u32(w, w->record_crc);
    w->records++;
}

int pack_writer_finish(struct pack_writer *w)
{
    uint64_t records = w->records, bytes = w->bytes;
    pack_begin(w, PACK_END);
    pack_put_varint(w, records);
    pack_put_varint(w, bytes);
    write_u32(w, w->whole_crc);
    if (fflush(w->fp) != 0 || ferror(w->fp)) {
        if (errno == 0)
            errno = EIO;
        return -1;
    }
    return 0;
}

/* ---- reading ---- */

static int read_raw(struct pack_reader *r, void *buf, size_t len, struct trms_error *err)
{
    size_t got = len ? fread(buf, 1, len, r->fp) : 0;
    if (got != len && ferror(r->fp))
        return error_set(err, "%s: %s at byte %" PRIu64 " (record %" PRIu64 ")", r->name,
                         strerror(errno), r->offset + got, r->records + 1);
    /* Where the file ends, not where the read that found it began. */
    if (got != len)
        return error_set(err, "%s: the archive is cut short: it ends at byte %" PRIu64
                              ", inside record %" PRIu64 " (from byte %" PRIu64 ")",
                         r->name, r->offset + got, r->records + 1, r->record_start);
    r->whole_crc = crc32_update(r->whole_crc, buf, len);
    r->offset += len;
    return 0;
}

static int read_u32(struct pack_reader *r, uint32_t *v, struct trms_error *err)
{
    uint8_t b[4];
    if (read_raw(r, b, sizeof b, err) != 0)
        return -1;
    *v = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
    return 0;
}

int pack_get(struct pack_reader *r, void *buf, size_t len, struct trms_error *err)
{
    if (read_raw(r, buf, len, err) != 0)
        return -1;
    r->record_crc = crc32_update(r->record_crc, buf, len);
    return 0;
}

int pack_get_varint(struct pack_reader *r, uint64_t *v, struct trms_error *err)
{
    *v = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        uint8_t b;
        if (pack_get(r, &b, 1, err) != 0)
            return -1;
        if (shift == 63 && b > 1)
            break;
        *v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            return 0;
    }
    return error_set(err, "%s: a malformed number at byte %" PRIu64 " (record %" PRIu64 ")",
                     r->name, r->offset, r->records + 1);
}

int pack_get_string(struct pack_reader *r, char *buf, size_t max, const char *what,
                    struct trms_error *err)
{
    uint64_t len;
    if (pack_get_varint(r, &len, err) != 0)
        return -1;
    if (len > max)
        return error_set(err, "%s: record %" PRIu64 " at byte %" PRIu64 ": a %s of %" PRIu64
                              " bytes (at most %zu)", r->name, r->records + 1, r->record_start,
                         what, len, max);
    if (pack_get(r, buf, (size_t)len, err) != 0)
        return -1;
    buf[len] = '\0';
    if (memchr(buf, '\0', (size_t)len))
        return error_set(err, "%s: record %" PRIu64 " at byte %" PRIu64 ": a %s with a NUL byte",
                         r->name, r->records + 1, r->record_start, what);
    return 0;
}

int pack_reader_start(struct pack_reader *r, FILE *fp, const char *name, struct trms_error *err)
{
    *r = (struct pack_reader){.fp = fp, .name = name};
    char magic[sizeof MAGIC];
    uint8_t format;
    if (fread(magic, 1, sizeof magic, fp) != sizeof magic || memcmp(magic, MAGIC, sizeof magic))
        return error_set(err, "%s: not a trms pack (no TRMSPACK header)", name);
    r->whole_crc = crc32_update(0, magic, sizeof magic);
    r->offset = sizeof magic;
    if (read_raw(r, &format, 1, err) != 0)
        return -1;
    if (format != PACK_FORMAT_SINGLE && format != PACK_FORMAT_TREE)
        return error_set(err, "%s: trms pack format %u; this trms reads formats %d and %d", name,
                         format, PACK_FORMAT_SINGLE, PACK_FORMAT_TREE);
    r->format = format;
    return 0;
}

int pack_next(struct pack_reader *r, int *kind, struct trms_error *err)
{
    r->record_crc = 0;
    r->record_start = r->offset;
    uint8_t k;
    if (pack_get(r, &k, 1, err) != 0)
        return -1;
    if (k != PACK_FILE && k != PACK_RESULT && k != PACK_END &&
        !(k == PACK_PROCESS && r->format == PACK_FORMAT_TREE))
        return error_set(err, "%s: record %" PRIu64 " at byte %" PRIu64 " is of no known kind "
                              "(the archive is damaged)", r->name, r->records + 1, r->offset - 1);
    *kind = r->kind = k;
    return 0;
}

int pack_end_record(struct pack_reader *r, struct trms_error *err)
{
    uint32_t want = r->record_crc, got;
    if (read_u32(r, &got, err) != 0)
        return -1;
    if (got != want)
        return error_set(err, "%s: record %" PRIu64 " at byte %" PRIu64 " is damaged (its "
                              "checksum does not match)", r->name, r->records + 1,
                         r->record_start);
    r->records++;
    return 0;
}

int pack_read_end(struct pack_reader *r, struct trms_error *err)
{
    uint64_t records, bytes, start = r->record_start;
    if (pack_get_varint(r, &records, err) != 0 || pack_get_varint(r, &bytes, err) != 0)
        return -1;
    uint32_t want = r->whole_crc, got;
    if (read_u32(r, &got, err) != 0)
        return -1;
    if (records != r->records || bytes != start)
        return error_set(err, "%s: the end record says %" PRIu64 " records in %" PRIu64
                              " bytes; the archive has %" PRIu64 " in %" PRIu64,
                         r->name, records, bytes, r->records, start);
    if (got != want)
        return error_set(err, "%s: the archive is damaged (its checksum does not match)",
                         r->name);
    if (fgetc(r->fp) != EOF)
        return error_set(err, "%s: bytes follow the end record at byte %" PRIu64, r->name,
                         r->offset);
    return 0;
}
