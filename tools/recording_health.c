#include "tools/recording_health.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pack/recording_check.h"

/* TEXT into BUF of SIZE bytes, cut to fit (a message longer than the line
 * that quotes it). */
static void copy_cut(char *buf, size_t size, const char *text)
{
    size_t n = strnlen(text, size - 1);
    memcpy(buf, text, n);
    buf[n] = '\0';
}

void recording_health_check(const struct recording *rec, struct recording_health *h)
{
    memset(h, 0, sizeof *h);
    const char *meta_complete = recording_meta(rec, "complete");
    const char *meta_events = recording_meta(rec, "events");
    const char *engine = recording_meta(rec, "engine");
    h->complete = !meta_complete || strcmp(meta_complete, "yes") == 0;
    char *path = recording_file(rec->path, RECORDING_EVENTS);
    trace_check_end(path, &h->trace);
    free(path);
    const struct trace_check *t = &h->trace;
    char said[200] = "";
    switch (t->status) {
    case TRACE_CHECK_OK:
        if (meta_events && strtoull(meta_events, NULL, 10) != t->events) {
            h->trace_state = "mismatch";
            snprintf(said, sizeof said, "the trace holds %" PRIu64 " events, the meta says %s",
                     t->events, meta_events);
        } else {
            h->trace_state = "verified";
        }
        break;
    case TRACE_CHECK_CUT:
        h->trace_state = "cut";
        snprintf(said, sizeof said, "trace cut at byte %" PRIu64 " of %" PRIu64
                                    ", after %" PRIu64 " whole blocks",
                 t->cut_at, t->bytes, t->whole_blocks);
        break;
    case TRACE_CHECK_BAD:
        h->trace_state = "damaged";
        snprintf(said, sizeof said, "the trace is damaged: %s", t->why);
        break;
    case TRACE_CHECK_MISSING:
        if (!recording_has_trace(rec)) {
            h->trace_state = "none";  /* --trace none: the analysis only */
        } else if (engine && strcmp(engine, "rr") == 0) {
            h->trace_state = "unverified";  /* rr's own trace, checked as it replays */
        } else {
            h->trace_state = "damaged";
            snprintf(said, sizeof said, "its event trace is missing");
        }
        break;
    }
    /* What else a recording must be to be valid, as verify, pack and
     * unpack see it (pack/recording_check.h), as far as it is cheap. */
    struct recording_facts facts;
    struct trms_error err;
    if (recording_check(rec->path, 0, &facts, &err) != 0) {
        copy_cut(h->problem, sizeof h->problem, err.message);
        if (!said[0]) {
            h->trace_state = "damaged";
            copy_cut(said, sizeof said, err.message);
        }
    }
    if (said[0]) {
        h->complete = 0;
        snprintf(h->complete_text, sizeof h->complete_text,
                 "no (%s; `trms verify` checks every block)", said);
    } else {
        snprintf(h->complete_text, sizeof h->complete_text, "%s%s", h->complete ? "yes" : "no",
                 strcmp(h->trace_state, "unverified") == 0 ? " (unverified)"
                 : strcmp(h->trace_state, "none") == 0 ? " (event trace not kept: "
                                                             "--trace none)"
                                                           : "");
    }
    if (store_measure(rec->path, &h->store, &err) != 0)
        memset(&h->store, 0, sizeof h->store);  /* the store's own read says why */
}
