/* Fuzz target: rr rerun's raw record stream (replayer/rerun_stream.c) and
 * the decoder behind it (rerun_decoder.c, capstone, the call tracker, the
 * syscall table). The input's first CODE_BYTES bytes are the program's code
 * and memory, seen at every address (so any ip decodes something); the rest
 * is the stream, fed in pieces of varying sizes. */
#include <string.h>

#include "replayer/rerun_decoder.h"
#include "replayer/rerun_stream.h"
#include "tests/fuzz/fuzz_target.h"

#define CODE_BYTES 64u

struct program {
    const uint8_t *code;
    size_t events;
};

static size_t read_code(void *ctx, uint64_t addr, uint8_t *buf, size_t size)
{
    const struct program *p = ctx;
    for (size_t i = 0; i < size; i++)
        buf[i] = p->code[(addr + i) % CODE_BYTES];
    return size;
}

static int read_memory(void *ctx, uint64_t addr, void *buf, uint64_t size)
{
    if (size > 4096)
        return -1;
    read_code(ctx, addr, buf, (size_t)size);
    return 0;
}

static int count(void *ctx, const struct event *ev, struct trms_error *err)
{
    (void)ev, (void)err;
    ((struct program *)ctx)->events++;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < CODE_BYTES)
        return 0;
    struct program p = {.code = data};
    struct routine_table routines;
    routine_table_init(&routines);
    struct rerun_decoder_config cfg = {.read_code = read_code, .read_memory = read_memory,
                                       .ctx = &p, .sink = count, .sink_ctx = &p,
                                       .routines = &routines};
    struct rerun_summary summary;
    struct trms_error err;
    err.message[0] = '\0';
    struct rerun_decoder *d = rerun_decoder_new(&cfg, &summary, &err);
    if (!d)
        __builtin_trap();
    struct rerun_stream s;
    rerun_stream_init(&s, d);
    const uint8_t *stream = data + CODE_BYTES;
    size_t left = size - CODE_BYTES, have = 0, piece = 1 + data[0] % 200;
    int rc = 0;
    /* Feed like a pipe: pieces that cut records anywhere. */
    uint8_t buf[400];
    while (rc == 0 && left) {
        size_t n = piece < left ? piece : left;
        memcpy(buf + have, stream, n);
        stream += n;
        left -= n;
        have += n;
        size_t used;
        rc = rerun_stream_feed(&s, buf, have, &used, &err);
        memmove(buf, buf + used, have - used);
        have -= used;
    }
    if (rc == 0)
        rc = rerun_stream_end(&s, have, &err);
    fuzz_expect_message(rc, &err);
    struct trms_error end_err;
    end_err.message[0] = '\0';
    fuzz_expect_message(rerun_decoder_finish(d, &end_err), &end_err); /* frees D */
    rerun_summary_free(&summary);
    routine_table_free(&routines);
    return 0;
}
