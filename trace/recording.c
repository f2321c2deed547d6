#include "trace/recording.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/oom.h"
#include "common/regular_file.h"
#include "common/stop_signals.h"
#include "trace/staging.h"

char *recording_file(const char *path, const char *name)
{
    size_t len = strlen(path) + 1 + strlen(name) + 1;
    char *out = xmalloc(len);
    snprintf(out, len, "%s/%s", path, name);
    return out;
}

int recording_stage(const char *final_path, char **staging, struct trms_error *err)
{
    struct stat st;
    if (stat(final_path, &st) == 0)
        return error_set(err, "%s already exists; choose another -o or remove it first",
                         final_path);
    /* Stage beside the final path so that the rename stays on one file system. */
    const char *slash = strrchr(final_path, '/');
    size_t dir_len = slash ? (size_t)(slash - final_path) + 1 : 0;
    const char *base = slash ? slash + 1 : final_path;
    if (*base == '\0')
        return error_set(err, "%s: a recording path must name a directory to create",
                         final_path);
    size_t len = dir_len + strlen(base) + 32;
    char *tmpl = xmalloc(len);
    snprintf(tmpl, len, "%.*s.%s.staging-XXXXXX", (int)dir_len, final_path, base);
    /* Made and named for removal at once: a stop signal in exit mode
     * (stop_signals.h) never leaves it behind. */
    sigset_t before;
    stop_signals_hold(&before);
    int made = mkdtemp(tmpl) != NULL, e = errno;
    if (made)
        stop_signals_remove_on_exit(tmpl);
    pthread_sigmask(SIG_SETMASK, &before, NULL);
    if (!made) {
        free(tmpl);
        return error_set(err, "%s: cannot create the recording: %s", final_path, strerror(e));
    }
    /* Held while this process builds it: one nobody holds is a leftover. */
    if (staging_lock(tmpl, err) != 0) {
        stop_signals_remove_on_exit(NULL);
        rmdir(tmpl);
        free(tmpl);
        return -1;
    }
    *staging = tmpl;
    return 0;
}

int recording_write_meta(const char *staging, const char *const *keys,
                         const char *const *values, size_t n, struct trms_error *err)
{
    char *path = recording_file(staging, RECORDING_META);
    FILE *fp = fopen(path, "w");
    if (!fp) {
        error_set(err, "%s: cannot create: %s", path, strerror(errno));
        free(path);
        return -1;
    }
    fprintf(fp, "trms-recording %d\n", RECORDING_FORMAT);
    for (size_t i = 0; i < n; i++) {
        fprintf(fp, "%s ", keys[i]);
        /* One line per entry: newlines in a value (a command line) become spaces. */
        for (const char *v = values[i]; *v; v++)
            fputc(*v == '\n' || *v == '\r' ? ' ' : *v, fp);
        fputc('\n', fp);
    }
    int rc = 0;
    if (fflush(fp) != 0 || fsync(fileno(fp)) != 0)
        rc = error_set(err, "%s: cannot write: %s", path, strerror(errno));
    if (fclose(fp) != 0 && rc == 0)
        rc = error_set(err, "%s: cannot write: %s", path, strerror(errno));
    free(path);
    return rc;
}

int recording_commit(const char *staging, const char *final_path, struct trms_error *err)
{
    /* rename() would replace an empty directory that appeared meanwhile;
     * refuse instead, whatever appeared. */
    struct stat st;
    if (stat(final_path, &st) == 0)
        return error_set(err, "%s already exists; choose another -o or remove it first",
                         final_path);
    staging_release_reserve(staging);
    if (stop_signals_rename(staging, final_path) != 0)
        return error_set(err, "%s: cannot create the recording: %s", final_path,
                         strerror(errno));
    staging_unlock(staging);
    return 0;
}

void recording_discard(const char *staging)
{
    /* Whatever it holds: an rr trace, the routine names, a result store. */
    stop_signals_remove_on_exit(NULL);
    staging_remove_tree(staging);
    staging_unlock(staging);
}

static int read_meta(struct recording *rec, FILE *fp, const char *path, struct trms_error *err)
{
    char *line = NULL;
    size_t capacity = 0;
    ssize_t got;
    int rc = 0, first = 1;
    while ((got = getline(&line, &capacity, fp)) >= 0) {
        line[strcspn(line, "\n")] = '\0';
        if (first) {
            int format;
            if (sscanf(line, "trms-recording %d", &format) != 1) {
                rc = error_set(err, "%s: not a trms recording (bad meta file)", rec->path);
                break;
            }
            if (format != RECORDING_FORMAT) {
                rc = error_set(err, "%s: recording format %d is not supported (this trms "
                                    "reads format %d)", rec->path, format, RECORDING_FORMAT);
                break;
            }
            first = 0;
            continue;
        }
        char *space = strchr(line, ' ');
        if (!space)
            continue;
        *space = '\0';
        rec->meta = xrealloc(rec->meta, (rec->n_meta + 1) * sizeof *rec->meta);
        struct recording_meta_entry *e = &rec->meta[rec->n_meta++];
        e->key = strdup(line);
        e->value = strdup(space + 1);
        if (!e->key || !e->value)
            oom_exit("strdup");
    }
    if (rc == 0 && first)
        rc = error_set(err, "%s: not a trms recording (empty meta file %s)", rec->path, path);
    free(line);
    return rc;
}

int recording_open(const char *path, struct recording *rec, struct trms_error *err)
{
    memset(rec, 0, sizeof *rec);
    struct stat st;
    if (stat(path, &st) != 0)
        return error_set(err, "%s: no such recording (%s)", path, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return error_set(err, "%s: not a recording directory", path);
    rec->path = xmalloc(strlen(path) + 1);
    strcpy(rec->path, path);
    char *meta = recording_file(path, RECORDING_META);
    const char *why;
    FILE *fp = regular_file_fopen_in(path, RECORDING_META, &why);
    struct stat meta_st;
    int rc;
    if (!fp)
        rc = error_set(err, "%s: not a trms recording (cannot open %s: %s)", path, meta, why);
    else if (fstat(fileno(fp), &meta_st) != 0 || meta_st.st_size > RECORDING_META_MAX)
        rc = error_set(err, "%s: not a trms recording (%s is larger than a meta file can be)",
                       path, meta);
    else
        rc = read_meta(rec, fp, meta, err);
    if (fp)
        fclose(fp);
    free(meta);
    if (rc != 0)
        recording_close(rec);
    return rc;
}

void recording_close(struct recording *rec)
{
    for (size_t i = 0; i < rec->n_meta; i++) {
        free(rec->meta[i].key);
        free(rec->meta[i].value);
    }
    free(rec->meta);
    free(rec->path);
    memset(rec, 0, sizeof *rec);
}

const char *recording_meta(const struct recording *rec, const char *key)
{
    for (size_t i = 0; i < rec->n_meta; i++)
        if (strcmp(rec->meta[i].key, key) == 0)
            return rec->meta[i].value;
    return NULL;
}

int recording_has_trace(const struct recording *rec)
{
    const char *trace = recording_meta(rec, RECORDING_META_TRACE);
    return !trace || strcmp(trace, RECORDING_TRACE_NONE) != 0;
}

int recording_no_trace_error(const char *path, const char *what, struct trms_error *err)
{
    return error_set(err, "%s: recorded with --trace none, it keeps its analysis but no event "
                          "trace, so it cannot be %s", path, what);
}
