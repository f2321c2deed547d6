/* record_analysis: the analysis of `trms record` (see record_analysis.h). */
#include "tools/record_analysis.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/oom.h"
#include "analyses/analysis_parts.h"
#include "analyses/causal_input.h"
#include "store/result_store.h"

/* Loads and stores the causal input looks at in one go (access_room):
 * 16 KiB, within the first-level cache. */
#define SCAN_EVENTS 1024

struct record_analysis {
    struct analysis *analysis;
    uint64_t events;
    int failed;
    struct trms_error error;
    struct causal_input *causal;    /* NULL when not kept, or dropped */
    struct trms_error causal_error; /* why it was dropped ("" when not) */
    struct batch_event *scan;       /* SCAN_EVENTS, for access_room */
    int scanning;                   /* the last access_room gave SCAN */
    int no_fused_flow;              /* calls, returns and costs through feed */
};

/* The causal input could not be written: the recording goes on without
 * it (`trms causal` reads the whole trace then), which is said once the
 * recording is complete (a full disk is the recording's to say first). */
static void drop_causal_input(struct record_analysis *ra, const struct trms_error *why)
{
    ra->causal_error = *why;
    causal_input_abandon(ra->causal);
    ra->causal = NULL;
}

static int feed_sync(void *ctx, const struct sync_event *ev, struct trms_error *err)
{
    (void)err;
    struct record_analysis *ra = ctx;
    struct trms_error why;
    if (ra->causal && causal_input_sync(ra->causal, ev, &why) != 0)
        drop_causal_input(ra, &why);
    return 0;
}

static int feed(void *ctx, const struct event *events, size_t n, struct trms_error *err)
{
    (void)err; /* the recording goes on whatever happens here */
    struct record_analysis *ra = ctx;
    struct trms_error why;
    if (ra->causal && causal_input_events(ra->causal, events, n, &why) != 0)
        drop_causal_input(ra, &why);
    if (ra->failed)
        return 0;
    size_t done;
    if (analysis_events(ra->analysis, events, n, &done, &ra->error) != 0) {
        char inner[sizeof ra->error.message];
        memcpy(inner, ra->error.message, sizeof inner);
        error_set(&ra->error, "event %" PRIu64 ": %s", ra->events + done + 1, inner);
        ra->failed = 1;
    }
    ra->events += n;
    return 0;
}

/* The calls, returns and costs the writer put in the analysis's batch
 * with a run of accesses (the fused flow path): what feed does for them
 * but the batch events themselves (and the causal input's part unless
 * not CAUSAL: it had them). BEFORE: the events fed before the run. */
static void take_flows(struct record_analysis *ra, uint64_t before,
                       const struct flow_note *flows, size_t n, int causal)
{
    struct trms_error why;
    if (causal && ra->causal && causal_input_flows(ra->causal, flows, n, &why) != 0)
        drop_causal_input(ra, &why);
    size_t done;
    if (!ra->failed && analysis_flows(ra->analysis, flows, n, &done, &ra->error) != 0) {
        char inner[sizeof ra->error.message];
        memcpy(inner, ra->error.message, sizeof inner);
        error_set(&ra->error, "event %" PRIu64 ": %s", before + flows[done].at + 1, inner);
        ra->failed = 1;
    }
}

/* The recorder's loads and stores, straight into the analysis's batches:
 * while the analysis works and the causal input passes them by. Once a
 * thread was created, the causal input keeps the reads of its clear
 * address: the recorder then writes a run into SCAN, which the causal
 * input looks at before it is copied into the batch (still in the cache:
 * the batch itself may be written around it). A run in a lock take's
 * followed window comes as struct events (a bounded stretch). The calls,
 * returns and costs between runs come in the same room (*FLOWS, the
 * trace writer keeping it), noted apart. */
static int access_room(void *ctx, struct batch_event **next, struct batch_event **end,
                       int *flows)
{
    struct record_analysis *ra = ctx;
    ra->scanning = 0;
    enum causal_access_need need =
        ra->causal ? causal_input_access_need(ra->causal) : CAUSAL_PASSES_ACCESSES;
    if (ra->failed || need == CAUSAL_FOLLOWS_ACCESSES)
        return 1;
    int rc = analysis_access_room(ra->analysis, next, end, flows);
    /* Calls, returns and costs come in the room too (accesses_written),
     * unless a test turns it off (record_analysis_no_fused_flow). */
    *flows &= !ra->no_fused_flow;
    if (rc != 0 || need == CAUSAL_PASSES_ACCESSES)
        return rc;
    ra->scanning = 1;
    size_t room = (size_t)(*end - *next);
    *next = ra->scan;
    *end = ra->scan + (room < SCAN_EVENTS ? room : SCAN_EVENTS);
    return 0;
}

static void accesses_written(void *ctx, struct batch_event *next, uint64_t accesses,
                             uint64_t writes, const struct flow_note *flows, size_t n_flows)
{
    struct record_analysis *ra = ctx;
    uint64_t before = ra->events;
    ra->events += accesses + n_flows;
    if (!ra->scanning) {
        analysis_accesses_written(ra->analysis, next, accesses, writes);
        if (n_flows)
            take_flows(ra, before, flows, n_flows, 1);
        return;
    }
    /* The causal input looks at the run first: the loads and stores
     * between the flow events, and each of those, in order. */
    size_t n = (size_t)accesses + n_flows, from = 0;
    struct trms_error why;
    for (size_t j = 0; ra->causal && j <= n_flows; j++) {
        size_t to = j < n_flows ? flows[j].at : n;
        if (causal_input_access_run(ra->causal, ra->scan + from, to - from, &why) != 0 ||
            (j < n_flows && causal_input_flows(ra->causal, &flows[j], 1, &why) != 0)) {
            drop_causal_input(ra, &why);
            break;
        }
        from = to + 1;
    }
    analysis_accesses_copy(ra->analysis, ra->scan, n, accesses, writes);
    if (n_flows)
        take_flows(ra, before, flows, n_flows, 0);
}

struct record_analysis *record_analysis_start(const struct analysis_options *opt,
                                              struct trms_error *err)
{
    struct analysis *a = analysis_new(opt, err);
    if (!a)
        return NULL;
    struct record_analysis *ra = xcalloc(1, sizeof *ra);
    ra->analysis = a;
    ra->scan = xaligned_alloc(64, SCAN_EVENTS * sizeof *ra->scan);
    return ra;
}

struct trace_event_tap record_analysis_tap(struct record_analysis *ra)
{
    return (struct trace_event_tap){.run = feed, .ctx = ra,
                                    .sync = ra->causal ? feed_sync : NULL,
                                    .access_room = access_room,
                                    .accesses_written = accesses_written};
}

void record_analysis_no_fused_flow(struct record_analysis *ra)
{
    ra->no_fused_flow = 1;
}

void record_analysis_keep_causal_input(struct record_analysis *ra, const char *dir,
                                       const struct routine_table *routines)
{
    if (!(ra->causal = causal_input_create(dir, routines, &ra->causal_error)) &&
        !ra->causal_error.message[0])
        error_set(&ra->causal_error, "the causal input cannot be created");
}

void record_analysis_abandon(struct record_analysis *ra)
{
    if (!ra)
        return;
    causal_input_abandon(ra->causal);
    analysis_free(ra->analysis);
    free(ra->scan);
    free(ra);
}

int record_analysis_finish(struct record_analysis *ra, const struct routine_table *routines,
                           const char *rec_path, const char *shown, char *said,
                           size_t said_size, struct trms_error *err)
{
    if (ra->causal) {
        int written;
        if (causal_input_finish(ra->causal, &written, &ra->causal_error) != 0 &&
            !ra->causal_error.message[0])
            error_set(&ra->causal_error, "the causal input was not written");
        ra->causal = NULL;
    }
    if (ra->causal_error.message[0])
        fprintf(stderr, "trms: warning: %s; `trms causal` will read the whole trace\n",
                ra->causal_error.message);
    if (ra->failed) {
        fprintf(stderr, "trms: warning: the analysis while recording failed (%s); the recording "
                        "is complete: `trms analyze %s`\n", ra->error.message, shown);
        record_analysis_abandon(ra);
        return -1;
    }
    struct analysis_result *result = analysis_finish(ra->analysis, routines);
    struct result_key key = {.cell_size = result->cell_size, .line_size = result->line_size,
                             .contexts = result->n_contexts > 0,
                             .analyses = result->analyses == ANALYSIS_ALL ? 0 : result->analyses};
    struct result_store *store = NULL;
    int rc = result_store_open(rec_path, 1, &store, err);
    if (rc == 0)
        rc = result_store_save_key(store, result, &key, err);
    result_store_close(store);
    char parts[ANALYSIS_PARTS_TEXT_MAX], only[48] = "";
    if (result->analyses != ANALYSIS_ALL)
        snprintf(only, sizeof only, ", analyses %s", analysis_parts_text(result->analyses, parts));
    if (rc == 0)
        snprintf(said, said_size, "analyzed as it recorded: %" PRIu64 " activations of %zu "
                                  "routines, cell size %" PRIu64 ", line size %" PRIu64 "%s%s "
                                  "(`trms report %s`)",
                 result->activations, result->routines.count, result->cell_size,
                 result->line_size, key.contexts ? ", calling contexts" : "", only, shown);
    analysis_result_free(result);
    record_analysis_abandon(ra);
    return rc;
}
