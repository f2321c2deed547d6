#include "pack/recording_pack.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/oom.h"
#include "common/regular_file.h"
#include "common/stop_signals.h"
#include "pack/pack_format.h"
#include "pack/recording_check.h"
#include "store/result_codec.h"
#include "store/result_store.h"
#include "store/result_transfer.h"
#include "store/store_repair.h"
#include "store/symbol_file.h"
#include "store/symbol_store.h"
#include "trace/recording.h"

#define COPY_CHUNK (64 * 1024)
/* The longest name a file record may carry ("rr/" and an rr file name). */
#define PACK_NAME_MAX 1024
/* The largest result a result record may carry. */
#define PACK_RESULT_MAX (UINT64_C(1) << 32)

__attribute__((format(printf, 2, 3)))
static void note(struct pack_summary *s, const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    s->notes = xrealloc(s->notes, (s->n_notes + 1) * sizeof *s->notes);
    s->notes[s->n_notes++] = xstrdup(line);
}

void pack_summary_free(struct pack_summary *s)
{
    for (size_t i = 0; i < s->n_notes; i++)
        free(s->notes[i]);
    free(s->notes);
    memset(s, 0, sizeof *s);
}

/* ---- what a recording's files must be, on both sides ---- */

/* Reads the files of the recording in DIR as `trms verify` does, in full
 * (pack/recording_check.h). */
static int check_files(const char *dir, uint64_t *events, int *no_trace,
                       struct trms_error *err)
{
    struct recording_facts facts;
    int rc = recording_check(dir, 1, &facts, err);
    *events = facts.events;
    *no_trace = facts.no_trace;
    return rc;
}

/* A name inside a recording, as a file record carries it: one or two
 * plain names joined by '/', no control characters, nothing hidden, and
 * never the result store, which is rebuilt rather than taken. */
static int valid_part(const char *p, size_t len)
{
    if (len == 0 || p[0] == '.')
        return 0;
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)p[i] < 0x20 || p[i] == 0x7f || p[i] == '/')
            return 0;
    return 1;
}

static int valid_name(const char *name)
{
    const char *slash = strchr(name, '/');
    size_t first = slash ? (size_t)(slash - name) : strlen(name);
    if (!valid_part(name, first) || (slash && !valid_part(slash + 1, strlen(slash + 1))))
        return 0;
    char head[PACK_NAME_MAX + 1];
    snprintf(head, sizeof head, "%.*s", (int)first, name);
    return strcmp(head, RECORDING_RESULTS) != 0 && strcmp(head, RECORDING_PROCESSES) != 0 &&
           !store_is_set_aside_name(head);
}

/* A process's directory in a tree, as a 'P' record carries it and `trms
 * record` names it: "processes/N-PID", N and PID plain decimal numbers.
 * Nothing else: no other name may create a directory. */
static int valid_process_dir(const char *name)
{
    size_t prefix = strlen(RECORDING_PROCESSES "/");
    if (strncmp(name, RECORDING_PROCESSES "/", prefix) != 0)
        return 0;
    const char *p = name + prefix;
    size_t n = strspn(p, "0123456789");
    if (n == 0 || n > 10 || p[0] == '0' || p[n] != '-')
        return 0;
    p += n + 1;
    size_t m = strspn(p, "0123456789");
    return m > 0 && m <= 10 && p[m] == '\0';
}

/* ---- packing ---- */

struct names {
    char **items;
    size_t n;
};

static void names_add(struct names *l, const char *name)
{
    l->items = xrealloc(l->items, (l->n + 1) * sizeof *l->items);
    l->items[l->n++] = xstrdup(name);
}

static void names_free(struct names *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->items[i]);
    free(l->items);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The regular files of DIR (PREFIX/ before their names), and when DEPTH
 * allows, those of its directories; what else is there is noted. */
static void list_files(const char *dir, const char *prefix, int depth, struct names *out,
                       struct pack_summary *s)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct names here = {0};
    for (struct dirent *e; (e = readdir(d));)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            names_add(&here, e->d_name);
    closedir(d);
    if (here.n > 1)
        qsort(here.items, here.n, sizeof *here.items, by_name);
    for (size_t i = 0; i < here.n; i++) {
        char name[PACK_NAME_MAX + 1], *path = recording_file(dir, here.items[i]);
        snprintf(name, sizeof name, "%s%s%s", prefix, *prefix ? "/" : "", here.items[i]);
        struct stat st;
        if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode) && depth > 0 && valid_name(name))
            list_files(path, name, depth - 1, out, s);
        else if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) && valid_name(name))
            names_add(out, name);
        else if (!(*prefix == '\0' && (strcmp(here.items[i], RECORDING_RESULTS) == 0 ||
                                      strcmp(here.items[i], RECORDING_PROCESSES) == 0 ||
                                      store_is_set_aside_name(here.items[i]))) &&
                 here.items[i][0] != '.')
            note(s, "%s: not packed (not a regular file, or a name a recording does not hold)",
                 path);
        free(path);
    }
    names_free(&here);
}

/* One file record: DIR/NAME's bytes. */
static int pack_file(struct pack_writer *w, const char *dir, const char *name,
                     struct trms_error *err)
{
    char *path = recording_file(dir, name);
    const char *why;
    int fd = regular_file_open(path, REGULAR_FILE_NOFOLLOW, &why);
    struct stat st;
    int rc = 0;
    if (fd < 0 || fstat(fd, &st) != 0) {
        rc = error_set(err, "%s: cannot open: %s", path, fd < 0 ? why : strerror(errno));
    } else {
        uint64_t size = (uint64_t)st.st_size, done = 0;
        pack_begin(w, PACK_FILE);
        pack_put_string(w, name, strlen(name));
        pack_put_varint(w, size);
        uint8_t *buf = xmalloc(COPY_CHUNK);
        while (rc == 0 && done < size) {
            size_t want = size - done < COPY_CHUNK ? (size_t)(size - done) : COPY_CHUNK;
            ssize_t n = read(fd, buf, want);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                rc = error_set(err, "%s: %s", path,
                               n < 0 ? strerror(errno) : "it shrank while it was packed");
            else {
                pack_put(w, buf, (size_t)n);
                done += (uint64_t)n;
            }
        }
        free(buf);
        pack_end(w);
    }
    if (fd >= 0)
        close(fd);
    free(path);
    return rc;
}

struct result_packing {
    struct pack_writer *w;
    struct pack_summary *s;
    const char *rec_path;
};

/* The result decoded is the one KEY names (its sizes, its contexts). */
static int matches_key(const struct analysis_result *r, const struct result_key *key)
{
    return r->cell_size == key->cell_size && r->line_size == key->line_size &&
           (r->n_contexts > 0) == (key->contexts != 0);
}

static int pack_result(void *ctx, const struct stored_result_bytes *r)
{
    struct result_packing *p = ctx;
    char key[128];
    result_transfer_key_string(key, sizeof key, &r->info.key);
    struct trms_error why;
    struct analysis_result *decoded = result_decode(r->value, r->len, &why);
    if (decoded && !matches_key(decoded, &r->info.key))
        error_set(&why, "it is not the result its key names");
    if (!decoded || !matches_key(decoded, &r->info.key)) {
        note(p->s, "%s: the result %s is not packed: %s", p->rec_path, key, why.message);
        analysis_result_free(decoded);
        return 0;
    }
    analysis_result_free(decoded);
    pack_begin(p->w, PACK_RESULT);
    pack_put_string(p->w, key, strlen(key));
    pack_put_string(p->w, r->info.analyzed, strlen(r->info.analyzed));
    uint8_t latest = r->info.latest ? 1 : 0;
    pack_put(p->w, &latest, 1);
    pack_put_varint(p->w, r->len);
    pack_put(p->w, r->value, r->len);
    pack_end(p->w);
    p->s->results++;
    return 0;
}

/* The stored results, as records; a damaged store is noted (its results
 * are rebuilt by analyzing the unpacked recording). */
static int pack_results(struct pack_writer *w, const char *rec_path, struct pack_summary *s,
                        struct trms_error *err)
{
    struct result_store *store;
    struct trms_error why;
    int rc = result_store_open(rec_path, 0, &store, &why);
    if (rc == RESULT_STORE_NONE)
        return 0;
    if (rc != 0) {
        note(s, "%s; packed without results: `trms analyze` the unpacked recording", why.message);
        return 0;
    }
    struct result_packing p = {w, s, rec_path};
    rc = result_store_each_bytes(store, pack_result, &p, err);
    result_store_close(store);
    return rc;
}

/* The routine names of a recording that keeps them in its result store
 * (made before the symbols file existed), as a symbols file record. */
static int pack_legacy_names(struct pack_writer *w, const char *rec_path,
                             struct pack_summary *s)
{
    struct symbol_names names;
    struct trms_error why;
    if (symbol_store_load(rec_path, &names, &why) != 0) {
        note(s, "%s; packed without routine names", why.message);
        return 0;
    }
    if (names.count) {
        struct byte_buffer bytes = {0};
        symbol_file_encode(&names, &bytes);
        pack_begin(w, PACK_FILE);
        pack_put_string(w, SYMBOL_FILE_NAME, strlen(SYMBOL_FILE_NAME));
        pack_put_varint(w, bytes.len);
        pack_put(w, bytes.data, bytes.len);
        pack_end(w);
        byte_buffer_free(&bytes);
        s->files++;
    }
    symbol_names_free(&names);
    return 0;
}

/* The directories of REC_PATH/processes a tree's processes are recorded
 * in ("processes/N-PID", sorted by N); anything else there is noted. */
static void list_processes(const char *rec_path, struct names *out, struct pack_summary *s)
{
    char *top = recording_file(rec_path, RECORDING_PROCESSES);
    struct stat st;
    if (lstat(top, &st) != 0 || !S_ISDIR(st.st_mode)) {
        free(top);
        return;
    }
    struct names here = {0};
    DIR *d = opendir(top);
    for (struct dirent *e; d && (e = readdir(d));)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            names_add(&here, e->d_name);
    if (d)
        closedir(d);
    for (size_t i = 0; i < here.n; i++) {
        char name[PACK_NAME_MAX + 1], *path = recording_file(top, here.items[i]);
        snprintf(name, sizeof name, RECORDING_PROCESSES "/%s", here.items[i]);
        if (valid_process_dir(name) && lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
            names_add(out, name);
        else
            note(s, "%s: not packed (not a process's recording of the tree)", path);
        free(path);
    }
    names_free(&here);
    free(top);
    /* By N, as the tree numbers them. */
    for (size_t i = 1; i < out->n; i++)
        for (size_t j = i; j > 0 && strtoul(out->items[j - 1] + sizeof RECORDING_PROCESSES, NULL,
                                            10) > strtoul(out->items[j] + sizeof RECORDING_PROCESSES,
                                                          NULL, 10); j--) {
            char *t = out->items[j];
            out->items[j] = out->items[j - 1];
            out->items[j - 1] = t;
        }
}

/* The records of one recording: its files (the meta first, so that an
 * unpack knows at once what it is reading), its routine names when its
 * store keeps them, its results. */
static int pack_one(struct pack_writer *w, const char *rec_path, struct pack_summary *s,
                    struct trms_error *err)
{
    struct names files = {0};
    list_files(rec_path, "", 1, &files, s);
    int rc = pack_file(w, rec_path, RECORDING_META, err);
    for (size_t i = 0; rc == 0 && i < files.n; i++)
        if (strcmp(files.items[i], RECORDING_META) != 0)
            rc = pack_file(w, rec_path, files.items[i], err);
    s->files += files.n;
    if (rc == 0 && !recording_has(rec_path, SYMBOL_FILE_NAME))
        rc = pack_legacy_names(w, rec_path, s);
    if (rc == 0)
        rc = pack_results(w, rec_path, s, err);
    names_free(&files);
    return rc;
}

/* Checks the recording in DIR in full before it is packed; one kept
 * without its trace is refused (a pack carries the trace and rebuilds the
 * results from it). */
static int check_packable(const char *dir, uint64_t *events, struct trms_error *err)
{
    int no_trace;
    uint64_t n;
    if (check_files(dir, &n, &no_trace, err) != 0)
        return -1;
    if (no_trace)
        return recording_no_trace_error(dir, "packed (a pack carries the event trace "
                                        "and rebuilds the analysis from it)", err);
    *events += n;
    return 0;
}

int recording_pack(const char *rec_path, const char *out_path, struct pack_summary *s,
                   struct trms_error *err)
{
    memset(s, 0, sizeof *s);
    uint64_t events = 0;
    struct names processes = {0};
    list_processes(rec_path, &processes, s);
    int rc = check_packable(rec_path, &events, err);
    char **sub = xcalloc(processes.n + 1, sizeof *sub);
    for (size_t i = 0; rc == 0 && i < processes.n; i++) {
        sub[i] = recording_file(rec_path, processes.items[i]);
        rc = check_packable(sub[i], &events, err);
    }
    size_t len = strlen(out_path) + 32;
    char *tmp = xmalloc(len);
    snprintf(tmp, len, "%s.tmp-%ld", out_path, (long)getpid());
    FILE *fp = NULL;
    if (rc == 0) {
        stop_signals_remove_on_exit(tmp);  /* before it exists: a stop leaves no half archive */
        if (!(fp = fopen(tmp, "wb"))) {
            rc = error_set(err, "%s: cannot create: %s", out_path, strerror(errno));
            stop_signals_remove_on_exit(NULL);
        }
    }
    if (fp) {
        struct pack_writer w;
        pack_writer_start(&w, fp, processes.n ? PACK_FORMAT_TREE : PACK_FORMAT_SINGLE);
        rc = pack_one(&w, rec_path, s, err);
        for (size_t i = 0; rc == 0 && i < processes.n; i++) {
            pack_begin(&w, PACK_PROCESS);
            pack_put_string(&w, processes.items[i], strlen(processes.items[i]));
            pack_end(&w);
            s->processes++;
            rc = pack_one(&w, sub[i], s, err);
        }
        if (rc == 0 && pack_writer_finish(&w) != 0)
            rc = error_set(err, "%s: cannot write: %s", out_path, strerror(errno));
        s->bytes = w.bytes;
        if (fclose(fp) != 0 && rc == 0)
            rc = error_set(err, "%s: cannot write: %s", out_path, strerror(errno));
        if (rc == 0 && stop_signals_rename(tmp, out_path) != 0)
            rc = error_set(err, "%s: cannot create: %s", out_path, strerror(errno));
        if (rc != 0)
            unlink(tmp);
        stop_signals_remove_on_exit(NULL);
    }
    s->events = events;
    for (size_t i = 0; i < processes.n; i++)
        free(sub[i]);
    free(sub);
    free(tmp);
    names_free(&processes);
    return rc;
}

/* ---- unpacking ---- */

struct unpacking {
    struct pack_reader r;
    const char *staging;
    int top;                        /* the staging directory */
    const char *current;            /* the recording records go into: staging,
                                       then each process's in turn */
    int dir;                        /* its directory */
    struct result_store *store;     /* its, opened at its first result */
    struct names processes;         /* the processes' directories, staged */
    struct pack_summary *s;
};

/* The directory a file record's NAME goes into (its first part created
 * when new), and in *BASE the name inside it. */
static int directory_for(struct unpacking *u, const char *name, const char **base,
                         struct trms_error *err)
{
    const char *slash = strchr(name, '/');
    *base = slash ? slash + 1 : name;
    if (!slash)
        return dup(u->dir);
    char sub[PACK_NAME_MAX + 1];
    snprintf(sub, sizeof sub, "%.*s", (int)(slash - name), name);
    if (mkdirat(u->dir, sub, 0777) != 0 && errno != EEXIST)
        return error_set(err, "%s/%s: cannot create: %s", u->current, sub, strerror(errno));
    int fd = openat(u->dir, sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        error_set(err, "%s: record %" PRIu64 ": %s is not a directory of the recording",
                  u->r.name, u->r.records + 1, sub);
    return fd;
}

static int unpack_file(struct unpacking *u, struct trms_error *err)
{
    char name[PACK_NAME_MAX + 1];
    uint64_t size;
    if (pack_get_string(&u->r, name, PACK_NAME_MAX, "file name", err) != 0 ||
        pack_get_varint(&u->r, &size, err) != 0)
        return -1;
    if (!valid_name(name))
        return error_set(err, "%s: record %" PRIu64 " at byte %" PRIu64 " names a file a "
                              "recording does not hold", u->r.name, u->r.records + 1,
                         u->r.record_start);
    const char *base;
    int dir = directory_for(u, name, &base, err);
    if (dir < 0)
        return -1;
    int fd = openat(dir, base, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    close(dir);
    if (fd < 0)
        return error_set(err, "%s: record %" PRIu64 ": cannot create %s: %s", u->r.name,
                         u->r.records + 1, name,
                         errno == EEXIST ? "the archive holds it twice" : strerror(errno));
    uint8_t *buf = xmalloc(COPY_CHUNK);
    int rc = 0;
    for (uint64_t done = 0; rc == 0 && done < size;) {
        size_t n = size - done < COPY_CHUNK ? (size_t)(size - done) : COPY_CHUNK;
        rc = pack_get(&u->r, buf, n, err);
        for (size_t put = 0; rc == 0 && put < n;) {
            ssize_t m = write(fd, buf + put, n - put);
            if (m < 0 && errno == EINTR)
                continue;
            if (m <= 0)
                rc = error_set(err, "%s/%s: cannot write: %s", u->current, name,
                               strerror(errno));
            else
                put += (size_t)m;
        }
        done += n;
    }
    free(buf);
    if (close(fd) != 0 && rc == 0)
        rc = error_set(err, "%s/%s: cannot write: %s", u->current, name, strerror(errno));
    if (rc == 0)
        rc = pack_end_record(&u->r, err);
    u->s->files++;
    u->s->bytes += size;
    return rc;
}

static int printable(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            return 0;
    return 1;
}

static int unpack_result(struct unpacking *u, struct trms_error *err)
{
    char key[128];
    struct stored_result_bytes r = {0};
    uint8_t latest;
    uint64_t len;
    if (pack_get_string(&u->r, key, sizeof key - 1, "result key", err) != 0 ||
        pack_get_string(&u->r, r.info.analyzed, sizeof r.info.analyzed - 1, "date", err) != 0 ||
        pack_get(&u->r, &latest, 1, err) != 0 || pack_get_varint(&u->r, &len, err) != 0)
        return -1;
    uint64_t at = u->r.record_start, number = u->r.records + 1;
    if (result_transfer_key_parse(key, &r.info.key) != 0 || latest > 1 || !printable(r.info.analyzed))
        return error_set(err, "%s: record %" PRIu64 " at byte %" PRIu64 " is not a result "
                              "trms stores", u->r.name, number, at);
    if (len > PACK_RESULT_MAX)
        return error_set(err, "%s: record %" PRIu64 " at byte %" PRIu64 ": a result of %" PRIu64
                              " bytes", u->r.name, number, at, len);
    uint8_t *value = xmalloc(len ? (size_t)len : 1);
    int rc = pack_get(&u->r, value, (size_t)len, err);
    if (rc == 0)
        rc = pack_end_record(&u->r, err);
    struct analysis_result *decoded = NULL;
    struct trms_error why;
    if (rc == 0 && !(decoded = result_decode(value, (size_t)len, &why)))
        rc = error_set(err, "%s: record %" PRIu64 " at byte %" PRIu64 ": %s", u->r.name,
                       number, at, why.message);
    if (rc == 0 && !matches_key(decoded, &r.info.key))
        rc = error_set(err, "%s: record %" PRIu64 " at byte %" PRIu64 ": the result is not "
                            "the one its key says", u->r.name, number, at);
    analysis_result_free(decoded);
    if (rc == 0 && !u->store && result_store_open(u->current, 1, &u->store, err) != 0)
        rc = -1;
    r.info.latest = latest;
    r.value = value;
    r.len = (size_t)len;
    if (rc == 0)
        rc = result_store_put_bytes(u->store, &r, err);
    free(value);
    u->s->results += rc == 0;
    return rc;
}

/* A 'P' record: the records after it are the process's recording, in a
 * directory of its own made here (never one that exists: an archive that
 * names a process twice is refused). */
static int unpack_process(struct unpacking *u, struct trms_error *err)
{
    char name[PACK_NAME_MAX + 1];
    if (pack_get_string(&u->r, name, PACK_NAME_MAX, "process directory", err) != 0 ||
        pack_end_record(&u->r, err) != 0)
        return -1;
    uint64_t number = u->r.records, at = u->r.record_start;
    if (!valid_process_dir(name))
        return error_set(err, "%s: record %" PRIu64 " at byte %" PRIu64 " names a process "
                              "directory a recording does not hold (not processes/N-PID)",
                         u->r.name, number, at);
    if (mkdirat(u->top, RECORDING_PROCESSES, 0777) != 0 && errno != EEXIST)
        return error_set(err, "%s/%s: cannot create: %s", u->staging, RECORDING_PROCESSES,
                         strerror(errno));
    if (mkdirat(u->top, name, 0777) != 0)
        return error_set(err, "%s: record %" PRIu64 ": cannot create %s: %s", u->r.name, number,
                         name, errno == EEXIST ? "the archive holds it twice" : strerror(errno));
    int fd = openat(u->top, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return error_set(err, "%s/%s: %s", u->staging, name, strerror(errno));
    result_store_close(u->store);
    u->store = NULL;
    if (u->dir != u->top)
        close(u->dir);
    u->dir = fd;
    char *path = recording_file(u->staging, name);
    names_add(&u->processes, path);
    free(path);
    u->current = u->processes.items[u->processes.n - 1];
    u->s->processes++;
    return 0;
}

static int unpack_records(struct unpacking *u, struct trms_error *err)
{
    for (;;) {
        int kind;
        if (pack_next(&u->r, &kind, err) != 0)
            return -1;
        if (u->r.records == 0 && kind != PACK_END && kind != PACK_FILE)
            return error_set(err, "%s: the archive does not start with a file", u->r.name);
        int rc = kind == PACK_FILE      ? unpack_file(u, err)
                 : kind == PACK_RESULT  ? unpack_result(u, err)
                 : kind == PACK_PROCESS ? unpack_process(u, err)
                                        : pack_read_end(&u->r, err);
        if (rc != 0 || kind == PACK_END)
            return rc;
    }
}

int recording_unpack(const char *in_path, const char *rec_path,
                     int (*check_tree)(const char *staging, struct trms_error *err),
                     struct pack_summary *s, struct trms_error *err)
{
    memset(s, 0, sizeof *s);
    int from_stdin = strcmp(in_path, "-") == 0;
    const char *why;
    FILE *in = from_stdin ? stdin : regular_file_fopen(in_path, 0, &why);
    if (!in)
        return error_set(err, "%s: cannot open: %s", in_path, why);
    struct unpacking u = {.s = s};
    char *staging = NULL;
    struct trms_error inner;
    int no_trace; /* (pack makes none such) */
    int rc = pack_reader_start(&u.r, in, from_stdin ? "<stdin>" : in_path, err);
    if (rc == 0)
        rc = recording_stage(rec_path, &staging, err);
    if (rc == 0) {
        u.staging = u.current = staging;
        if ((u.top = u.dir = open(staging, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
            rc = error_set(err, "%s: %s", staging, strerror(errno));
    }
    if (rc == 0) {
        rc = unpack_records(&u, err);
        if (u.dir != u.top)
            close(u.dir);
        close(u.top);
    }
    result_store_close(u.store);
    /* Then every file again, as trms reads it, each process's too, before
     * the recording is put in place. */
    if (rc == 0 && check_files(staging, &s->events, &no_trace, &inner) != 0)
        rc = error_set(err, "%s: the recording it holds is damaged: %s", in_path, inner.message);
    for (size_t i = 0; rc == 0 && i < u.processes.n; i++) {
        uint64_t events;
        if (check_files(u.processes.items[i], &events, &no_trace, &inner) != 0)
            rc = error_set(err, "%s: the recording it holds is damaged: %s", in_path,
                           inner.message);
        s->events += events;
    }
    /* And the tree in the meta against the processes staged. */
    if (rc == 0 && check_tree && check_tree(staging, &inner) != 0)
        rc = error_set(err, "%s: the tree it holds does not hold together: %s", in_path,
                       inner.message);
    names_free(&u.processes);
    if (rc == 0)
        rc = recording_commit(staging, rec_path, err);
    if (rc != 0 && staging) {
        recording_discard(staging);
        error_rename(err, staging, rec_path);
    }
    free(staging);
    if (!from_stdin)
        fclose(in);
    return rc;
}
