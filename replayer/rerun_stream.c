/* rerun_stream: records out of a byte stream (see rerun_stream.h). */
#include "replayer/rerun_stream.h"

#include <errno.h>
#include <stdlib.h>
#include <inttypes.h>
#include <string.h>
#include <unistd.h>

#include "common/oom.h"

#define CHUNK_RECORDS 4096

void rerun_stream_init(struct rerun_stream *s, struct rerun_decoder *decoder)
{
    *s = (struct rerun_stream){.decoder = decoder};
}

int rerun_stream_feed(struct rerun_stream *s, const uint8_t *bytes, size_t n, size_t *used,
                      struct trms_error *err)
{
    size_t pos = 0;
    *used = 0;
    while (n - pos >= RERUN_RECORD_BYTES) {
        struct rerun_record r;
        if (rerun_record_decode(bytes + pos, &r) != 0)
            return error_set(err,
                             "rerun stream: record %" PRIu64 " (byte offset %" PRIu64
                             ") does not end with a newline: not a %s stream, or corrupt",
                             s->records, s->offset, RERUN_FIELDS);
        if (s->before)
            s->before(s->before_ctx, &r);
        if (rerun_decoder_record(s->decoder, &r, err) != 0)
            return -1;
        pos += RERUN_RECORD_BYTES;
        *used = pos;
        s->offset += RERUN_RECORD_BYTES;
        s->records++;
    }
    return 0;
}

int rerun_stream_end(const struct rerun_stream *s, size_t leftover, struct trms_error *err)
{
    if (leftover == 0)
        return 0;
    return error_set(err,
                     "rerun stream: cut short inside record %" PRIu64 " (byte offset %" PRIu64
                     ", %zu of %d bytes)",
                     s->records, s->offset, leftover, RERUN_RECORD_BYTES);
}

int rerun_stream_read_fd(struct rerun_stream *s, int fd, struct trms_error *err)
{
    const size_t capacity = CHUNK_RECORDS * RERUN_RECORD_BYTES;
    uint8_t *buf = xmalloc(capacity);
    size_t have = 0;
    int rc;
    for (;;) {
        ssize_t n = read(fd, buf + have, capacity - have);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            rc = error_set(err, "reading the rerun stream: %s", strerror(errno));
            break;
        }
        if (n == 0) {
            rc = rerun_stream_end(s, have, err);
            break;
        }
        have += (size_t)n;
        size_t used;
        if ((rc = rerun_stream_feed(s, buf, have, &used, err)) != 0)
            break;
        memmove(buf, buf + used, have - used);
        have -= used;
    }
    free(buf);
    return rc;
}
