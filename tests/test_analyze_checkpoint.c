/* analyze_checkpoint: a checkpoint taken at any event loads, and the
 * analysis resumed from it ends with the uninterrupted run's result, byte
 * for byte, also where the position's block defined a routine before it
 * (version 1 kept only the routines before the block, and refused its own
 * checkpoint there: "a pending activation of a routine never defined"). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyses/analysis.h"
#include "analyses/analysis_state.h"
#include "tests/check.h"
#include "tests/results_equal.h"
#include "tools/analyze_checkpoint.h"
#include "tools/cli.h"
#include "trace/trace_reader.h"

static char tmpdir[] = "/tmp/trms-test-analyze-checkpoint-XXXXXX";

/* main calls f, f calls g (both defined at their calls, within the one
 * block); threads switch inside them. */
static const char trace_text[] = "thread 1\n"
                                 "call main\n"
                                 "read 0x100 4\n"
                                 "call f\n"
                                 "read 0x200 4\n"
                                 "write 0x204 4\n"
                                 "thread 2\n"
                                 "call worker\n"
                                 "read 0x200 8\n"
                                 "thread 1\n"
                                 "call g\n"
                                 "read 0x300 4\n"
                                 "read 0x100 4\n"
                                 "cost 7\n"
                                 "return\n"
                                 "read 0x208 4\n"
                                 "call g\n"
                                 "read 0x304 4\n"
                                 "return\n"
                                 "return\n"
                                 "thread 2\n"
                                 "write 0x300 4\n"
                                 "return\n"
                                 "thread 1\n"
                                 "read 0x300 4\n"
                                 "return\n";

struct partial {
    struct analysis *analysis;
    struct trace_position at;
    uint64_t events, stop_after;
};

static int feed_until(void *ctx, const struct event *ev, struct trms_error *err)
{
    struct partial *p = ctx;
    if (analysis_event(p->analysis, ev, err) != 0)
        return -1;
    /* the checkpoint's point: the read's position is after this event */
    return ++p->events == p->stop_after ? -1 : 0;
}

static int run_command(const struct command *cmd, const char **args)
{
    int argc = 0;
    char *argv[16];
    argv[argc++] = (char *)cmd->name;
    for (; *args; args++)
        argv[argc++] = (char *)*args;
    argv[argc] = NULL;
    optind = 0; /* glibc: start getopt afresh */
    return cmd->run(argc, argv);
}

/* The analysis of the whole trace, from the start or from a checkpoint
 * after STOP_AFTER events (0: none). */
static struct analysis_result *analyze(const char *rec, const char *events_path,
                                       uint64_t stop_after)
{
    struct analysis_options opt;
    analysis_options_default(&opt);
    struct trms_error err;
    struct routine_table routines;
    routine_table_init(&routines);
    struct partial p = {.stop_after = stop_after};
    p.analysis = analysis_new(&opt, &err);
    FILE *fp = fopen(events_path, "rb");
    CHECK(fp && p.analysis);
    struct trace_read_options o = {.at = &p.at};
    int rc = trace_read_stream(fp, events_path, &routines, feed_until, &p, &o, NULL, &err);
    if (stop_after) {
        CHECK(rc != 0 && p.events == stop_after);
        struct recording_identity id;
        struct result_store *store = NULL;
        struct result_key key = {.cell_size = opt.cell_size, .line_size = opt.line_size};
        CHECK(recording_identity_of(rec, &id, &err) == 0);
        CHECK(result_store_open(rec, 1, &store, &err) == 0);
        analysis_quiesce(p.analysis);
        CHECK(analyze_checkpoint_save(store, &key, &id, &p.at, p.events, &routines, p.analysis,
                                      &err) == 0);
        analysis_free(p.analysis);
        routine_table_free(&routines);
        routine_table_init(&routines);
        struct resume_point point = {0};
        rc = analyze_checkpoint_load(store, &key, &id, 1, &point, &routines, &err);
        if (rc != 0)
            fprintf(stderr, "checkpoint after event %llu: %s\n", (unsigned long long)stop_after,
                    err.message);
        CHECK_EQ(rc, 0);
        result_store_close(store);
        if (rc != 0) {
            fclose(fp);
            routine_table_free(&routines);
            return NULL;
        }
        CHECK_EQ(point.events, stop_after);
        CHECK_EQ(routines.count, point.from.routines);
        p = (struct partial){.analysis = point.analysis};
        struct trace_read_options from = {.from = &point.from};
        rc = trace_read_stream(fp, events_path, &routines, feed_until, &p, &from, NULL, &err);
    }
    CHECK_EQ(rc, 0);
    fclose(fp);
    struct analysis_result *r = analysis_finish(p.analysis, &routines);
    analysis_free(p.analysis);
    routine_table_free(&routines);
    return r;
}

int main(void)
{
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 2;
    }
    char text[256], rec[256], events_path[300];
    snprintf(text, sizeof text, "%s/t.txt", tmpdir);
    snprintf(rec, sizeof rec, "%s/t.rec", tmpdir);
    snprintf(events_path, sizeof events_path, "%s/events.trms", rec);
    FILE *fp = fopen(text, "w");
    fputs(trace_text, fp);
    fclose(fp);
    CHECK_EQ(run_command(&cmd_import, (const char *[]){text, "-o", rec, NULL}), 0);
    struct analysis_result *whole = analyze(rec, events_path, 0);
    /* At every event: before, inside and after each routine's first call. */
    size_t n_events = 0;
    for (const char *c = trace_text; *c; c++)
        n_events += *c == '\n';
    for (uint64_t k = 1; k < n_events - 1; k++) {
        struct analysis_result *resumed = analyze(rec, events_path, k);
        if (resumed && !results_equal(whole, resumed)) {
            fprintf(stderr, "resumed after event %llu: another result\n", (unsigned long long)k);
            check_failures++;
        }
        if (resumed)
            analysis_result_free(resumed);
    }
    analysis_result_free(whole);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    CHECK(system(cmd) == 0);
    return check_report("test_analyze_checkpoint");
}
