#include "tests/fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/analysis.h"
#include "common/oom.h"
#include "tests/random_trace.h"
#include "trace/text_reader.h"

void event_list_push(struct event_list *list, const struct event *ev)
{
    if (list->count == list->capacity) {
        list->capacity = list->capacity ? list->capacity * 2 : 256;
        list->items = xrealloc(list->items, list->capacity * sizeof *list->items);
    }
    list->items[list->count++] = *ev;
}

void event_list_free(struct event_list *list)
{
    free(list->items);
    memset(list, 0, sizeof *list);
}

static int collect_event(void *ctx, const struct event *ev, struct trms_error *err)
{
    (void)err;
    event_list_push(ctx, ev);
    return 0;
}

void fixture_parse(const char *text, struct event_list *events, struct routine_table *routines)
{
    FILE *fp = fmemopen((void *)text, strlen(text), "r");
    struct trms_error err;
    if (!fp || text_trace_read(fp, "fixture", routines, collect_event, events, &err) != 0) {
        fprintf(stderr, "fixture does not parse: %s\n", fp ? err.message : "fmemopen");
        exit(2);
    }
    fclose(fp);
}

static void keep_activation(void *ctx, const struct activation *a)
{
    struct run *run = ctx;
    /* The room doubles at each power of two, so that a long run stays
     * linear (the sanitizer build's realloc always copies). */
    size_t n = run->n_activations;
    if ((n & (n - 1)) == 0)
        run->activations = xrealloc(run->activations, (n ? 2 * n : 1) * sizeof *run->activations);
    run->activations[run->n_activations++] = *a;
}

void fixture_run_with(const struct event *events, size_t n, const struct routine_table *routines,
                      const struct analysis_options *options, struct run *out)
{
    memset(out, 0, sizeof *out);
    routine_table_copy(&out->routines, routines);
    struct analysis_options opt = *options;
    struct trms_error err;
    struct analysis *a = analysis_new(&opt, &err);
    if (!a) {
        fprintf(stderr, "analysis_new: %s\n", err.message);
        exit(2);
    }
    analysis_on_activation(a, keep_activation, out);
    for (size_t i = 0; i < n; i++)
        if (analysis_event(a, &events[i], &err) != 0) {
            fprintf(stderr, "event %zu rejected: %s\n", i, err.message);
            exit(2);
        }
    out->result = analysis_finish(a, routines);
    out->renumberings = analysis_renumberings(a);
    analysis_free(a);
}

void fixture_run_events(const struct event *events, size_t n, const struct routine_table *routines,
                        uint64_t cell_size, uint64_t line_size, uint64_t time_limit,
                        struct run *out)
{
    struct analysis_options opt;
    analysis_options_default(&opt);
    opt.cell_size = cell_size;
    opt.line_size = line_size;
    opt.time_limit = time_limit;
    fixture_run_with(events, n, routines, &opt, out);
}

void fixture_run_text(const char *text, uint64_t cell_size, uint64_t line_size, struct run *out)
{
    struct event_list events = {0};
    struct routine_table routines;
    routine_table_init(&routines);
    fixture_parse(text, &events, &routines);
    fixture_run_events(events.items, events.count, &routines, cell_size, line_size, 0, out);
    event_list_free(&events);
    routine_table_free(&routines);
}

void run_free(struct run *run)
{
    free(run->activations);
    analysis_result_free(run->result);
    routine_table_free(&run->routines);
    memset(run, 0, sizeof *run);
}

const struct activation *run_find(const struct run *run, const char *name, uint32_t tid,
                                  size_t n)
{
    for (size_t i = 0; i < run->n_activations; i++) {
        const struct activation *a = &run->activations[i];
        char buf[19];
        const char *label = a->routine == ROUTINE_ROOT
                                ? ROUTINE_ROOT_LABEL
                                : routine_table_label(&run->routines, a->routine, buf);
        if (a->tid == tid && strcmp(label, name) == 0 && n-- == 0)
            return a;
    }
    return NULL;
}

uint64_t histogram_count(const struct reuse_histogram *h, uint64_t distance)
{
    for (size_t i = 0; i < h->n_bins; i++)
        if (h->bins[i].distance == distance)
            return h->bins[i].count;
    return 0;
}

struct analysis_result *run_take_result(struct run *run)
{
    struct analysis_result *r = run->result;
    run->result = NULL;
    run_free(run);
    return r;
}

struct analysis_result *fixture_random_result(uint64_t seed, const struct random_trace_shape *shape,
                                              const struct analysis_options *options)
{
    struct event_list events = {0};
    struct routine_table routines;
    routine_table_init(&routines);
    random_trace(seed, shape, &events, &routines);
    struct run run;
    fixture_run_with(events.items, events.count, &routines, options, &run);
    struct analysis_result *r = run_take_result(&run);
    event_list_free(&events);
    routine_table_free(&routines);
    return r;
}
