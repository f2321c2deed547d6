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

/* The directory (inside STAGING) of TREE's NTH image of PID (1, 2...;
 * 0, or one past its images: the latest), or NULL. */
static const char *image_dir(const struct process_tree *tree, int pid, uint64_t nth,
                             int root_pid)
{
    const char *latest = NULL;
    uint64_t seen = 0;
    /* The first image is not among TREE's items yet when the logs move. */
    int first_listed = 0;
    for (size_t i = 0; i < tree->n; i++)
        first_listed |= strcmp(tree->items[i].dir, ".") == 0;
    if (pid == root_pid && !first_listed) {
        latest = ".";
        if (++seen == nth)
            return latest;
    }
    for (size_t i = 0; i < tree->n; i++)
        if (tree->items[i].pid == pid) {
            latest = tree->items[i].dir;
            if (++seen == nth)
                return latest;
        }
    if (latest)
        return latest;
    return pid == root_pid || root_pid == 0 ? "." : NULL;
}

/* A log's name: "PID" (the pid's latest image's) or "PID.N" (its N-th
 * image's, moved aside by the tool at an exec). */
static int parse_log_name(const char *name, uint64_t *pid, uint64_t *nth)
{
    char head[32];
    const char *dot = strchr(name, '.');
    size_t len = dot ? (size_t)(dot - name) : strlen(name);
    if (len == 0 || len >= sizeof head)
        return -1;
    memcpy(head, name, len);
    head[len] = '\0';
    *nth = 0;
    if (parse_u64_cstr(head, pid) != PARSE_NUMBER_OK || *pid > INT32_MAX)
        return -1;
    if (dot && (parse_u64_cstr(dot + 1, nth) != PARSE_NUMBER_OK || *nth == 0))
        return -1;
    return 0;
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
        uint64_t pid, nth;
        if (e->d_name[0] == '.' || parse_log_name(e->d_name, &pid, &nth) != 0)
            continue;
        char *from = recording_file(dir, e->d_name);
        const char *target = image_dir(tree, (int)pid, nth, root_pid);
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
