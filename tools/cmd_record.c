/* trms record: runs a program under a recording engine and keeps what it
 * did as a recording directory. */
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "analyses/analysis_parts.h"
#include "common/oom.h"
#include "common/parse_number.h"
#include "common/plural.h"
#include "common/stop_signals.h"
#include "recorder/code_class_cache.h"
#include "recorder/raw_stream.h"
#include "recorder/rr_engine.h"
#include "recorder/step_recording.h"
#include "recorder/step_schedule.h"
#include "recorder/syscall_effects.h"
#include "recorder/valgrind_engine.h"
#include "symbols/data_objects.h"
#include "symbols/memory_maps.h"
#include "symbols/resolve_routines.h"
#include "symbols/routine_resolver.h"
#include "symbols/symbolizer.h"
#include "tools/cli.h"
#include "tools/process_tree.h"
#include "tools/valgrind_logs.h"
#include "tools/program_path.h"
#include "tools/progress.h"
#include "tools/record_analysis.h"
#include "tools/record_control.h"
#include "tools/record_progress.h"
#include "tools/record_windows.h"
#include "trace/recording.h"
#include "trace/staging.h"
#include "trace/trace_writer.h"


struct record {
    struct trace_writer *writer;
    struct routine_table routines;
    struct memory_maps maps;        /* every file mapping seen, for names */
    struct symbolizer *symbols;     /* the live ones, for PLTs and entries */
    struct code_class_cache classes;    /* their answers for recent targets */
    struct routine_resolver *resolver;  /* names routines meanwhile, or NULL */
    size_t routines_queued;         /* to the resolver */
    const char *tool_dir;           /* valgrind */
    const char *engine_version;     /* "valgrind-3.19.0", "rr version 5.6.0" */
    struct step_options step;       /* step */
    int chaos;                      /* rr: chaos mode */
    const char *capture_dir;        /* step: rr's view of the run, for tests */
    struct record_analysis *analysis;   /* analyzes the events as they are written, or NULL */
    struct record_windows windows;      /* valgrind: which parts of the run to keep */
    char window_said[512];
    int watch_objects;              /* step, PCT: count accesses to these variables */
    const char **watch;
    size_t n_watch;
    const char *binding;            /* "now" (LD_BIND_NOW) or "lazy" */
    int no_trace;                   /* --trace none: only the analysis is kept */
    int compression_level;          /* the trace's (--compression-level) */
    int out_of_space;               /* errno of the trace write that failed */
    uint64_t trace_bytes;           /* what the trace kept then */
    /* valgrind: the processes it starts and execs (issue 25) */
    unsigned max_processes;         /* images recorded at most, the first included */
    const char **exclude;           /* --exclude patterns */
    size_t n_exclude;
    const struct analysis_options *analysis_options;  /* each child's, or NULL */
    char tree_said[2048];           /* the processes, for the closing lines */
};

static int poll_window(void *ctx, struct trms_error *err)
{
    struct record *r = ctx;
    return record_windows_poll(&r->windows, err);
}

/* The event trace's writer; the analysis, when there is one, sees every
 * event it writes. */
static struct trace_writer *open_writer(struct record *r, const char *dir, const char *path,
                                        struct trms_error *err)
{
    struct trace_writer_options o = {.level = r->compression_level, .discard = r->no_trace};
    if (r->analysis) {
        /* What `trms causal` reads, written on the way (causal_input.h);
         * not with --trace none, which keeps no trace of any kind. */
        if (!r->no_trace)
            record_analysis_keep_causal_input(r->analysis, dir, &r->routines);
        /* For a test that compares the two paths' results. */
        if (getenv("TRMS_RECORD_NO_FUSED_FLOW"))
            record_analysis_no_fused_flow(r->analysis);
        o.tap = record_analysis_tap(r->analysis);
    }
    return trace_writer_create_with(path, &o, err);
}

/* A later process's recording in DIR (under STAGING's processes/), as
 * ROOT's options say: its tables, its analysis and its trace's writer,
 * whichever engine follows the tree. R's tables are set up even when it
 * fails (-1 with ERR), for the caller to free. */
static int child_record_open(struct record *r, const struct record *root, const char *staging,
                             const char *dir, struct trms_error *err)
{
    r->engine_version = root->engine_version;
    r->binding = root->binding;
    r->no_trace = root->no_trace;
    r->compression_level = root->compression_level;
    routine_table_init(&r->routines);
    memory_maps_init(&r->maps);
    r->symbols = symbolizer_new();
    char *top = recording_file(staging, PROCESS_TREE_DIR);
    int rc = (mkdir(top, 0755) == 0 || errno == EEXIST) && mkdir(dir, 0755) == 0
                 ? 0
                 : error_set(err, "cannot make %s: %s", dir, strerror(errno));
    free(top);
    if (rc == 0 && root->analysis_options &&
        !(r->analysis = record_analysis_start(root->analysis_options, err)))
        rc = -1;
    if (rc == 0) {
        char *events_path = recording_file(dir, RECORDING_EVENTS);
        r->writer = open_writer(r, dir, events_path, err);
        free(events_path);
        rc = r->writer ? 0 : -1;
    }
    return rc;
}

/* What the meta says of any engine's recording. */
struct record_stats {
    uint64_t events, threads, tail_calls, unwound;
    const struct u64map *unmodeled;     /* syscall number -> calls, or NULL */
    int complete;
    const char *exec_path;              /* the program exec'd this; NULL */
    const char *stopped;                /* why the recording ends early; NULL */
    const char *outcome_text;           /* how it ended, when not the outcome's */
    char **tree_keys, **tree_values;    /* the process tree (the first image's meta) */
    size_t n_tree;
    const char *extra_keys[24];         /* the engine's own */
    const char *extra_values[24];
    size_t n_extra;
};

/* Routines appear as calls are tracked, each after a classification. */
static void queue_new_routines(struct record *r)
{
    for (; r->routines_queued < r->routines.count; r->routines_queued++) {
        const struct routine *routine = &r->routines.items[r->routines_queued];
        if (!routine->name && routine->addr)
            routine_resolver_routine(r->resolver, routine->addr);
    }
}

static void classify(void *ctx, uint64_t addr, struct code_class *out)
{
    struct record *r = ctx;
    if (r->resolver && r->routines_queued < r->routines.count)
        queue_new_routines(r);
    if (code_class_cache_get(&r->classes, addr, out))
        return;
    struct symbol_info info;
    symbolizer_classify(r->symbols, addr, &info);  /* PLT stubs have no name */
    out->is_plt = info.is_plt;
    out->is_function_entry = info.name && info.entry == addr;
    out->is_recorder = info.module && valgrind_preload_path(info.module);
    code_class_cache_put(&r->classes, addr, out);
}

static int add_mapping(void *ctx, const struct raw_mapping *m, struct trms_error *err)
{
    struct record *r = ctx;
    /* All of them, Valgrind's preload library and trampoline page too:
     * the program's threads run code there. */
    struct map_entry e = {.start = m->start, .end = m->start + m->length, .offset = m->offset,
                          .prot = m->prot, .path = (char *)m->path};
    if (memory_maps_add(&r->maps, &e) != 0)
        return error_set(err, "cannot keep the mapping of %s", m->path);
    code_class_cache_forget(&r->classes);
    /* Code only; a file without symbols just leaves its routines unnamed. */
    if (e.prot & MAPS_PROT_X)
        symbolizer_add_map(r->symbols, &e);
    if (r->resolver)
        routine_resolver_map(r->resolver, &e);
    return 0;
}

static void remove_mapping(void *ctx, uint64_t start, uint64_t length)
{
    struct record *r = ctx;
    /* The maps file keeps it: its routines still need names. */
    symbolizer_remove_range(r->symbols, start, start + length);
    code_class_cache_forget(&r->classes);
}

/* PROG.rec, or PROG.2.rec and so on when taken. */
static char *default_output(const char *program)
{
    const char *base = strrchr(program, '/') ? strrchr(program, '/') + 1 : program;
    size_t size = strlen(base) + 32;
    char *out = xmalloc(size);
    for (unsigned n = 1;; n++) {
        if (n == 1)
            snprintf(out, size, "%s.rec", base);
        else
            snprintf(out, size, "%s.%u.rec", base, n);
        if (access(out, F_OK) != 0)
            return out;
    }
}

/* The command line as a shell would need it typed. */
static char *quoted_command(char *const *argv)
{
    size_t size = 1;
    for (char *const *a = argv; *a; a++)
        size += 4 * strlen(*a) + 3;
    char *out = xmalloc(size), *p = out;
    for (char *const *a = argv; *a; a++) {
        if (a != argv)
            *p++ = ' ';
        int plain = **a && strspn(*a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                       "0123456789-_./=:,+@%") == strlen(*a);
        if (plain) {
            p = stpcpy(p, *a);
            continue;
        }
        *p++ = '\'';
        for (const char *c = *a; *c; c++)
            p = *c == '\'' ? stpcpy(p, "'\\''") : (*p = *c, p + 1);
        *p++ = '\'';
    }
    *p = '\0';
    return out;
}

static void describe_outcome(const struct program_outcome *o, char *buf, size_t size)
{
    if (o->signal)
        snprintf(buf, size, "killed by signal %d (%s)", o->signal, strsignal(o->signal));
    else
        snprintf(buf, size, "exited with status %d", o->exit_code);
}

/* "16 (ioctl) x2, 999 x1" for the meta and the warning. */
struct unmodeled_list {
    char *text;
    size_t used, size;
    uint64_t total;
};

static int describe_one(void *ctx, uint64_t nr, uint64_t calls)
{
    struct unmodeled_list *l = ctx;
    const char *name = syscall_name(nr);
    l->used += (size_t)snprintf(l->text + l->used, l->size - l->used,
                                "%s%" PRIu64 "%s%s%s x%" PRIu64, l->used ? ", " : "", nr,
                                name ? " (" : "", name ? name : "", name ? ")" : "", calls);
    l->total += calls;
    return 0;
}

static char *describe_unmodeled(const struct u64map *unmodeled, uint64_t *total)
{
    struct unmodeled_list l = {.size = 1 + (unmodeled ? unmodeled->count : 0) * 64};
    l.text = xmalloc(l.size);
    l.text[0] = '\0';
    if (unmodeled)
        u64map_each(unmodeled, describe_one, &l);
    *total = l.total;
    return l.text;
}

/* "4711,4712": the channels (pipe, FIFO, socket inodes) a process wrote
 * to, for the meta's channels-written; "-" for none. */
static int describe_channel(void *ctx, uint64_t inode, uint64_t unused)
{
    (void)unused;
    struct unmodeled_list *l = ctx;
    if (l->used + 24 < l->size)
        l->used += (size_t)snprintf(l->text + l->used, l->size - l->used, "%s%" PRIu64,
                                    l->used ? "," : "", inode);
    return 0;
}

static char *describe_channels(const struct u64map *channels)
{
    struct unmodeled_list l = {.size = 2 + channels->count * 24};
    l.text = xmalloc(l.size);
    l.text[0] = '\0';
    u64map_each(channels, describe_channel, &l);
    if (!l.used)
        snprintf(l.text, l.size, "-");
    return l.text;
}

static int write_meta(const char *staging, const char *engine, const char *program,
                      char *const *argv, const struct record *r, const struct record_stats *s,
                      const struct program_outcome *o, size_t routines, struct trms_error *err)
{
    char created[32], events[32], threads[32], how[96], tails[32], unwound[32],
        routine_count[32], unmodeled_total[32];
    time_t now = time(NULL);
    struct tm tm;
    strftime(created, sizeof created, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
    uint64_t unmodeled;
    snprintf(events, sizeof events, "%" PRIu64, s->events);
    snprintf(threads, sizeof threads, "%" PRIu64, s->threads);
    snprintf(routine_count, sizeof routine_count, "%zu", routines);
    snprintf(tails, sizeof tails, "%" PRIu64, s->tail_calls);
    snprintf(unwound, sizeof unwound, "%" PRIu64, s->unwound);
    describe_outcome(o, how, sizeof how);
    if (s->outcome_text)
        snprintf(how, sizeof how, "%s", s->outcome_text);
    char *command = quoted_command(argv);
    char *unmodeled_list = describe_unmodeled(s->unmodeled, &unmodeled);
    snprintf(unmodeled_total, sizeof unmodeled_total, "%" PRIu64, unmodeled);
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd))
        strcpy(cwd, "?");
    size_t room = 20 + sizeof s->extra_keys / sizeof *s->extra_keys + s->n_tree;
    const char **keys = xcalloc(room, sizeof *keys), **values = xcalloc(room, sizeof *values);
    const char *base_keys[] = {"engine", "engine-version", "program", "command", "cwd", "created",
                            "trms-version", "outcome", "complete", "events", "threads",
                            "routines", "tail-calls", "unwound-frames", "unmodeled-syscalls",
                            "unmodeled-syscall-list", "exec", "binding"};
    const char *base_values[] = {engine, r->engine_version, program, command, cwd,
                              created, TRMS_VERSION, how, s->complete ? "yes" : "no", events,
                              threads, routine_count, tails, unwound, unmodeled_total,
                              unmodeled_list[0] ? unmodeled_list : "-",
                              s->exec_path ? s->exec_path : "-",
                              r->binding};
    size_t n = 18;
    memcpy(keys, base_keys, sizeof base_keys);
    memcpy(values, base_values, sizeof base_values);
    if (r->no_trace) { /* added by `--trace none`: no events.trms */
        keys[n] = RECORDING_META_TRACE;
        values[n++] = RECORDING_TRACE_NONE;
    }
    /* A recording cut short says why, and is not complete. */
    char stopped[128];
    if (!s->stopped && stop_signals_stopped_target())
        snprintf(stopped, sizeof stopped, "%s to trms: the program was stopped",
                 stop_signals_name(stop_signals_requested()));
    else
        snprintf(stopped, sizeof stopped, "%s", s->stopped ? s->stopped : "");
    if (stopped[0]) {
        values[8] = "no";
        keys[n] = "stopped";
        values[n++] = stopped;
    }
    for (size_t i = 0; i < s->n_extra; i++, n++) {
        keys[n] = s->extra_keys[i];
        values[n] = s->extra_values[i];
    }
    for (size_t i = 0; i < s->n_tree; i++, n++) {
        keys[n] = s->tree_keys[i];
        values[n] = s->tree_values[i];
    }
    int rc = recording_write_meta(staging, keys, values, n, err);
    free(keys);
    free(values);
    free(command);
    free(unmodeled_list);
    return rc;
}

/* The recording's maps file and meta, and its routines' names (with
 * LIVE, the symbolizer that followed the program; NULL when the engine
 * named them itself). */
static int finish_recording(const char *staging, const char *engine, const char *program,
                            char *const *argv, struct record *r, const struct record_stats *stats,
                            const struct program_outcome *outcome, struct symbolizer *live,
                            struct trms_error *err)
{
    memory_maps_fill_build_ids(&r->maps);
    char *maps_path = recording_file(staging, MAPS_FILE);
    int rc = memory_maps_write(&r->maps, maps_path, err);
    free(maps_path);
    if (rc == 0)
        rc = write_meta(staging, engine, program, argv, r, stats, outcome,
                        r->routines.count, err);
    if (rc == 0 && live &&
        symbols_resolve_routines_with(live, staging, &r->maps, &r->routines, err) != 0) {
        /* Names are a convenience: the recording stands without them. */
        fprintf(stderr, "trms: warning: routine names not resolved: %s\n", err->message);
    }
    return rc;
}

static uint64_t total_events(const uint64_t events[EVENT_TYPE_COUNT])
{
    uint64_t total = 0;
    for (int t = 0; t < EVENT_TYPE_COUNT; t++)
        total += events[t];
    return total;
}

/* The first line Valgrind logged, for when it could not even start. */
static void first_log_line(const char *log_path, char *buf, size_t size)
{
    buf[0] = '\0';
    FILE *f = fopen(log_path, "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        char *text = line + strspn(line, "=0123456789 ");
        text[strcspn(text, "\n")] = '\0';
        if (*text) {
            snprintf(buf, size, "%s", text);
            break;
        }
    }
    fclose(f);
}

/* The disk filled (or failed) while the trace was written: the engine has
 * stopped the program; the trace's whole blocks are kept, closed with an
 * end block, as an incomplete recording. 0 when kept; *EVENTS then the
 * events it holds. */
static int keep_whole_blocks(struct record *r, const char *staging, uint64_t *events,
                             struct trms_error *err)
{
    r->out_of_space = trace_writer_failed(r->writer);
    int rc = trace_writer_salvage(r->writer, events, err);
    r->writer = NULL;
    char *events_path = recording_file(staging, RECORDING_EVENTS);
    r->trace_bytes = staging_disk_usage(events_path);
    free(events_path);
    return rc;
}

/* The engine has stopped with RC: the trace is closed whole, or, when a
 * write failed (a write at the very end shows only once the writer has
 * drained), ends after its whole blocks (*KEPT their events); else left to
 * the caller. */
static int end_trace(struct record *r, const char *staging, int rc, uint64_t *kept,
                     struct trms_error *err)
{
    if (rc == 0 && trace_writer_drain(r->writer, err) != 0)
        rc = -1;
    if (rc != 0 && r->writer && trace_writer_failed(r->writer))
        return keep_whole_blocks(r, staging, kept, err);
    if (rc == 0) {
        rc = trace_writer_close(r->writer, &r->routines, err);
        r->writer = NULL;
    }
    return rc;
}

static const char *out_of_space_reason(int errnum)
{
    return errnum == ENOSPC ? "no space left on device while writing the event trace"
           : errnum == EDQUOT ? "disk quota exceeded while writing the event trace"
                              : "the event trace could not be written";
}

/* ---- the processes after the first (valgrind, issue 25) ---- */

/* One process image's recording, in REC/processes/N-PID. */
struct child_recording {
    struct record r;
    struct raw_decoder *decoder;
    struct raw_summary summary;
    struct raw_decoder_callbacks cb;
    struct raw_segment_sink sink;
    char *dir;
    char **argv;
    size_t index;                   /* in the tree's items */
};

/* The tree as it is recorded; the engine calls begin one at a time, but
 * ends overlap each other and begins. */
struct tree_recording {
    pthread_mutex_t lock;
    const char *staging;
    const struct record *root;
    struct valgrind_children *engine;
    struct process_tree tree;       /* items[0] is the first image, filled last */
    char **exec_paths;              /* per item: the exec it ended with, or NULL */
    int *skipped_pids;              /* images over --max-processes */
    size_t n_skipped;
};

static int decode_child_segment(void *ctx, const uint64_t *words, size_t n,
                                struct trms_error *err)
{
    struct child_recording *c = ctx;
    size_t used;
    if (raw_decoder_feed(c->decoder, words, n, &used, err) != 0)
        return -1;
    if (used != n)
        return error_set(err, "raw stream: a record crosses a ring segment");
    return 0;
}

/* A process whose recording could not be made: its stream is read and
 * dropped, so that it runs on. */
static int drop_child_segment(void *ctx, const uint64_t *words, size_t n, struct trms_error *err)
{
    (void)ctx, (void)words, (void)n, (void)err;
    return 0;
}

/* The image PID last started, or 0. */
static unsigned latest_image(const struct tree_recording *t, int pid)
{
    for (size_t i = t->tree.n; i-- > 0;)
        if (t->tree.items[i].pid == pid && t->tree.items[i].number)
            return t->tree.items[i].number;
    return pid == t->engine->root_pid ? 1 : 0;
}

static const struct raw_segment_sink *child_begin(void *ctx, const struct valgrind_process *p,
                                                  unsigned number)
{
    struct tree_recording *t = ctx;
    struct trms_error err = {.message = ""};
    pthread_mutex_lock(&t->lock);
    size_t index = t->tree.n++;
    t->tree.items = xrealloc(t->tree.items, t->tree.n * sizeof *t->tree.items);
    t->exec_paths = xrealloc(t->exec_paths, t->tree.n * sizeof *t->exec_paths);
    t->exec_paths[index] = NULL;
    char dir[64];
    snprintf(dir, sizeof dir, PROCESS_TREE_DIR "/%u-%d", number, p->pid);
    struct tree_process *item = &t->tree.items[index];
    *item = (struct tree_process){.number = number, .pid = p->pid, .ppid = p->ppid,
                                  .parent = latest_image(t, p->forked ? p->ppid : p->pid),
                                  .dir = xstrdup(dir), .end = xstrdup("failed"),
                                  .command = quoted_command(p->argv)};
    snprintf(item->via, sizeof item->via, "%s", p->forked ? "fork" : "exec");
    pthread_mutex_unlock(&t->lock);

    struct child_recording *c = xcalloc(1, sizeof *c);
    c->index = index;
    c->dir = recording_file(t->staging, dir);
    size_t argc = 0;
    while (p->argv[argc])
        argc++;
    c->argv = xcalloc(argc + 1, sizeof *c->argv);
    for (size_t i = 0; i < argc; i++)
        c->argv[i] = xstrdup(p->argv[i]);
    int rc = child_record_open(&c->r, t->root, t->staging, c->dir, &err);
    if (rc != 0) {
        fprintf(stderr, "trms: warning: process %d (%s) is not recorded: %s\n", p->pid,
                p->argv[0], err.message);
        c->sink = (struct raw_segment_sink){.segment = drop_child_segment, .ctx = c};
        return &c->sink;
    }
    c->cb = (struct raw_decoder_callbacks){.classify = classify, .map = add_mapping,
                                           .unmap = remove_mapping, .ctx = &c->r};
    c->decoder = raw_decoder_new(c->r.writer, &c->r.routines, &c->cb, &c->summary);
    if (t->root->windows.given) {
        /* The tree's windows, on this process's routines; `trms control`
         * left collection as P says when its ring was made. */
        c->r.windows = (struct record_windows){.options = t->root->windows.options, .given = 1};
        c->r.windows.options.off_at_start = !p->collecting;
        raw_decoder_set_window(c->decoder, record_windows_open(&c->r.windows, c->r.writer,
                                                               &c->r.routines, c->r.symbols));
        c->cb.poll = poll_window;
    }
    c->sink = (struct raw_segment_sink){.segment = decode_child_segment, .ctx = c};
    return &c->sink;
}

static int end_trace(struct record *r, const char *staging, int rc, uint64_t *kept,
                     struct trms_error *err);
static const char *out_of_space_reason(int errnum);

static void child_end(void *ctx, const struct raw_segment_sink *sink, int rc,
                      const struct trms_error *stream_err)
{
    struct tree_recording *t = ctx;
    struct child_recording *c = sink->ctx;
    struct trms_error err = {.message = ""};
    if (stream_err && rc != 0)
        err = *stream_err;
    char end[48] = "failed", said[512] = "";
    uint64_t events = 0;
    if (c->decoder) {
        if (raw_decoder_finish(c->decoder, rc == 0 ? &err : &(struct trms_error){0}) != 0)
            rc = -1;
        uint64_t kept = 0;
        rc = end_trace(&c->r, c->dir, rc, &kept, &err);
        struct raw_summary *sum = &c->summary;
        events = c->r.out_of_space ? kept : total_events(sum->events);
        char outcome_text[PATH_MAX + 32], pid[16], ppid[16], parent[16];
        int killed = sum->ended && (sum->exit_code & RAW_END_KILLED);
        if (sum->ended && !killed)
            snprintf(end, sizeof end, "exit:%" PRIu64, sum->exit_code);
        else
            snprintf(end, sizeof end, "%s", sum->exec_path ? "exec" : "died");
        if (killed)
            snprintf(outcome_text, sizeof outcome_text, "killed by a signal");
        else if (sum->ended)
            snprintf(outcome_text, sizeof outcome_text, "exited with status %" PRIu64,
                     sum->exit_code);
        else if (sum->exec_path)
            snprintf(outcome_text, sizeof outcome_text, "exec'd %s", sum->exec_path);
        else
            snprintf(outcome_text, sizeof outcome_text, "ended without exiting (killed)");
        char window_said[512];
        struct record_stats window = {0};
        if (c->r.windows.window) {
            uint64_t written;
            window.n_extra = record_windows_meta(&c->r.windows, window.extra_keys,
                                                 window.extra_values, &written, window_said,
                                                 sizeof window_said);
            if (!c->r.out_of_space)
                events = written;
        }
        pthread_mutex_lock(&t->lock);
        const struct tree_process *item = &t->tree.items[c->index];
        snprintf(pid, sizeof pid, "%d", item->pid);
        snprintf(ppid, sizeof ppid, "%d", item->ppid);
        snprintf(parent, sizeof parent, "%u", item->parent);
        const char *via = item->via;
        char *channels = describe_channels(&sum->channels_written);
        struct record_stats stats = {
            .events = events, .threads = sum->threads, .tail_calls = sum->tail_calls,
            .unwound = sum->unwound_frames, .unmodeled = &sum->unmodeled_syscalls,
            .complete = (sum->ended || sum->exec_path) && !c->r.out_of_space,
            .exec_path = sum->exec_path, .outcome_text = outcome_text,
            .stopped = c->r.out_of_space ? out_of_space_reason(c->r.out_of_space) : NULL,
            .extra_keys = {"pid", "ppid", "parent-process", "via", "channels-written"},
            .extra_values = {pid, ppid, parent, via, channels}, .n_extra = 5};
        for (size_t i = 0; i < window.n_extra; i++, stats.n_extra++) {
            stats.extra_keys[stats.n_extra] = window.extra_keys[i];
            stats.extra_values[stats.n_extra] = window.extra_values[i];
        }
        pthread_mutex_unlock(&t->lock);
        struct program_outcome outcome = {.exit_code = (int)(sum->exit_code & 0xff)};
        if (rc == 0)
            rc = finish_recording(c->dir, "valgrind", c->argv[0], c->argv, &c->r, &stats,
                                  &outcome, c->r.symbols, &err);
        free(channels);
        if (c->r.analysis && rc == 0 && !c->r.out_of_space) {
            struct trms_error store_err = {.message = ""};
            if (record_analysis_finish(c->r.analysis, &c->r.routines, c->dir, c->dir, said,
                                       sizeof said, &store_err) != 0 && store_err.message[0])
                fprintf(stderr, "trms: warning: the analysis of %s is not stored: %s\n",
                        c->dir, store_err.message);
        } else if (c->r.analysis) {
            record_analysis_abandon(c->r.analysis);
        }
        if (rc != 0) {
            if (c->r.writer)
                trace_writer_abandon(c->r.writer);
            snprintf(end, sizeof end, "failed");
            fprintf(stderr, "trms: warning: the recording of process %s (%s) failed: %s\n",
                    pid, c->argv[0], err.message);
        }
        pthread_mutex_lock(&t->lock);
        t->exec_paths[c->index] = sum->exec_path && rc == 0 ? xstrdup(sum->exec_path) : NULL;
        pthread_mutex_unlock(&t->lock);
        raw_summary_free(sum);
    } else if (c->r.analysis) {
        record_analysis_abandon(c->r.analysis);
    }
    pthread_mutex_lock(&t->lock);
    struct tree_process *item = &t->tree.items[c->index];
    free(item->end);
    item->end = xstrdup(end);
    item->events = events;
    pthread_mutex_unlock(&t->lock);
    record_windows_close(&c->r.windows);
    symbolizer_free(c->r.symbols);
    memory_maps_free(&c->r.maps);
    routine_table_free(&c->r.routines);
    for (char **a = c->argv; *a; a++)
        free(*a);
    free(c->argv);
    free(c->dir);
    free(c);
}

static void child_skipped(void *ctx, const struct valgrind_process *p)
{
    struct tree_recording *t = ctx;  /* the engine holds its lock: ours is not needed */
    t->skipped_pids = xrealloc(t->skipped_pids, (t->n_skipped + 1) * sizeof *t->skipped_pids);
    t->skipped_pids[t->n_skipped++] = p->pid;
}

/* Why a program an image exec'd has no image of its own. */
static const char *not_followed_reason(const struct record *r, const char *path)
{
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    for (size_t i = 0; i < r->n_exclude; i++)
        if (fnmatch(r->exclude[i], path, 0) == 0 || fnmatch(r->exclude[i], base, 0) == 0)
            return "excluded";
    struct stat st;
    if (stat(path, &st) == 0 && (st.st_mode & (S_ISUID | S_ISGID)))
        return "setuid";
    return "not-followed";
}

static int skipped_pid(const struct tree_recording *t, int pid)
{
    for (size_t i = 0; i < t->n_skipped; i++)
        if (t->skipped_pids[i] == pid)
            return 1;
    return 0;
}

static int by_number(const void *a, const void *b)
{
    const struct tree_process *x = a, *y = b;
    return (x->number > y->number) - (x->number < y->number);
}

/* Once every process ended: the first image's entry, the images ordered,
 * and the programs exec'd that Valgrind did not follow. */
static void tree_complete(struct tree_recording *t, const char *const *argv,
                          uint64_t events, const char *end, const char *exec_path)
{
    t->tree.items = xrealloc(t->tree.items, (t->tree.n + 1) * sizeof *t->tree.items);
    t->exec_paths = xrealloc(t->exec_paths, (t->tree.n + 1) * sizeof *t->exec_paths);
    t->tree.items[t->tree.n] = (struct tree_process){
        .number = 1, .pid = t->engine->root_pid, .ppid = t->engine->root_ppid, .via = "start",
        .dir = xstrdup("."), .events = events, .end = xstrdup(end),
        .command = quoted_command((char *const *)argv)};
    t->exec_paths[t->tree.n] = exec_path ? xstrdup(exec_path) : NULL;
    t->tree.n++;
    /* Numbers run from 1 without gaps: both arrays are put in their order. */
    size_t n = t->tree.n;
    char **paths = xcalloc(n, sizeof *paths);
    for (size_t i = 0; i < n; i++)
        paths[t->tree.items[i].number - 1] = t->exec_paths[i];
    qsort(t->tree.items, n, sizeof *t->tree.items, by_number);
    free(t->exec_paths);
    t->exec_paths = paths;
    for (size_t i = 0; i < n; i++) {
        const struct tree_process *p = &t->tree.items[i];
        if (!t->exec_paths[i] || strcmp(p->end, "exec") != 0)
            continue;
        int followed = 0;
        for (size_t j = i + 1; j < n && !followed; j++)
            followed = t->tree.items[j].pid == p->pid && strcmp(t->tree.items[j].via, "exec") == 0;
        if (followed || skipped_pid(t, p->pid))
            continue;
        t->tree.left_out = xrealloc(t->tree.left_out,
                                    (t->tree.n_left_out + 1) * sizeof *t->tree.left_out);
        t->tree.left_out[t->tree.n_left_out++] = (struct tree_left_out){
            .reason = xstrdup(not_followed_reason(t->root, t->exec_paths[i])), .pid = p->pid,
            .command = xstrdup(t->exec_paths[i])};
    }
    t->tree.over_limit = t->engine->over_limit;
}

static void tree_recording_free(struct tree_recording *t)
{
    for (size_t i = 0; i < t->tree.n; i++)
        free(t->exec_paths[i]);
    free(t->exec_paths);
    free(t->skipped_pids);
    process_tree_free(&t->tree);
    pthread_mutex_destroy(&t->lock);
}

/* "5 processes (2 left out: ...)" for the closing line; empty for one. */
static void describe_tree(const struct process_tree *t, char *buf, size_t size)
{
    buf[0] = '\0';
    if (t->n <= 1 && t->n_left_out == 0 && t->over_limit == 0)
        return;
    size_t used = (size_t)snprintf(buf, size, "trms: %zu process%s recorded", t->n,
                                   t->n == 1 ? "" : "es");
    for (size_t i = 0; i < t->n_left_out && used < size; i++)
        used += (size_t)snprintf(buf + used, size - used, "%s%s (pid %d, %s)",
                                 i ? ", " : "; not recorded: ", t->left_out[i].command,
                                 t->left_out[i].pid, t->left_out[i].reason);
    if (t->over_limit && used < size)
        used += (size_t)snprintf(buf + used, size - used, "; %" PRIu64 " more ran unrecorded "
                                 "beyond --max-processes", t->over_limit);
    if (used < size)
        snprintf(buf + used, size - used, " (`trms info` shows the tree)\n");
}

static int record_valgrind(const char *staging, const char *program, char **argv,
                           struct record *r, struct record_stats *stats,
                           struct program_outcome *outcome, struct trms_error *err)
{
    char *events_path = recording_file(staging, RECORDING_EVENTS);
    char *log_pattern = valgrind_logs_pattern(staging);
    char *log_path = recording_file(staging, VALGRIND_LOG);
    struct raw_summary summary = {0};
    struct valgrind_children children = {0};
    struct tree_recording tree = {.lock = PTHREAD_MUTEX_INITIALIZER, .root = r,
                                  .engine = &children};
    r->writer = open_writer(r, staging, events_path, err);
    free(events_path);
    int rc = r->writer ? 0 : -1;
    if (rc == 0) {
        char *run_argv0 = argv[0];
        argv[0] = (char *)program;
        struct valgrind_run run = {.tool_dir = r->tool_dir, .log_path = log_pattern, .argv = argv,
                                   .window = record_windows_open(&r->windows, r->writer,
                                                                 &r->routines, r->symbols),
                                   .requests = record_windows_requests(&r->windows)};
        struct raw_decoder_callbacks cb = {.classify = classify,
                                           .map = add_mapping, .unmap = remove_mapping,
                                           .poll = poll_window, .ctx = r};
        /* The joined --exclude patterns, as Valgrind takes them. */
        size_t exclude_size = 1;
        for (size_t i = 0; i < r->n_exclude; i++)
            exclude_size += strlen(r->exclude[i]) + 1;
        char *exclude = xcalloc(1, exclude_size);
        for (size_t i = 0; i < r->n_exclude; i++)
            strcat(strcat(exclude, i ? "," : ""), r->exclude[i]);
        children = (struct valgrind_children){.begin = child_begin, .skipped = child_skipped,
                                              .end = child_end, .ctx = &tree,
                                              .max_processes = r->max_processes,
                                              .collecting = !r->windows.options.off_at_start,
                                              .exclude = r->n_exclude ? exclude : NULL};
        tree = (struct tree_recording){.lock = PTHREAD_MUTEX_INITIALIZER, .staging = staging,
                                       .root = r, .engine = &children};
        run.children = &children;
        rc = valgrind_record(&run, r->writer, &r->routines, &cb, &summary, outcome, err);
        free(exclude);
        argv[0] = run_argv0;
        /* The program has ended: the reserve makes room for the end. */
        staging_release_reserve(staging);
        valgrind_logs_distribute(staging, &tree.tree, children.root_pid);
        if (rc != 0 && summary.words == 0) {
            char line[400];
            first_log_line(log_path, line, sizeof line);
            if (line[0])
                error_set(err, "valgrind could not run the program: %s", line);
        }
    }
    valgrind_logs_distribute(staging, &tree.tree, children.root_pid);  /* (once) */
    free(log_path);
    free(log_pattern);
    uint64_t kept = 0;
    rc = end_trace(r, staging, rc, &kept, err);
    *stats = (struct record_stats){.events = r->out_of_space ? kept : total_events(summary.events),
                                   .threads = summary.threads,
                                   .tail_calls = summary.tail_calls,
                                   .unwound = summary.unwound_frames,
                                   .unmodeled = &summary.unmodeled_syscalls,
                                   .complete = summary.ended, .exec_path = summary.exec_path,
                                   .stopped = r->out_of_space
                                                  ? out_of_space_reason(r->out_of_space)
                                                  : NULL};
    if (r->windows.window) { /* what it kept, and what it left out */
        uint64_t written;
        stats->n_extra = record_windows_meta(&r->windows, stats->extra_keys, stats->extra_values,
                                             &written, r->window_said, sizeof r->window_said);
        if (!r->out_of_space)  /* else the trace's whole blocks hold fewer */
            stats->events = written;
    }
    /* The tree, every process having ended. */
    char root_end[48];
    if (summary.exec_path && !summary.ended)
        snprintf(root_end, sizeof root_end, "exec");
    else if (outcome->signal)  /* the first image is the one Valgrind's wait saw */
        snprintf(root_end, sizeof root_end, "signal:%d", outcome->signal);
    else if (summary.ended && !(summary.exit_code & RAW_END_KILLED))
        snprintf(root_end, sizeof root_end, "exit:%" PRIu64, summary.exit_code);
    else
        snprintf(root_end, sizeof root_end, "died");
    tree_complete(&tree, (const char *const *)argv, stats->events, root_end, summary.exec_path);
    stats->n_tree = process_tree_meta(&tree.tree, &stats->tree_keys, &stats->tree_values);
    /* For `trms causal`: the cores it simulates, the sync records kept. */
    char cores[24], sync_records[24];
    snprintf(cores, sizeof cores, "%ld", sysconf(_SC_NPROCESSORS_ONLN));
    snprintf(sync_records, sizeof sync_records, "%" PRIu64,
             summary.sync_records - summary.sync_left_out);
    stats->extra_keys[stats->n_extra] = "cores";
    stats->extra_values[stats->n_extra++] = cores;
    stats->extra_keys[stats->n_extra] = "sync-records";
    stats->extra_values[stats->n_extra++] = sync_records;
    char *channels = describe_channels(&summary.channels_written);
    stats->extra_keys[stats->n_extra] = "channels-written";
    stats->extra_values[stats->n_extra++] = channels;
    /* Named by the resolver's symbolizer when there is one: it followed
     * every mapping and looked most routines up already. */
    struct symbolizer *warm = r->resolver ? routine_resolver_finish(r->resolver) : NULL;
    r->resolver = NULL;
    if (rc == 0)
        rc = finish_recording(staging, "valgrind", program, argv, r, stats, outcome,
                              warm ? warm : r->symbols, err);
    free(channels);
    process_tree_free_meta(stats->tree_keys, stats->tree_values, stats->n_tree);
    stats->tree_keys = stats->tree_values = NULL;
    stats->n_tree = 0;
    describe_tree(&tree.tree, r->tree_said, sizeof r->tree_said);
    tree_recording_free(&tree);
    symbolizer_free(warm);
    if (rc == 0) {
        uint64_t unmodeled;
        free(describe_unmodeled(&summary.unmodeled_syscalls, &unmodeled));
        if (unmodeled)
            fprintf(stderr, "trms: %" PRIu64 " system calls outside the syscall table; their "
                            "memory effects came from Valgrind (see `unmodeled-syscall-list` "
                            "in the recording's meta)\n", unmodeled);
    }
    stats->unmodeled = NULL;
    stats->exec_path = NULL;
    stats->n_extra = 0;
    stats->complete = (summary.ended || summary.exec_path) && !r->out_of_space;
    raw_summary_free(&summary);
    record_windows_close(&r->windows);
    return rc;
}

struct address_list {
    char text[512];
    size_t used;
};

static int describe_address(void *ctx, uint64_t addr, uint64_t count)
{
    struct address_list *l = ctx;
    if (l->used + 48 >= sizeof l->text)
        return 1;  /* enough to look at: the count says how many */
    l->used += (size_t)snprintf(l->text + l->used, sizeof l->text - l->used,
                                "%s0x%" PRIx64 " x%" PRIu64, l->used ? ", " : "", addr, count);
    return 0;
}

/* ---- the step engine's processes after the first (issue 25) ----
 *
 * The step engine runs every process in one schedule, so these come one
 * at a time, on trms's own thread: each image's recording is made when it
 * starts and finished when its process exec's or ends. */

struct step_child {
    struct record r;
    struct step_image_recording rec;
    char *dir;
    size_t index;                   /* in the tree's items */
};

struct step_tree {
    const char *staging;
    const struct record *root;
    struct process_tree tree;       /* items[0], the first image, filled last */
    struct step_child **children;   /* per item after the first */
};

static const struct step_image_recording *step_child_begin(void *ctx,
                                                           const struct step_image_info *p)
{
    struct step_tree *t = ctx;
    struct trms_error err = {.message = ""};
    if (t->tree.n == 0)
        t->tree.n = 1;  /* the first image's place */
    size_t index = t->tree.n++;
    t->tree.items = xrealloc(t->tree.items, t->tree.n * sizeof *t->tree.items);
    t->children = xrealloc(t->children, t->tree.n * sizeof *t->children);
    char dir[64];
    snprintf(dir, sizeof dir, PROCESS_TREE_DIR "/%u-%d", p->number, (int)p->pid);
    struct tree_process *item = &t->tree.items[index];
    *item = (struct tree_process){.number = p->number, .parent = p->parent, .pid = p->pid,
                                  .ppid = p->ppid, .dir = xstrdup(dir), .end = xstrdup("failed"),
                                  .command = quoted_command(p->argv)};
    snprintf(item->via, sizeof item->via, "%s", p->via);
    struct step_child *c = xcalloc(1, sizeof *c);
    t->children[index] = c;
    c->index = index;
    c->dir = recording_file(t->staging, dir);
    c->r.step = t->root->step;
    int rc = child_record_open(&c->r, t->root, t->staging, c->dir, &err);
    if (rc != 0) {
        fprintf(stderr, "trms: warning: process %d (%s) is not recorded: %s\n", (int)p->pid,
                p->argv[0], err.message);
        if (c->r.analysis)
            record_analysis_abandon(c->r.analysis);
        symbolizer_free(c->r.symbols);
        memory_maps_free(&c->r.maps);
        routine_table_free(&c->r.routines);
        free(c->dir);
        free(c);
        t->children[index] = NULL;
        return NULL;
    }
    c->rec = (struct step_image_recording){.writer = c->r.writer, .routines = &c->r.routines,
                                           .maps = &c->r.maps, .symbols = c->r.symbols,
                                           .rec_path = c->dir};
    return &c->rec;
}

static void step_child_end(void *ctx, const struct step_image_info *p,
                           const struct step_image_recording *rec, const struct step_image_end *e)
{
    struct step_tree *t = ctx;
    struct step_child *c = (struct step_child *)((char *)rec - offsetof(struct step_child, rec));
    struct trms_error err = {.message = ""};
    uint64_t kept = 0;
    int rc = end_trace(&c->r, c->dir, 0, &kept, &err);
    const struct rerun_summary *d = &e->decoded;
    uint64_t events = c->r.out_of_space ? kept : total_events(d->events);
    char outcome_text[PATH_MAX + 32], pid[16], ppid[16], parent[16], said[512] = "";
    if (e->signal)
        snprintf(outcome_text, sizeof outcome_text, "killed by signal %d (%s)", e->signal,
                 strsignal(e->signal));
    else if (strncmp(e->end, "exit:", 5) == 0)
        snprintf(outcome_text, sizeof outcome_text, "exited with status %d", e->exit_code);
    else if (e->exec_path)
        snprintf(outcome_text, sizeof outcome_text, "exec'd %s", e->exec_path);
    else
        snprintf(outcome_text, sizeof outcome_text, "ended without exiting (killed)");
    snprintf(pid, sizeof pid, "%d", (int)p->pid);
    snprintf(ppid, sizeof ppid, "%d", (int)p->ppid);
    snprintf(parent, sizeof parent, "%u", p->parent);
    char records[32];
    snprintf(records, sizeof records, "%" PRIu64, d->records);
    struct record_stats stats = {
        .events = events, .threads = d->threads, .tail_calls = d->tail_calls,
        .unwound = d->unwound_frames, .unmodeled = &d->unmodeled_syscalls,
        .complete = strcmp(e->end, "died") != 0 && !c->r.out_of_space,
        .exec_path = e->exec_path, .outcome_text = outcome_text,
        .stopped = c->r.out_of_space ? out_of_space_reason(c->r.out_of_space) : NULL,
        .extra_keys = {"pid", "ppid", "parent-process", "via", "records"},
        .extra_values = {pid, ppid, parent, p->via, records}, .n_extra = 5};
    struct program_outcome outcome = {.exit_code = e->exit_code, .signal = e->signal};
    if (rc == 0)
        rc = finish_recording(c->dir, "step", p->argv[0], p->argv, &c->r, &stats, &outcome, NULL,
                              &err);
    if (c->r.analysis && rc == 0 && !c->r.out_of_space) {
        struct trms_error store_err = {.message = ""};
        if (record_analysis_finish(c->r.analysis, &c->r.routines, c->dir, c->dir, said,
                                   sizeof said, &store_err) != 0 && store_err.message[0])
            fprintf(stderr, "trms: warning: the analysis of %s is not stored: %s\n", c->dir,
                    store_err.message);
    } else if (c->r.analysis) {
        record_analysis_abandon(c->r.analysis);
    }
    if (rc != 0) {
        if (c->r.writer)
            trace_writer_abandon(c->r.writer);
        fprintf(stderr, "trms: warning: the recording of process %d (%s) failed: %s\n",
                (int)p->pid, p->argv[0], err.message);
    }
    struct tree_process *item = &t->tree.items[c->index];
    free(item->end);
    item->end = xstrdup(rc == 0 ? e->end : "failed");
    item->events = events;
    symbolizer_free(c->r.symbols);
    memory_maps_free(&c->r.maps);
    routine_table_free(&c->r.routines);
    t->children[c->index] = NULL;
    free(c->dir);
    free(c);
}

static void step_child_left_out(void *ctx, pid_t pid, const char *command, const char *reason)
{
    struct step_tree *t = ctx;
    t->tree.left_out = xrealloc(t->tree.left_out,
                                (t->tree.n_left_out + 1) * sizeof *t->tree.left_out);
    t->tree.left_out[t->tree.n_left_out++] = (struct tree_left_out){
        .reason = xstrdup(reason), .pid = (int)pid, .command = xstrdup(command)};
}

static int record_step(const char *staging, const char *program, char **argv, struct record *r,
                       struct record_stats *stats, struct program_outcome *outcome,
                       struct trms_error *err)
{
    char *events_path = recording_file(staging, RECORDING_EVENTS);
    r->writer = open_writer(r, staging, events_path, err);
    free(events_path);
    if (!r->writer)
        return -1;
    r->step.path = program;
    r->step.argv = argv;
    struct step_tree tree = {.staging = staging, .root = r};
    struct step_children children = {.begin = step_child_begin, .end = step_child_end,
                                     .left_out = step_child_left_out, .ctx = &tree,
                                     .max_processes = r->max_processes,
                                     .exclude = r->exclude, .n_exclude = r->n_exclude};
    struct step_recording_config c = {.step = &r->step, .writer = r->writer,
                                      .routines = &r->routines, .maps = &r->maps,
                                      .symbols = r->symbols, .capture_dir = r->capture_dir,
                                      .rec_path = staging, .watch_objects = r->watch_objects,
                                      .watch = r->watch, .n_watch = r->n_watch,
                                      .children = &children};
    struct step_recording_result res;
    int rc = step_recording_run(&c, &res, err);
    *outcome = res.outcome;
    staging_release_reserve(staging);  /* room for the end */
    uint64_t kept = 0;
    rc = end_trace(r, staging, rc, &kept, err);
    const struct rerun_summary *d = &res.decoded;
    char seed[32], quantum[32], records[32], undecodable[32], approximated[32], signals[32],
        blocked[32], left_out[32], late[32], depth[32], pct_events[32], counted[32],
        changes[32], yields[32], outside[32], clock[32], sync_records[32], unread_atomics[32];
    char *watched = NULL;
    if (r->watch_objects) {
        size_t size = 16;
        for (size_t i = 0; i < r->n_watch; i++)
            size += strlen(r->watch[i]) + 1;
        watched = xmalloc(size);
        watched[0] = '\0';
        for (size_t i = 0; i < r->n_watch; i++)
            strcat(strcat(watched, i ? " " : ""), r->watch[i]);
        if (!r->n_watch)
            strcpy(watched, "*");
    }
    struct address_list undecodable_at = {.text = "-"};
    undecodable_at.text[0] = d->undecodable.count ? '\0' : '-';
    u64map_each(&d->undecodable, describe_address, &undecodable_at);
    snprintf(seed, sizeof seed, "%" PRIu64, r->step.seed);
    snprintf(quantum, sizeof quantum, "%" PRIu32, r->step.quantum);
    snprintf(records, sizeof records, "%" PRIu64, res.step.records);  /* every process's */
    snprintf(undecodable, sizeof undecodable, "%" PRIu64, u64map_sum(&d->undecodable));
    snprintf(approximated, sizeof approximated, "%" PRIu64, u64map_sum(&d->approximated));
    snprintf(signals, sizeof signals, "%" PRIu64, res.step.signals);
    snprintf(blocked, sizeof blocked, "%" PRIu64, res.step.blocked);
    snprintf(left_out, sizeof left_out, "%" PRIu64, res.unrecorded_threads);
    snprintf(late, sizeof late, "%" PRIu64, res.step.late_wakes);
    snprintf(outside, sizeof outside, "%" PRIu64, res.step.outside_wakes);
    snprintf(clock, sizeof clock, "%" PRIu64, res.step.clock_decided);
    int pct = r->step.policy == STEP_PCT;
    snprintf(depth, sizeof depth, "%" PRIu32, r->step.depth);
    snprintf(pct_events, sizeof pct_events, "%" PRIu64, r->step.pct_events);
    snprintf(counted, sizeof counted, "%" PRIu64, res.step.counted);
    snprintf(changes, sizeof changes, "%" PRIu64, res.step.change_points);
    snprintf(yields, sizeof yields, "%" PRIu64, res.step.yields);
    snprintf(sync_records, sizeof sync_records, "%" PRIu64, d->sync_records);
    snprintf(unread_atomics, sizeof unread_atomics, "%" PRIu64, d->unread_atomics);
    *stats = (struct record_stats){
        .events = r->out_of_space ? kept : total_events(d->events), .threads = d->threads,
        .tail_calls = d->tail_calls, .unwound = d->unwound_frames,
        .unmodeled = &d->unmodeled_syscalls, .complete = !r->out_of_space,
        .stopped = r->out_of_space ? out_of_space_reason(r->out_of_space) : NULL,
        .extra_keys = {"seed", "quantum", "records", "undecodable", "undecodable-at",
                       "approximated", "signals", "blocked-syscalls", "late-wakes",
                       "other-process-threads", "schedule", "pct-depth", "pct-events",
                       "pct-counted", "pct-change-points", "pct-yields", "pct-objects",
                       "outside-wakes", "clock-decided", "sync-records", "unread-atomics"},
        .extra_values = {seed, pct ? "-" : quantum, records, undecodable, undecodable_at.text,
                         approximated, signals, blocked, late, left_out,
                         pct ? "pct" : "round-robin", pct ? depth : "-",
                         pct ? pct_events : "-", pct ? counted : "-", pct ? changes : "-",
                         pct ? yields : "-", watched ? watched : "-", outside, clock,
                         sync_records, unread_atomics},
        .n_extra = 21, .exec_path = res.exec_path};
    /* The tree, every process having ended: the first image's entry. */
    if (tree.tree.n == 0)
        tree.tree.n = 1;
    tree.tree.items = xrealloc(tree.tree.items, tree.tree.n * sizeof *tree.tree.items);
    tree.tree.items[0] = (struct tree_process){
        .number = 1, .pid = res.pid, .ppid = res.ppid, .via = "start", .dir = xstrdup("."),
        .events = stats->events, .end = xstrdup(res.end[0] ? res.end : "died"),
        .command = quoted_command(argv)};
    tree.tree.over_limit = res.over_limit;
    stats->n_tree = process_tree_meta(&tree.tree, &stats->tree_keys, &stats->tree_values);
    if (rc == 0)
        rc = finish_recording(staging, "step", program, argv, r, stats, outcome, NULL, err);
    process_tree_free_meta(stats->tree_keys, stats->tree_values, stats->n_tree);
    stats->tree_keys = stats->tree_values = NULL;
    stats->n_tree = 0;
    stats->exec_path = NULL;
    describe_tree(&tree.tree, r->tree_said, sizeof r->tree_said);
    free(tree.children);
    process_tree_free(&tree.tree);
    if (rc == 0 && d->undecodable.count)
        fprintf(stderr, "trms: warning: %zu instructions capstone could not decode (their "
                        "memory accesses are missing; see `undecodable` in the meta)\n",
                d->undecodable.count);
    uint64_t timing = res.step.late_wakes + res.step.outside_wakes + res.step.clock_decided;
    if (rc == 0 && timing)
        fprintf(stderr, "trms: the schedule depended on the host %" PRIu64 " time%s (%" PRIu64
                        " wait%s ended from outside the program, %" PRIu64 " by the clock, %"
                        PRIu64 " late wake%s): another run with this seed may interleave "
                        "differently\n", timing, plural(timing), res.step.outside_wakes,
                plural(res.step.outside_wakes), res.step.clock_decided, res.step.late_wakes,
                plural(res.step.late_wakes));
    stats->unmodeled = NULL;
    stats->n_extra = 0;
    free(watched);
    free(res.exec_path);
    rerun_summary_free(&res.decoded);
    return rc;
}

static int record_rr(const char *staging, const char *program, char **argv, struct record *r,
                     struct record_stats *stats, struct program_outcome *outcome,
                     struct trms_error *err)
{
    char *trace_dir = recording_file(staging, RR_ENGINE_TRACE_DIR);
    char *run_argv0 = argv[0];
    argv[0] = (char *)program;
    int rc = rr_engine_record(trace_dir, argv, r->chaos, outcome, err);
    argv[0] = run_argv0;
    free(trace_dir);
    /* Events, threads and names come when `trms analyze` replays it. */
    *stats = (struct record_stats){.complete = 1, .extra_keys = {"chaos"},
                                   .extra_values = {r->chaos ? "yes" : "no"}, .n_extra = 1};
    if (rc == 0)
        rc = write_meta(staging, "rr", program, argv, r, stats, outcome, 0, err);
    return rc;
}

enum engine { ENGINE_VALGRIND, ENGINE_STEP, ENGINE_RR };

static const char *const engine_names[] = {"valgrind", "step", "rr"};

/* auto: rr where it can record, Valgrind elsewhere; SAY gets the line
 * that says which and why (empty for an engine asked for by name), to be
 * printed once the recording is under way, not before a failure of
 * another kind. */
static enum engine choose_engine(const char *name, int *known, char *say, size_t size)
{
    *known = 1;
    say[0] = '\0';
    for (int e = ENGINE_VALGRIND; e <= ENGINE_RR; e++)
        if (strcmp(name, engine_names[e]) == 0)
            return (enum engine)e;
    if (strcmp(name, "auto") != 0) {
        *known = 0;
        return ENGINE_VALGRIND;
    }
    char why[256];
    if (rr_engine_available(why, sizeof why)) {
        snprintf(say, size, "trms: engine auto: rr works here (hardware counters); recording "
                            "with rr\n");
        return ENGINE_RR;
    }
    snprintf(say, size, "trms: engine auto: %s; recording with Valgrind\n", why);
    return ENGINE_VALGRIND;
}

/* What the engine needs before anything is created: its version, and for
 * Valgrind its tool; one line saying what is missing otherwise. */
static int prepare_engine(enum engine engine, struct record *r, char **version,
                          char **tool_dir, struct trms_error *err)
{
    char why[256];
    switch (engine) {
    case ENGINE_VALGRIND:
        /* Asked once: each `valgrind --version` takes a shell and two execs. */
        *version = valgrind_version();
        if (!*version)
            return error_set(err, "valgrind is not installed (Debian package valgrind; "
                                  "tools/install-deps.sh installs it)");
        *tool_dir = valgrind_tool_dir(err);
        if (!*tool_dir)
            return -1;
        r->tool_dir = *tool_dir;
        break;
    case ENGINE_STEP:
        *version = xstrdup("trms-step " TRMS_VERSION);
        break;
    case ENGINE_RR:
        if (!rr_engine_available(why, sizeof why))
            return error_set(err, "engine rr: %s; record with --engine valgrind (or step) here",
                             why);
        *version = rr_engine_version();
        if (!*version)
            *version = xstrdup("rr");
        break;
    }
    r->engine_version = *version;
    return 0;
}

/* --pct-objects names variables of the program: each must name one. */
static int check_watch(const char *program, const char **watch, size_t n, struct trms_error *err)
{
    struct data_objects names;
    data_objects_init(&names);
    int rc = data_objects_names_in_file(program, &names);
    const char *unmatched = rc == 0 ? data_objects_select(&names, watch, n) : NULL;
    if (rc != 0)
        error_set(err, "--pct-objects: %s has no symbols trms can read", program);
    else if (unmatched || names.count == 0)
        rc = error_set(err, "--pct-objects: no variable of %s matches '%s'", program,
                       unmatched ? unmatched : "*");
    data_objects_free(&names);
    return rc;
}

/* The one line that ends a recording: how the program ended, what was
 * recorded where, and why it ends early when it does. */
static void say_recorded(enum engine engine, const char *name, const char *output,
                         const struct program_outcome *outcome, const struct record_stats *stats,
                         const struct record *r, double started, const char *analyzed)
{
    char how[96], what[320], took[64], also[600] = "";
    describe_outcome(outcome, how, sizeof how);
    snprintf(what, sizeof what, "%" PRIu64 " event%s, %" PRIu64 " thread%s, %zu routine%s",
             stats->events, plural(stats->events), stats->threads, plural(stats->threads),
             r->routines.count, plural(r->routines.count));
    progress_summary(started, engine == ENGINE_RR ? 0 : stats->events,
                     engine == ENGINE_RR ? NULL : "events", took, sizeof took);
    /* A recording cut short is said in one line, its analysis included. */
    if (analyzed[0])
        snprintf(also, sizeof also, "; %s", analyzed);
    int stop = stop_signals_requested();
    if (r->out_of_space)
        fprintf(stderr, "trms: %s of %s (after %.1f MiB): %s was stopped; the %" PRIu64
                        " events recorded before are kept in %s, marked incomplete\n",
                out_of_space_reason(r->out_of_space), output,
                (double)r->trace_bytes / (1 << 20), name, stats->events, output);
    else if (stop && stop_signals_stopped_target())
        fprintf(stderr, "trms: stopped by %s: %s %s; recorded %s into %s (incomplete: it ends "
                        "where the program was stopped)%s\n",
                stop_signals_name(stop), name, how, what, output, also);
    else if (stop)
        fprintf(stderr, "trms: %s arrived after %s %s; recorded %s into %s%s\n",
                stop_signals_name(stop), name, how, what, output, also);
    else if (engine == ENGINE_RR)
        fprintf(stderr, "trms: %s %s; recorded with rr into %s (`trms analyze %s` replays it) "
                        "%s\n", name, how, output, output, took);
    else {
        fprintf(stderr, "trms: %s %s%s; recorded %s into %s%s %s\n", name, how,
                stats->complete ? "" : " (recording stops where it died)", what, output,
                r->no_trace ? " (its analysis only: --trace none keeps no event trace)" : "",
                took);
        fputs(r->window_said, stderr);
        fputs(r->tree_said, stderr);
        if (analyzed[0])
            fprintf(stderr, "trms: %s\n", analyzed);
    }
}

static int parse_count(const char *option, const char *text, uint64_t max, uint64_t *out)
{
    if (parse_u64_cstr(text, out) != PARSE_NUMBER_OK || *out > max)
        return cli_usage_error(&cmd_record, "%s expects a number up to %" PRIu64 ", not '%s'",
                               option, max, text);
    return 0;
}

/* A whole decimal int, a sign allowed: 0, else -1. */
static int parse_level(const char *text, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno || end == text || *end || v < INT_MIN || v > INT_MAX)
        return -1;
    *out = (int)v;
    return 0;
}

static int run(int argc, char **argv)
{
    static const struct option options[] = {{"output", required_argument, NULL, 'o'},
                                            {"engine", required_argument, NULL, 'e'},
                                            {"seed", required_argument, NULL, 's'},
                                            {"quantum", required_argument, NULL, 'q'},
                                            {"capture-rr", required_argument, NULL, 'c'},
                                            {"cell-size", required_argument, NULL, 0x201},
                                            {"line-size", required_argument, NULL, 0x202},
                                            {"contexts", no_argument, NULL, 'X'},
                                            {"no-analysis", no_argument, NULL, 'N'},
                                            {"analyses", required_argument, NULL, 0x203},
                                            {"trace", required_argument, NULL, 0x204},
                                            RECORD_WINDOW_LONG_OPTIONS,
                                            {"schedule", required_argument, NULL, 'S'},
                                            {"depth", required_argument, NULL, 'd'},
                                            {"pct-events", required_argument, NULL, 'k'},
                                            {"pct-objects", required_argument, NULL, 'w'},
                                            {"chaos", no_argument, NULL, 'C'},
                                            {"lazy-binding", no_argument, NULL, 'l'},
                                            {"max-processes", required_argument, NULL, 0x205},
                                            {"exclude", required_argument, NULL, 0x206},
                                            {"compression-level", required_argument, NULL, 0x207},
                                            {NULL, 0, NULL, 0}};
    /* SIGTERM, SIGHUP, SIGINT to trms: the program is stopped and what was
     * recorded kept; a second one aborts. From the start: one that comes
     * before the program runs records nothing. */
    stop_signals_install(1);
    struct record_windows windows = {0};
    const char *output = NULL, *engine_name = "auto", *capture_dir = NULL;
    uint64_t seed = 0, quantum = STEP_DEFAULT_QUANTUM, depth = 0, pct_events = 0;
    int c, step_options = 0, quantum_given = 0, lazy_binding = 0;
    int analyze = 1, analysis_options = 0, window_option, no_trace = 0;
    int compression_level = TRACE_ZSTD_LEVEL, level_given = 0;
    struct analysis_options analysis;
    analysis_options_default(&analysis);
    enum step_policy policy = STEP_ROUND_ROBIN;
    const char **watch = NULL;
    size_t n_watch = 0;
    int watch_objects = 0, chaos = 0, tree_options = 0;
    uint64_t max_processes = 256;
    const char **exclude = NULL;
    size_t n_exclude = 0;
    /* '+': options end at the program's name, so its own options pass through. */
    while ((c = cli_getopt(&cmd_record, argc, argv, "+o:e:", options)) != -1) {
        if (c == 'o') {
            output = optarg;
        } else if (c == 'e') {
            engine_name = optarg;
        } else if (c == 's') {
            if (parse_count("--seed", optarg, UINT64_MAX, &seed) != 0)
                return EXIT_USAGE;
            step_options = 1;
        } else if (c == 'q') {
            if (parse_count("--quantum", optarg, UINT32_MAX, &quantum) != 0)
                return EXIT_USAGE;
            if (quantum == 0)
                return cli_usage_error(&cmd_record, "--quantum must be at least 1");
            step_options = quantum_given = 1;
        } else if (c == 'S') {
            if (strcmp(optarg, "pct") == 0)
                policy = STEP_PCT;
            else if (strcmp(optarg, "round-robin") != 0)
                return cli_usage_error(&cmd_record, "--schedule is round-robin or pct, not '%s'",
                                       optarg);
            step_options = 1;
        } else if (c == 'd') {
            if (parse_count("--depth", optarg, STEP_PCT_MAX_DEPTH, &depth) != 0)
                return EXIT_USAGE;
            if (depth == 0)
                return cli_usage_error(&cmd_record, "--depth must be at least 1");
            step_options = 1;
        } else if (c == 'k') {
            if (parse_count("--pct-events", optarg, UINT64_MAX, &pct_events) != 0)
                return EXIT_USAGE;
            if (pct_events == 0)
                return cli_usage_error(&cmd_record, "--pct-events must be at least 1");
            step_options = 1;
        } else if (c == 'C') {
            chaos = 1;
        } else if (c == 'w') {
            /* "*" alone: every variable; else names or patterns, comma-separated */
            watch_objects = step_options = 1;
            if (strcmp(optarg, "*") != 0) {
                char *list = optarg;
                for (char *name = strtok(list, ","); name; name = strtok(NULL, ",")) {
                    watch = xrealloc(watch, (n_watch + 1) * sizeof *watch);
                    watch[n_watch++] = name;
                }
            }
        } else if (c == 'c') {
            capture_dir = optarg;
            step_options = 1;
        } else if (c == 0x201 || c == 0x202) {
            if (cli_parse_power_of_two(&cmd_record, c == 0x201 ? "--cell-size" : "--line-size",
                                       optarg, c == 0x201 ? &analysis.cell_size
                                                          : &analysis.line_size))
                return EXIT_USAGE;
            analysis_options = 1;
        } else if (c == 'X') {
            analysis.contexts = 1;
            analysis_options = 1;
        } else if (c == 0x203) {
            unsigned parts;
            if (analysis_parts_parse(optarg, &parts) != 0)
                return cli_usage_error(&cmd_record, "--analyses takes rms, trms and reuse, "
                                       "separated by commas, not '%s'", optarg);
            analysis.passes = analysis_parts_passes(parts);
            analysis_options = 1;
        } else if (c == 0x204) {
            if (strcmp(optarg, "none") != 0 && strcmp(optarg, "full") != 0)
                return cli_usage_error(&cmd_record, "--trace is full or none, not '%s'", optarg);
            no_trace = strcmp(optarg, "none") == 0;
        } else if (c == 0x207) {
            struct trms_error level_err;
            if (parse_level(optarg, &compression_level) != 0)
                return cli_usage_error(&cmd_record, "--compression-level expects a whole "
                                                    "number, not '%s'", optarg);
            if (trace_writer_check_level(compression_level, &level_err) != 0)
                return cli_usage_error(&cmd_record, "--compression-level: %s", level_err.message);
            level_given = 1;
        } else if (c == 'N') {
            analyze = 0;
        } else if ((window_option = record_windows_option(&windows, c, optarg, &cmd_record))) {
            if (window_option == EXIT_USAGE)
                return EXIT_USAGE;
        } else if (c == 'l') {
            lazy_binding = 1;
        } else if (c == 0x205) {
            if (parse_count("--max-processes", optarg, UINT32_MAX, &max_processes) != 0)
                return EXIT_USAGE;
            if (max_processes == 0)
                return cli_usage_error(&cmd_record, "--max-processes must be at least 1");
            tree_options = 1;
        } else if (c == 0x206) {
            if (!optarg[0] || strchr(optarg, ','))
                return cli_usage_error(&cmd_record, "--exclude takes one pattern without "
                                                    "commas (give it again for more)");
            exclude = xrealloc(exclude, (n_exclude + 1) * sizeof *exclude);
            exclude[n_exclude++] = optarg;
            tree_options = 1;
        } else {
            return EXIT_USAGE;  /* cli_getopt said why */
        }
    }
    if (optind >= argc)
        return cli_usage_error(&cmd_record, "expects the program to record: -- PROG ARGS...");
    int known;
    char engine_said[400];
    if (strcmp(engine_name, "auto") != 0) {
        choose_engine(engine_name, &known, engine_said, sizeof engine_said);
        if (!known)
            return cli_usage_error(&cmd_record, "unknown engine '%s' (auto, valgrind, step or "
                                                "rr)", engine_name);
    }
    if (step_options && strcmp(engine_name, "step") != 0)
        return cli_usage_error(&cmd_record, "--seed, --quantum, --schedule, --depth, "
                                            "--pct-events and --capture-rr are options of "
                                            "--engine step");
    if (windows.given && strcmp(engine_name, "auto") != 0 && strcmp(engine_name, "valgrind") != 0)
        return cli_usage_error(&cmd_record, "--toggle-collect, --collect-at-start, --start-after, "
                                            "--max-events and --max-size are for --engine "
                                            "valgrind");
    if (tree_options && strcmp(engine_name, "rr") == 0)
        return cli_usage_error(&cmd_record, "--max-processes and --exclude are for --engine "
                                            "valgrind and step (rr records the whole tree)");
    if (analysis_options && !analyze)
        return cli_usage_error(&cmd_record, "--cell-size, --line-size, --contexts and --analyses "
                                            "choose the analysis that --no-analysis leaves out");
    if (no_trace && !analyze)
        return cli_usage_error(&cmd_record, "--trace none keeps only the analysis, which "
                                            "--no-analysis leaves out: nothing would be kept");
    /* What rr cannot do: it keeps its own recording, analyzed by replaying it. */
    const char *not_rr = no_trace ? "--trace none" : level_given ? "--compression-level" : NULL;
    if (not_rr && strcmp(engine_name, "rr") == 0)
        return cli_usage_error(&cmd_record, "%s is for the engines that analyze as they record "
                                            "(valgrind, step); rr's recording is analyzed by "
                                            "replaying it", not_rr);
    if (level_given && no_trace)
        return cli_usage_error(&cmd_record, "--compression-level is the event trace's, which "
                                            "--trace none does not keep");
    if (no_trace && windows.options.max_bytes)
        return cli_usage_error(&cmd_record, "--max-size bounds the trace file, which --trace "
                                            "none does not write (--max-events bounds the "
                                            "events analyzed)");
    if (chaos && strcmp(engine_name, "rr") != 0)
        return cli_usage_error(&cmd_record, "--chaos is rr's chaos mode: an option of --engine "
                                            "rr (the step engine explores with --schedule pct "
                                            "or --seed)");
    if (policy == STEP_PCT && quantum_given)
        return cli_usage_error(&cmd_record, "--quantum is for the round-robin schedule; PCT "
                                            "runs the thread of highest priority");
    if (policy != STEP_PCT && (depth || pct_events || watch_objects))
        return cli_usage_error(&cmd_record, "--depth, --pct-events and --pct-objects are "
                                            "options of --schedule pct");
    if (policy == STEP_PCT && !depth)
        depth = STEP_PCT_DEFAULT_DEPTH;
    if (policy == STEP_PCT && depth > 1 && !pct_events)
        return cli_usage_error(&cmd_record, "--schedule pct --depth %" PRIu64 " draws its "
                                            "change points among the first K events: give "
                                            "--pct-events K (`trms explore` measures it)",
                               depth);
    char **prog_argv = argv + optind;

    int not_found_status;
    char *program = program_path(prog_argv[0], &not_found_status);
    if (!program) {
        fprintf(stderr, "trms: record: %s: %s\n", prog_argv[0],
                program_path_problem(not_found_status));
        return not_found_status;
    }
    struct trms_error err;
    if (watch_objects && check_watch(program, watch, n_watch, &err) != 0) {
        free(watch);
        free(exclude);
        free(program);
        return cli_fail(&err);
    }
    enum engine engine = choose_engine(engine_name, &known, engine_said, sizeof engine_said);
    if (not_rr && engine == ENGINE_RR) {
        free(watch);
        free(program);
        fputs(engine_said, stderr);
        return cli_usage_error(&cmd_record, "%s is for the engines that analyze as they "
                                            "record; rr's recording is analyzed by replaying "
                                            "it: add --engine valgrind", not_rr);
    }
    char *version = NULL, *tool_dir = NULL;
    struct record r = {.step = {.seed = seed, .quantum = policy == STEP_PCT ? 0 : (uint32_t)quantum,
                                .policy = policy, .depth = (uint32_t)depth,
                                .pct_events = pct_events},
                       .capture_dir = capture_dir, .watch_objects = watch_objects, .chaos = chaos,
                       .watch = watch, .n_watch = n_watch, .windows = windows,
                       .max_processes = (unsigned)max_processes, .exclude = exclude,
                       .n_exclude = n_exclude, .analysis_options = analyze ? &analysis : NULL,
                       .no_trace = no_trace, .compression_level = compression_level};
    if (prepare_engine(engine, &r, &version, &tool_dir, &err) != 0) {
        free(version);
        free(tool_dir);
        free(program);
        return cli_fail(&err);
    }
    char *default_path = output ? NULL : default_output(program);
    if (!output)
        output = default_path;

    /* Lazy binding would make each PLT routine's first call run the dynamic
     * linker's resolver inside the caller: one activation with a large
     * input and cost, unlike the others, and a lone outlier to every fit.
     * Binding everything at start-up charges it to the loader instead. */
    const char *binding = lazy_binding ? "lazy" : "now";
    if (!lazy_binding && setenv("LD_BIND_NOW", "1", 0) != 0)
        binding = "lazy";

    char *staging = NULL;
    routine_table_init(&r.routines);
    memory_maps_init(&r.maps);
    r.symbols = symbolizer_new();
    if (engine == ENGINE_VALGRIND)
        r.resolver = routine_resolver_start();
    r.binding = binding;
    struct record_stats stats = {0};
    struct program_outcome outcome = {0};
    char *folder = staging_parent_dir(output);
    cli_note_leftovers(folder);  /* of a trms that died recording there */
    free(folder);
    double started = progress_now();
    int rc = 0;
    char analyzed[512] = "";
    /* An rr recording is analyzed by replaying it: nothing to see here. */
    if (analyze && engine != ENGINE_RR && !(r.analysis = record_analysis_start(&analysis, &err)))
        rc = -1;
    if (rc == 0)
        rc = recording_stage(output, &staging, &err);
    if (rc == 0)
        fputs(engine_said, stderr);
    if (rc == 0)
        rc = staging_reserve(staging, STAGING_RESERVE_BYTES, output, &err);
    if (rc == 0 && stop_signals_requested())
        rc = error_set(&err, "record stopped by %s before %s started: nothing recorded",
                       stop_signals_name(stop_signals_requested()), prog_argv[0]);
    if (rc == 0) {
        int (*record_with[])(const char *, const char *, char **, struct record *,
                             struct record_stats *, struct program_outcome *,
                             struct trms_error *) = {record_valgrind, record_step, record_rr};
        /* On a terminal: how much the recording has written so far. */
        struct record_progress *progress = record_progress_start(staging);
        /* `trms control` (its socket, or SIGUSR1 and SIGUSR2) turns the window on and off. */
        if (engine == ENGINE_VALGRIND)
            rc = record_control_start(staging, &err);
        if (rc == 0)
            rc = record_with[engine](staging, program, prog_argv, &r, &stats, &outcome, &err);
        if (engine == ENGINE_VALGRIND)
            record_control_stop(staging);
        record_progress_finish(progress);
        if (rc != 0 && r.writer)
            trace_writer_abandon(r.writer);
    }
    if (rc == 0 && stop_signals_aborted())
        rc = error_set(&err, "record aborted by a second %s: nothing kept of %s",
                       stop_signals_name(stop_signals_aborted()), output);
    else if (rc != 0 && stop_signals_stopped_target() && !stop_signals_aborted()) {
        /* Stopped before the engine had anything to keep. */
        char inner[sizeof err.message];
        memcpy(inner, err.message, sizeof inner);
        error_set(&err, "record stopped by %s before %s recorded anything: nothing kept (%s)",
                  stop_signals_name(stop_signals_requested()), prog_argv[0], inner);
    }
    /* The analysis saw every event the trace writer took; a trace cut short
     * by a full disk holds fewer, so its result would not be the trace's. */
    if (r.analysis && rc == 0 && !r.out_of_space) {
        /* Stored with the recording; a failure leaves the recording without
         * (its warning says so). */
        struct trms_error store_err = {.message = ""};
        if (record_analysis_finish(r.analysis, &r.routines, staging, output, analyzed,
                                   sizeof analyzed, &store_err) != 0) {
            /* Without a trace, the analysis is all there is to keep. */
            if (r.no_trace)
                rc = error_set(&err, "%s: the analysis is all --trace none keeps, and it %s",
                               output, store_err.message[0] ? store_err.message
                                                            : "failed (said above)");
            else if (store_err.message[0])
                fprintf(stderr, "trms: warning: the analysis is not stored: %s\n",
                        store_err.message);
        }
    } else if (r.analysis) {
        record_analysis_abandon(r.analysis);
    }
    if (rc == 0)
        rc = recording_commit(staging, output, &err);
    if (rc != 0 && staging)
        recording_discard(staging);

    /* Stopped by a signal, trms still exits; the status is the program's,
     * which the signal (forwarded) usually ended. */
    int status = rc != 0          ? EXIT_FAILED
                 : r.out_of_space ? EXIT_FAILED
                 : outcome.signal ? 128 + outcome.signal
                                  : outcome.exit_code;
    if (rc != 0)
        cli_fail(&err);
    else
        say_recorded(engine, prog_argv[0], output, &outcome, &stats, &r, started, analyzed);
    if (r.resolver)  /* the recording failed before naming */
        symbolizer_free(routine_resolver_finish(r.resolver));
    symbolizer_free(r.symbols);
    memory_maps_free(&r.maps);
    routine_table_free(&r.routines);
    free(staging);
    free(default_path);
    free(tool_dir);
    free(version);
    free(program);
    free(watch);
    free(exclude);
    return status;
}

const struct command cmd_record = {
    .name = "record",
    .summary = "run a program and record what it does",
    .usage =
        "usage: trms record [--engine auto|valgrind|step|rr] [-o REC] [--cell-size N]\n"
        "                   [--line-size N] [--contexts] [--analyses LIST] [--no-analysis]\n"
        "                   [--trace full|none] [--compression-level N] [WINDOW OPTIONS]\n"
        "                   [--] PROG [ARGS...]\n"
        "       trms record --engine rr [--chaos] ...\n"
        "       trms record --engine step [--seed N] [--quantum N] [--capture-rr DIR] ...\n"
        "       trms record --engine step --schedule pct [--depth D] [--pct-events K]\n"
        "                   [--pct-objects LIST] [--seed N] ...\n"
        "       trms record --lazy-binding ...\n"
        "       trms record --engine valgrind|step [--max-processes N] [--exclude PATTERN]...\n\n"
        "Runs PROG with its arguments, keeping its stdin, stdout and stderr, and\n"
        "records every routine call and return, load, store, kernel read and write\n"
        "of user memory, and instruction count, thread by thread, into the\n"
        "recording directory REC (default: PROG.rec, or PROG.N.rec when taken).\n"
        "It analyzes the events as it writes them, on worker threads, and stores\n"
        "the result in REC as `trms analyze REC` (with the same options) would: then\n"
        "`trms report REC`. The recording is kept whole: `trms analyze REC` analyzes\n"
        "it again, with any options, to the same result.\n\n"
        "The exit status is the program's (128 + N when signal N killed it); a\n"
        "program that crashes still leaves a recording up to the crash. SIGTERM,\n"
        "SIGHUP or SIGINT sent to trms is passed to the program (killed 3 s later if\n"
        "it has not ended) and the recording kept up to there, marked incomplete;\n"
        "a second one, a second later, aborts and keeps nothing (exit status 1). A\n"
        "disk that fills keeps what was recorded before, marked incomplete (exit\n"
        "status 1). A program\n"
        "that cannot be found exits 127 and one that cannot be run 126, recording\n"
        "nothing.\n\n"
        "engines:\n"
        "  auto      rr where it can record (hardware performance counters), else\n"
        "            valgrind; says which on stderr\n"
        "  valgrind  a Valgrind tool: runs anywhere, at Valgrind's speed\n"
        "  step      ptrace single-stepping, one thread at a time in a deterministic\n"
        "            schedule, decoded as rr's records are; very slow (about 20,000\n"
        "            instructions a second here): for small programs\n"
        "  rr        rr record -n; analyze replays it with rr (needs counters)\n\n"
        "options:\n"
        "  -e, --engine E    the engine (default auto)\n"
        "  -o, --output REC  the recording directory to create; must not exist\n"
        "  --cell-size N, --line-size N, --contexts, --analyses LIST\n"
        "                    the analysis's options, as for `trms analyze`: --analyses\n"
        "                    rms,trms leaves the reuse stacks out (less CPU)\n"
        "  --trace full|none full (default) keeps the event trace; none keeps only the\n"
        "                    analysis's result, with the meta, maps and symbols, so a\n"
        "                    long run fits a small disk; such a recording cannot be\n"
        "                    analyzed again, explored, packed or exported (each says\n"
        "                    so); with windows, only the analysis of the windows\n"
        "  --compression-level N\n"
        "                    valgrind, step: the zstd level of the event trace's blocks\n"
        "                    (default 1; negative levels are zstd's fast ones; 0 stores\n"
        "                    them uncompressed: about 4 times the bytes, which `trms\n"
        "                    analyze` reads faster). Any level analyzes to the same\n"
        "                    result (bench/README.md, \"Compression levels\")\n"
        "  --no-analysis     record only (an rr recording is analyzed by replaying it,\n"
        "                    by `trms analyze`, in any case)\n"
        "  --max-processes N valgrind, step: record at most N program images (default\n"
        "                    256): the processes PROG forks and the programs they exec\n"
        "                    are followed, each recorded in REC/processes/N-PID (the\n"
        "                    first is REC itself); beyond N they run unrecorded, counted\n"
        "                    (step: still stepped, so that the schedule stays the seed's)\n"
        "  --exclude PATTERN valgrind, step: run the programs whose path or name matches\n"
        "                    the shell PATTERN unrecorded (repeatable); `trms info` names\n"
        "                    them. step: a dynamically linked program a process execs is\n"
        "                    left out too (detached, it runs untraced; named 'dynamic')\n"
        "  --lazy-binding    keep the program's lazy binding of shared library calls\n"
        "                    (by default LD_BIND_NOW=1 binds them at start-up, so that\n"
        "                    a routine's first call does not include the dynamic\n"
        "                    linker's resolver)\n"
        "  --seed N          step: the schedule's seed; 0 (default) gives every thread\n"
        "                    turns of exactly --quantum instructions, another seed turns\n"
        "                    of random length (mean --quantum); a seed repeats its run\n"
        "  --quantum N       step: instructions per turn (default 1000)\n"
        "  --schedule S      step: round-robin (default) or pct: each thread gets a\n"
        "                    random priority (from --seed) and the highest enabled one\n"
        "                    runs; D - 1 change points among the first K counted events\n"
        "                    (system calls, and accesses outside the thread's stack, made\n"
        "                    while another thread could run) each drop the thread that\n"
        "                    made it below all others\n"
        "  --depth D         pct: the depth (default 3)\n"
        "  --pct-events K    pct: the counted events expected (`trms explore` measures\n"
        "                    them; each recording's meta says how many it had)\n"
        "  --pct-objects LIST  pct: count the instructions that access these variables\n"
        "                    of the program (names or shell patterns, comma-separated;\n"
        "                    '*' for all of them) instead of every access outside the\n"
        "                    thread's stack\n"
        "  --chaos           rr: rr's chaos mode (randomized priorities and time slices,\n"
        "                    to bring out rare interleavings; the recording replays the\n"
        "                    one it got)\n"
        "  --capture-rr DIR  step: also write DIR/rerun.raw and DIR/dump.txt, what `rr\n"
        "                    rerun` and `rr dump` would print for an rr recording of\n"
        "                    this run (to test rr tooling without rr)\n\n"
        "windows (valgrind): keep only parts of a long run; the rest is counted, and\n"
        "the meta and the reports say what was left out\n"
        "  --toggle-collect=PATTERN  keep a thread's events while it runs a routine\n"
        "                    whose name matches the shell PATTERN (and what it calls)\n"
        "  --collect-at-start=no     start with collection off; `trms control REC on`\n"
        "                    (or SIGUSR1 to trms) turns it on, `off` (SIGUSR2) off\n"
        "  --start-after=N   collection on after N instructions (all threads)\n"
        "  --max-events=N    stop keeping events after N of them\n"
        "  --max-size=SIZE   stop once the trace file has SIZE bytes (K, M, G: 1024s)\n"
        "  Activations begun before a window opens are not in it; those pending\n"
        "  when it closes end there. Inside a window, cells written before it count\n"
        "  as never written, and reuse distances count the lines of windows only.\n",

    .run = run,
    .program_operand = 1,
    .on_stop = "nothing recorded",
};
