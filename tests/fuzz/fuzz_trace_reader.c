/* Fuzz target: the binary event trace reader (trace/trace_reader.c), and a
 * resumed read from a position it reported, which must deliver the same
 * events as the rest of the whole read. Sync records reach their sink in
 * the same order among the events either way. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fuzz/fuzz_target.h"
#include "trace/trace_reader.h"

struct log {
    uint64_t events;
    uint64_t hash;                 /* of the events after KEEP_AT */
    uint64_t all;                  /* of every event */
    uint64_t keep_at;
    uint64_t syncs;
    struct trace_position at, kept;
    int has_kept;
};

static uint64_t mix(uint64_t h, const struct event *ev)
{
    uint64_t fields[] = {ev->type, ev->tid, ev->routine, ev->addr, ev->size};
    for (size_t i = 0; i < 5; i++)
        h = (h ^ fields[i]) * 0x100000001b3ull;
    return h;
}

static int keep(void *ctx, const struct event *ev, struct trms_error *err)
{
    (void)err;
    struct log *l = ctx;
    l->all = mix(l->all, ev);
    if (++l->events == l->keep_at) {
        l->kept = l->at;
        l->has_kept = 1;
    } else if (l->has_kept) {
        l->hash = mix(l->hash, ev);
    }
    return 0;
}

/* Sync records, counted and hashed into ALL as they come between events. */
static int keep_sync(void *ctx, const struct sync_event *ev, struct trms_error *err)
{
    (void)err;
    struct log *l = ctx;
    struct event as_event = {.type = EVENT_TYPE_COUNT, .tid = ev->tid, .routine = ev->kind,
                             .addr = ev->addr, .size = ev->value};
    l->all = mix(l->all, &as_event);
    l->syncs++;
    return 0;
}

static int hash_rest(void *ctx, const struct event *ev, struct trms_error *err)
{
    (void)err;
    struct log *l = ctx;
    l->hash = mix(l->hash, ev);
    l->events++;
    return 0;
}

/* The batch sink's view: runs, hashed the same way. */
static int hash_runs(void *ctx, const struct event *events, size_t n, struct trms_error *err)
{
    (void)err;
    struct log *l = ctx;
    for (size_t i = 0; i < n; i++)
        l->all = mix(l->all, &events[i]);
    l->events += n;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    FILE *fp = fmemopen((void *)data, size, "r");
    if (!fp)
        return 0;
    struct routine_table routines;
    routine_table_init(&routines);
    struct trms_error err;
    err.message[0] = '\0';
    struct log whole = {.keep_at = 1 + size % 7};
    struct trace_read_options o = {.at = &whole.at, .sync = keep_sync, .sync_ctx = &whole};
    int rc = trace_read_stream(fp, "fuzz", &routines, keep, &whole, &o, NULL, &err);
    fuzz_expect_message(rc, &err);
    /* A read into runs (the fast path of trms analyze) ends the same way,
     * with the same events. */
    struct routine_table batch_routines;
    routine_table_init(&batch_routines);
    struct log runs = {0};
    struct trace_read_options in_runs = {.batch = hash_runs, .sync = keep_sync,
                                         .sync_ctx = &runs};
    struct trms_error batch_err;
    rewind(fp);
    int batch_rc = trace_read_stream(fp, "fuzz", &batch_routines, NULL, &runs, &in_runs, NULL,
                                     &batch_err);
    if ((batch_rc == 0) != (rc == 0) ||
        (rc == 0 && (runs.all != whole.all || runs.events != whole.events ||
                     runs.syncs != whole.syncs)))
        abort();
    routine_table_free(&batch_routines);
    if (rc == 0 && whole.has_kept) {
        /* Resume where the read stood after event KEEP_AT. */
        struct routine_table defined;
        routine_table_init(&defined);
        for (uint64_t i = 0; i < whole.kept.routines; i++) {
            const struct routine *r = &routines.items[i];
            uint32_t id;
            routine_table_append(&defined, r->name, r->name ? strlen(r->name) : 0, r->addr, &id);
        }
        struct log rest = {0};
        struct trace_read_options from = {.from = &whole.kept};
        if (trace_read_stream(fp, "fuzz", &defined, hash_rest, &rest, &from, NULL, &err) != 0 ||
            rest.hash != whole.hash || rest.events != whole.events - whole.keep_at ||
            defined.count != routines.count)
            abort(); /* a resumed read must see exactly the rest */
        routine_table_free(&defined);
    }
    routine_table_free(&routines);
    fclose(fp);
    return 0;
}
