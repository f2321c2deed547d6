#include "store/symbol_file.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/oom.h"
#include "common/regular_file.h"
#include "trace/crc32.h"

static const char MAGIC[8] = "TRMSSYMS";

/* A string that may be absent: its length + 1, then its bytes; 0 for none. */
static void put_optional(struct byte_buffer *b, const char *s)
{
    size_t len = s ? strlen(s) : 0;
    byte_buffer_put_varint(b, s ? len + 1 : 0);
    byte_buffer_put(b, s, len);
}

/* Format 2: version, name, file (both optional), line, offset in the
 * symbol, module (optional), address in the module. */
void symbol_entry_encode(const struct symbol_name *n, struct byte_buffer *b)
{
    byte_buffer_put_varint(b, SYMBOL_CODEC_VERSION);
    put_optional(b, n->name && *n->name ? n->name : NULL);
    put_optional(b, n->file);
    byte_buffer_put_varint(b, n->line > 0 ? (uint64_t)n->line : 0);
    byte_buffer_put_varint(b, n->offset);
    put_optional(b, n->module && *n->module ? n->module : NULL);
    byte_buffer_put_varint(b, n->module_addr);
}

static char *copy_string(struct byte_cursor *c, uint64_t len)
{
    if (len > (uint64_t)(c->end - c->p)) {
        c->failed = 1;
        return NULL;
    }
    const uint8_t *bytes = byte_cursor_bytes(c, (size_t)len);
    if (!bytes || memchr(bytes, '\0', (size_t)len)) {
        c->failed = 1;
        return NULL;
    }
    char *s = xmalloc((size_t)len + 1);
    memcpy(s, bytes, (size_t)len);
    s[len] = '\0';
    return s;
}

/* Decodes one entry from C (which it advances), into OUT. */
static int decode_entry(const char *where, uint64_t addr, struct byte_cursor *c,
                        struct symbol_name *out, struct trms_error *err)
{
    uint64_t version = byte_cursor_varint(c);
    if (!c->failed && (version < 1 || version > SYMBOL_CODEC_VERSION))
        return error_set(err, "%s: the symbol of 0x%" PRIx64 " has format %" PRIu64
                              "; this trms reads formats 1 to %d",
                         where, addr, version, SYMBOL_CODEC_VERSION);
    /* Format 1: a name (required), file, line. */
    uint64_t name_len = byte_cursor_varint(c);
    char *name = c->failed ? NULL
                 : version == 1 ? copy_string(c, name_len)
                 : name_len     ? copy_string(c, name_len - 1)
                                : NULL;
    uint64_t file_len = byte_cursor_varint(c);
    char *file = file_len && !c->failed ? copy_string(c, file_len - 1) : NULL;
    uint64_t line = byte_cursor_varint(c), offset = 0, module_addr = 0;
    char *module = NULL;
    if (version >= 2) {
        offset = byte_cursor_varint(c);
        uint64_t module_len = byte_cursor_varint(c);
        module = module_len && !c->failed ? copy_string(c, module_len - 1) : NULL;
        module_addr = byte_cursor_varint(c);
    }
    if (c->failed || line > INT32_MAX || (name && !*name) || (module && !*module) ||
        (!name && !module)) {
        free(name);
        free(file);
        free(module);
        return error_set(err, "%s: the symbol of 0x%" PRIx64 " is corrupt", where, addr);
    }
    *out = (struct symbol_name){addr, name, file, (int)line, offset, module, module_addr};
    return 0;
}

int symbol_entry_decode(const char *where, uint64_t addr, const uint8_t *data, size_t len,
                        struct symbol_name *out, struct trms_error *err)
{
    struct byte_cursor c;
    byte_cursor_init(&c, data, len);
    if (decode_entry(where, addr, &c, out, err) != 0)
        return -1;
    if (c.p != c.end) {
        free((char *)out->name);
        free((char *)out->file);
        free((char *)out->module);
        return error_set(err, "%s: the symbol of 0x%" PRIx64 " is corrupt", where, addr);
    }
    return 0;
}

static int by_address(const void *a, const void *b)
{
    const struct symbol_name *x = *(const struct symbol_name *const *)a,
                             *y = *(const struct symbol_name *const *)b;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

void symbol_file_encode(const struct symbol_names *names, struct byte_buffer *out)
{
    size_t start = out->len;
    const struct symbol_name **sorted = xcalloc(names->count ? names->count : 1, sizeof *sorted);
    for (size_t i = 0; i < names->count; i++)
        sorted[i] = &names->items[i];
    qsort(sorted, names->count, sizeof *sorted, by_address);
    byte_buffer_put(out, MAGIC, sizeof MAGIC);
    byte_buffer_put_varint(out, SYMBOL_FILE_FORMAT);
    byte_buffer_put_varint(out, names->count);
    for (size_t i = 0; i < names->count; i++) {
        byte_buffer_put_varint(out, sorted[i]->addr);
        symbol_entry_encode(sorted[i], out);
    }
    free(sorted);
    uint32_t crc = crc32_update(0, out->data + start, out->len - start);
    uint8_t tail[4] = {(uint8_t)crc, (uint8_t)(crc >> 8), (uint8_t)(crc >> 16), (uint8_t)(crc >> 24)};
    byte_buffer_put(out, tail, sizeof tail);
}

int symbol_file_decode(const char *where, const uint8_t *data, size_t len,
                       struct symbol_names *out, struct trms_error *err)
{
    if (len < sizeof MAGIC + 4 || memcmp(data, MAGIC, sizeof MAGIC) != 0)
        return error_set(err, "%s: not a trms symbols file", where);
    uint32_t crc = (uint32_t)data[len - 4] | (uint32_t)data[len - 3] << 8 |
                   (uint32_t)data[len - 2] << 16 | (uint32_t)data[len - 1] << 24;
    if (crc32_update(0, data, len - 4) != crc)
        return error_set(err, "%s: the routine names are damaged (their checksum does not "
                              "match)", where);
    struct byte_cursor c;
    byte_cursor_init(&c, data + sizeof MAGIC, len - sizeof MAGIC - 4);
    uint64_t format = byte_cursor_varint(&c);
    if (!c.failed && format != SYMBOL_FILE_FORMAT)
        return error_set(err, "%s: symbols file format %" PRIu64 "; this trms reads format %d",
                         where, format, SYMBOL_FILE_FORMAT);
    uint64_t count = byte_cursor_varint(&c);
    uint64_t previous = 0;
    for (uint64_t i = 0; i < count && !c.failed; i++) {
        uint64_t addr = byte_cursor_varint(&c);
        if (c.failed || (i > 0 && addr <= previous))
            break;
        struct symbol_name n;
        if (decode_entry(where, addr, &c, &n, err) != 0)
            return -1;
        symbol_names_add(out, &n);
        free((char *)n.name);
        free((char *)n.file);
        free((char *)n.module);
        previous = addr;
    }
    if (c.failed || c.p != c.end || out->count != count)
        return error_set(err, "%s: the routine names are malformed", where);
    return 0;
}

int symbol_file_read(const char *dir, struct symbol_names *out, struct trms_error *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, SYMBOL_FILE_NAME);
    const char *why;
    FILE *fp = regular_file_fopen(path, REGULAR_FILE_NOFOLLOW, &why);
    if (!fp) {
        struct stat st;
        if (lstat(path, &st) != 0 && errno == ENOENT)
            return 1;
        return error_set(err, "%s: cannot open: %s", path, why);
    }
    struct stat st;
    int rc = 0;
    if (fstat(fileno(fp), &st) != 0 || (uint64_t)st.st_size > SYMBOL_FILE_MAX_BYTES) {
        rc = error_set(err, "%s: too large for routine names", path);
    } else {
        size_t len = (size_t)st.st_size;
        uint8_t *data = xmalloc(len ? len : 1);
        if (fread(data, 1, len, fp) != len)
            rc = error_set(err, "%s: cannot read: %s", path,
                           ferror(fp) ? strerror(errno) : "it is shorter than it was");
        else
            rc = symbol_file_decode(path, data, len, out, err);
        free(data);
    }
    fclose(fp);
    return rc;
}

int symbol_file_write(const char *dir, const struct symbol_names *names, struct trms_error *err)
{
    char path[4096], tmp[4096 + 32];
    snprintf(path, sizeof path, "%s/%s", dir, SYMBOL_FILE_NAME);
    snprintf(tmp, sizeof tmp, "%s/.%s.tmp-%ld", dir, SYMBOL_FILE_NAME, (long)getpid());
    struct byte_buffer bytes = {0};
    symbol_file_encode(names, &bytes);
    unlink(tmp);  /* a leftover of a killed process of the same pid */
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    int rc = 0;
    if (fd < 0) {
        rc = error_set(err, "%s: cannot create: %s", path, strerror(errno));
    } else {
        size_t done = 0;
        while (rc == 0 && done < bytes.len) {
            ssize_t n = write(fd, bytes.data + done, bytes.len - done);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                rc = error_set(err, "%s: cannot write: %s", path, strerror(errno));
            else
                done += (size_t)n;
        }
        if (rc == 0 && fsync(fd) != 0)
            rc = error_set(err, "%s: cannot write: %s", path, strerror(errno));
        if (close(fd) != 0 && rc == 0)
            rc = error_set(err, "%s: cannot write: %s", path, strerror(errno));
        if (rc == 0 && rename(tmp, path) != 0)
            rc = error_set(err, "%s: cannot write: %s", path, strerror(errno));
        if (rc != 0)
            unlink(tmp);
    }
    byte_buffer_free(&bytes);
    return rc;
}
