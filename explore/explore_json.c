/* explore_json: everything an exploration found, exact (explore_format.h). */
#include <inttypes.h>
#include <stdlib.h>

#include "explore/explore_format.h"
#include "report/json.h"
#include "report/report.h"

static const char *const schedule_keys[] = {"pct", "random", "chaos", "given"};

/* {"value": V, "run": I, "recording": PATH, "runs": N} */
static void extreme(FILE *out, const struct explore *x, const char *key,
                    const struct explore_extreme *e)
{
    fprintf(out, "\"%s\":{\"value\":%" PRIu64 ",\"run\":%" PRIu32 ",\"recording\":", key,
            e->value, e->run);
    json_string(out, x->runs[e->run].recording);
    fprintf(out, ",\"runs\":%" PRIu32 "}", e->runs);
}

static void runs(FILE *out, const struct explore *x)
{
    fputs("\"runs\":[", out);
    for (size_t i = 0; i < x->n_runs; i++) {
        const struct explore_run *r = &x->runs[i];
        fprintf(out, "%s{\"run\":%zu,\"recording\":", i ? "," : "", i);
        json_string(out, r->recording);
        fprintf(out, ",\"seed\":%" PRIu64 ",\"depth\":%" PRIu32 ",\"first\":%s,\"kept\":%s,"
                     "\"seconds\":",
                r->seed, r->depth, r->calibration ? "true" : "false", r->kept ? "true" : "false");
        json_number(out, r->seconds);
        fprintf(out, ",\"exit_status\":%d,\"threads\":%" PRIu64 ",\"counted\":%" PRIu64
                     ",\"stream\":%" PRIu64 "}",
                r->exit_status, r->threads, r->counted, r->stream);
    }
    fputs("]", out);
}

static void objects(FILE *out, const struct explore *x)
{
    fputs("\"objects\":[", out);
    for (size_t i = 0; i < x->n_objects; i++) {
        const struct explore_object *o = &x->objects_seen[i];
        fputs(i ? ",{\"name\":" : "{\"name\":", out);
        json_string(out, o->name);
        fputs(",\"module\":", out);
        json_string(out, o->module);
        /* accesses: over all runs; accesses_per_run: their mean, as the text
         * report's column shows it. */
        fprintf(out, ",\"address\":\"0x%" PRIx64 "\",\"size\":%" PRIu64 ",\"accesses\":%" PRIu64
                     ",\"accesses_per_run\":%" PRIu64 ",\"runs\":%" PRIu32 ",\"reused\":%" PRIu32
                     ",\"depends_on_schedule\":%s,",
                o->start, o->size, o->accesses, o->runs ? o->accesses / o->runs : 0, o->runs,
                o->reused, explore_object_varies(o) ? "true" : "false");
        if (o->reused) {
            extreme(out, x, "min", &o->min);
            fputc(',', out);
            extreme(out, x, "max", &o->max);
        } else {
            fputs("\"min\":null,\"max\":null", out);
        }
        fputs(",\"ranges\":[", out);
        for (size_t r = 0; r < o->n_ranges; r++) {
            fprintf(out, "%s{\"min\":%" PRIu64 ",\"max\":%" PRIu64 ",\"run\":%" PRIu32
                         ",\"recording\":",
                    r ? "," : "", o->ranges[r].min, o->ranges[r].max, o->ranges[r].run);
            json_string(out, x->runs[o->ranges[r].run].recording);
            fprintf(out, ",\"runs\":%" PRIu32 "}", o->ranges[r].runs);
        }
        fputs("],\"distances\":[", out);
        for (size_t d = 0; d < o->n_distances; d++) {
            fprintf(out, "%s{\"distance\":%" PRIu64 ",\"run\":%" PRIu32 ",\"recording\":",
                    d ? "," : "", o->distances[d].min, o->distances[d].run);
            json_string(out, x->runs[o->distances[d].run].recording);
            fprintf(out, ",\"runs\":%" PRIu32 "}", o->distances[d].runs);
        }
        fputs("]}", out);
    }
    fputs("]", out);
}

static void routines(FILE *out, const struct explore *x)
{
    fputs("\"routines\":[", out);
    size_t *order = explore_routine_order(x);
    for (size_t k = 0; k < x->n_routines; k++) {
        const struct explore_routine *r = &x->routines[order[k]];
        fputs(k ? ",{\"name\":" : "{\"name\":", out);
        json_string(out, r->name);
        fputs(",\"points\":[", out);
        for (size_t j = 0; j < r->n_points; j++) {
            const struct explore_point *p = &r->points[j];
            fprintf(out, "%s{\"rms\":%" PRIu64 ",\"activations\":%" PRIu64 ",\"runs\":%" PRIu32
                         ",\"varies\":%s,\"depends_on_schedule\":%s,",
                    j ? "," : "", p->rms, p->activations, p->runs,
                    explore_point_varies(p) ? "true" : "false",
                    explore_point_depends(p) ? "true" : "false");
            extreme(out, x, "trms_min", &p->trms_min);
            fputc(',', out);
            extreme(out, x, "trms_max", &p->trms_max);
            fputc(',', out);
            extreme(out, x, "thread_induced_min", &p->induced_min);
            fputc(',', out);
            extreme(out, x, "thread_induced_max", &p->induced_max);
            fputc('}', out);
        }
        fputs("]}", out);
    }
    free(order);
    fputs("]", out);
}

int explore_json(FILE *out, const struct explore *x)
{
    fputs("{\"command\":", out);
    json_string(out, x->command);
    fputs(",\"directory\":", out);
    json_string(out, x->directory);
    fprintf(out, ",\"schedule\":\"%s\",\"depth\":", schedule_keys[x->schedule]);
    if (x->schedule == EXPLORE_PCT)
        fprintf(out, "%" PRIu32 ",\"k\":%" PRIu64, x->depth, x->k);
    else
        fputs("null,\"k\":null", out);
    fputs(",\"quantum\":", out);
    if (x->schedule == EXPLORE_RANDOM)
        fprintf(out, "%" PRIu32, x->quantum);
    else
        fputs("null", out);
    uint64_t n = explore_max_threads(x);
    fprintf(out, ",\"threads\":%" PRIu64 ",\"pct_bound_runs\":", n);
    if (x->schedule == EXPLORE_PCT)
        json_number(out, explore_pct_runs(n, x->k, x->depth));
    else
        fputs("null", out);
    fputs(",\"tracked\":", out);
    json_string(out, x->objects);
    fprintf(out, ",\"objects_tracked\":%zu,\"unit\":%" PRIu64 ",\"cell_size\":%" PRIu64 ",",
            x->tracked, x->unit, x->cell_size);
    runs(out, x);
    fputc(',', out);
    objects(out, x);
    fputc(',', out);
    routines(out, x);
    fputs("}\n", out);
    return ferror(out) ? -1 : 0;
}
