/* Fuzz target: the `rr dump -e -m -p` parser (replayer/rr_dump.c). */
#include <stdio.h>

#include "replayer/rr_dump.h"
#include "tests/fuzz/fuzz_target.h"

static int on_frame(void *ctx, const struct rr_frame *f, struct trms_error *err)
{
    (void)f, (void)err;
    ++*(size_t *)ctx;
    return 0;
}

static int on_mem_write(void *ctx, const struct rr_frame *f, const struct rr_mem_write *w,
                        struct trms_error *err)
{
    (void)ctx, (void)f, (void)err;
    /* The holes must lie inside the write. */
    for (size_t i = 0; i < w->n_holes; i++)
        if (w->holes[i].offset > w->length || w->holes[i].size > w->length - w->holes[i].offset)
            __builtin_trap();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    FILE *fp = fmemopen((void *)data, size, "r");
    if (!fp)
        return 0;
    size_t frames = 0;
    struct rr_dump_callbacks cb = {.frame = on_frame, .mem_write = on_mem_write, .ctx = &frames};
    struct trms_error err;
    err.message[0] = '\0';
    fuzz_expect_message(rr_dump_parse(fp, "fuzz", &cb, &err), &err);
    fclose(fp);
    return 0;
}
