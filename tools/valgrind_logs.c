#include "tools/valgrind_logs.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/oom.h"
#include "common/parse_number.h"
#include "trace/recording.h"

char *valgrind_logs_pattern(const char *staging)
{
    char *dir = recording_file(staging, VALGRIND_LOGS_DIR);
    mkdir(dir, 0755);  /* failing, Valgrind says so in one line */
    char *pattern = recording_file(dir, "%p");
    free(dir);
    return pattern;
}

/* The directory (inside STAGING) of TREE's latest image of PID, or NULL. */
static const char *image_dir(const struct process_tree *tree, int pid, int root_pid)
{
    for (size_t i = tree->n; i-- > 0;)
        if (tree->items[i].pid == pid)
            return tree->items[i].dir;
    return pid == root_pid || root_pid == 0 ? "." : NULL;
}

/* Appends FROM to TO: a line naming PID first when HEADER. */
static void append(const char *from, const char *to, int pid, int header, int recorded)
{
    FILE *in = fopen(from, "rb"), *out = in ? fopen(to, "ab") : NULL;
    if (out && header)
        fprintf(out, "trms: Valgrind's messages for pid %d%s:\n", pid,
                recorded ? "" : " (not recorded)");
    char buf[8192];
    for (size_t n; out && (n = fread(buf, 1, sizeof buf, in)) > 0;)
        fwrite(buf, 1, n, out);
    if (out)
        fclose(out);
    if (in)
        fclose(in);
}

void valgrind_logs_distribute(const char *staging, const struct process_tree *tree,
                              int root_pid)
{
    char *dir = recording_file(staging, VALGRIND_LOGS_DIR);
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d));) {
        uint64_t pid;
        if (e->d_name[0] == '.' || parse_u64_cstr(e->d_name, &pid) != PARSE_NUMBER_OK ||
            pid > INT32_MAX)
            continue;
        char *from = recording_file(dir, e->d_name);
        const char *target = image_dir(tree, (int)pid, root_pid);
        char *rec = recording_file(staging, target ? target : ".");
        char *to = recording_file(rec, VALGRIND_LOG);
        struct stat st;
        if (target && lstat(to, &st) != 0 && rename(from, to) == 0)
            ;
        else
            append(from, to, (int)pid, root_pid != 0, target != NULL);
        unlink(from);
        free(to);
        free(rec);
        free(from);
    }
    if (d)
        closedir(d);
    rmdir(dir);
    free(dir);
}
