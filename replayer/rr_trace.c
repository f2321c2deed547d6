/* rr_trace: the mappings and kernel writes of an rr trace (rr_trace.h). */
#include "replayer/rr_trace.h"

#include <stdlib.h>
#include <string.h>

#include "common/oom.h"
#include "replayer/rr_dump.h"

static void *grow(void *items, size_t n, size_t *capacity, size_t size)
{
    if (n < *capacity)
        return items;
    *capacity = *capacity ? 2 * *capacity : 64;
    return xrealloc(items, *capacity * size);
}

struct reading {
    struct rr_trace *trace;
    size_t map_capacity, write_capacity, exec_capacity;
};

static int on_frame(void *ctx, const struct rr_frame *f, struct trms_error *err)
{
    struct reading *r = ctx;
    if (r->trace->frames && f->time <= r->trace->last_time)
        return error_set(err, "frame %llu comes after frame %llu: the dump is out of order",
                         (unsigned long long)f->time, (unsigned long long)r->trace->last_time);
    r->trace->frames++;
    r->trace->last_time = f->time;
    if (r->trace->threads == 0) {
        r->trace->threads = 1;  /* the first task */
        r->trace->first_tid = f->tid;
    }
    return 0;
}

static int on_task(void *ctx, const struct rr_frame *f, const struct rr_task_event *e,
                   struct trms_error *err)
{
    (void)f, (void)err;
    struct reading *r = ctx;
    struct rr_trace *t = r->trace;
    if (e->kind == RR_TASK_CLONE) {
        t->threads++;
        *u64map_upsert(&t->clone_flags, e->tid, NULL) = e->clone_flags;
    } else if (e->kind == RR_TASK_EXEC && e->tid == t->first_tid) {
        t->exec_times = grow(t->exec_times, t->n_execs, &r->exec_capacity, sizeof *t->exec_times);
        t->exec_times[t->n_execs++] = f->time;
    }
    return 0;
}

static int on_mapping(void *ctx, const struct rr_frame *f, const struct rr_mapping *m,
                      struct trms_error *err)
{
    struct reading *r = ctx;
    struct rr_trace *t = r->trace;
    if (m->length == 0 || m->addr + m->length < m->addr)
        return error_set(err, "frame %llu: a mapping of %s is empty or wraps",
                         (unsigned long long)f->time, m->map_file);
    t->mappings = grow(t->mappings, t->n_mappings, &r->map_capacity, sizeof *t->mappings);
    t->mappings[t->n_mappings++] = (struct rr_trace_mapping){
        .time = f->time, .start = m->addr, .end = m->addr + m->length,
        .file_offset = m->file_offset, .data_offset = m->data_offset, .prot = m->prot,
        /* "<ZERO>" and anonymous memory have no file behind them. */
        .data_file = m->data_file[0] ? xstrdup(m->data_file) : NULL,
        .map_file = xstrdup(m->map_file)};
    return 0;
}

static int on_write(void *ctx, const struct rr_frame *f, const struct rr_mem_write *w,
                    struct trms_error *err)
{
    struct reading *r = ctx;
    struct rr_trace *t = r->trace;
    if (w->addr + w->length < w->addr)
        return error_set(err, "frame %llu: a recorded write wraps around the address space",
                         (unsigned long long)f->time);
    /* The pieces between the holes (which rr lists in address order). */
    uint64_t at = 0;
    for (size_t i = 0; i <= w->n_holes; i++) {
        uint64_t stop = i < w->n_holes ? w->holes[i].offset : w->length;
        if (stop < at)
            return error_set(err, "frame %llu: holes of a recorded write overlap",
                             (unsigned long long)f->time);
        if (stop > at) {
            t->writes = grow(t->writes, t->n_writes, &r->write_capacity, sizeof *t->writes);
            t->writes[t->n_writes++] = (struct rr_trace_write){
                .time = f->time, .tid = w->tid, .addr = w->addr + at, .length = stop - at};
        }
        if (i < w->n_holes)
            at = w->holes[i].offset + w->holes[i].size;
    }
    return 0;
}

int rr_trace_read(FILE *in, const char *name, struct rr_trace *trace, struct trms_error *err)
{
    *trace = (struct rr_trace){0};
    struct reading r = {.trace = trace};
    struct rr_dump_callbacks cb = {.frame = on_frame, .task_event = on_task,
                                   .mapping = on_mapping, .mem_write = on_write, .ctx = &r};
    if (rr_dump_parse(in, name, &cb, err) != 0) {
        rr_trace_free(trace);
        return -1;
    }
    return 0;
}

void rr_trace_free(struct rr_trace *trace)
{
    for (size_t i = 0; i < trace->n_mappings; i++) {
        free(trace->mappings[i].data_file);
        free(trace->mappings[i].map_file);
    }
    free(trace->mappings);
    free(trace->writes);
    free(trace->exec_times);
    u64map_free(&trace->clone_flags);
    *trace = (struct rr_trace){0};
}

const struct rr_trace_write *rr_trace_writes_of(const struct rr_trace *trace, uint64_t time,
                                                size_t *count)
{
    size_t lo = 0, hi = trace->n_writes;
    while (lo < hi) {  /* the first write at or after TIME */
        size_t mid = lo + (hi - lo) / 2;
        if (trace->writes[mid].time < time)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t end = lo;
    while (end < trace->n_writes && trace->writes[end].time == time)
        end++;
    *count = end - lo;
    return end > lo ? &trace->writes[lo] : NULL;
}
