/* trms export: a recording's events back to the text format. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/symbol_store.h"
#include "store/symbol_text.h"
#include "tools/cli.h"
#include "tools/output_file.h"
#include "trace/recording.h"
#include "trace/text_writer.h"
#include "trace/trace_reader.h"

struct export_state {
    FILE *out;
    struct routine_table routines;
};

static int print_event(void *ctx, const struct event *ev, struct trms_error *err)
{
    (void)err;
    struct export_state *st = ctx;
    text_write_event(st->out, ev, &st->routines);
    return 0;
}

static int print_sync(void *ctx, const struct sync_event *ev, struct trms_error *err)
{
    (void)err;
    struct export_state *st = ctx;
    text_write_sync(st->out, ev);
    return 0;
}

static int run(int argc, char **argv)
{
    static const struct option options[] = {{"output", required_argument, NULL, 'o'},
                                            {NULL, 0, NULL, 0}};
    const char *output = NULL;
    int c;
    while ((c = cli_getopt(&cmd_export, argc, argv, "o:", options)) != -1) {
        if (c == 'o')
            output = optarg;
        else
            return EXIT_USAGE;  /* cli_getopt said why */
    }
    if (optind != argc - 1)
        return cli_usage_error(&cmd_export, "expects one recording");
    const char *rec_path = argv[optind];
    struct trms_error err;
    struct recording rec;
    if (recording_open(rec_path, &rec, &err) != 0)
        return cli_fail(&err);
    int has_trace = recording_has_trace(&rec);
    recording_close(&rec);
    if (!has_trace) {
        recording_no_trace_error(rec_path, "exported", &err);
        return cli_fail(&err);
    }
    /* The text event format is data: a file gets its bytes as they are
     * (export then import is exact), a terminal sees them escaped. */
    struct output_file file;
    if (output_file_open(&file, output, 0, &err) != 0)
        return cli_fail(&err);
    struct export_state st = {.out = file.fp};
    routine_table_init(&st.routines);
    char *events = recording_file(rec_path, RECORDING_EVENTS);
    fprintf(st.out, "# trms export of %s\n", rec_path);
    /* The names of the routines known by address, for `trms import`. */
    struct symbol_names symbols;
    int rc = symbol_store_load(rec_path, &symbols, &err);
    if (rc == 0) {
        for (size_t i = 0; i < symbols.count; i++)
            symbol_text_write(st.out, &symbols.items[i]);
        symbol_names_free(&symbols);
        rc = trace_read_synced(events, &st.routines, print_event, &st, print_sync, &st, &err);
    }
    rc = output_file_close(&file, rc, &err);
    free(events);
    routine_table_free(&st.routines);
    return rc == 0 ? 0 : cli_fail(&err);
}

const struct command cmd_export = {
    .name = "export",
    .summary = "print a recording's events in the text trace format",
    .usage = "usage: trms export REC [-o FILE]\n\n"
             "Writes the recording's event trace in the text format `trms import`\n"
             "reads (see `trms import --help`), for bug reports and diffs. Before the\n"
             "events, a `#@symbol` line for each routine known by address carries its\n"
             "name, source line and module, so that an import of the export names\n"
             "it as the recording did (trms-trace(5)).\n\n"
             "options:\n"
             "  -o, --output F   write to F instead of stdout\n",
    .run = run,
};
