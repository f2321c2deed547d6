/* rr_replay: rr dump, then rr rerun through the decoder (rr_replay.h). */
#include "replayer/rr_replay.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/oom.h"
#include "common/regular_file.h"
#include "recorder/perf_counters.h"
#include "replayer/code_symbols.h"
#include "replayer/rerun_stream.h"
#include "replayer/rr_command.h"
#include "replayer/rr_dump.h"
#include "replayer/rr_trace.h"
#include "symbols/resolve_routines.h"

/* Files inside the trace that code is read from, kept open. */
struct open_file {
    char *path;
    int fd;
};

struct replay {
    const struct rr_replay_options *o;
    struct rr_replay_result *result;
    struct rr_trace trace;
    size_t next_mapping;            /* trace.mappings applied so far */
    struct memory_maps code;        /* what is mapped now, by data file */
    struct open_file *files;
    size_t n_files;
    uint64_t records;
    size_t next_exec;               /* trace.exec_times passed */
    size_t named;                   /* routines named so far */
};

#define PROGRESS_RECORDS 4096

/* ---- code bytes, from the files the trace keeps ---- */

static int file_fd(struct replay *p, const char *path)
{
    for (size_t i = 0; i < p->n_files; i++)
        if (strcmp(p->files[i].path, path) == 0)
            return p->files[i].fd;
    p->files = xrealloc(p->files, (p->n_files + 1) * sizeof *p->files);
    const char *why;  /* a path rr's trace names is a name, not an order */
    p->files[p->n_files] = (struct open_file){xstrdup(path), regular_file_open(path, 0, &why)};
    return p->files[p->n_files++].fd;
}

static size_t read_code(void *ctx, uint64_t addr, uint8_t *buf, size_t size)
{
    struct replay *p = ctx;
    const struct map_entry *m = memory_maps_find(&p->code, addr);
    if (!m)
        return 0;
    if (size > m->end - addr)
        size = (size_t)(m->end - addr);
    int fd = file_fd(p, m->path);
    ssize_t n = fd < 0 ? -1 : pread(fd, buf, size, (off_t)(m->offset + (addr - m->start)));
    return n > 0 ? (size_t)n : 0;
}

/* Mappings that appeared up to frame TIME become visible. The symbolizer
 * reads a file's symbols from the trace's copy when the copy is the whole
 * file (a hard link or a clone, at the same offsets), else from the file
 * the program mapped. */
static void apply_mappings(struct replay *p, uint64_t time)
{
    for (; p->next_mapping < p->trace.n_mappings &&
           p->trace.mappings[p->next_mapping].time <= time;
         p->next_mapping++) {
        const struct rr_trace_mapping *m = &p->trace.mappings[p->next_mapping];
        if (!m->data_file) {  /* zero-filled: nothing to read there */
            memory_maps_remove(&p->code, m->start, m->end);
            continue;
        }
        unsigned prot = m->prot;  /* RR_PROT_* and MAPS_PROT_* agree */
        struct map_entry code = {.start = m->start, .end = m->end, .offset = m->data_offset,
                                 .prot = prot, .path = m->data_file};
        memory_maps_add(&p->code, &code);
        if (m->map_file[0] != '/')
            continue;  /* [vdso], [stack]...: no file to name routines by */
        struct map_entry named = code;
        if (m->data_offset != m->file_offset)
            named = (struct map_entry){.start = m->start, .end = m->end,
                                       .offset = m->file_offset, .prot = prot,
                                       .path = m->map_file};
        memory_maps_add(&p->result->maps, &named);
        if (prot & MAPS_PROT_X)
            symbolizer_add_map(p->result->symbols, &named);
    }
}

/* ---- what symbols say, for the call tracker ---- */

static void classify(void *ctx, uint64_t addr, struct code_class *out)
{
    struct replay *p = ctx;
    code_symbols_classify(p->result->symbols, addr, out);
}

static uint64_t function_of(void *ctx, uint64_t addr)
{
    struct replay *p = ctx;
    return code_symbols_function_of(p->result->symbols, addr);
}

static int clone_flags(void *ctx, uint32_t tid, uint64_t *flags)
{
    struct replay *p = ctx;
    const uint64_t *known = u64map_find(&p->trace.clone_flags, tid);
    if (known)
        *flags = *known;
    return known != NULL;
}

/* ---- system calls: reads from the table, writes as rr recorded them ---- */

struct forward {
    syscall_effect_fn emit;
    void *ctx;
};

static void reads_only(void *ctx, enum syscall_access kind, uint64_t addr, uint64_t size)
{
    struct forward *f = ctx;
    if (kind == SYSCALL_KREAD)
        f->emit(f->ctx, kind, addr, size);
}

static enum syscall_known recorded_effects(void *ctx, const struct syscall_call *call,
                                           syscall_effect_fn emit, void *emit_ctx)
{
    struct replay *p = ctx;
    struct forward f = {emit, emit_ctx};
    enum syscall_known known =
        syscall_effects(call->nr, call->args, call->result, NULL, reads_only, &f);
    size_t n;
    const struct rr_trace_write *w =
        rr_trace_writes_of(&p->trace, call->exit_record->event, &n);
    for (size_t i = 0; i < n; i++)
        if (w[i].tid == call->tid)
            emit(emit_ctx, SYSCALL_KWRITE, w[i].addr, w[i].length);
    return known;
}

/* ---- the two rr commands ---- */

static int read_dump(struct replay *p, struct trms_error *err)
{
    char *argv[] = {"rr", "dump", "-e", "-m", "-p", (char *)p->o->trace_dir, NULL};
    struct rr_command c;
    if (rr_command_start(&c, "rr dump", argv, err) != 0)
        return -1;
    FILE *in = fdopen(c.out, "r");
    int rc;
    if (!in) {
        rc = error_set(err, "rr dump: %s", strerror(errno));
    } else {
        c.out = -1;  /* the stream owns it now */
        rc = rr_trace_read(in, "rr dump", &p->trace, err);
        fclose(in);
    }
    struct trms_error child;
    int child_rc = rr_command_finish(&c, &child);
    if (child_rc != 0)  /* rr's own words explain a bad dump best */
        *err = child;
    return rc != 0 || child_rc != 0 ? -1 : 0;
}

/* Before each record: the frame's mappings become visible before code
 * in them runs, and every few thousand records the caller hears how far
 * the replay has come. */
static void before_record(void *ctx, const struct rerun_record *r)
{
    struct replay *p = ctx;
    /* A program exec'd another: its routines are named while its symbols
     * are still mapped, the next program's kept apart. The first exec is
     * the recorded program's start. */
    for (; p->next_exec < p->trace.n_execs && p->trace.exec_times[p->next_exec] <= r->event;
         p->next_exec++) {
        if (p->next_exec == 0)
            continue;
        symbols_name_routines_since(p->result->symbols, p->o->routines, &p->named,
                                    &p->result->names);
        routine_table_tag_addresses(p->o->routines, (uint64_t)p->next_exec << 56);
    }
    if (p->next_mapping < p->trace.n_mappings)
        apply_mappings(p, r->event);
    if (p->o->progress && ++p->records % PROGRESS_RECORDS == 0)
        p->o->progress(p->o->progress_ctx, r->event, p->trace.last_time,
                       p->result->summary.instructions);
}

static int rerun(struct replay *p, struct trms_error *err)
{
    struct rerun_decoder_config cfg = {
        .read_code = read_code, .classify = classify, .function_of = function_of,
        .clone_flags = clone_flags, .ctx = p,
        .syscalls = &(const struct syscall_source){recorded_effects, p},
        .sink = p->o->sink, .sink_ctx = p->o->sink_ctx, .sync = p->o->sync,
        .sync_ctx = p->o->sync_ctx, .routines = p->o->routines};
    struct rerun_decoder *d = rerun_decoder_new(&cfg, &p->result->summary, err);
    if (!d)
        return -1;
    char from[32], to[32];
    char *argv[12] = {"rr", "rerun", "--singlestep=" RERUN_FIELDS, "--raw"};
    int argc = 4;
    if (p->o->from) {
        snprintf(from, sizeof from, "%" PRIu64, p->o->from);
        argv[argc++] = "-s";
        argv[argc++] = from;
    }
    if (p->o->to) {
        snprintf(to, sizeof to, "%" PRIu64, p->o->to);
        argv[argc++] = "-e";
        argv[argc++] = to;
    }
    argv[argc++] = (char *)p->o->trace_dir;
    argv[argc] = NULL;
    apply_mappings(p, p->o->from ? p->o->from - 1 : 0);
    struct rr_command c;
    if (rr_command_start(&c, "rr rerun", argv, err) != 0) {
        rerun_decoder_finish(d, err);
        return -1;
    }
    struct rerun_stream stream;
    rerun_stream_init(&stream, d);
    stream.before = before_record;
    stream.before_ctx = p;
    int rc = rerun_stream_read_fd(&stream, c.out, err);
    struct trms_error child;
    int child_rc = rr_command_finish(&c, &child);
    if (child_rc != 0 && rc == 0) {
        /* rr's own message first; where it cannot replay for want of
         * counters, say so. */
        char why[160];
        if (strstr(child.message, "Unknown register"))
            rc = error_set(err, "%s: this rr's rerun lacks fields trms reads (--singlestep="
                                RERUN_FIELDS "); rr 5.6.0 or later has them",
                           child.message);
        else if (!perf_counters_available(why, sizeof why))
            rc = error_set(err, "%s (replaying needs hardware performance counters, which "
                                "this machine lacks: %s)", child.message, why);
        else
            rc = error_set(err, "%s", child.message);
    } else if (child_rc != 0 && !(WIFSIGNALED(c.status) && WTERMSIG(c.status) == SIGPIPE)) {
        /* rr died (not because we stopped reading): its words say why,
         * ours where the stream stopped */
        char where[sizeof err->message];
        memcpy(where, err->message, sizeof where);
        rc = error_set(err, "%s; %s", child.message, where);
    }
    struct trms_error finish_err;
    if (rerun_decoder_finish(d, &finish_err) != 0 && rc == 0) {
        *err = finish_err;
        rc = -1;
    }
    symbols_name_routines_since(p->result->symbols, p->o->routines, &p->named,
                                &p->result->names);
    return rc;
}

const char *rr_replay_routine_name(const struct rr_replay_result *r, uint64_t addr,
                                   const struct routine_table *routines)
{
    const struct symbol_name *named = symbol_names_find(&r->names, addr);
    if (named && named->name)
        return named->name;
    struct symbol_info info;
    if ((addr & ~ROUTINE_ADDR_MASK) != routines->addr_tag ||
        symbolizer_lookup(r->symbols, addr & ROUTINE_ADDR_MASK, &info) != 0)
        return NULL;
    return info.name;
}

void rr_replay_result_free(struct rr_replay_result *r)
{
    symbol_names_free(&r->names);
    rerun_summary_free(&r->summary);
    memory_maps_free(&r->maps);
    symbolizer_free(r->symbols);
    *r = (struct rr_replay_result){0};
}

int rr_replay(const struct rr_replay_options *o, struct rr_replay_result *result,
              struct trms_error *err)
{
    *result = (struct rr_replay_result){.symbols = symbolizer_new()};
    memory_maps_init(&result->maps);
    symbol_names_init(&result->names);
    struct replay p = {.o = o, .result = result};
    memory_maps_init(&p.code);
    int rc = read_dump(&p, err);
    if (rc == 0) {
        result->last_time = p.trace.last_time;
        result->threads = p.trace.threads;
        if (o->to && o->from > o->to)
            rc = error_set(err, "--from %" PRIu64 " is after --to %" PRIu64, o->from, o->to);
        else if (o->from > p.trace.last_time)
            rc = error_set(err, "--from %" PRIu64 ": the trace ends at event %" PRIu64,
                           o->from, p.trace.last_time);
    }
    if (rc == 0)
        rc = rerun(&p, err);
    for (size_t i = 0; i < p.n_files; i++) {
        if (p.files[i].fd >= 0)
            close(p.files[i].fd);
        free(p.files[i].path);
    }
    free(p.files);
    memory_maps_free(&p.code);
    rr_trace_free(&p.trace);
    return rc;
}
