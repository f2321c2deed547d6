/* Fuzz target: a whole recording directory from a stranger. The input is
 * a list of sections, each a tag byte, a 2-byte little-endian length and
 * that many bytes; a tag that comes again continues its section (a store
 * is larger than one length holds):
 *
 *   'k'  an archive of `trms pack`, unpacked first into the recording
 *   'm'  REC/meta          'p'  REC/maps          's'  REC/symbols
 *   'e'  REC/events.trms   'd'  REC/results/data.mdb
 *   'x'  changes to data.mdb once written: 4-byte offsets (modulo its
 *        size) and a byte to put there, repeated
 *   'c'  a checkpoint: the trace analyzed up to the event its first 2
 *        bytes name and saved as `analyze` saves it; the rest are changes
 *        to its bytes (2-byte offsets, modulo its length, and a byte),
 *        made before it is stored, so its checksum holds (a crafted
 *        checkpoint, for `analyze --resume`)
 *   'o'  options: which formats and analysis options the commands take
 *
 * Then `trms info`, `report`, `analyze` and `report` again run on it as
 * the binary runs them (the commands' own entry points), and `trms pack`:
 * a recording that packs must unpack. Nothing may crash, hang, leak or
 * read out of bounds. Analyses whose trace would take long (huge accesses,
 * many events or threads) are skipped: slow is not unsafe, and the other
 * targets cover the trace. rr is kept off PATH: an rr recording's replay
 * fails to start, as where rr is missing. */
#include <dirent.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyses/analysis.h"
#include "analyses/analysis_state.h"
#include "common/byte_buffer.h"
#include "pack/recording_pack.h"
#include "store/checkpoint_store.h"
#include "tools/analyze_checkpoint.h"
#include "tests/fuzz/fuzz_target.h"
#include "tools/cli.h"
#include "trace/recording.h"
#include "trace/trace_reader.h"

static char work[64];               /* a directory of this process's */
static char rec[128], out[128], packed[128], unpacked[128];

static void remove_tree(const char *path, int levels);

static void clean_up(void)
{
    remove_tree(work, 4);
}

static void setup(void)
{
    if (work[0])
        return;
    /* In memory where there is a tmpfs: the store's commits sync. */
    snprintf(work, sizeof work, "/dev/shm/trms-fuzz-recording-XXXXXX");
    if (!mkdtemp(work)) {
        snprintf(work, sizeof work, "/tmp/trms-fuzz-recording-XXXXXX");
        if (!mkdtemp(work))
            abort();
    }
    snprintf(rec, sizeof rec, "%s/rec", work);
    snprintf(out, sizeof out, "%s/out", work);
    snprintf(packed, sizeof packed, "%s/packed", work);
    snprintf(unpacked, sizeof unpacked, "%s/unpacked", work);
    /* What the commands print is not what is tested. */
    if (!freopen("/dev/null", "w", stdout))
        abort();
    setenv("PATH", "/nonexistent-trms-fuzz", 1);
    atexit(clean_up);
}

/* Removes PATH and what it holds, three levels deep, links not followed. */
static void remove_tree(const char *path, int levels)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return;
    if (!S_ISDIR(st.st_mode) || levels == 0) {
        unlink(path);
        return;
    }
    DIR *d = opendir(path);
    if (d) {
        for (struct dirent *e; (e = readdir(d));) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                continue;
            char child[512];
            snprintf(child, sizeof child, "%s/%s", path, e->d_name);
            remove_tree(child, levels - 1);
        }
        closedir(d);
    }
    rmdir(path);
}

static void write_file(const char *dir, const char *name, const uint8_t *data, size_t len)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    unlink(path);
    FILE *fp = fopen(path, "wb");
    if (!fp)
        return;
    fwrite(data, 1, len, fp);
    fclose(fp);
}

/* Puts BYTE at each OFFSET the section names, in data.mdb. */
static void patch_store(const uint8_t *p, size_t len)
{
    char path[512];
    snprintf(path, sizeof path, "%s/results/data.mdb", rec);
    int fd = open(path, O_RDWR);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || st.st_size == 0) {
        if (fd >= 0)
            close(fd);
        return;
    }
    for (size_t i = 0; i + 5 <= len; i += 5) {
        uint32_t at = (uint32_t)p[i] | (uint32_t)p[i + 1] << 8 | (uint32_t)p[i + 2] << 16 |
                      (uint32_t)p[i + 3] << 24;
        if (pwrite(fd, &p[i + 4], 1, (off_t)(at % (uint64_t)st.st_size)) != 1)
            break;
    }
    close(fd);
}

struct section {
    uint8_t *data;   /* the section's pieces, in order */
    size_t len;
    int present;
};

/* A trace is analyzed only when its work is small: what the accesses
 * touch, the events, the threads. */
struct budget {
    uint64_t units, events;
    uint32_t tids[64];
    size_t n_tids;
};

static int weigh(void *ctx, const struct event *ev, struct trms_error *err)
{
    (void)err;
    struct budget *b = ctx;
    b->events++;
    b->units += 1 + (event_is_access(ev->type) ? ev->size : 0);
    size_t i = 0;
    while (ev->type == EVENT_THREAD && i < b->n_tids && b->tids[i] != ev->tid)
        i++;
    if (ev->type == EVENT_THREAD && i == b->n_tids && b->n_tids < 64)
        b->tids[b->n_tids++] = ev->tid;
    return b->units > (1 << 20) || b->n_tids >= 64 ? -1 : 0;
}

static int small_enough(void)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", rec, RECORDING_EVENTS);
    struct routine_table routines;
    routine_table_init(&routines);
    struct budget b = {0};
    struct trms_error err;
    int rc = trace_read(path, &routines, weigh, &b, NULL, &err);
    routine_table_free(&routines);
    /* A trace that fails to read fails the analysis fast: run it. */
    return rc == 0 || (b.units <= (1 << 20) && b.n_tids < 64);
}

/* ---- a crafted checkpoint ---- */

struct partial {
    struct analysis *analysis;
    struct trace_position at;
    uint64_t events, stop_after;
};

static int feed_until(void *ctx, const struct event *ev, struct trms_error *err)
{
    struct partial *p = ctx;
    if (analysis_event(p->analysis, ev, err) != 0)
        return -1;
    return ++p->events == p->stop_after ? -1 : 0;  /* stop here: the checkpoint's point */
}

static int collect_bytes(struct checkpoint_load *c, struct byte_buffer *bytes)
{
    const uint8_t *data;
    size_t len;
    for (;;) {
        if (checkpoint_load_fill(c, &data, &len) != 0)
            return -1;
        if (len == 0)
            return 0;
        byte_buffer_put(bytes, data, len);
    }
}

/* The checkpoint `analyze --resume` would find, changed as SEC says. */
static void put_checkpoint(const struct section *sec, int contexts)
{
    if (sec->len < 2)
        return;
    struct partial p = {.stop_after = 1 + (sec->data[0] | (uint64_t)sec->data[1] << 8)};
    struct analysis_options opt;
    analysis_options_default(&opt);
    opt.contexts = contexts;
    struct trms_error err;
    struct recording_identity id;
    struct result_store *store = NULL;
    struct routine_table routines;
    routine_table_init(&routines);
    char path[512];
    snprintf(path, sizeof path, "%s/%s", rec, RECORDING_EVENTS);
    FILE *fp = fopen(path, "rb");
    int rc = fp && recording_identity_of(rec, &id, &err) == 0 &&
             (p.analysis = analysis_new(&opt, &err)) != NULL ? 0 : -1;
    if (rc == 0) {
        struct trace_read_options o = {.at = &p.at};
        rc = trace_read_stream(fp, path, &routines, feed_until, &p, &o, NULL, &err);
        rc = p.events == p.stop_after || (rc == 0 && p.events > 0) ? 0 : -1;
    }
    if (rc == 0)
        rc = result_store_open(rec, 1, &store, &err);
    /* Where `analyze` keeps it: under the sizes alone, whatever the
     * contexts (the checkpoint's options say). */
    struct result_key key = {.cell_size = opt.cell_size, .line_size = opt.line_size};
    if (rc == 0) {
        analysis_quiesce(p.analysis);
        rc = analyze_checkpoint_save(store, &key, &id, &p.at, p.events, &routines, p.analysis,
                                     &err);
    }
    struct byte_buffer bytes = {0};
    struct checkpoint_load *c;
    uint64_t total;
    if (rc == 0 && checkpoint_load_open(store, &key, &c, &total, &err) == 0) {
        rc = collect_bytes(c, &bytes);
        checkpoint_load_close(c);
        for (size_t i = 2; rc == 0 && bytes.len && i + 3 <= sec->len; i += 3)
            bytes.data[(sec->data[i] | (size_t)sec->data[i + 1] << 8) % bytes.len] =
                sec->data[i + 2];
        struct checkpoint_save *save;
        if (rc == 0 && checkpoint_save_begin(store, &key, &save, &err) == 0) {
            if (checkpoint_save_bytes(save, bytes.data, bytes.len) == 0)
                checkpoint_save_commit(save, &err);
            else
                checkpoint_save_abort(save);
        }
    }
    byte_buffer_free(&bytes);
    result_store_close(store);
    if (p.analysis)
        analysis_free(p.analysis);
    routine_table_free(&routines);
    if (fp)
        fclose(fp);
}

static int run(const struct command *cmd, const char **args)
{
    char *argv[16];
    int argc = 0;
    argv[argc++] = (char *)cmd->name;
    for (; *args && argc < 15; args++)
        argv[argc++] = (char *)*args;
    argv[argc] = NULL;
    optind = 0;  /* glibc: start getopt afresh */
    return cmd->run(argc, argv);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    setup();
    remove_tree(rec, 3);
    remove_tree(out, 3);
    remove_tree(packed, 1);
    remove_tree(unpacked, 3);
    struct section sec[128] = {{0}};
    struct byte_buffer pieces[128] = {{0}};
    for (size_t at = 0; at + 3 <= size;) {
        uint8_t tag = data[at];
        size_t len = (size_t)data[at + 1] | (size_t)data[at + 2] << 8;
        at += 3;
        if (len > size - at)
            len = size - at;
        byte_buffer_put(&pieces[tag & 127], data + at, len);
        at += len;
        sec[tag & 127].present = 1;
    }
    for (size_t t = 0; t < 128; t++) {
        sec[t].data = pieces[t].data;
        sec[t].len = pieces[t].len;
    }
    /* An archive first: what it unpacks into is the recording. */
    if (sec['k'].present) {
        char archive[256];
        snprintf(archive, sizeof archive, "%s/in.trmspack", work);
        write_file(work, "in.trmspack", sec['k'].data, sec['k'].len);
        struct pack_summary s;
        struct trms_error err = {{0}};
        int rc = recording_unpack(archive, rec, NULL, &s, &err);
        fuzz_expect_message(rc, &err);
        pack_summary_free(&s);
        unlink(archive);
    }
    mkdir(rec, 0777);
    static const struct {
        int tag;
        const char *name;
    } files[] = {{'m', "meta"}, {'p', "maps"}, {'s', "symbols"}, {'e', "events.trms"},
                 {'d', "results/data.mdb"}};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        if (!sec[files[i].tag].present)
            continue;
        if (files[i].tag == 'd') {
            char dir[256];
            snprintf(dir, sizeof dir, "%s/results", rec);
            mkdir(dir, 0777);
        }
        write_file(rec, files[i].name, sec[files[i].tag].data, sec[files[i].tag].len);
    }
    if (sec['x'].present)
        patch_store(sec['x'].data, sec['x'].len);

    uint8_t o = sec['o'].present && sec['o'].len ? sec['o'].data[0] : 0;
    if (sec['c'].present)
        put_checkpoint(&sec['c'], (o & 16) != 0);
    static const char *const formats[] = {"text", "json", "csv", "html"};
    const char *format = formats[o & 3];
    run(&cmd_info, (const char *[]){rec, "--format", o & 4 ? "json" : "text", NULL});
    char report_file[256];
    snprintf(report_file, sizeof report_file, "%s/report", work);
    const char *report_args[] = {rec, "--format", format, "-o", report_file,
                                 o & 8 ? "--contexts" : "--top", o & 8 ? NULL : "5", NULL};
    run(&cmd_report, report_args);
    if (small_enough()) {
        /* --resume takes up a checkpoint the store holds, if any. */
        run(&cmd_analyze, (const char *[]){rec, "--checkpoint-every", "0",
                                           o & 64 ? "--resume" : "--cell-size",
                                           o & 64 ? "--checkpoint-every" : "4",
                                           o & 64 ? "0" : "--line-size", o & 64 ? NULL : "64",
                                           o & 16 ? "--contexts" : NULL, NULL});
        run(&cmd_report, report_args);
    }
    if (o & 32) {
        run(&cmd_report, (const char *[]){rec, "--format", "aprof", "-o", out, NULL});
        run(&cmd_diff, (const char *[]){rec, rec, NULL});
        run(&cmd_export, (const char *[]){rec, NULL});
    }
    /* What packs must unpack, whole. */
    struct pack_summary s;
    struct trms_error err = {{0}};
    int rc = recording_pack(rec, packed, &s, &err);
    fuzz_expect_message(rc, &err);
    pack_summary_free(&s);
    if (rc == 0) {
        if (recording_unpack(packed, unpacked, NULL, &s, &err) != 0) {
            fprintf(stderr, "a recording packed but did not unpack: %s\n", err.message);
            abort();
        }
        pack_summary_free(&s);
    }
    unlink(report_file);
    for (size_t t = 0; t < 128; t++)
        byte_buffer_free(&pieces[t]);
    return 0;
}
