/* trms pack, trms unpack: a recording as one self-contained archive, for a
 * bug report, and back (pack/recording_pack.h). */
#include <dirent.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/oom.h"
#include "common/parse_number.h"
#include "pack/recording_pack.h"
#include "tools/cli.h"
#include "tools/process_tree.h"
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

/* The tree in the unpacked recording's meta against the processes the
 * archive held: each one's recording where the tree says, with the pid and
 * events the tree says, and no process the tree does not name. */
static int check_tree(const char *staging, struct trms_error *err)
{
    struct recording rec;
    if (recording_open(staging, &rec, err) != 0)
        return -1;
    struct process_tree tree;
    int rc = process_tree_read(&rec, &tree, err);
    recording_close(&rec);
    if (rc != 0)
        return -1;
    size_t staged = 0;
    char *top = recording_file(staging, PROCESS_TREE_DIR);
    DIR *d = opendir(top);
    for (struct dirent *e; d && (e = readdir(d));)
        staged += e->d_name[0] != '.';
    if (d)
        closedir(d);
    free(top);
    if (staged != tree.n - 1)
        rc = error_set(err, "its meta names %zu processes; it holds %zu", tree.n, staged + 1);
    for (size_t i = 1; rc == 0 && i < tree.n; i++) {
        const struct tree_process *p = &tree.items[i];
        char *path = process_tree_path(staging, p, err);
        if (!path || recording_open(path, &rec, err) != 0) {
            free(path);
            rc = -1;
            break;
        }
        const char *events = recording_meta(&rec, "events"), *pid = recording_meta(&rec, "pid");
        uint64_t e, meta_pid;
        if (!events || parse_u64_cstr(events, &e) != PARSE_NUMBER_OK || e != p->events || !pid ||
            parse_u64_cstr(pid, &meta_pid) != PARSE_NUMBER_OK || meta_pid != (uint64_t)p->pid)
            rc = error_set(err, "its meta says process #%u is pid %d with %" PRIu64 " events; "
                                "%s says otherwise", p->number, p->pid, p->events, p->dir);
        recording_close(&rec);
        free(path);
    }
    process_tree_free(&tree);
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
    /* A tree that does not hold together is not packed (unpack would
     * refuse it); recording_pack checks each process's recording. */
    struct trms_error why;
    struct recording probe;
    int rc = 0;
    if (recording_open(rec_path, &probe, &why) == 0) {
        recording_close(&probe);
        rc = check_tree(rec_path, &why);
    }
    if (rc != 0)
        rc = error_set(&err, "%s: its process tree does not hold together: %s", rec_path,
                       why.message);
    if (rc == 0)
        rc = recording_pack(rec_path, output, &s, &err);
    print_notes(&s);
    if (rc == 0)
        fprintf(stderr, "trms: packed %s into %s: %zu processes, %zu files, %zu results, %" PRIu64
                        " bytes\n",
                rec_path, output, s.processes + 1, s.files, s.results, s.bytes);
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
    int rc = recording_unpack(in_path, output, check_tree, &s, &err);
    print_notes(&s);
    if (rc == 0)
        fprintf(stderr, "trms: unpacked %s into %s: %zu processes, %zu files (a trace of %" PRIu64
                        " events, read in full), %zu results\n",
                in_path, output, s.processes + 1, s.files, s.events, s.results);
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
             "Valgrind's log, an rr trace, and its stored results, as plain records;\n"
             "of a process tree, every process's recording (REC/processes/N-PID).\n"
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
             "a damaged archive is refused and leaves nothing behind. A process\n"
             "tree is rebuilt whole, its meta's tree checked against its processes.\n\n"
             "options:\n"
             "  -o, --output REC    the recording to create\n",
    .run = run_unpack,
};
