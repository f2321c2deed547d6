#include "trace/trace_check.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/regular_file.h"
#include "common/varint.h"
#include "trace/crc32.h"
#include "trace/event_codec.h"

/* An end block's payload: three varints, and from version 3 a fourth
 * restating the version. */
#define END_PAYLOAD_MIN 3u
#define END_PAYLOAD_MAX (4u * VARINT_MAX)
#define TAIL (TRACE_BLOCK_HEADER_SIZE + END_PAYLOAD_MAX)

static int read_at(int fd, void *buf, size_t len, uint64_t offset)
{
    ssize_t got = pread(fd, buf, len, (off_t)offset);
    return got == (ssize_t)len ? 0 : -1;
}

/* The end block whose payload is the last LEN bytes of TAIL (N bytes, the
 * file's last). */
static int end_block(const uint8_t *tail, size_t n, size_t len, uint32_t version,
                     struct trace_check *c)
{
    if (n < TRACE_BLOCK_HEADER_SIZE + len)
        return -1;
    const uint8_t *h = tail + n - TRACE_BLOCK_HEADER_SIZE - len, *p = h + TRACE_BLOCK_HEADER_SIZE;
    if (get_le32(h) != TRACE_BLOCK_END || get_le32(h + 4) != len || get_le32(h + 8) != 0 ||
        get_le32(h + 12) != crc32_update(0, p, len))
        return -1;
    const uint8_t *end = p + len;
    uint64_t restated = version;
    if (get_varint(&p, end, &c->events) != 0 || get_varint(&p, end, &c->blocks) != 0 ||
        get_varint(&p, end, &c->routines) != 0 ||
        (version >= 3 && get_varint(&p, end, &restated) != 0) || p != end ||
        restated != version)
        return -1;
    return 0;
}

/* Walks the block headers from the first: where the last whole block
 * ends. */
static void find_cut(int fd, uint32_t version, struct trace_check *c)
{
    uint64_t offset = TRACE_FILE_HEADER_SIZE, blocks = 0;
    uint8_t h[TRACE_BLOCK_HEADER_SIZE];
    while (offset + sizeof h <= c->bytes && read_at(fd, h, sizeof h, offset) == 0) {
        uint32_t kind = get_le32(h), len = get_le32(h + 4);
        int known = kind == TRACE_BLOCK_EVENTS || kind == TRACE_BLOCK_END ||
                    (kind == TRACE_BLOCK_ZSTD && version >= 3);
        if (!known ||
            len > TRACE_BLOCK_MAX_PAYLOAD || offset + sizeof h + len > c->bytes)
            break;
        if (kind == TRACE_BLOCK_END) {
            c->status = TRACE_CHECK_BAD;
            snprintf(c->why, sizeof c->why, "bytes after its end block (at byte %llu)",
                     (unsigned long long)offset);
            return;
        }
        offset += sizeof h + len;
        blocks++;
    }
    c->status = TRACE_CHECK_CUT;
    c->cut_at = offset;
    c->whole_blocks = blocks;
}

void trace_check_end(const char *path, struct trace_check *c)
{
    memset(c, 0, sizeof *c);
    /* The one way a recording's files are opened: a FIFO there is refused,
     * not waited on; a link is not followed out of the recording. */
    const char *why = "";
    int fd = regular_file_open(path, REGULAR_FILE_NOFOLLOW, &why);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        c->status = errno == ENOENT ? TRACE_CHECK_MISSING : TRACE_CHECK_BAD;
        snprintf(c->why, sizeof c->why, "cannot read it: %s", fd < 0 ? why : strerror(errno));
        if (fd >= 0)
            close(fd);
        return;
    }
    c->bytes = (uint64_t)st.st_size;
    uint8_t header[TRACE_FILE_HEADER_SIZE];
    if (c->bytes < sizeof header || read_at(fd, header, sizeof header, 0) != 0) {
        c->status = TRACE_CHECK_CUT;  /* not even its header */
        close(fd);
        return;
    }
    uint32_t version = get_le32(header + 8);
    if (memcmp(header, TRACE_MAGIC, 8) != 0 || version < TRACE_OLDEST_VERSION ||
        version > TRACE_VERSION) {
        c->status = TRACE_CHECK_BAD;
        snprintf(c->why, sizeof c->why, "not a trace this trms reads (its header)");
        close(fd);
        return;
    }
    uint8_t tail[TAIL];
    size_t n = c->bytes - sizeof header < TAIL ? (size_t)(c->bytes - sizeof header) : TAIL;
    int found = read_at(fd, tail, n, c->bytes - n) == 0 ? -1 : -2;
    for (size_t len = END_PAYLOAD_MIN; found == -1 && len <= END_PAYLOAD_MAX; len++)
        if (end_block(tail, n, len, version, c) == 0)
            found = 0;
    if (found == 0)
        c->status = TRACE_CHECK_OK;
    else
        find_cut(fd, version, c);
    close(fd);
}
