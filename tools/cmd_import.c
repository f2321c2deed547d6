/* trms import: a text trace becomes a recording directory. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/plural.h"
#include "common/u64map.h"
#include "store/symbol_file.h"
#include "store/symbol_text.h"
#include "tools/cli.h"
#include "trace/recording.h"
#include "trace/routine_table.h"
#include "trace/text_reader.h"
#include "trace/trace_writer.h"

struct import {
    struct trace_writer *writer;
    struct routine_table routines;
    struct u64map threads;
    uint64_t events;
    struct symbol_names symbols;    /* of routines known by address (#@symbol) */
};

/* "#@symbol" lines name routines known by address, as `trms export`
 * writes them; other annotations are comments. */
static int annotation(void *ctx, const char *word, size_t len, const char *rest,
                      struct trms_error *err)
{
    struct import *im = ctx;
    if (len != strlen(SYMBOL_TEXT_KEYWORD) || memcmp(word, SYMBOL_TEXT_KEYWORD, len) != 0)
        return 0;
    return symbol_text_parse(rest, &im->symbols, err);
}

static int write_event(void *ctx, const struct event *ev, struct trms_error *err)
{
    struct import *im = ctx;
    if (ev->type == EVENT_THREAD)
        u64map_upsert(&im->threads, ev->tid, NULL);
    return trace_writer_event(im->writer, ev, &im->routines, err);
}

static int write_sync(void *ctx, const struct sync_event *ev, struct trms_error *err)
{
    struct import *im = ctx;
    return trace_writer_sync(im->writer, ev, err);
}

static int import_into(const char *trace_path, const char *staging, struct import *im,
                       struct trms_error *err)
{
    FILE *in = strcmp(trace_path, "-") == 0 ? stdin : fopen(trace_path, "r");
    if (!in)
        return error_set(err, "%s: cannot open: %s", trace_path, strerror(errno));
    char *events_path = recording_file(staging, RECORDING_EVENTS);
    im->writer = trace_writer_create(events_path, err);
    free(events_path);
    int rc = im->writer ? 0 : -1;
    if (rc == 0)
        rc = text_trace_read_sync(in, strcmp(trace_path, "-") == 0 ? "<stdin>" : trace_path,
                                  &im->routines, write_event, im, annotation, im, write_sync,
                                  im, err);
    if (in != stdin)
        fclose(in);
    if (rc == 0) {
        im->events = trace_writer_events(im->writer); /* what the trace holds */
        rc = trace_writer_close(im->writer, &im->routines, err);
        im->writer = NULL;
    }
    if (rc == 0 && im->symbols.count)
        rc = symbol_file_write(staging, &im->symbols, err);
    if (rc != 0)
        return -1;

    char created[32], events[32], threads[32], routines[32];
    time_t now = time(NULL);
    strftime(created, sizeof created, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    snprintf(events, sizeof events, "%" PRIu64, im->events);
    snprintf(threads, sizeof threads, "%zu", im->threads.count);
    snprintf(routines, sizeof routines, "%zu", im->routines.count);
    char *source = realpath(trace_path, NULL);
    const char *keys[] = {"engine", "source", "created", "trms-version", "events", "threads",
                          "routines"};
    const char *values[] = {"import", source ? source : trace_path, created, TRMS_VERSION,
                            events, threads, routines};
    rc = recording_write_meta(staging, keys, values, sizeof keys / sizeof *keys, err);
    free(source);
    return rc;
}

static int run(int argc, char **argv)
{
    static const struct option options[] = {{"output", required_argument, NULL, 'o'},
                                            {NULL, 0, NULL, 0}};
    const char *output = NULL;
    int c;
    while ((c = cli_getopt(&cmd_import, argc, argv, "o:", options)) != -1) {
        if (c == 'o')
            output = optarg;
        else
            return EXIT_USAGE;  /* cli_getopt said why */
    }
    if (optind != argc - 1)
        return cli_usage_error(&cmd_import, "expects one trace file");
    if (!output)
        return cli_usage_error(&cmd_import, "needs -o REC, the recording to create");
    const char *trace_path = argv[optind];

    struct trms_error err;
    char *staging;
    if (recording_stage(output, &staging, &err) != 0)
        return cli_fail(&err);
    struct import im = {0};
    routine_table_init(&im.routines);
    symbol_names_init(&im.symbols);
    u64map_init(&im.threads);
    int rc = import_into(trace_path, staging, &im, &err);
    if (rc != 0)
        trace_writer_abandon(im.writer);
    if (rc == 0)
        rc = recording_commit(staging, output, &err);
    if (rc != 0) {
        recording_discard(staging);
        error_rename(&err, staging, output);
    } else {
        printf("imported %" PRIu64 " event%s (%zu thread%s, %zu routine%s) into %s\n",
               im.events, plural(im.events), im.threads.count, plural(im.threads.count),
               im.routines.count, plural(im.routines.count), output);
    }
    free(staging);
    routine_table_free(&im.routines);
    symbol_names_free(&im.symbols);
    u64map_free(&im.threads);
    return rc == 0 ? 0 : cli_fail(&err);
}

const struct command cmd_import = {
    .name = "import",
    .summary = "turn a text event trace into a recording",
    .usage =
        "usage: trms import TRACE.txt -o REC\n\n"
        "Reads a text event trace (`-` for stdin) and creates the recording\n"
        "directory REC, which must not exist. One event per line, `#` starts a\n"
        "comment, numbers are decimal or 0x hex:\n\n"
        "  thread TID        following events belong to TID (a change is a switch)\n"
        "  call NAME         routine activation; NAME is a symbol or a 0x address\n"
        "  return            completes the innermost pending activation\n"
        "  read ADDR SIZE    load of SIZE bytes\n"
        "  write ADDR SIZE   store of SIZE bytes\n"
        "  kread ADDR SIZE   the kernel reads user memory for this thread\n"
        "  kwrite ADDR SIZE  the kernel writes user memory\n"
        "  cost N            the current thread executed N more instructions\n\n"
        "Events before the first `thread` line belong to thread 1. A malformed\n"
        "line stops the import with FILE:LINE and nothing is created. Lines\n"
        "`#@symbol ...` (`trms export` writes them) name routines known by\n"
        "address, with their source lines and modules (trms-trace(5)).\n\n"
        "options:\n"
        "  -o, --output REC  the recording directory to create\n",
    .run = run,
};
