#include "report/report_load.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/oom.h"
#include "report/report.h"
#include "trace/recording.h"

static char *copy_or_null(const char *s)
{
    if (!s)
        return NULL;
    size_t len = strlen(s) + 1;
    return memcpy(xmalloc(len), s, len);
}

/* What the reports say of a recording that kept only windows of its run
 * (recorder/record_window.h), from its meta; NULL when it kept it all. */
static char *window_note(const struct recording *rec)
{
    const char *window = recording_meta(rec, "window");
    if (!window)
        return NULL;
    const char *left = recording_meta(rec, "left-out-events"),
               *accesses = recording_meta(rec, "left-out-accesses"),
               *before = recording_meta(rec, "activations-begun-before-window"),
               *cut = recording_meta(rec, "activations-cut-by-window"),
               *limit = recording_meta(rec, "window-limit-reached");
    char note[2048];
    snprintf(note, sizeof note,
             "%s%s; %s events left out (%s memory accesses); %s activations that "
             "began before a window opened are not in it (what they did inside counts to the "
             "activations around), %s pending when a window closed end there; inside a "
             "window, cells written before it count as never written (a first read of one "
             "is input, RMS and TRMS alike, but not induced input), and reuse distances "
             "count the lines touched in windows only",
             window, limit && strcmp(limit, "yes") == 0 ? " (a limit stopped it)" : "",
             left ? left : "?", accesses ? accesses : "?", before ? before : "?",
             cut ? cut : "?");
    return copy_or_null(note);
}

static int load_one(const char *path, const struct result_key *want,
                    struct loaded_recording *out, struct trms_error *err)
{
    out->path = path;
    symbol_names_init(&out->symbols);
    memory_maps_init(&out->maps);
    struct recording rec;
    if (recording_open(path, &rec, err) != 0)
        return -1;
    out->program = copy_or_null(recording_meta(&rec, "program"));
    out->command = copy_or_null(recording_meta(&rec, "command"));
    out->window = window_note(&rec);
    out->no_trace = !recording_has_trace(&rec);
    recording_close(&rec);
    struct result_store *store;
    if (result_store_open(path, 0, &store, err) != 0)
        return -1;
    struct result_key key = *want;
    int rc = result_store_load_key(store, &key, &out->result, err);
    result_store_close(store);
    /* Names of address-only routines, resolved when recorded. (After the
     * close: one open of the environment at a time.) */
    if (rc == 0)
        rc = symbol_store_load(path, &out->symbols, err);
    if (rc == 0)
        report_demangle_names(&out->result->routines, &out->symbols);
    if (rc == 0) {
        char *maps = recording_file(path, MAPS_FILE);
        struct trms_error ignored;
        memory_maps_read(&out->maps, maps, &ignored); /* imports have none: left empty */
        free(maps);
    }
    return rc;
}

int report_load(char *const *paths, size_t n, const struct result_key *want,
                struct loaded_reports *out, struct trms_error *err)
{
    out->items = xcalloc(n, sizeof *out->items);
    out->sources = xcalloc(n, sizeof *out->sources);
    out->n = n;
    for (size_t i = 0; i < n; i++) {
        if (load_one(paths[i], want, &out->items[i], err) != 0) {
            report_unload(out);
            return -1;
        }
        out->sources[i] = (struct report_source){.recording = paths[i],
                                                 .result = out->items[i].result,
                                                 .symbols = &out->items[i].symbols,
                                                 .window = out->items[i].window,
                                                 .no_trace = out->items[i].no_trace};
        const char *first = out->items[0].program, *this = out->items[i].program;
        if (first && this && strcmp(first, this) != 0)
            fprintf(stderr, "trms: warning: %s records %s, %s records %s: routines are "
                            "matched by name\n", paths[0], first, paths[i], this);
    }
    return 0;
}

void report_unload(struct loaded_reports *l)
{
    for (size_t i = 0; i < l->n; i++) {
        analysis_result_free(l->items[i].result);
        symbol_names_free(&l->items[i].symbols);
        memory_maps_free(&l->items[i].maps);
        free(l->items[i].program);
        free(l->items[i].command);
        free(l->items[i].window);
    }
    free(l->items);
    free(l->sources);
    memset(l, 0, sizeof *l);
}
