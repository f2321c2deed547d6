/* trms pack, trms unpack: a recording as one self-contained archive, for a
 * bug report, and back (pack/recording_pack.h). */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/oom.h"
#include "pack/recording_pack.h"
#include "tools/cli.h"
#include "trace/recording.h"

#define PACK_SUFFIX ".trmspack"

/* The one operand and -o of COMMAND's arguments. */
static int parse(const struct command *cmd, int argc, char **argv, const char **operand,
                 const char **output)
{
    static const struct option options[] = {{"output", required_argument, NULL, 'o'},
                                            {NULL, 0, NULL, 0}};
    *output = NULL;
    int c;
    while ((c = cli_getopt(cmd, argc, argv, "o:", options)) != -1) {
        if (c == 'o')
            *output = optarg;
        else
            return EXIT_USAGE;  /* cli_getopt said why */
    }
    if (optind != argc - 1)
        return cli_usage_error(cmd, "expects one %s", cmd == &cmd_pack ? "recording" : "archive");
    *operand = argv[optind];
    return 0;
}

static void print_notes(const struct pack_summary *s)
{
    for (size_t i = 0; i < s->n_notes; i++)
        fprintf(stderr, "trms: warning: %s\n", s->notes[i]);
}

/* A recording of a process tree: an archive holds one recording, so it
 * is refused whole rather than packed without its other processes. */
static int refuse_tree(const char *rec_path, struct trms_error *err)
{
    struct recording rec;
    if (recording_open(rec_path, &rec, err) != 0)
        return 0;  /* recording_pack says what is wrong */
    const char *n = recording_meta(&rec, "processes");
    int rc = 0;
    if (n && strcmp(n, "1") != 0)
        rc = error_set(err, "%s holds a tree of %s processes: packing a tree is not supported "
                            "yet (an archive carries one recording; each of %s/processes/N-PID "
                            "packs on its own)", rec_path, n, rec_path);
    recording_close(&rec);
    return rc;
}

static int run_pack(int argc, char **argv)
{
    const char *rec_path, *output;
    int usage = parse(&cmd_pack, argc, argv, &rec_path, &output);
    if (usage)
        return usage;
    /* Default: beside the recording, REC.trmspack. */
    char *fallback = NULL;
    if (!output) {
        size_t len = strlen(rec_path);
        while (len > 1 && rec_path[len - 1] == '/')
            len--;
        fallback = xmalloc(len + sizeof PACK_SUFFIX);
        snprintf(fallback, len + sizeof PACK_SUFFIX, "%.*s%s", (int)len, rec_path, PACK_SUFFIX);
        output = fallback;
    }
    struct pack_summary s = {0};
    struct trms_error err;
    int rc = refuse_tree(rec_path, &err);
    if (rc == 0)
        rc = recording_pack(rec_path, output, &s, &err);
    print_notes(&s);
    if (rc == 0)
        fprintf(stderr, "trms: packed %s into %s: %zu files, %zu results, %" PRIu64 " bytes\n",
                rec_path, output, s.files, s.results, s.bytes);
    pack_summary_free(&s);
    free(fallback);
    return rc ? cli_fail(&err) : 0;
}

static int run_unpack(int argc, char **argv)
{
    const char *in_path, *output;
    int usage = parse(&cmd_unpack, argc, argv, &in_path, &output);
    if (usage)
        return usage;
    char *fallback = NULL;
    if (!output) {
        size_t len = strlen(in_path), suffix = strlen(PACK_SUFFIX);
        if (len <= suffix || strcmp(in_path + len - suffix, PACK_SUFFIX) != 0)
            return cli_usage_error(&cmd_unpack, "name the recording to create with -o REC");
        fallback = xmalloc(len - suffix + 1);
        snprintf(fallback, len - suffix + 1, "%s", in_path);
        output = fallback;
    }
    struct pack_summary s;
    struct trms_error err;
    int rc = recording_unpack(in_path, output, &s, &err);
    print_notes(&s);
    if (rc == 0)
        fprintf(stderr, "trms: unpacked %s into %s: %zu files (a trace of %" PRIu64
                        " events, read in full), %zu results\n",
                in_path, output, s.files, s.events, s.results);
    pack_summary_free(&s);
    free(fallback);
    return rc ? cli_fail(&err) : 0;
}

const struct command cmd_pack = {
    .name = "pack",
    .summary = "pack a recording into one archive, for a bug report",
    .usage = "usage: trms pack REC [-o FILE]\n\n"
             "Writes the recording REC as one self-contained, checksummed archive\n"
             "(default REC.trmspack): its meta, maps, event trace, routine names,\n"
             "Valgrind's log, an rr trace, and its stored results, as plain records.\n"
             "Each file is read and checked first: a damaged recording is not packed.\n"
             "The result store's pages and the checkpoints of unfinished analyses are\n"
             "left out. `trms unpack` makes a recording of it anywhere; its reports\n"
             "name routines without the program's binaries.\n\n"
             "options:\n"
             "  -o, --output FILE   the archive to write (replaced if it exists)\n",
    .run = run_pack,
};

const struct command cmd_unpack = {
    .name = "unpack",
    .summary = "make a recording of an archive of `trms pack`, checking all of it",
    .usage = "usage: trms unpack FILE [-o REC]\n\n"
             "Creates the recording REC (default FILE without .trmspack; it must not\n"
             "exist) from an archive `trms pack` wrote (FILE - reads standard input).\n"
             "Every record's checksum is checked, every file is read in full as trms\n"
             "reads it, every result decoded, and the result store is built afresh;\n"
             "a damaged archive is refused and leaves nothing behind.\n\n"
             "options:\n"
             "  -o, --output REC    the recording to create\n",
    .run = run_unpack,
};
