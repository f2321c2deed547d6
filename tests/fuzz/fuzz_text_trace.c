/* Fuzz target: the text event format parser (trace/text_reader.c). Any
 * input is parsed to its end or refused with a message; nothing else. */
#include <stdio.h>

#include "tests/fuzz/fuzz_target.h"
#include "trace/text_reader.h"

static int count(void *ctx, const struct event *ev, struct trms_error *err)
{
    (void)ev, (void)err;
    ++*(size_t *)ctx;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0; /* fmemopen refuses an empty buffer */
    FILE *fp = fmemopen((void *)data, size, "r");
    if (!fp)
        return 0;
    struct routine_table routines;
    routine_table_init(&routines);
    struct trms_error err;
    err.message[0] = '\0';
    size_t events = 0;
    fuzz_expect_message(text_trace_read(fp, "fuzz", &routines, count, &events, &err), &err);
    routine_table_free(&routines);
    fclose(fp);
    return 0;
}
