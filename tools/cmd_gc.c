/* trms gc: gives back disk space trms no longer needs: the staging
 * directories of recordings whose trms died (SIGKILL, a power loss), and
 * the room a recording's result store holds free. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "store/store_compact.h"
#include "store/store_repair.h"
#include "tools/cli.h"
#include "trace/recording.h"
#include "trace/staging.h"

void cli_note_leftovers(const char *dir)
{
    struct staging_leftover *items;
    size_t n;
    struct trms_error err;
    if (staging_find_leftovers(dir, &items, &n, &err) != 0 || n == 0)
        return;
    uint64_t bytes = 0;
    char names[512] = "";
    size_t used = 0;
    for (size_t i = 0; i < n; i++) {
        bytes += items[i].bytes;
        const char *base = strrchr(items[i].path, '/') ? strrchr(items[i].path, '/') + 1
                                                       : items[i].path;
        if (i < 3 && used < sizeof names)
            used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", i ? ", " : "",
                                     base);
    }
    char size[32];
    fprintf(stderr, "trms: note: %s holds %zu staging director%s left by a trms that died "
                    "while recording (%s, %s%s); `trms gc %s` removes them\n",
            dir, n, n == 1 ? "y" : "ies", cli_human_bytes(bytes, size), names,
            n > 3 ? ", ..." : "", dir);
    staging_leftovers_free(items, n);
}

static int is_recording(const char *path)
{
    char *meta = recording_file(path, RECORDING_META);
    struct stat st;
    int yes = stat(meta, &st) == 0 && S_ISREG(st.st_mode);
    free(meta);
    return yes;
}

static int collect_folder(const char *dir, int dry_run)
{
    struct staging_leftover *items;
    size_t n;
    struct trms_error err;
    if (staging_find_leftovers(dir, &items, &n, &err) != 0)
        return cli_fail(&err);
    int status = 0;
    uint64_t freed = 0;
    char size[32], when[32];
    for (size_t i = 0; i < n; i++) {
        strftime(when, sizeof when, "%Y-%m-%d %H:%M", localtime(&items[i].modified));
        cli_human_bytes(items[i].bytes, size);
        if (dry_run) {
            printf("would remove %s (%s, last written %s)\n", items[i].path, size, when);
        } else if (staging_remove_tree(items[i].path) == 0) {
            printf("removed %s (%s, last written %s)\n", items[i].path, size, when);
            freed += items[i].bytes;
        } else {
            error_set(&err, "%s: cannot remove: %s", items[i].path, strerror(errno));
            status = cli_fail(&err);
        }
    }
    if (n == 0)
        printf("%s: no staging directories left by a trms that died\n", dir);
    else if (!dry_run)
        printf("%s: %s given back\n", dir, cli_human_bytes(freed, size));
    staging_leftovers_free(items, n);
    return status;
}

/* The damaged stores analyses set aside (store_repair.h): removed, or
 * with DRY_RUN named. */
static int remove_set_aside(const char *rec, int dry_run)
{
    char **paths;
    uint64_t *bytes;
    size_t n;
    struct trms_error err;
    if (store_set_aside_list(rec, &paths, &bytes, &n, &err) != 0)
        return cli_fail(&err);
    int status = 0;
    char size[32];
    for (size_t i = 0; i < n; i++) {
        cli_human_bytes(bytes[i], size);
        if (dry_run)
            printf("would remove %s (%s, a damaged result store set aside)\n", paths[i], size);
        else if (store_set_aside_remove(paths[i], &err) == 0)
            printf("removed %s (%s, a damaged result store set aside)\n", paths[i], size);
        else
            status = cli_fail(&err);
        free(paths[i]);
    }
    free(paths);
    free(bytes);
    return status;
}

static int compact_store(const char *rec, int dry_run)
{
    struct store_usage before, after;
    struct trms_error err;
    char a[32], b[32], c[32];
    char *results = recording_file(rec, RECORDING_RESULTS);
    struct stat st;
    int has_store = stat(results, &st) == 0;
    free(results);
    if (!has_store) {
        printf("%s: no result store (never analyzed), nothing to give back\n", rec);
        return 0;
    }
    if (dry_run) {
        int rc = store_measure(rec, &before, &err);
        if (rc < 0)
            return cli_fail(&err);
        if (before.free_bytes)
            printf("%s: result store %s, %s of it free (compacting would give it back)\n", rec,
                   cli_human_bytes(before.file_bytes, a), cli_human_bytes(before.free_bytes, b));
        else
            printf("%s: result store %s, nothing to give back\n", rec,
                   cli_human_bytes(before.file_bytes, a));
        return 0;
    }
    int busy;
    int rc = store_compact(rec, 1, &before, &after, &busy, &err);
    if (rc < 0)
        return cli_fail(&err);
    if (busy) {
        error_set(&err, "%s: another trms has the result store open; run `trms gc %s` again "
                        "once it is done", rec, rec);
        return cli_fail(&err);
    }
    if (rc == 0)
        printf("%s: result store %s, nothing to give back\n", rec,
               cli_human_bytes(before.file_bytes, a));
    else
        printf("%s: result store compacted from %s to %s (%s given back)\n", rec,
               cli_human_bytes(before.file_bytes, a), cli_human_bytes(after.file_bytes, b),
               cli_human_bytes(before.file_bytes - after.file_bytes, c));
    return 0;
}

/* A recording: its set-aside stores, then its store compacted. */
static int compact_recording(const char *rec, int dry_run)
{
    int aside = remove_set_aside(rec, dry_run);
    int rc = compact_store(rec, dry_run);
    return rc ? rc : aside;
}

static int run(int argc, char **argv)
{
    static const struct option options[] = {{"dry-run", no_argument, NULL, 'n'},
                                            {NULL, 0, NULL, 0}};
    int dry_run = 0, c;
    while ((c = cli_getopt(&cmd_gc, argc, argv, "n", options)) != -1) {
        if (c == 'n')
            dry_run = 1;
        else
            return EXIT_USAGE;  /* cli_getopt said why */
    }
    const char *here[] = {"."};
    const char *const *paths = optind < argc ? (const char *const *)argv + optind : here;
    int n = optind < argc ? argc - optind : 1;
    int status = 0;
    for (int i = 0; i < n; i++) {
        struct stat st;
        int rc;
        if (stat(paths[i], &st) != 0 || !S_ISDIR(st.st_mode)) {
            struct trms_error err;
            error_set(&err, "%s: not a folder or a recording", paths[i]);
            rc = cli_fail(&err);
        } else {
            rc = is_recording(paths[i]) ? compact_recording(paths[i], dry_run)
                                        : collect_folder(paths[i], dry_run);
        }
        if (rc != 0)
            status = rc;
    }
    return status;
}

const struct command cmd_gc = {
    .name = "gc",
    .summary = "give back disk space: leftovers of crashed recordings, free store pages",
    .usage =
        "usage: trms gc [--dry-run] [PATH...]\n\n"
        "For each PATH (default: the current folder):\n"
        "  a folder     removes the staging directories (.NAME.staging-XXXXXX) that a\n"
        "               `trms record` or `import` killed before its end (SIGKILL, a\n"
        "               power loss) left there; those of a trms still running are kept\n"
        "  a recording  compacts its result store: the pages that analyses freed\n"
        "               (old checkpoints, replaced results) go back to the disk;\n"
        "               `trms analyze` does it by itself when half the store is free;\n"
        "               and removes the damaged stores analyses set aside\n"
        "               (results.damaged, results.damaged.2...)\n\n"
        "options:\n"
        "  -n, --dry-run   say what would be given back, and change nothing\n",
    .run = run,
};
