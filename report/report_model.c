#include "report/report_model.h"

#include "analyses/analysis_parts.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/activation.h"
#include "common/oom.h"
#include "common/u64map.h"
#include "report/name_shorten.h"
#include "report/report_fold.h"
#include "report/routine_match.h"
#include "store/symbol_store.h"
#include "report/report.h"

const char *const report_metric_names[METRICS] = {"rms", "trms"};
const unsigned report_metric_parts[METRICS] = {ANALYSIS_RMS, ANALYSIS_TRMS};
const char *const report_cost_names[COST_KINDS] = {"worst", "average"};

/* ---- one profile of one source, before merging ---- */

struct entry {
    char *key;                        /* what rows merge by */
    uint32_t tid;                     /* 0 when threads are aggregated */
    uint32_t thread;                  /* the profile's thread as rows name it */
    const struct routine_profile *profile;
    const struct report_source *source;
};

/* Thread TID as rows name it: its id, or with ORDER (tid -> place in
 * order of first appearance, from 1, of its recording) its place. */
static uint32_t thread_name(const struct u64map *order, uint32_t tid)
{
    const uint64_t *place = order ? u64map_find((struct u64map *)order, tid) : NULL;
    return place ? (uint32_t)*place : tid;
}

/* ORDERS[s]: the place of each thread of SOURCES[s], for thread_name;
 * NULL when threads keep their ids. A map each, not a search per lookup:
 * a recording may hold thousands of threads. */
static struct u64map *thread_orders(const struct report_source *sources, size_t n, int by_order)
{
    if (!by_order)
        return NULL;
    struct u64map *orders = xcalloc(n, sizeof *orders);
    for (size_t s = 0; s < n; s++) {
        u64map_init(&orders[s]);
        const struct analysis_result *r = sources[s].result;
        for (size_t i = 0; i < r->n_threads; i++) {
            int inserted;
            uint64_t *place = u64map_upsert(&orders[s], r->reuse_threads[i].tid, &inserted);
            if (inserted)
                *place = i + 1;
        }
    }
    return orders;
}

static void thread_orders_free(struct u64map *orders, size_t n)
{
    for (size_t s = 0; orders && s < n; s++)
        u64map_free(&orders[s]);
    free(orders);
}

static int thread_selected(const struct report_selection *sel, uint32_t tid)
{
    if (!sel->n_threads)
        return 1;
    for (size_t i = 0; i < sel->n_threads; i++)
        if (sel->threads[i] == tid)
            return 1;
    return 0;
}

/* Whether the --routine patterns name ROW's routine, marking which did. */
static int routine_selected(const struct report_selection *sel, const struct report_row *row,
                            int *matched)
{
    if (!sel->n_routines)
        return 1;
    int any = 0;
    for (size_t i = 0; i < sel->n_routines; i++)
        if (routine_match(row, sel->routines[i])) {
            matched[i] = 1;
            any = 1;
        }
    return any;
}

/* The names from the root's first call down to CONTEXT, in ROWs. */
static void context_path(const struct report_source *src, uint32_t context,
                         struct report_row *row)
{
    const struct analysis_result *r = src->result;
    size_t depth = 0;
    for (uint32_t c = context; c != 0 && c < r->n_contexts; c = r->contexts[c].parent)
        depth++;
    row->context = xcalloc(depth ? depth : 1, sizeof *row->context);
    row->context_depth = depth;
    size_t i = depth;
    for (uint32_t c = context; c != 0 && c < r->n_contexts; c = r->contexts[c].parent) {
        char buf[REPORT_LABEL_MAX];
        row->context[--i] =
            xstrdup(report_routine_name(&r->routines, src->symbols, r->contexts[c].routine, buf));
    }
}

/* Fills the descriptive fields of ROW from profile P of SRC. */
static void describe(struct report_row *row, const struct report_source *src,
                     const struct routine_profile *p, int contexts)
{
    const struct analysis_result *r = src->result;
    char buf[REPORT_LABEL_MAX];
    row->name = xstrdup(report_routine_name(&r->routines, src->symbols, p->routine, buf));
    const struct symbol_name *sym = report_routine_symbol(&r->routines, src->symbols, p->routine);
    if (sym && sym->file) {
        row->file = xstrdup(sym->file);
        row->line = sym->line;
    }
    if (sym && sym->module) {
        row->module = xstrdup(sym->module);
        row->module_address = sym->module_addr;
        row->symbol = sym->name != NULL;
    }
    if (p->routine != ROUTINE_ROOT && p->routine < r->routines.count)
        row->address = r->routines.items[p->routine].addr;
    if (contexts)
        context_path(src, p->context, row);
}

/* " (file:line)", " (file)", " [module]" for a symbol of unknown source,
 * or "". */
static const char *row_location(const struct report_row *row, char *buf, size_t len)
{
    if (row->file && row->line > 0)
        snprintf(buf, len, " (%s:%d)", row->file, row->line);
    else if (row->file)
        snprintf(buf, len, " (%s)", row->file);
    else if (row->module && row->symbol)
        snprintf(buf, len, " [%s]", report_module_name(row->module));
    else
        buf[0] = '\0';
    return buf;
}

const char *report_row_label(const struct report_row *row, char *buf, size_t len)
{
    if (row->context) {
        size_t used = 0;
        buf[0] = '\0';
        if (row->context_depth == 0)
            snprintf(buf, len, "%s", row->name);
        for (size_t i = 0; i < row->context_depth && used < len; i++)
            used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? " > " : "",
                                     row->context[i]);
        return buf;
    }
    char where[REPORT_LABEL_MAX];
    snprintf(buf, len, "%s%s", row->name, row_location(row, where, sizeof where));
    return buf;
}

/* A calling context's label cut to WIDTH between two calls, keeping its
 * end: the routine, not the root, matters ("... > a > qsort"). */
static const char *context_shorten(char *label, size_t width)
{
    size_t len = strlen(label);
    if (len <= width)
        return label;
    char *tail = label + len - width + 4;
    char *cut = strstr(tail, " > ");
    if (cut && cut[3]) {
        cut -= 3;
        memcpy(cut, "...", 3);
        return cut;
    }
    return label + len - width;
}

/* Room a short name may take in a context, per call. */
#define CONTEXT_NAME_WIDTH 40

const char *report_row_label_fit(const struct report_row *row, size_t width, char *buf,
                                 size_t len)
{
    char name[REPORT_LABEL_MAX];
    if (row->context && row->context_depth > 0) {
        size_t used = 0;
        buf[0] = '\0';
        for (size_t i = 0; i < row->context_depth && used < len; i++) {
            name_shorten(row->context[i], CONTEXT_NAME_WIDTH, name, sizeof name);
            used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? " > " : "", name);
        }
        return context_shorten(buf, width);
    }
    char where[REPORT_LABEL_MAX];
    row_location(row, where, sizeof where);
    if (row->homonym) /* the address tells it from its namesakes */
        snprintf(where, sizeof where, " @0x%" PRIx64, row->module_address);
    /* The location helps find the code, but not at the cost of the name:
     * it goes when the name would have to be cut to leave it room. */
    size_t room = strlen(row->name) + strlen(where) <= width ? strlen(row->name)
                  : strlen(where) + 16 <= width                ? width - strlen(where)
                                                               : 0;
    if (row->homonym && room == 0) /* the address stays: it is what tells them apart */
        room = width > strlen(where) + 8 ? width - strlen(where) : 8;
    if (room == 0 || (!row->homonym && name_shorten(row->name, room, name, sizeof name))) {
        where[0] = '\0';
        name_shorten(row->name, width, name, sizeof name);
    } else if (row->homonym) {
        name_shorten(row->name, room, name, sizeof name);
    }
    snprintf(buf, len, "%s%s", name, where);
    return buf;
}

const char *report_row_key(const struct report_row *row, char *buf, size_t len)
{
    return report_row_label(row, buf, len);
}

/* ---- merging ---- */

static int by_key_then_thread(const void *x, const void *y)
{
    const struct entry *a = x, *b = y;
    int c = strcmp(a->key, b->key);
    if (c)
        return c;
    return (a->tid > b->tid) - (a->tid < b->tid);
}

static void add_point(struct profile_point *into, const struct profile_point *p)
{
    if (p->min < into->min)
        into->min = p->min;
    if (p->max > into->max)
        into->max = p->max;
    if (p->self_min < into->self_min)
        into->self_min = p->self_min;
    if (p->self_max > into->self_max)
        into->self_max = p->self_max;
    into->calls += p->calls;
    into->sum += p->sum;
    into->sumsq += p->sumsq;
    into->real_sum += p->real_sum;
    into->self_sum += p->self_sum;
    into->self_sumsq += p->self_sumsq;
}

/* ROW's points of METRIC and PTS merged by n (both sorted). */
static void merge_points(struct report_row *row, int metric, const struct profile_point *pts,
                         size_t n)
{
    struct profile_point *old = row->points[metric];
    size_t n_old = row->n_points[metric], i = 0, j = 0, k = 0;
    struct profile_point *out = xcalloc(n_old + n ? n_old + n : 1, sizeof *out);
    while (i < n_old || j < n) {
        if (j == n || (i < n_old && old[i].n < pts[j].n)) {
            out[k++] = old[i++];
        } else if (i == n_old || pts[j].n < old[i].n) {
            out[k++] = pts[j++];
        } else {
            out[k] = old[i++];
            add_point(&out[k++], &pts[j++]);
        }
    }
    free(old);
    row->points[metric] = out;
    row->n_points[metric] = k;
}

static void add_tid(struct report_row *row, uint32_t tid)
{
    for (size_t i = 0; i < row->n_tids; i++)
        if (row->tids[i] == tid)
            return;
    row->tids = xrealloc(row->tids, (row->n_tids + 1) * sizeof *row->tids);
    row->tids[row->n_tids++] = tid;
}

static void add_profile(struct report_row *row, const struct routine_profile *p, uint32_t tid)
{
    row->calls += p->calls;
    row->cost += p->cost;
    row->self_cost += p->self_cost;
    row->induced_thread += p->induced_thread;
    row->induced_external += p->induced_external;
    row->induced_channel += p->induced_channel;
    row->channel = channel_join(row->channel, p->channel);
    merge_points(row, METRIC_RMS, p->rms_points, p->n_rms_points);
    merge_points(row, METRIC_TRMS, p->trms_points, p->n_trms_points);
    add_tid(row, tid);
}

static void fit_row(struct report_row *row)
{
    for (int m = 0; m < METRICS; m++) {
        size_t n = row->n_points[m];
        struct growth_point *worst = xcalloc(n ? n : 1, sizeof *worst);
        struct growth_point *average = xcalloc(n ? n : 1, sizeof *average);
        row->input[m] = 0;
        for (size_t i = 0; i < n; i++) {
            const struct profile_point *p = &row->points[m][i];
            double mean = (double)p->sum / (double)p->calls, spread = 0;
            if (p->calls > 1 && mean > 0) {
                long double calls = p->calls, avg = (long double)p->sum / calls;
                long double var = ((long double)p->sumsq / calls - avg * avg) * calls / (calls - 1);
                spread = var > 0 ? (double)sqrtl(var) / mean : 0;
            }
            worst[i] = (struct growth_point){(double)p->n, (double)p->max, (double)p->calls,
                                             spread, (double)p->min, (double)p->max};
            average[i] = worst[i];
            average[i].cost = mean;
            row->input[m] += (unsigned __int128)p->n * p->calls;
        }
        growth_fit(worst, n, &row->fit[m][COST_WORST]);
        growth_fit(average, n, &row->fit[m][COST_AVERAGE]);
        free(worst);
        free(average);
    }
}

/* ---- homonyms ---- */

struct short_name {
    char text[REPORT_HOMONYM_WIDTH + 1];
    size_t row;
};

static int by_short_name(const void *x, const void *y)
{
    const struct short_name *a = x, *b = y;
    int c = strcmp(a->text, b->text);
    return c ? c : (a->row > b->row) - (a->row < b->row);
}

/* Marks the rows whose names read the same once shortened but differ in
 * full (two instantiations of one template, two clones): their short
 * labels carry their module address. */
static void mark_homonyms(struct report_model *m)
{
    struct short_name *names = xcalloc(m->n_rows ? m->n_rows : 1, sizeof *names);
    for (size_t i = 0; i < m->n_rows; i++) {
        name_shorten(m->rows[i].name, REPORT_HOMONYM_WIDTH, names[i].text,
                     sizeof names[i].text);
        names[i].row = i;
    }
    qsort(names, m->n_rows, sizeof *names, by_short_name);
    for (size_t i = 0; i < m->n_rows;) {
        size_t j = i + 1, differ = 0;
        for (; j < m->n_rows && strcmp(names[j].text, names[i].text) == 0; j++)
            differ |= strcmp(m->rows[names[j].row].name, m->rows[names[i].row].name) != 0;
        for (size_t k = i; differ && k < j; k++)
            m->rows[names[k].row].homonym = m->rows[names[k].row].module != NULL;
        i = j;
    }
    free(names);
}

static int by_label_then_thread(const struct report_row *a, const struct report_row *b)
{
    char ba[REPORT_LABEL_MAX], bb[REPORT_LABEL_MAX];
    int c = strcmp(report_row_label(a, ba, sizeof ba), report_row_label(b, bb, sizeof bb));
    if (c)
        return c;
    return (a->tid > b->tid) - (a->tid < b->tid);
}

static int descending(uint64_t a, uint64_t b)
{
    return (a < b) - (a > b);
}

static int by_cost(const void *x, const void *y)
{
    const struct report_row *a = x, *b = y;
    int c = descending(a->cost, b->cost);
    return c ? c : by_label_then_thread(a, b);
}

static int by_self_cost(const void *x, const void *y)
{
    const struct report_row *a = x, *b = y;
    int c = descending(a->self_cost, b->self_cost);
    if (!c)
        c = descending(a->cost, b->cost);
    return c ? c : by_label_then_thread(a, b);
}

static int is_wrapper(const struct report_row *r)
{
    return r->calls == 1 && (double)r->self_cost < REPORT_WRAPPER_SELF_SHARE * (double)r->cost;
}

int report_row_folded(const struct report_row *row)
{
    return row->wrapper || row->passes_to >= 0;
}

size_t report_top_rows(const struct report_model *m, size_t n, size_t *index, size_t *folded)
{
    size_t shown = 0;
    *folded = 0;
    for (size_t i = 0; i < m->n_rows && (n == 0 || shown < n); i++) {
        if (n && report_row_folded(&m->rows[i]))
            ++*folded;
        else
            index[shown++] = i;
    }
    return shown;
}

/* ---- reuse histograms ---- */

static void add_histogram(struct reuse_histogram *into, const struct reuse_histogram *h)
{
    into->accesses += h->accesses;
    into->cold += h->cold;
    struct reuse_bin *out = xcalloc(into->n_bins + h->n_bins ? into->n_bins + h->n_bins : 1,
                                    sizeof *out);
    size_t i = 0, j = 0, k = 0;
    while (i < into->n_bins || j < h->n_bins) {
        if (j == h->n_bins || (i < into->n_bins && into->bins[i].distance < h->bins[j].distance))
            out[k++] = into->bins[i++];
        else if (i == into->n_bins || h->bins[j].distance < into->bins[i].distance)
            out[k++] = h->bins[j++];
        else {
            out[k] = into->bins[i++];
            out[k++].count += h->bins[j++].count;
        }
    }
    free(into->bins);
    into->bins = out;
    into->n_bins = k;
}

/* T's histogram added to thread TID's in M; INDEX: tid -> its place in
 * M's threads (a lookup, not a search: thousands of threads). */
static void add_thread_histogram(struct report_model *m, struct u64map *index,
                                 const struct thread_reuse *t, uint32_t tid)
{
    int inserted;
    uint64_t *at = u64map_upsert(index, tid, &inserted);
    if (inserted) {
        if ((m->n_threads & (m->n_threads - 1)) == 0)  /* doubling at powers of two */
            m->reuse_threads = xrealloc(m->reuse_threads,
                                        (m->n_threads ? 2 * m->n_threads : 1) *
                                            sizeof *m->reuse_threads);
        *at = m->n_threads;
        m->reuse_threads[m->n_threads++] = (struct thread_reuse){.tid = tid};
    }
    add_histogram(&m->reuse_threads[*at].histogram, &t->histogram);
}

static int by_tid(const void *x, const void *y)
{
    const struct thread_reuse *a = x, *b = y;
    return (a->tid > b->tid) - (a->tid < b->tid);
}

/* ---- building ---- */

static int check_sources(const struct report_source *sources, size_t n,
                         const struct report_selection *sel, struct trms_error *err)
{
    for (size_t s = 0; s < n; s++) {
        const struct analysis_result *r = sources[s].result;
        if (sel->contexts && r->n_contexts == 0)
            return error_set(err, "%s: its analysis kept no calling contexts; run `trms analyze "
                                  "--contexts %s` first", sources[s].recording,
                             sources[s].recording);
        if (r->cell_size != sources[0].result->cell_size ||
            r->line_size != sources[0].result->line_size)
            return error_set(err, "%s was analyzed with cell size %" PRIu64 " and line size %"
                                  PRIu64 ", %s with %" PRIu64 " and %" PRIu64
                                  "; give --cell-size and --line-size",
                             sources[s].recording, r->cell_size, r->line_size,
                             sources[0].recording, sources[0].result->cell_size,
                             sources[0].result->line_size);
    }
    return 0;
}

/* Every selected profile of every source, keyed. */
static struct entry *collect_entries(const struct report_source *sources, size_t n,
                                     const struct report_selection *sel,
                                     const struct u64map *orders, int *matched, size_t *count)
{
    struct entry *entries = NULL;
    size_t used = 0, capacity = 0;
    for (size_t s = 0; s < n; s++) {
        const struct analysis_result *r = sources[s].result;
        for (size_t i = 0; i < r->n_profiles; i++) {
            const struct routine_profile *p = &r->profiles[i];
            uint32_t tid = thread_name(orders ? &orders[s] : NULL, p->tid);
            if (!thread_selected(sel, tid))
                continue;
            struct report_row probe = {0};
            describe(&probe, &sources[s], p, sel->contexts);
            if (routine_selected(sel, &probe, matched)) {
                char key[REPORT_LABEL_MAX];
                report_row_key(&probe, key, sizeof key);
                if (used == capacity) {
                    capacity = capacity ? capacity * 2 : 64;
                    entries = xrealloc(entries, capacity * sizeof *entries);
                }
                entries[used++] = (struct entry){.key = xstrdup(key),
                                                 .tid = sel->aggregate_threads ? 0 : tid,
                                                 .thread = tid, .profile = p,
                                                 .source = &sources[s]};
            }
            free(probe.name);
            free(probe.file);
            free(probe.module);
            for (size_t k = 0; k < probe.context_depth; k++)
                free(probe.context[k]);
            free(probe.context);
        }
    }
    *count = used;
    return entries;
}

int report_model_build(const struct report_source *sources, size_t n,
                       const struct report_selection *sel, struct report_model *out,
                       struct trms_error *err)
{
    memset(out, 0, sizeof *out);
    if (n == 0)
        return error_set(err, "no recording to report");
    if (check_sources(sources, n, sel, err) != 0)
        return -1;
    int by_order = n > 1 || sel->threads_by_order;
    int *matched = xcalloc(sel->n_routines ? sel->n_routines : 1, sizeof *matched);
    size_t n_entries;
    struct u64map *orders = thread_orders(sources, n, by_order);
    struct entry *entries = collect_entries(sources, n, sel, orders, matched, &n_entries);
    int rc = 0;
    for (size_t i = 0; i < sel->n_routines && rc == 0; i++)
        if (!matched[i])
            rc = error_set(err, "%s: no routine named '%s'", sources[0].recording,
                           sel->routines[i]);
    for (size_t i = 0; i < sel->n_threads && rc == 0; i++) {
        int seen = 0;
        for (size_t s = 0; s < n && !seen; s++)
            for (size_t t = 0; t < sources[s].result->n_threads; t++)
                seen |= thread_name(orders ? &orders[s] : NULL,
                                    sources[s].result->reuse_threads[t].tid) == sel->threads[i];
        if (!seen)
            rc = error_set(err, "%s: no thread %" PRIu32, sources[0].recording, sel->threads[i]);
    }
    free(matched);
    if (rc != 0) {
        for (size_t i = 0; i < n_entries; i++)
            free(entries[i].key);
        free(entries);
        thread_orders_free(orders, n);
        return -1;
    }

    if (n_entries > 1)  /* none without profiles (--analyses reuse): entries is NULL */
        qsort(entries, n_entries, sizeof *entries, by_key_then_thread);
    out->rows = xcalloc(n_entries ? n_entries : 1, sizeof *out->rows);
    for (size_t i = 0; i < n_entries;) {
        struct report_row *row = &out->rows[out->n_rows++];
        describe(row, entries[i].source, entries[i].profile, sel->contexts);
        row->all_threads = sel->aggregate_threads;
        size_t j = i;
        for (; j < n_entries && strcmp(entries[j].key, entries[i].key) == 0 &&
               entries[j].tid == entries[i].tid;
             j++)
            add_profile(row, entries[j].profile, entries[j].thread);
        row->tid = row->all_threads ? 0 : entries[i].tid;
        fit_row(row);
        row->wrapper = is_wrapper(row);
        i = j;
    }
    for (size_t i = 0; i < n_entries; i++)
        free(entries[i].key);
    free(entries);
    mark_homonyms(out);
    qsort(out->rows, out->n_rows, sizeof *out->rows, sel->by_self ? by_self_cost : by_cost);
    out->by_self = sel->by_self;
    report_fold_chains(out);

    out->recordings = xcalloc(n, sizeof *out->recordings);
    out->windows = xcalloc(n, sizeof *out->windows);
    out->no_trace = xcalloc(n, sizeof *out->no_trace);
    out->n_recordings = n;
    out->cell_size = sources[0].result->cell_size;
    out->line_size = sources[0].result->line_size;
    out->analyses = ANALYSIS_ALL;
    for (size_t s = 0; s < n; s++)
        out->analyses &= sources[s].result->analyses;
    out->contexts = sel->contexts;
    out->aggregate_threads = sel->aggregate_threads;
    out->threads_by_order = by_order;
    struct u64map threads;
    u64map_init(&threads);
    for (size_t s = 0; s < n; s++) {
        const struct analysis_result *r = sources[s].result;
        out->recordings[s] = sources[s].recording;
        out->windows[s] = sources[s].window;
        out->no_trace[s] = sources[s].no_trace;
        for (int t = 0; t < EVENT_TYPE_COUNT; t++)
            out->events[t] += r->events[t];
        out->activations += r->activations;
        add_histogram(&out->reuse_global, &r->reuse_global);
        for (size_t t = 0; t < r->n_threads; t++) {
            uint32_t tid = thread_name(orders ? &orders[s] : NULL, r->reuse_threads[t].tid);
            if (thread_selected(sel, tid))
                add_thread_histogram(out, &threads, &r->reuse_threads[t], tid);
        }
    }
    u64map_free(&threads);
    thread_orders_free(orders, n);
    if (n > 1 && out->n_threads > 1)  /* none without reuse (--analyses): NULL */
        qsort(out->reuse_threads, out->n_threads, sizeof *out->reuse_threads, by_tid);
    return 0;
}

void report_model_free(struct report_model *m)
{
    for (size_t i = 0; i < m->n_rows; i++) {
        struct report_row *row = &m->rows[i];
        free(row->name);
        free(row->file);
        free(row->module);
        for (size_t k = 0; k < row->context_depth; k++)
            free(row->context[k]);
        free(row->context);
        free(row->tids);
        for (int metric = 0; metric < METRICS; metric++)
            free(row->points[metric]);
    }
    free(m->rows);
    free(m->recordings);
    free(m->windows);
    free(m->no_trace);
    free(m->reuse_global.bins);
    for (size_t i = 0; i < m->n_threads; i++)
        free(m->reuse_threads[i].histogram.bins);
    free(m->reuse_threads);
    memset(m, 0, sizeof *m);
}

void report_model_attribute_channels(struct report_model *m, channel_writer writer, void *ctx)
{
    for (size_t i = 0; i < m->n_rows; i++) {
        struct report_row *row = &m->rows[i];
        row->induced_process = 0;
        row->from_pid = 0;
        row->from_command = NULL;
        if (!row->induced_channel || row->channel == CHANNEL_SEVERAL)
            continue;  /* several channels: counted external, as their writers are unknown */
        const char *command = NULL;
        int pid = writer(ctx, row->channel, &command);
        if (pid > 0) {
            row->induced_process = row->induced_channel;
            row->from_pid = pid;
            row->from_command = command;
        }
    }
}

int report_model_has_process_input(const struct report_model *m)
{
    for (size_t i = 0; i < m->n_rows; i++)
        if (m->rows[i].induced_process)
            return 1;
    return 0;
}

double report_row_share(const struct report_row *row, int external)
{
    unsigned __int128 input = row->input[METRIC_TRMS];
    uint64_t induced = external ? row->induced_external : row->induced_thread;
    return input ? 100.0 * (double)induced / (double)input : 0.0;
}


void report_model_notes(const struct report_model *m, char not_computed[static REPORT_NOTE_MAX],
                        char no_trace[static REPORT_NOTE_MAX])
{
    not_computed[0] = no_trace[0] = '\0';
    if (m->analyses != ANALYSIS_ALL) {
        char parts[ANALYSIS_PARTS_TEXT_MAX], missing[ANALYSIS_PARTS_WORDS_MAX];
        snprintf(not_computed, REPORT_NOTE_MAX, "not computed: %s (analyzed with --analyses %s)",
                 analysis_parts_missing(m->analyses, missing),
                 analysis_parts_text(m->analyses, parts));
    }
    size_t n = 0, count = 0;
    for (size_t i = 0; i < m->n_recordings; i++)
        count += m->no_trace[i] != 0;
    for (size_t i = 0; i < m->n_recordings && n < REPORT_NOTE_MAX; i++)
        if (m->no_trace[i])
            n += (size_t)snprintf(no_trace + n, REPORT_NOTE_MAX - n, "%s%s", n ? ", " : "",
                                  m->recordings[i]);
    if (n < REPORT_NOTE_MAX && count)
        snprintf(no_trace + n, REPORT_NOTE_MAX - n, ": event trace not kept (recorded with "
                 "--trace none); %s cannot be analyzed again", count > 1 ? "they" : "it");
}

void report_model_say_notes(const struct report_model *m)
{
    char not_computed[REPORT_NOTE_MAX], no_trace[REPORT_NOTE_MAX];
    report_model_notes(m, not_computed, no_trace);
    if (not_computed[0])
        fprintf(stderr, "trms: note: %s\n", not_computed);
    if (no_trace[0])
        fprintf(stderr, "trms: note: %s\n", no_trace);
}
