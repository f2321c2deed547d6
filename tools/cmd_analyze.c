/* trms analyze: one pass of the analyses over a recording, stored. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "analyses/analysis.h"
#include "analyses/analysis_parts.h"
#include "analyses/analysis_state.h"
#include "analyses/batch_event.h"
#include "analyses/causal_input.h"
#include "common/oom.h"
#include "common/parse_number.h"
#include "common/plural.h"
#include "common/regular_file.h"
#include "common/stop_signals.h"
#include "replayer/rr_replay.h"
#include "report/csv.h"
#include "report/report.h"
#include "store/checkpoint_store.h"
#include "store/result_store.h"
#include "store/store_compact.h"
#include "store/store_env.h"
#include "store/store_lock.h"
#include "store/store_repair.h"
#include "store/symbol_store.h"
#include "symbols/resolve_routines.h"
#include "tools/analyze_checkpoint.h"
#include "tools/cli.h"
#include "tools/process_tree.h"
#include "tools/progress.h"
#include "trace/recording.h"
#include "trace/trace_reader.h"

/* Where an rr recording keeps rr's own trace. */
#define RECORDING_RR_TRACE "rr"

/* Default seconds of work between two checkpoints. */
#define DEFAULT_CHECKPOINT_EVERY 5.0
/* A checkpoint may take this share of the time at most: a large state is
 * saved less often than the interval asks. */
#define CHECKPOINT_SHARE 0.1

struct run_state {
    struct analysis *analysis;
    struct routine_table routines;
    uint64_t events;
    FILE *csv;
    struct symbol_names symbols;    /* names of address-only routines */
    struct progress *progress;      /* NULL unless stderr is a terminal */
    uint64_t progress_base;         /* events done before a resumed run */
    /* Checkpoints (of event traces; checkpoint_every 0 when off). */
    struct result_store *store;
    struct result_key key;
    struct recording_identity identity;
    struct trace_position at;       /* the reader keeps it current */
    double checkpoint_every;        /* seconds of work */
    double next_checkpoint;         /* CLOCK_MONOTONIC seconds */
    uint64_t checkpoints;
    uint64_t resumed_after;         /* events of the checkpoint resumed from */
    /* A replay's result, kept to the end: its symbolizer names the routines
     * a recording's store does not name yet (the first analysis of an rr
     * recording), also in activations completed after the replay. */
    struct rr_replay_result replay;
    int replayed;
    int stopped;                    /* a signal asked to stop: the pass did */
    /* The causal model's part of the trace, written on the way (NULL when
     * resuming, or when the recording has it already). */
    struct causal_input *causal;
    struct trms_error causal_error; /* why it was not written ("" when it was) */
};

/* Events between two looks at the clock (progress line, checkpoints). */
#define PROGRESS_EVERY 65536

static double monotonic_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Saves the analysis when the interval has passed. A checkpoint that
 * cannot be saved (a full disk) is said once and the analysis goes on
 * without: it still ends with its result. */
static void maybe_checkpoint(struct run_state *st)
{
    if (st->checkpoint_every <= 0 || monotonic_seconds() < st->next_checkpoint)
        return;
    /* The workers catch up first: that is work the analysis does anyway,
     * not the checkpoint's cost. */
    analysis_quiesce(st->analysis);
    double start = monotonic_seconds();
    struct trms_error err;
    if (analyze_checkpoint_save(st->store, &st->key, &st->identity, &st->at, st->events,
                                &st->routines, st->analysis, &err) != 0) {
        fprintf(stderr, "trms: warning: %s; going on without checkpoints\n", err.message);
        st->checkpoint_every = 0;
        return;
    }
    st->checkpoints++;
    double spent = monotonic_seconds() - start, wait = spent / CHECKPOINT_SHARE;
    st->next_checkpoint = start + spent + (wait > st->checkpoint_every ? wait : st->checkpoint_every);
}

/* The causal input could not be written (a full disk): the analysis goes
 * on without it, and `trms causal` will read the whole trace; said at the
 * end, when the analysis succeeds (else its failure is the one line). */
static void drop_causal_input(struct run_state *st, const struct trms_error *why)
{
    st->causal_error = *why;
    causal_input_abandon(st->causal);
    st->causal = NULL;
}

static int feed_sync(void *ctx, const struct sync_event *ev, struct trms_error *err)
{
    struct run_state *st = ctx;
    if (st->causal && causal_input_sync(st->causal, ev, err) != 0)
        drop_causal_input(st, err);
    return 0;
}

/* ERR, the analysis's complaint, as about event NUMBER (from 1). */
static int at_event(struct trms_error *err, uint64_t number)
{
    char inner[sizeof err->message];
    memcpy(inner, err->message, sizeof inner);
    return error_set(err, "event %" PRIu64 ": %s", number, inner);
}

/* After the events from BEFORE to now: the progress, and, once in a
 * while, a stop asked for or a checkpoint. */
static int after_run(struct run_state *st, uint64_t before, struct trms_error *err)
{
    if (st->events / PROGRESS_EVERY != before / PROGRESS_EVERY) {
        progress_update(st->progress, st->events - st->progress_base);
        /* Here the read's position is after these events, as for a
         * checkpoint: the place to stop when asked. */
        if (stop_signals_requested()) {
            st->stopped = 1;
            return error_set(err, "stopped");
        }
        maybe_checkpoint(st);
    }
    return 0;
}

static int feed(void *ctx, const struct event *ev, struct trms_error *err)
{
    struct run_state *st = ctx;
    ++st->events;
    if (st->causal && causal_input_event(st->causal, ev, err) != 0)
        drop_causal_input(st, err);
    if (analysis_event(st->analysis, ev, err) != 0)
        return at_event(err, st->events);
    return after_run(st, st->events - 1, err);
}

/* The events of a run of the trace, as feed() takes them one by one. */
static int feed_run(void *ctx, const struct event *events, size_t n, struct trms_error *err)
{
    struct run_state *st = ctx;
    size_t done;
    uint64_t before = st->events;
    if (st->causal && causal_input_events(st->causal, events, n, err) != 0)
        drop_causal_input(st, err);
    if (analysis_events(st->analysis, events, n, &done, err) != 0) {
        st->events += done + 1;
        return at_event(err, st->events);
    }
    st->events += n;
    return after_run(st, before, err);
}

/* The analysis's batches, for the reader to decode the common records
 * straight into (trace_read_options' room): while no causal input is
 * written, which wants them as struct events. */
static int feed_room(void *ctx, struct batch_event **next, struct batch_event **end,
                     int *flows)
{
    struct run_state *st = ctx;
    if (st->causal)
        return 1;
    return analysis_access_room(st->analysis, next, end, flows);
}

/* What feed_run does of a run the reader wrote into feed_room's room. */
static int feed_written(void *ctx, struct batch_event *next, uint64_t accesses, uint64_t writes,
                        const struct flow_note *flows, size_t n_flows, struct trms_error *err)
{
    struct run_state *st = ctx;
    uint64_t before = st->events;
    analysis_accesses_written(st->analysis, next, accesses, writes);
    size_t done;
    if (n_flows && analysis_flows(st->analysis, flows, n_flows, &done, err) != 0) {
        st->events += flows[done].at + 1;
        return at_event(err, st->events);
    }
    st->events += accesses + n_flows;
    return after_run(st, before, err);
}

/* The options that find the checkpoint under KEY again (those that differ
 * from the defaults): `--resume` alone would look under the defaults. */
static void resume_options(const struct result_key *key, char *buf, size_t size)
{
    size_t n = 0;
    if (key->cell_size != ANALYSIS_DEFAULT_CELL_SIZE)
        n += (size_t)snprintf(buf + n, size - n, " --cell-size %" PRIu64, key->cell_size);
    if (n < size && key->line_size != ANALYSIS_DEFAULT_LINE_SIZE)
        n += (size_t)snprintf(buf + n, size - n, " --line-size %" PRIu64, key->line_size);
    if (n < size && result_key_analyses(key) != ANALYSIS_ALL) {
        char parts[ANALYSIS_PARTS_TEXT_MAX];
        n += (size_t)snprintf(buf + n, size - n, " --analyses %s",
                              analysis_parts_text(key->analyses, parts));
    }
    if (n < size && key->contexts)
        snprintf(buf + n, size - n, " --contexts");
}

/* A signal stopped the pass: its state is saved as a checkpoint when the
 * analysis takes them, and nothing else is stored. Fills ERR with the
 * line that says so. */
static int stop_analysis(const char *rec_path, struct run_state *st, uint64_t total,
                         struct trms_error *err)
{
    const char *sig = stop_signals_name(stop_signals_requested());
    char after[96];
    snprintf(after, sizeof after, "after event %" PRIu64 "%s", st->events, total ? " of " : "");
    if (total)
        snprintf(after + strlen(after), sizeof after - strlen(after), "%" PRIu64, total);
    if (stop_signals_aborted())
        return error_set(err, "analyze aborted by a second %s %s: nothing stored; the previous "
                              "checkpoint, if any, is kept", sig, after);
    if (st->checkpoint_every <= 0)
        return error_set(err, "analyze stopped by %s %s: nothing stored (this analysis takes "
                              "no checkpoints)", sig, after);
    /* A second signal while saving: the save is abandoned, whole. */
    stop_signals_abort_exits("analyze aborted by a second signal while saving its checkpoint: "
                             "the previous checkpoint, if any, is kept");
    analysis_quiesce(st->analysis);
    struct trms_error save_err;
    if (analyze_checkpoint_save(st->store, &st->key, &st->identity, &st->at, st->events,
                                &st->routines, st->analysis, &save_err) != 0)
        return error_set(err, "analyze stopped by %s %s: nothing stored, and the checkpoint "
                              "could not be saved (%s)", sig, after, save_err.message);
    char options[96] = "";
    resume_options(&st->key, options, sizeof options);
    return error_set(err, "analyze stopped by %s %s; checkpoint saved: `trms analyze %s%s "
                          "--resume` continues from there", sig, after, rec_path, options);
}

static void write_activation(void *ctx, const struct activation *a)
{
    struct run_state *st = ctx;
    char buf[REPORT_LABEL_MAX];
    fprintf(st->csv, "%" PRIu32 ",", a->tid);
    const char *name = report_routine_name(&st->routines, &st->symbols, a->routine, buf);
    const struct routine *r = a->routine < st->routines.count ? &st->routines.items[a->routine]
                                                              : NULL;
    const char *replayed;
    if (st->replayed && r && !r->name && r->addr && name == buf &&
        (replayed = rr_replay_routine_name(&st->replay, r->addr, &st->routines)))
        name = replayed;
    csv_field(st->csv, name);
    fprintf(st->csv, ",%" PRIu32 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
                     ",%" PRIu64,
            a->depth, a->rms, a->trms, a->cost, a->self_cost, a->induced_thread,
            a->induced_external);
    if (a->context != CONTEXT_NONE)
        fprintf(st->csv, ",%" PRIu32, a->context);
    fputc('\n', st->csv);
}

/* The CSV is written beside its final name and renamed once complete. */
static FILE *open_csv(const char *path, int contexts, char **tmp, struct trms_error *err)
{
    size_t len = strlen(path) + 32;
    *tmp = malloc(len);
    if (!*tmp)
        return NULL;
    snprintf(*tmp, len, "%s.tmp-%ld", path, (long)getpid());
    FILE *fp = fopen(*tmp, "w");
    if (!fp) {
        error_set(err, "%s: cannot create: %s", path, strerror(errno));
        free(*tmp);
        *tmp = NULL;
        return NULL;
    }
    fputs("thread,routine,depth,rms,trms,cost,self_cost,induced_thread,induced_external", fp);
    fputs(contexts ? ",context\n" : "\n", fp);
    return fp;
}

/* ---- the events of a recording: its event trace, or an rr replay ---- */

static void replay_progress(void *ctx, uint64_t time, uint64_t last_time, uint64_t instructions)
{
    struct run_state *st = ctx;
    if (!st->progress)
        st->progress = progress_start("replaying with rr", "events", last_time);
    char n[16], detail[48];
    snprintf(detail, sizeof detail, "%s instructions",
             progress_short_count((double)instructions, n));
    progress_update_detail(st->progress, time, detail);
}

/* Says on stderr, in one line each, what the replay could not decode
 * exactly (the recording's own counts). */
static void report_replay(const struct rerun_summary *s)
{
    if (s->undecodable.count)
        fprintf(stderr, "trms: warning: %zu instructions capstone could not decode (%" PRIu64
                        " executions without their memory accesses)\n",
                s->undecodable.count, u64map_sum(&s->undecodable));
    if (s->approximated.count)
        fprintf(stderr, "trms: warning: %zu instructions whose accesses are approximated "
                        "(vector masks, gathers)\n", s->approximated.count);
    if (s->unmodeled_syscalls.count)
        fprintf(stderr, "trms: warning: %" PRIu64 " system calls whose kernel reads are not "
                        "known (their writes are rr's)\n", u64map_sum(&s->unmodeled_syscalls));
    if (s->other_process_threads)
        fprintf(stderr, "trms: %" PRIu64 " thread%s of other processes (forked children) left "
                        "out\n", s->other_process_threads, plural(s->other_process_threads));
}

/* Replays the rr trace in REC through the analysis, then names its
 * routines in the recording's symbol store from the trace's files. */
static int replay_rr(const char *rec_path, const struct result_key *window, struct run_state *st,
                     struct trms_error *err)
{
    char *trace_dir = recording_file(rec_path, RECORDING_RR_TRACE);
    struct rr_replay_options o = {.trace_dir = trace_dir, .from = window->from,
                                  .to = window->to, .sink = feed, .sink_ctx = st,
                                  .routines = &st->routines, .progress = replay_progress,
                                  .progress_ctx = st};
    struct rr_replay_result *r = &st->replay;
    st->replayed = 1;  /* rr_replay fills it before the first record */
    int rc = rr_replay(&o, r, err);
    progress_finish(st->progress);
    st->progress = NULL;
    if (rc == 0) {
        report_replay(&r->summary);
        if (r->names.count &&
            symbol_store_save(rec_path, r->names.items, r->names.count, err) != 0)
            fprintf(stderr, "trms: warning: routine names not resolved: %s\n", err->message);
    }
    free(trace_dir);
    return rc;
}

/* Reads the event trace into the analysis, from FROM when resuming. */
static int read_events(const char *rec_path, const struct recording *rec,
                       const struct trace_position *from, struct run_state *st,
                       struct trms_error *err)
{
    char *events_path = recording_file(rec_path, RECORDING_EVENTS);
    const char *why;
    FILE *fp = regular_file_fopen(events_path, REGULAR_FILE_NOFOLLOW, &why);
    if (!fp) {
        error_set(err, "%s: cannot open: %s", events_path, why);
        free(events_path);
        return -1;
    }
    const char *total_text = recording_meta(rec, "events");
    uint64_t total = total_text ? strtoull(total_text, NULL, 10) : 0;
    st->progress = progress_start("analyzing", "events",
                                  total > st->progress_base ? total - st->progress_base : 0);
    st->next_checkpoint = monotonic_seconds() + st->checkpoint_every;
    struct trace_read_options o = {.from = from, .at = &st->at, .batch = feed_run,
                                   .room = feed_room, .written = feed_written};
    /* A whole read also writes what `trms causal` reads (causal_input.h),
     * once: a resumed one has not seen the start. A trace without sync
     * records has no causal profile, and so no causal input
     * (causal_input_finish would drop it): its header says so, and the
     * calls, returns and switches are not copied for nothing. */
    char *causal_path = recording_file(rec_path, CAUSAL_INPUT_FILE);
    if (!from && trace_may_hold_sync(fp) && access(causal_path, F_OK) != 0 &&
        !(st->causal = causal_input_create(rec_path, &st->routines, &st->causal_error)) &&
        !st->causal_error.message[0])
        error_set(&st->causal_error, "the causal input cannot be created");
    free(causal_path);
    o.sync = st->causal ? feed_sync : NULL;
    o.sync_ctx = st;
    int rc = trace_read_stream(fp, events_path, &st->routines, feed, st, &o, NULL, err);
    progress_finish(st->progress);
    st->progress = NULL;
    fclose(fp);
    free(events_path);
    if (st->causal) {
        int written;
        if (rc != 0)
            causal_input_abandon(st->causal);
        else if (causal_input_finish(st->causal, &written, &st->causal_error) != 0 &&
                 !st->causal_error.message[0])
            error_set(&st->causal_error, "the causal input was not written");
        st->causal = NULL;
    }
    return rc;
}

/* Takes up the checkpoint of an analysis with these options, when there
 * is one that fits: 0 with the analysis in ST and *FROM set, else says on
 * stderr why the analysis starts from the beginning. */
static int resume_from_checkpoint(const char *rec_path, const struct analysis_options *opt,
                                  struct run_state *st, struct trace_position *from)
{
    struct resume_point point;
    struct trms_error err;
    int rc = analyze_checkpoint_load(st->store, &st->key, &st->identity, opt->threads, &point,
                                     &st->routines, &err);
    if (rc == 0) {
        const struct analysis_options *saved = analysis_get_options(point.analysis);
        if (saved->cell_size != opt->cell_size || saved->line_size != opt->line_size ||
            saved->passes != opt->passes || saved->contexts != opt->contexts) {
            analysis_free(point.analysis);
            error_set(&err, "the checkpoint was taken with other options");
            rc = -1;
        }
    }
    if (rc != 0) {
        routine_table_free(&st->routines);
        routine_table_init(&st->routines);
        /* No checkpoint is no failure: the summary says so at the end. */
        if (rc != CHECKPOINT_NONE)
            fprintf(stderr, "trms: warning: cannot resume %s: %s; analyzing from the start\n",
                    rec_path, err.message);
        return -1;
    }
    st->analysis = point.analysis;
    st->events = st->progress_base = st->resumed_after = point.events;
    *from = point.from;
    fprintf(stderr, "trms: resuming %s from its checkpoint after event %" PRIu64 "\n", rec_path,
            point.events);
    return 0;
}

/* Opens the store to write to. Nothing is written into a damaged store:
 * its every page is walked first (store_check_pages), and a damaged one is
 * set aside, said on stderr, and analyzed into anew: all it held comes
 * from the recording. */
static int open_store(const char *rec_path, struct result_store **store, struct trms_error *err)
{
    struct store_usage usage;
    int rc = store_check_pages(rec_path, &usage, err);
    if (rc == 0 || rc == STORE_ENV_ABSENT)
        rc = result_store_open(rec_path, 1, store, err);
    else if (rc == STORE_ENV_DAMAGED)
        rc = RESULT_STORE_DAMAGED;
    if (rc != RESULT_STORE_DAMAGED)
        return rc;
    char *hint = strstr(err->message, STORE_DAMAGED_HINT), *aside;
    if (hint)
        *hint = '\0';
    struct trms_error why = *err;
    rc = store_set_aside(rec_path, &aside, err);
    if (rc == 0) {
        fprintf(stderr, "trms: warning: %s; set aside as %s, analyzing into a new store\n",
                why.message, aside);
        rc = result_store_open(rec_path, 1, store, err);
    }
    free(aside);
    return rc;
}

struct analyze_request {
    const char *csv_path;         /* --activations, or NULL */
    double checkpoint_every;      /* seconds; 0 for none */
    int resume;
};

static int analyze(const char *rec_path, const struct analysis_options *opt,
                   const struct result_key *window, const struct analyze_request *req,
                   struct trms_error *err)
{
    const char *csv_path = req->csv_path;
    struct recording rec;
    if (recording_open(rec_path, &rec, err) != 0)
        return -1;
    const char *engine = recording_meta(&rec, "engine");
    int is_rr = engine && strcmp(engine, "rr") == 0;
    if (!recording_has_trace(&rec)) {
        recording_close(&rec);
        return recording_no_trace_error(rec_path, "analyzed again (its stored analysis stands: "
                                        "`trms report`)", err);
    }
    if ((window->from || window->to) && !is_rr) {
        error_set(err, "%s: --from and --to choose part of an rr recording; this one was "
                       "recorded by %s", rec_path, engine ? engine : "an unknown engine");
        recording_close(&rec);
        return -1;
    }
    if (is_rr && req->resume) {
        error_set(err, "%s: --resume is not supported for rr recordings yet (an rr replay "
                       "keeps no checkpoints); `--from EVENT` analyzes part of one", rec_path);
        recording_close(&rec);
        return -1;
    }
    double started = progress_now();
    struct result_store *store = NULL;
    struct run_state st = {0};
    /* Checkpoints: of event traces, and not with --activations (the rows
     * written so far would not survive the kill). */
    st.checkpoint_every = is_rr || csv_path ? 0 : req->checkpoint_every;
    st.key = *window;
    st.key.cell_size = opt->cell_size;
    st.key.line_size = opt->line_size;
    routine_table_init(&st.routines);
    symbol_names_init(&st.symbols);
    char *csv_tmp = NULL;
    struct analysis_result *result = NULL;
    /* The CSV names routines as the reports do; the names are read before
     * the result store is opened (one open of the environment at a time). */
    int rc = csv_path ? symbol_store_load(rec_path, &st.symbols, err) : 0;
    if (rc == 0 && csv_path)
        report_demangle_names(NULL, &st.symbols);
    /* Open the store before the long part, so a broken store fails fast.
     * A replay names routines in the same environment afterwards: there
     * the store is opened again at the end. */
    if (rc == 0)
        rc = open_store(rec_path, &store, err);
    /* One analysis per options at a time: they would share a checkpoint. */
    int lock_fd = -1;
    if (rc == 0 && (rc = store_lock_analysis(rec_path, &st.key, &lock_fd, err)) == STORE_LOCK_BUSY)
        rc = error_set(err, "%s: another `trms analyze` of it with these options is running; "
                            "wait for it to end (its result is the same), or stop it first",
                       rec_path);
    if (rc == 0 && is_rr) {
        result_store_close(store);
        store = NULL;
    }
    if (rc == 0 && csv_path && !(st.csv = open_csv(csv_path, opt->contexts, &csv_tmp, err)))
        rc = -1;
    st.store = store;
    if (rc == 0 && !is_rr && (st.checkpoint_every > 0 || req->resume))
        rc = recording_identity_of(rec_path, &st.identity, err);
    struct trace_position from_position, *from = NULL;
    if (rc == 0 && req->resume && resume_from_checkpoint(rec_path, opt, &st, &from_position) == 0)
        from = &from_position;
    if (rc == 0 && !st.analysis && !(st.analysis = analysis_new(opt, err)))
        rc = -1;
    if (rc == 0) {
        if (st.csv)
            analysis_on_activation(st.analysis, write_activation, &st);
        rc = is_rr ? replay_rr(rec_path, window, &st, err)
                   : read_events(rec_path, &rec, from, &st, err);
        if (rc != 0 && st.stopped) {
            const char *total = recording_meta(&rec, "events");
            stop_analysis(rec_path, &st, total ? strtoull(total, NULL, 10) : 0, err);
        }
    }
    if (rc == 0 && !store)
        rc = open_store(rec_path, &store, err);
    if (rc == 0) {
        result = analysis_finish(st.analysis, &st.routines);
        struct result_key key = *window;
        key.cell_size = result->cell_size;
        key.line_size = result->line_size;
        key.contexts = result->n_contexts > 0;
        key.analyses = result->analyses == ANALYSIS_ALL ? 0 : result->analyses;
        rc = result_store_save_key(store, result, &key, err);
    }
    if (st.csv) {
        if ((fflush(st.csv) != 0 || ferror(st.csv)) && rc == 0)
            rc = error_set(err, "%s: cannot write: %s", csv_path, strerror(errno));
        fclose(st.csv);
        if (rc == 0 && rename(csv_tmp, csv_path) != 0)
            rc = error_set(err, "%s: cannot create: %s", csv_path, strerror(errno));
        if (rc != 0)
            unlink(csv_tmp);
    }
    /* Pages freed by checkpoints and replaced results go back to the disk
     * when they are half the store (unless another trms has it open, or
     * there is no room for the copy: then `trms gc` later). */
    struct store_usage before = {0}, after = {0};
    if (rc == 0) {
        result_store_close(store);
        store = NULL;
        struct trms_error ignored;
        int busy;
        if (store_compact(rec_path, 0, &before, &after, &busy, &ignored) != 1)
            before.file_bytes = 0;
    }
    if (rc == 0) {
        uint64_t accesses = 0;
        for (int t = EVENT_READ; t <= EVENT_KWRITE; t++)
            accesses += result->events[t];
        printf("analyzed %s: %" PRIu64 " event%s (%" PRIu64 " memory access%s), %zu thread%s, %"
               PRIu64 " activation%s of %zu routine%s; cell size %" PRIu64 ", line size %"
               PRIu64,
               rec_path, st.events, plural(st.events), accesses, accesses == 1 ? "" : "es",
               result->n_threads, plural(result->n_threads), result->activations,
               plural(result->activations), result->routines.count,
               plural(result->routines.count), result->cell_size, result->line_size);
        if (result->analyses != ANALYSIS_ALL) {
            char parts[ANALYSIS_PARTS_TEXT_MAX];
            printf("; analyses %s", analysis_parts_text(result->analyses, parts));
        }
        if (from)
            printf("; resumed after event %" PRIu64, st.resumed_after);
        else if (req->resume)
            printf("; no checkpoint to resume from: analyzed from the start");
        if (before.file_bytes) {
            char was[32], now[32];
            printf("; store compacted from %s to %s", cli_human_bytes(before.file_bytes, was),
                   cli_human_bytes(after.file_bytes, now));
        }
        char took[64];
        printf("; %s\n", progress_summary(started, st.events - st.progress_base, "events", took,
                                          sizeof took));
    }
    if (rc == 0 && st.causal_error.message[0])
        fprintf(stderr, "trms: warning: %s; `trms causal` will read the whole trace\n",
                st.causal_error.message);
    analysis_result_free(result);
    analysis_free(st.analysis);
    if (st.replayed)
        rr_replay_result_free(&st.replay);
    routine_table_free(&st.routines);
    symbol_names_free(&st.symbols);
    result_store_close(store);
    if (lock_fd >= 0)
        close(lock_fd);
    recording_close(&rec);
    free(csv_tmp);
    return rc;
}

static void free_paths(char **paths, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(paths[i]);
    free(paths);
}

/* The recordings to analyze: REC's processes (REC alone for a single
 * process), or those WHICH names; an unknown name is an error. */
static int tree_paths(const char *rec_path, const char **which, size_t n_which, char ***paths,
                      size_t *n, struct trms_error *err)
{
    struct process_tree tree;
    *paths = NULL;
    *n = 0;
    if (process_tree_load(rec_path, which, n_which, &tree, err) != 0)
        return -1;
    int rc = 0;
    *paths = xcalloc(tree.n, sizeof **paths);
    for (size_t i = 0; i < tree.n && rc == 0; i++) {
        int chosen = process_tree_chosen(&tree.items[i], which, n_which);
        if (chosen && !((*paths)[*n] = process_tree_path(rec_path, &tree.items[i], err)))
            rc = -1;
        else if (chosen)
            (*n)++;
    }
    process_tree_free(&tree);
    if (rc != 0) {
        free_paths(*paths, *n);
        *paths = NULL;
        *n = 0;
    }
    return rc;
}

static int run(int argc, char **argv)
{
    static const struct option options[] = {{"cell-size", required_argument, NULL, 'c'},
                                            {"line-size", required_argument, NULL, 'l'},
                                            {"activations", required_argument, NULL, 'a'},
                                            {"from", required_argument, NULL, 'F'},
                                            {"to", required_argument, NULL, 'T'},
                                            {"checkpoint-every", required_argument, NULL, 'k'},
                                            {"resume", no_argument, NULL, 'r'},
                                            {"contexts", no_argument, NULL, 'C'},
                                            {"process", required_argument, NULL, 'P'},
                                            {"analyses", required_argument, NULL, 'A'},
                                            {NULL, 0, NULL, 0}};
    const char **processes = NULL;
    size_t n_processes = 0;
    struct analysis_options opt;
    analysis_options_default(&opt);
    struct analyze_request req = {.checkpoint_every = DEFAULT_CHECKPOINT_EVERY};
    int every_given = 0;
    struct result_key window = {0};
    int c;
    while ((c = cli_getopt(&cmd_analyze, argc, argv, "", options)) != -1) {
        switch (c) {
        case 'c':
            if (cli_parse_power_of_two(&cmd_analyze, "--cell-size", optarg, &opt.cell_size))
                return EXIT_USAGE;
            break;
        case 'l':
            if (cli_parse_power_of_two(&cmd_analyze, "--line-size", optarg, &opt.line_size))
                return EXIT_USAGE;
            break;
        case 'a':
            req.csv_path = optarg;
            break;
        case 'k': {
            char *end;
            errno = 0;
            req.checkpoint_every = strtod(optarg, &end);
            if (errno || end == optarg || *end || !(req.checkpoint_every >= 0) ||
                req.checkpoint_every > 1e9)
                return cli_usage_error(&cmd_analyze, "--checkpoint-every needs seconds (0 for "
                                       "none), not '%s'", optarg);
            every_given = 1;
            break;
        }
        case 'r':
            req.resume = 1;
            break;
        case 'P':
            processes = xrealloc(processes, (n_processes + 1) * sizeof *processes);
            processes[n_processes++] = optarg;
            break;
        case 'C':
            opt.contexts = 1;
            window.contexts = 1;
            break;
        case 'A': {
            unsigned parts;
            if (analysis_parts_parse(optarg, &parts) != 0)
                return cli_usage_error(&cmd_analyze, "--analyses takes rms, trms and reuse, "
                                       "separated by commas, not '%s'", optarg);
            opt.passes = analysis_parts_passes(parts);
            window.analyses = parts == ANALYSIS_ALL ? 0 : parts;
            break;
        }
        case 'F':
        case 'T':
            /* rr numbers events from 1 (rerun's -s and -e) */
            if (parse_u64_cstr(optarg, c == 'F' ? &window.from : &window.to) !=
                    PARSE_NUMBER_OK ||
                (c == 'F' ? window.from : window.to) == 0)
                return cli_usage_error(&cmd_analyze, "--%s needs an event number (1 or more), "
                                       "not '%s'", c == 'F' ? "from" : "to", optarg);
            break;
        default:
            return EXIT_USAGE;  /* cli_getopt said why */
        }
    }
    if (optind != argc - 1)
        return cli_usage_error(&cmd_analyze, "expects one recording");
    if (window.to && window.from > window.to)
        return cli_usage_error(&cmd_analyze, "--from %" PRIu64 " is after --to %" PRIu64,
                               window.from, window.to);
    if (req.csv_path && (analysis_passes_parts(opt.passes) & (ANALYSIS_RMS | ANALYSIS_TRMS)) !=
                            (ANALYSIS_RMS | ANALYSIS_TRMS))
        return cli_usage_error(&cmd_analyze, "--activations writes every activation's RMS and "
                               "TRMS: --analyses must keep rms and trms");
    if (req.csv_path && (req.resume || (every_given && req.checkpoint_every > 0)))
        return cli_usage_error(&cmd_analyze, "--activations writes every activation in one "
                               "run: it takes no checkpoints and cannot --resume");
    struct trms_error err;
    /* SIGTERM, SIGHUP, SIGINT: the pass stops, its checkpoint is saved and
     * nothing else stored: a failure like any other (exit status 1), never
     * a death by the signal. */
    stop_signals_install(0);
    /* A recording of a process tree: every process, or those --process names. */
    char **paths = NULL;
    size_t n_paths = 0;
    if (tree_paths(argv[optind], processes, n_processes, &paths, &n_paths, &err) != 0) {
        free(processes);
        return cli_fail(&err);
    }
    free(processes);
    if (req.csv_path && n_paths > 1) {
        free_paths(paths, n_paths);
        return cli_usage_error(&cmd_analyze, "--activations writes one process's activations: "
                                             "choose it with --process (the recording holds "
                                             "%zu)", n_paths);
    }
    int rc = 0;
    for (size_t i = 0; i < n_paths && rc == 0; i++) {
        if (analyze(paths[i], &opt, &window, &req, &err) != 0) {
            /* Every failure names the recording (one of several a script
             * analyzes): "REC: event 4: return with no pending call". */
            if (!strstr(err.message, paths[i])) {
                char inner[sizeof err.message];
                memcpy(inner, err.message, sizeof inner);
                error_set(&err, "%s: %s", paths[i], inner);
            }
            rc = cli_fail(&err);
        }
    }
    free_paths(paths, n_paths);
    return rc;
}

const struct command cmd_analyze = {
    .name = "analyze",
    .summary = "compute RMS, TRMS, profiles and reuse distances of a recording",
    .usage =
        "usage: trms analyze REC [--cell-size N] [--line-size N] [--contexts]\n"
        "                        [--analyses LIST]\n"
        "                        [--activations FILE.csv] [--from EVENT] [--to EVENT]\n"
        "                        [--checkpoint-every SECONDS] [--resume]\n"
        "                        [--process PID|NAME]...\n\n"
        "Runs every analysis over the recording in one pass and stores the result\n"
        "in REC/results (of a process tree: each process's in its own recording,\n"
        "REC/processes/N-PID), replacing an earlier result computed with the same\n"
        "options (atomically: a failed analysis leaves the earlier result intact).\n"
        "An rr recording is replayed with rr (rr rerun, single-stepping) and its\n"
        "instructions decoded as they come; that needs rr and hardware performance\n"
        "counters. On a terminal, a progress line shows how far it has come.\n\n"
        "A long analysis of an event trace saves its whole state (a checkpoint) in\n"
        "REC/results every few seconds, in one transaction: killed at any moment,\n"
        "`--resume` continues from the last checkpoint with the same options and\n"
        "ends with the result an uninterrupted run stores. The checkpoint is\n"
        "dropped when the result is stored.\n\n"
        "SIGTERM, SIGHUP or SIGINT stops the analysis cleanly: it saves a checkpoint\n"
        "where it stands (when it takes checkpoints), stores nothing else, and exits\n"
        "with status 1; a second signal abandons the save (the previous checkpoint\n"
        "stays).\n"
        "A second analysis with the same options while one runs is refused. A full\n"
        "disk is said as such, before anything is written; a damaged result store is\n"
        "refused, and left as it is.\n\n"
        "options:\n"
        "  --cell-size N          bytes per memory cell for RMS/TRMS, a power of two\n"
        "                         (default 4); an access touches every cell it overlaps\n"
        "  --line-size N          bytes per line for reuse distance, a power of two\n"
        "                         (default 64)\n"
        "  --process PID|NAME     of a process tree, analyze only this process (its pid,\n"
        "                         its program's name, or #N, its number in the tree:\n"
        "                         the images of one pid share it), repeatable; default: all\n"
        "  --analyses LIST        compute only these of rms, trms and reuse (comma-\n"
        "                         separated; default all): without reuse no reuse stack\n"
        "                         is kept, without trms kernel writes are passed over,\n"
        "                         without rms and trms there are no profiles. Stored\n"
        "                         beside results of other analyses; reports say what\n"
        "                         was not computed\n"
        "  --contexts             keep the profiles per calling context (the path of\n"
        "                         calls from the thread's root), so that `qsort` called\n"
        "                         from a and from b are reported apart; stored beside\n"
        "                         the result without contexts (`report --contexts`)\n"
        "  --activations FILE     also write one CSV row per completed activation, in\n"
        "                         completion order: thread,routine,depth,rms,trms,cost,\n"
        "                         self_cost,induced_thread,induced_external (each thread's\n"
        "                         root activation, routine <root>, has depth 0; with\n"
        "                         --contexts, a last column, context, its node's number);\n"
        "                         no checkpoints then\n"
        "  --from EVENT, --to EVENT  analyze only rr's events EVENT.. of an rr recording\n"
        "                         (`rr rerun -s/-e`); stored beside the whole recording's\n"
        "                         result, under the window\n"
        "  --checkpoint-every SECONDS  seconds of work between checkpoints (default 5,\n"
        "                         decimals allowed; 0: none). A large state is saved less\n"
        "                         often, so that saving takes at most a tenth of the time\n"
        "  --resume               continue from the checkpoint of an analysis with the\n"
        "                         same options, if there is one (else start from the\n"
        "                         beginning; the summary says which); not for rr\n"
        "                         recordings yet\n",
    .run = run,
    .on_stop = "nothing stored",
};
