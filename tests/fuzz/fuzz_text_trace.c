/* Fuzz target: the text event format parser (trace/text_reader.c) with
 * its annotations as `trms import` reads them (#@symbol lines,
 * store/symbol_text.c) and its #@sync lines. Any input is parsed to its end or refused with a
 * message; nothing else. */
#include <stdio.h>
#include <string.h>

#include "store/symbol_text.h"
#include "tests/fuzz/fuzz_target.h"
#include "trace/text_reader.h"

static int count(void *ctx, const struct event *ev, struct trms_error *err)
{
    (void)ev, (void)err;
    ++*(size_t *)ctx;
    return 0;
}

static int count_sync(void *ctx, const struct sync_event *ev, struct trms_error *err)
{
    (void)ev, (void)err;
    ++*(size_t *)ctx;
    return 0;
}

static int annotation(void *ctx, const char *word, size_t len, const char *rest,
                      struct trms_error *err)
{
    if (len != strlen(SYMBOL_TEXT_KEYWORD) || memcmp(word, SYMBOL_TEXT_KEYWORD, len) != 0)
        return 0;
    return symbol_text_parse(rest, ctx, err);
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
    struct symbol_names names;
    symbol_names_init(&names);
    size_t syncs = 0;
    fuzz_expect_message(text_trace_read_sync(fp, "fuzz", &routines, count, &events, annotation,
                                             &names, count_sync, &syncs, &err), &err);
    symbol_names_free(&names);
    routine_table_free(&routines);
    fclose(fp);
    return 0;
}
