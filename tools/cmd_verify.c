/* trms verify: checks every byte of a recording that can be checked: each
 * block of the event trace with its checksum and the totals against the
 * meta, every page of the result store, and every stored result, routine
 * name and checkpoint. `trms info` checks only what is cheap. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pack/recording_check.h"
#include "store/checkpoint_store.h"
#include "store/result_store.h"
#include "store/store_compact.h"
#include "store/store_env.h"
#include "store/symbol_store.h"
#include "common/parse_number.h"
#include "tools/cli.h"
#include "tools/process_tree.h"
#include "trace/recording.h"

/* The recording's files, in full: the one notion of a valid recording
 * that pack and unpack share (pack/recording_check.h). */
static int verify_files(const struct recording *rec, char *said, size_t size,
                        struct trms_error *err)
{
    struct recording_facts f;
    if (recording_check(rec->path, 1, &f, err) != 0)
        return -1;
    if (f.no_trace) {
        snprintf(said, size, "no event trace kept (recorded with --trace none): its analysis "
                             "is all it holds");
        return 0;
    }
    if (!f.has_trace) {
        snprintf(said, size, "rr's trace not checked (rr checks it as it replays)");
        return 0;
    }
    char bytes[32];
    snprintf(said, size, "trace %" PRIu64 " blocks, %" PRIu64 " events (%s), every checksum "
                         "good",
             f.blocks, f.events, cli_human_bytes(f.bytes, bytes));
    return 0;
}

struct counts {
    struct result_store *store;
    size_t results, checkpoints;
    struct trms_error *err;
};

static int load_result(void *ctx, const struct stored_result_info *info)
{
    struct counts *c = ctx;
    struct result_key key = info->key;
    struct analysis_result *r;
    if (result_store_load_key(c->store, &key, &r, c->err) != 0)
        return -1;
    analysis_result_free(r);
    c->results++;
    return 0;
}

static int load_checkpoint(void *ctx, const struct checkpoint_info *info)
{
    struct counts *c = ctx;
    struct checkpoint_load *load;
    uint64_t total;
    if (checkpoint_load_open(c->store, &info->key, &load, &total, c->err) != 0)
        return -1;
    checkpoint_load_close(load);
    c->checkpoints++;
    return 0;
}

/* Every page of the store, then every record decoded. */
static int verify_store(const char *rec_path, char *said, size_t size, struct trms_error *err)
{
    struct store_usage u;
    int rc = store_check_pages(rec_path, &u, err);
    if (rc == STORE_ENV_ABSENT) {
        snprintf(said, size, "no result store");
        return 0;
    }
    if (rc != 0)
        return -1;
    struct symbol_names names;
    if (symbol_store_load(rec_path, &names, err) != 0)
        return -1;
    size_t n_names = names.count;
    symbol_names_free(&names);
    struct counts c = {.err = err};
    rc = result_store_open(rec_path, 0, &c.store, err);
    if (rc == RESULT_STORE_NONE)
        rc = 0;
    else if (rc == 0) {
        rc = result_store_list(c.store, load_result, &c, err);
        if (rc == 0)
            rc = checkpoint_list(c.store, load_checkpoint, &c, err);
        result_store_close(c.store);
    }
    if (rc != 0)
        return -1;
    char file[32], free_room[32];
    snprintf(said, size, "store %zu results, %zu routine names, %zu checkpoints (%s, %s free), "
                         "every page readable",
             c.results, n_names, c.checkpoints, cli_human_bytes(u.file_bytes, file),
             cli_human_bytes(u.free_bytes, free_room));
    return 0;
}

/* A process's recording of REC's tree: whole, and what the tree says of it. */
static int verify_process(const char *rec_path, const struct tree_process *p,
                          struct trms_error *err)
{
    char *path = process_tree_path(rec_path, p, err);
    if (!path)
        return -1;
    struct recording sub;
    int rc = recording_open(path, &sub, err);
    char trace[256], store[256];
    if (rc == 0) {
        rc = verify_files(&sub, trace, sizeof trace, err);
        if (rc == 0)
            rc = verify_store(sub.path, store, sizeof store, err);
        const char *events = recording_meta(&sub, "events"), *pid = recording_meta(&sub, "pid");
        uint64_t e = 0, meta_pid = 0;
        if (rc == 0 && (!events || parse_u64_cstr(events, &e) != PARSE_NUMBER_OK ||
                        e != p->events || !pid ||
                        parse_u64_cstr(pid, &meta_pid) != PARSE_NUMBER_OK ||
                        meta_pid != (uint64_t)p->pid))
            rc = error_set(err, "%s: the tree in %s/meta says process #%u is pid %d with %" PRIu64
                                " events; its recording says pid %s with %s", path, rec_path,
                           p->number, p->pid, p->events, pid ? pid : "-", events ? events : "-");
        if (rc == 0)
            printf("%s: ok: %s; %s\n", path, trace, store);
        recording_close(&sub);
    }
    free(path);
    return rc;
}

/* The tree in REC's meta against its processes' recordings. */
static int verify_tree(const struct recording *rec, char *said, size_t size,
                       struct trms_error *err)
{
    struct process_tree tree;
    said[0] = '\0';
    if (process_tree_read(rec, &tree, err) != 0)
        return -1;
    int rc = 0;
    const char *events = recording_meta(rec, "events");
    uint64_t e = 0;
    if (tree.n > 1 && (!events || parse_u64_cstr(events, &e) != PARSE_NUMBER_OK ||
                       e != tree.items[0].events))
        rc = error_set(err, "%s: the tree in the meta gives the first process %" PRIu64
                            " events, the meta %s", rec->path, tree.items[0].events,
                       events ? events : "none");
    size_t failed = 0;
    for (size_t i = 1; i < tree.n && rc == 0; i++) {
        if (strcmp(tree.items[i].end, "failed") == 0)
            failed++;  /* its recording could not be made: the tree says so */
        else
            rc = verify_process(rec->path, &tree.items[i], err);
    }
    if (rc == 0 && tree.n > 1)
        snprintf(said, size, "; %zu processes, each verified%s", tree.n,
                 failed ? " (but those the tree marks failed)" : "");
    process_tree_free(&tree);
    return rc;
}

static int run(int argc, char **argv)
{
    static const struct option options[] = {{NULL, 0, NULL, 0}};
    if (cli_getopt(&cmd_verify, argc, argv, "", options) != -1)
        return EXIT_USAGE;  /* cli_getopt said why */
    if (optind != argc - 1)
        return cli_usage_error(&cmd_verify, "expects one recording");
    struct trms_error err;
    struct recording rec;
    if (recording_open(argv[optind], &rec, &err) != 0)
        return cli_fail(&err);
    char trace[256], store[256], tree[128];
    int rc = verify_files(&rec, trace, sizeof trace, &err);
    if (rc == 0)
        rc = verify_store(rec.path, store, sizeof store, &err);
    /* A process tree: each process's recording, the last lines the tree's. */
    if (rc == 0)
        rc = verify_tree(&rec, tree, sizeof tree, &err);
    if (rc == 0)
        printf("%s: ok: %s; %s%s\n", rec.path, trace, store, tree);
    recording_close(&rec);
    return rc != 0 ? cli_fail(&err) : 0;
}

const struct command cmd_verify = {
    .name = "verify",
    .summary = "check every block of a recording and every page of its store",
    .usage = "usage: trms verify REC\n\n"
             "Reads every block of REC's event trace, checking its checksum and that\n"
             "the totals add up and agree with the meta, and its maps and routine\n"
             "names in full (what `trms pack` and `unpack` check too); reads every page of the\n"
             "result store and decodes every stored result, routine name and\n"
             "checkpoint (whose checksums it checks). Says what it checked in one\n"
             "line; the first problem found is one line on stderr and exit status 1.\n"
             "`trms info` checks only what is cheap (the trace's end).\n\n"
             "A recording of a process tree: every process's recording (REC/processes/\n"
             "N-PID) is verified the same way, one line each, and the tree in REC's meta\n"
             "checked against them (each one's pid and events); REC's line comes last.\n",
    .run = run,
};
