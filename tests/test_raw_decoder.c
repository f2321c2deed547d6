/* test_raw_decoder: the Valgrind tool's word stream against the trace it
 * becomes.
 *
 * Streams are built word by word with raw_stream.h's own encoders, decoded
 * into a real trace file, and the file is read back: every check compares
 * the exact event sequence as text ("t7 $100 R0x1000/1 c0x401000 r", calls
 * named by the address of the routine the trace defines for them), and the
 * summary beside it. A valid stream is delivered five ways - one feed, a
 * window growing a few words at a time, a pipe and a packet socket fed by a
 * child 3 and 13 bytes at a time (the packets force records split across
 * reads), and a whole file - and all five must agree. MAP and EXEC paths,
 * records cut at every word and streams cut at every byte are covered,
 * and every error must be reported as one. */
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "analyses/batch_event.h"
#include "common/cpu_features.h"
#include "common/error.h"
#include "common/oom.h"
#include "recorder/raw_decoder.h"
#include "recorder/raw_stream.h"
#include "recorder/record_window.h"
#include "tests/check.h"
#include "trace/routine_table.h"
#include "trace/trace_reader.h"
#include "trace/trace_writer.h"

static char tmpdir[] = "/tmp/trms-test-raw-decoder-XXXXXX";
static int files;  /* names trace and stream files uniquely */

/* Stack tops (x86-64: a call's sp points at the return address). */
#define S UINT64_C(0x7ffd00001000)
#define S2 UINT64_C(0x7ffe00001000)

/* ---- building streams ---- */

struct stream {
    uint64_t w[4096];
    size_t n;
    size_t starts[2048];  /* where each record begins (the magic included) */
    size_t n_starts;
};

static void put(struct stream *s, uint64_t word)
{
    if (s->n == sizeof s->w / sizeof s->w[0])
        abort();
    s->w[s->n++] = word;
}

static void begin(struct stream *s, uint64_t word)
{
    if (s->n_starts == sizeof s->starts / sizeof s->starts[0])
        abort();
    s->starts[s->n_starts++] = s->n;
    put(s, word);
}

static void start(struct stream *s)
{
    *s = (struct stream){0};
    begin(s, RAW_MAGIC);
}

static void ctl(struct stream *s, enum raw_control what, uint64_t low)
{
    begin(s, raw_control_word(what, low));
}

static void acc(struct stream *s, enum raw_op op, uint64_t size, uint64_t addr)
{
    begin(s, raw_access_word(op, size, addr));
}

static void ctl1(struct stream *s, enum raw_control what, uint64_t low, uint64_t a)
{
    ctl(s, what, low);
    put(s, a);
}

/* The path's bytes in WORDS words, NUL-padded, the way the tool packs them
 * (little-endian: the first byte is the low byte of the first word). */
static void put_bytes(struct stream *s, const char *bytes, size_t len, size_t words)
{
    for (size_t i = 0; i < words; i++) {
        uint64_t word = 0;
        for (size_t b = 0; b < 8; b++)
            if (i * 8 + b < len)
                word |= (uint64_t)(unsigned char)bytes[i * 8 + b] << (8 * b);
        put(s, word);
    }
}

/* A MAP whose path length field says LEN_FIELD, followed by the bytes of
 * PATH in WORDS words: well-formed when LEN_FIELD == strlen(PATH) and
 * WORDS == (LEN_FIELD + 8) / 8. */
static void map_raw(struct stream *s, uint64_t start_addr, uint64_t length, uint64_t offset,
                    unsigned prot, uint64_t len_field, const char *path, size_t words)
{
    ctl(s, RAW_MAP, start_addr);
    put(s, length);
    put(s, offset);
    put(s, prot | len_field << 8);
    put_bytes(s, path, strlen(path), words);
}

static void map_rec(struct stream *s, uint64_t start_addr, uint64_t length, uint64_t offset,
                    unsigned prot, const char *path)
{
    size_t len = strlen(path);
    map_raw(s, start_addr, length, offset, prot, len, path, (len + 8) / 8);
}

/* An EXEC whose length (in its first word) is LEN_FIELD, then PATH in
 * WORDS words. */
static void exec_raw(struct stream *s, uint64_t len_field, const char *path, size_t words)
{
    ctl(s, RAW_EXEC, len_field);
    put_bytes(s, path, strlen(path), words);
}

static void exec_rec(struct stream *s, const char *path)
{
    exec_raw(s, strlen(path), path, (strlen(path) + 8) / 8);
}

/* ---- decoding and reading back ---- */

struct seen_map {
    int unmap;
    uint64_t start, length, offset;
    unsigned prot;
    char path[128];
};

struct run {
    struct raw_decoder_callbacks cb;
    struct raw_summary summary;
    struct routine_table routines;       /* the decoder's */
    struct routine_table read_routines;  /* the trace's, as read back */
    unsigned classify_calls;
    int map_error;                       /* the map callback refuses */
    struct seen_map maps[16];
    size_t n_maps;
    char text[8192];                     /* the events read back */
    size_t len;
    uint64_t read_events;
    struct trms_error err;
};

/* Function entries the classifier knows (tail calls need one). */
static const uint64_t entries[] = {0x200, 0x300};

static void classify(void *ctx, uint64_t addr, struct code_class *out)
{
    struct run *r = ctx;
    r->classify_calls++;
    out->is_plt = 0;
    out->is_function_entry = 0;
    for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++)
        if (entries[i] == addr)
            out->is_function_entry = 1;
}

static struct seen_map *next_map(struct run *r)
{
    if (r->n_maps == sizeof r->maps / sizeof r->maps[0])
        abort();
    return &r->maps[r->n_maps++];
}

static int on_map(void *ctx, const struct raw_mapping *m, struct trms_error *err)
{
    struct run *r = ctx;
    if (r->map_error)
        return error_set(err, "map refused: %s", m->path);
    struct seen_map *s = next_map(r);
    *s = (struct seen_map){.start = m->start, .length = m->length, .offset = m->offset,
                           .prot = m->prot};
    CHECK(strlen(m->path) < sizeof s->path);
    snprintf(s->path, sizeof s->path, "%s", m->path);
    return 0;
}

static void on_unmap(void *ctx, uint64_t start_addr, uint64_t length)
{
    struct run *r = ctx;
    *next_map(r) = (struct seen_map){.unmap = 1, .start = start_addr, .length = length};
}

static void run_init(struct run *r, int with_classifier)
{
    memset(r, 0, sizeof *r);
    r->cb = (struct raw_decoder_callbacks){.classify = with_classifier ? classify : NULL,
                                           .map = on_map, .unmap = on_unmap, .ctx = r};
    routine_table_init(&r->routines);
    routine_table_init(&r->read_routines);
    u64map_init(&r->summary.unmodeled_syscalls);
}

static void run_free(struct run *r)
{
    raw_summary_free(&r->summary);
    routine_table_free(&r->routines);
    routine_table_free(&r->read_routines);
}

static void appendf(char *buf, size_t cap, size_t *len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void appendf(char *buf, size_t cap, size_t *len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *len, cap - *len, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= cap - *len)
        abort();  /* a test's text outgrew its buffer */
    *len += (size_t)n;
}

/* The trace reader's sink: one token per event. Calls are named by the
 * address of the address-only routine the trace defined (0xbad if the id
 * does not lead to one). */
static int collect(void *ctx, const struct event *ev, struct trms_error *err)
{
    (void)err;
    struct run *r = ctx;
    const char *sep = r->len ? " " : "";
    static const char *const access_names[] = {
        [EVENT_READ] = "R", [EVENT_WRITE] = "W", [EVENT_KREAD] = "KR", [EVENT_KWRITE] = "KW"};
    switch (ev->type) {
    case EVENT_THREAD:
        appendf(r->text, sizeof r->text, &r->len, "%st%" PRIu32, sep, ev->tid);
        break;
    case EVENT_CALL: {
        uint64_t addr = 0xbad;
        if (ev->routine < r->read_routines.count && !r->read_routines.items[ev->routine].name)
            addr = r->read_routines.items[ev->routine].addr;
        appendf(r->text, sizeof r->text, &r->len, "%sc0x%" PRIx64, sep, addr);
        break;
    }
    case EVENT_RETURN:
        appendf(r->text, sizeof r->text, &r->len, "%sr", sep);
        break;
    case EVENT_READ:
    case EVENT_WRITE:
    case EVENT_KREAD:
    case EVENT_KWRITE:
        appendf(r->text, sizeof r->text, &r->len, "%s%s0x%" PRIx64 "/%" PRIu64, sep,
                access_names[ev->type], ev->addr, ev->size);
        break;
    case EVENT_COST:
        appendf(r->text, sizeof r->text, &r->len, "%s$%" PRIu64, sep, ev->size);
        break;
    default:
        appendf(r->text, sizeof r->text, &r->len, "%s?%d", sep, (int)ev->type);
    }
    r->read_events++;
    return 0;
}

enum mode { WHOLE, WINDOWS, PIPE, PACKETS, FILE_WHOLE, MODES };
static const char *const mode_names[] = {"whole", "windows", "pipe", "packets", "file"};

/* One feed of everything: a complete stream is consumed to its last word. */
static int feed_whole(struct raw_decoder *d, const uint64_t *w, size_t n, struct trms_error *err)
{
    size_t used = SIZE_MAX;
    int rc = raw_decoder_feed(d, w, n, &used, err);
    if (rc == 0)
        CHECK_EQ(used, n);
    return rc;
}

/* A consumer that sees the words appear a few at a time (1, 2, 3, 5, 1, ...)
 * and re-presents what the decoder left; it must never skip ahead. */
static int feed_windows(struct raw_decoder *d, const uint64_t *w, size_t n,
                        struct trms_error *err)
{
    static const size_t steps[] = {1, 2, 3, 5};
    size_t pos = 0, avail = 0;
    for (size_t i = 0; avail < n; i++) {
        avail += steps[i % 4];
        if (avail > n)
            avail = n;
        size_t used = SIZE_MAX;
        if (raw_decoder_feed(d, w + pos, avail - pos, &used, err) != 0)
            return -1;
        CHECK(used <= avail - pos);
        if (used > avail - pos)
            return -1;
        pos += used;
    }
    CHECK_EQ(pos, n);
    return 0;
}

/* Writes BYTES[*OFF..N) into FD 3 and 13 bytes at a time (which piece
 * comes next in *PIECE); stops at the end or at the first failed write. */
static void write_pieces(int fd, const char *bytes, size_t n, size_t *off, size_t *piece)
{
    while (*off < n) {
        size_t len = *piece % 2 ? 13 : 3;
        if (len > n - *off)
            len = n - *off;
        ssize_t k = write(fd, bytes + *off, len);
        if (k <= 0)
            return;
        *off += (size_t)k;
        ++*piece;
    }
}

/* A child writing the rest of BYTES into FD; its status says whether it
 * wrote everything (not when the decoder stopped reading, an error case). */
static pid_t spawn_writer(int fd, int other, const char *bytes, size_t n, size_t off,
                          size_t piece)
{
    pid_t pid = fork();
    if (pid != 0)
        return pid;
    close(other);
    write_pieces(fd, bytes, n, &off, &piece);
    _exit(off == n ? 0 : 1);
}

static int decode_fd_mode(struct run *r, struct trace_writer *w, enum mode mode,
                          const void *bytes, size_t n, int expect_ok)
{
    int fds[2];
    if (mode == FILE_WHOLE) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/stream%d", tmpdir, ++files);
        int fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
        CHECK(fd >= 0);
        CHECK_EQ(write(fd, bytes, n), n);
        CHECK_EQ(lseek(fd, 0, SEEK_SET), 0);
        int rc = raw_decode_fd(fd, w, &r->routines, &r->cb, &r->summary, &r->err);
        close(fd);
        unlink(path);
        return rc;
    }
    /* Packets: each read returns one write, so records arrive split. A
     * pipe merges small writes, so a child writes while the decoder reads. */
    int made = mode == PIPE ? pipe(fds) : socketpair(AF_UNIX, SOCK_SEQPACKET, 0, fds);
    CHECK_EQ(made, 0);
    size_t off = 0, piece = 0;
    if (mode == PACKETS) {
        /* Up front while the socket takes them: forks are slow under ASan. */
        CHECK_EQ(fcntl(fds[1], F_SETFL, O_NONBLOCK), 0);
        write_pieces(fds[1], bytes, n, &off, &piece);
        CHECK_EQ(fcntl(fds[1], F_SETFL, 0), 0);
    }
    pid_t pid = 0;
    if (off < n || mode == PIPE) {
        pid = spawn_writer(fds[1], fds[0], bytes, n, off, piece);
        CHECK(pid > 0);
    }
    close(fds[1]);
    int rc = raw_decode_fd(fds[0], w, &r->routines, &r->cb, &r->summary, &r->err);
    close(fds[0]);  /* before waiting: a child blocked on a full pipe gets EPIPE */
    if (pid > 0) {
        int status = 0;
        CHECK_EQ(waitpid(pid, &status, 0), pid);
        if (expect_ok)
            CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    return rc;
}

/* Decodes BYTES[0..N) delivered as MODE into a fresh trace in R; when that
 * succeeds, closes the trace and reads it back into R->text. Returns the
 * decoder's status (its message in R->err). */
static int decode(struct run *r, enum mode mode, const void *bytes, size_t n, int expect_ok)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/trace%d", tmpdir, ++files);
    struct trms_error err = {{0}};
    struct trace_writer *w = trace_writer_create(path, &err);
    if (!w) {
        fprintf(stderr, "%s\n", err.message);
        abort();
    }
    int rc;
    if (mode == WHOLE || mode == WINDOWS) {
        if (n % 8 != 0)
            abort();  /* feeding takes whole words */
        uint64_t *words = malloc(n ? n : 1);
        if (!words)
            abort();
        memcpy(words, bytes, n);
        struct raw_decoder *d = raw_decoder_new(w, &r->routines, &r->cb, &r->summary);
        rc = mode == WHOLE ? feed_whole(d, words, n / 8, &r->err)
                           : feed_windows(d, words, n / 8, &r->err);
        struct trms_error ignored;
        if (raw_decoder_finish(d, rc == 0 ? &r->err : &ignored) != 0)
            rc = -1;
        free(words);
    } else {
        rc = decode_fd_mode(r, w, mode, bytes, n, expect_ok);
    }
    if (rc != 0) {
        trace_writer_abandon(w);
        unlink(path);
        return rc;
    }
    CHECK_EQ(trace_writer_close(w, &r->routines, &err), 0);
    struct trace_stats stats;
    if (trace_read(path, &r->read_routines, collect, r, &stats, &err) != 0) {
        fprintf(stderr, "reading back: %s\n", err.message);
        CHECK(0);
    }
    unlink(path);
    return rc;
}

/* Every delivery of S must succeed with the events EXPECTED, the same
 * summary and the same maps; OUT keeps the one-feed run (run_free it). */
static void decode_all(struct run *out, const struct stream *s, int with_classifier,
                       const char *expected, int line)
{
    for (int mode = 0; mode < MODES; mode++) {
        int before = check_failures;
        struct run r;
        run_init(&r, with_classifier);
        int rc = decode(&r, (enum mode)mode, s->w, s->n * 8, 1);
        CHECK_EQ(rc, 0);
        if (rc != 0)
            fprintf(stderr, "  %s\n", r.err.message);
        CHECK_STR(r.text, expected);
        /* Everything decoded, nothing else: the trace holds what was counted. */
        uint64_t counted = 0;
        for (int t = 0; t < EVENT_TYPE_COUNT; t++)
            counted += r.summary.events[t];
        CHECK_EQ(r.read_events, counted);
        CHECK_EQ(r.summary.words, s->n - 1);
        if (mode == WHOLE) {
            *out = r;
            out->cb.ctx = out;  /* R is gone; nothing calls back any more */
        } else {
            for (int t = 0; t < EVENT_TYPE_COUNT; t++)
                CHECK_EQ(r.summary.events[t], out->summary.events[t]);
            CHECK_EQ(r.summary.threads, out->summary.threads);
            CHECK_EQ(r.summary.tail_calls, out->summary.tail_calls);
            CHECK_EQ(r.summary.unwound_frames, out->summary.unwound_frames);
            CHECK_EQ(r.summary.ended, out->summary.ended);
            CHECK_EQ(r.summary.exit_code, out->summary.exit_code);
            CHECK_EQ(r.summary.unmodeled_syscalls.count, out->summary.unmodeled_syscalls.count);
            CHECK_STR(r.summary.exec_path ? r.summary.exec_path : "(none)",
                      out->summary.exec_path ? out->summary.exec_path : "(none)");
            CHECK_EQ(r.n_maps, out->n_maps);
            for (size_t i = 0; i < r.n_maps && i < out->n_maps; i++) {
                CHECK_EQ(r.maps[i].start, out->maps[i].start);
                CHECK_STR(r.maps[i].path, out->maps[i].path);
            }
            run_free(&r);
        }
        if (check_failures != before)
            fprintf(stderr, "  (decode_all from line %d, mode %s)\n", line, mode_names[mode]);
    }
}

/* Every delivery of S must fail with a message containing NEEDLE (but the
 * forked pipe: raw_decode_fd's reading is covered by the packets). */
static void expect_error(const struct stream *s, const char *needle, int line)
{
    for (int mode = 0; mode < MODES; mode++) {
        if (mode == PIPE)
            continue;
        int before = check_failures;
        struct run r;
        run_init(&r, 0);
        CHECK_EQ(decode(&r, (enum mode)mode, s->w, s->n * 8, 0), -1);
        CHECK(strstr(r.err.message, needle) != NULL);
        if (check_failures != before)
            fprintf(stderr, "  (expect_error from line %d, mode %s: \"%s\")\n", line,
                    mode_names[mode], r.err.message);
        run_free(&r);
    }
}

#define DECODE_ALL(out, s, classifier, expected)                                           \
    decode_all((out), (s), (classifier), (expected), __LINE__)
#define EXPECT_ERROR(s, needle) expect_error((s), (needle), __LINE__)

/* ---- the tests ---- */

static void magic_word_required(void)
{
    struct stream s;
    /* A wrong first word, even one bit off, or a bare access. */
    const uint64_t wrong[] = {RAW_MAGIC ^ 1, RAW_MAGIC << 8, raw_control_word(RAW_THREAD, 1)};
    for (size_t i = 0; i < sizeof wrong / sizeof wrong[0]; i++) {
        s = (struct stream){0};
        put(&s, wrong[i]);
        put(&s, raw_control_word(RAW_THREAD, 1));
        put(&s, raw_access_word(RAW_READ, 4, 0x1000));
        EXPECT_ERROR(&s, "does not start");
    }

    /* No stream at all: nothing fed, an empty feed, an empty fd, or a
     * magic word cut short. */
    struct run r;
    run_init(&r, 0);
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/trace%d", tmpdir, ++files);
    struct trace_writer *w = trace_writer_create(path, &r.err);
    CHECK(w != NULL);
    struct raw_decoder *d = raw_decoder_new(w, &r.routines, &r.cb, &r.summary);
    CHECK_EQ(raw_decoder_finish(d, &r.err), -1);
    CHECK(strstr(r.err.message, "no stream") != NULL);
    d = raw_decoder_new(w, &r.routines, &r.cb, &r.summary);
    size_t used = 99;
    CHECK_EQ(raw_decoder_feed(d, s.w, 0, &used, &r.err), 0);
    CHECK_EQ(used, 0);
    r.err.message[0] = '\0';
    CHECK_EQ(raw_decoder_finish(d, &r.err), -1);
    CHECK(strstr(r.err.message, "no stream") != NULL);
    trace_writer_abandon(w);
    unlink(path);
    run_free(&r);

    const uint64_t magic = RAW_MAGIC;
    for (size_t cut = 0; cut < 8; cut += 5) {
        for (int mode = PIPE; mode < MODES; mode++) {
            run_init(&r, 0);
            CHECK_EQ(decode(&r, (enum mode)mode, &magic, cut, 1), -1);
            CHECK(strstr(r.err.message, "no stream") != NULL);
            run_free(&r);
        }
    }

    /* The magic word alone is a valid, empty stream that did not end. */
    start(&s);
    DECODE_ALL(&r, &s, 0, "");
    CHECK_EQ(r.summary.words, 0);
    CHECK_EQ(r.summary.threads, 0);
    CHECK_EQ(r.summary.ended, 0);
    run_free(&r);
}

static void accesses_threads_costs(void)
{
    struct stream s;
    start(&s);
    char expected[4096];
    size_t len = 0;
    ctl(&s, RAW_THREAD, 7);
    ctl(&s, RAW_COST, 100);
    acc(&s, RAW_READ, 1, 0x1000);
    /* The widest access at the highest 48-bit address: neither field may
     * bleed into the other. */
    acc(&s, RAW_WRITE, RAW_MAX_ACCESS, RAW_LOW_MASK);
    acc(&s, RAW_READ, 8, UINT64_C(0x7ffd12345678));
    ctl(&s, RAW_THREAD, 7);  /* not a switch: no event */
    ctl1(&s, RAW_KREAD, 0x5000, UINT64_C(1) << 20);
    ctl1(&s, RAW_KWRITE, 0x6000, 0);  /* nothing written: no event */
    ctl1(&s, RAW_KREAD, 0x6000, 0);
    ctl1(&s, RAW_KWRITE, 0x6000, 3);
    appendf(expected, sizeof expected, &len,
            "t7 $100 R0x1000/1 W0xffffffffffff/4095 R0x7ffd12345678/8 KR0x5000/1048576 "
            "KW0x6000/3");
    ctl(&s, RAW_THREAD, 9);
    acc(&s, RAW_WRITE, 2, 0x10);
    ctl(&s, RAW_COST, 5);
    ctl(&s, RAW_COST, 0);    /* the tool's inline flow records: no event */
    ctl(&s, RAW_THREAD, 7);  /* back: a switch again, not a new thread */
    ctl(&s, RAW_THREAD, UINT32_MAX);
    appendf(expected, sizeof expected, &len, " t9 W0x10/2 $5 t7 t4294967295");
    /* Sizes across the encoder's classes, powers of two and not. */
    static const uint64_t sizes[] = {1, 2, 3, 4, 7, 8, 9, 15, 16, 17, 32, 63, 64, 65,
                                     100, 1000, 2048, 4094, 4095};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        uint64_t addr = UINT64_C(0x123456789abc) + i * 0x10000;
        acc(&s, i % 2 ? RAW_WRITE : RAW_READ, sizes[i], addr);
        appendf(expected, sizeof expected, &len, " %s0x%" PRIx64 "/%" PRIu64,
                i % 2 ? "W" : "R", addr, sizes[i]);
    }

    struct run r;
    DECODE_ALL(&r, &s, 0, expected);
    CHECK_EQ(r.summary.events[EVENT_THREAD], 4);
    CHECK_EQ(r.summary.threads, 3);
    CHECK_EQ(r.summary.events[EVENT_COST], 2);
    CHECK_EQ(r.summary.events[EVENT_READ], 2 + 10);
    CHECK_EQ(r.summary.events[EVENT_WRITE], 2 + 9);
    CHECK_EQ(r.summary.events[EVENT_KREAD], 1);
    CHECK_EQ(r.summary.events[EVENT_KWRITE], 1);
    CHECK_EQ(r.summary.events[EVENT_CALL], 0);
    CHECK_EQ(r.summary.events[EVENT_RETURN], 0);
    CHECK_EQ(r.summary.ended, 0);
    CHECK_EQ(r.n_maps, 0);
    run_free(&r);
}

static void calls_returns_jumps(void)
{
    struct stream s;
    start(&s);
    ctl(&s, RAW_THREAD, 1);
    ctl1(&s, RAW_CALL, 0x401000, S);
    ctl1(&s, RAW_CALL, 0x402000, S - 0x20);
    acc(&s, RAW_READ, 8, S - 0x28);
    ctl1(&s, RAW_RET, 0x401010, S - 0x18);     /* pops 0x402000 */
    ctl1(&s, RAW_RET, 0x401020, S - 0x40);     /* below every frame: nothing */
    ctl1(&s, RAW_JUMP, 0x401100, S - 0x8);     /* inside 0x401000: nothing */
    ctl1(&s, RAW_CALL, 0x402000, S - 0x20);    /* the same routine again */
    ctl1(&s, RAW_CALL, 0x403000, S - 0x40);
    ctl1(&s, RAW_RET, 0x400000, S + 8);        /* unwinds all three (2 beyond itself) */
    ctl1(&s, RAW_CALL, 0x401000, S);
    ctl1(&s, RAW_JUMP, 0x404000, S + 0x10);    /* sp above the frame: unwound */
    /* Each thread has its own stack: thread 2's higher sp must not unwind
     * thread 1's frame. */
    ctl1(&s, RAW_CALL, 0x401000, S);
    ctl(&s, RAW_THREAD, 2);
    ctl1(&s, RAW_CALL, 0x405000, S2);
    ctl(&s, RAW_THREAD, 1);
    ctl1(&s, RAW_RET, 0x400000, S + 8);
    ctl(&s, RAW_THREAD, 2);
    ctl1(&s, RAW_RET, 0x400000, S2 + 8);
    struct run r;
    DECODE_ALL(&r, &s, 0,
               "t1 c0x401000 c0x402000 R0x7ffd00000fd8/8 r c0x402000 c0x403000 r r r "
               "c0x401000 r c0x401000 t2 c0x405000 t1 r t2 r");
    CHECK_EQ(r.summary.events[EVENT_CALL], 7);
    CHECK_EQ(r.summary.events[EVENT_RETURN], 7);
    CHECK_EQ(r.summary.unwound_frames, 3);
    CHECK_EQ(r.summary.tail_calls, 0);
    CHECK_EQ(r.summary.threads, 2);
    /* Routines are interned once per address; jumps name none. */
    CHECK_EQ(r.routines.count, 4);
    CHECK_EQ(r.read_routines.count, 4);
    run_free(&r);

    /* With a classifier (called with cb->ctx): a jump to a function entry
     * at the frame's return address is a tail call, nested in the caller. */
    start(&s);
    ctl(&s, RAW_THREAD, 1);
    ctl1(&s, RAW_CALL, 0x100, S);
    ctl1(&s, RAW_JUMP, 0x200, S);
    ctl1(&s, RAW_JUMP, 0x210, S);  /* not an entry: a jump inside 0x200 */
    ctl1(&s, RAW_RET, 0x0, S + 8);
    DECODE_ALL(&r, &s, 1, "t1 c0x100 c0x200 r r");
    CHECK_EQ(r.summary.tail_calls, 1);
    CHECK_EQ(r.summary.unwound_frames, 0);
    CHECK(r.classify_calls >= 2);
    run_free(&r);
}

static void signals_and_thread_exit(void)
{
    struct stream s;
    start(&s);
    ctl(&s, RAW_THREAD, 1);
    ctl1(&s, RAW_CALL, 0x100, S);
    /* Operands: signal number, then sp (were they swapped, sp 11 would be
     * below the call inside the handler, which would unwind it). */
    ctl(&s, RAW_SIGNAL, 0x900);
    put(&s, 11);
    put(&s, S - 0x100);
    ctl1(&s, RAW_CALL, 0x910, S - 0x200);
    ctl(&s, RAW_SIGRETURN, 11);                /* the handler and its callee */
    acc(&s, RAW_READ, 4, 0x1000);
    ctl(&s, RAW_SIGRETURN, 11);                /* no handler pending: nothing */
    ctl(&s, RAW_SIGNAL, 0x900);                /* delivered above 0x100's frame */
    put(&s, 10);
    put(&s, S + 0x10);
    ctl(&s, RAW_SIGRETURN, 10);
    ctl1(&s, RAW_CALL, 0x100, S);
    ctl1(&s, RAW_CALL, 0x200, S - 0x20);
    ctl(&s, RAW_THREAD, 2);
    ctl1(&s, RAW_CALL, 0x300, S2);
    ctl(&s, RAW_THREAD_EXIT, 2);               /* only thread 2's frame */
    ctl(&s, RAW_THREAD, 1);
    ctl(&s, RAW_THREAD_EXIT, 1);
    struct run r;
    DECODE_ALL(&r, &s, 0,
               "t1 c0x100 c0x900 c0x910 r r R0x1000/4 r c0x900 r c0x100 c0x200 "
               "t2 c0x300 r t1 r r");
    CHECK_EQ(r.summary.events[EVENT_CALL], 7);
    CHECK_EQ(r.summary.events[EVENT_RETURN], 7);
    CHECK_EQ(r.summary.unwound_frames, 1);
    CHECK_EQ(r.summary.threads, 2);
    run_free(&r);
}

static void maps_and_unmaps(void)
{
    char long_path[101];
    for (int i = 0; i < 100; i++)
        long_path[i] = (char)('a' + i % 26);
    long_path[100] = '\0';

    struct stream s;
    start(&s);
    /* Maps need no thread: the tool reports the initial ones first. */
    map_rec(&s, 0x400000, 0x1000, 0, 5, "");
    map_rec(&s, UINT64_C(0x7f0000001000), 0x2000, 0x1000, 1, "libc.so");
    ctl(&s, RAW_THREAD, 1);
    acc(&s, RAW_READ, 1, 0x400000);
    map_rec(&s, RAW_LOW_MASK & ~UINT64_C(0xfff), UINT64_C(1) << 40,
            UINT64_C(0x123456789000), 3, "/usr/lib");
    acc(&s, RAW_READ, 2, 0x400002);
    map_rec(&s, 0x600000, 0x3000, 0x2000, 7, "/lib/x.so");
    acc(&s, RAW_WRITE, 4, 0x600000);
    ctl1(&s, RAW_UNMAP, 0x400000, 0x1000);
    map_rec(&s, 0x700000, 0x4000, 0, 0, long_path);
    acc(&s, RAW_WRITE, 8, 0x700000);
    ctl1(&s, RAW_UNMAP, UINT64_C(0x7f0000001000), 0x2000);
    struct run r;
    /* An access after each MAP decodes as itself: its length was right. */
    DECODE_ALL(&r, &s, 0, "t1 R0x400000/1 R0x400002/2 W0x600000/4 W0x700000/8");
    CHECK_EQ(r.n_maps, 7);
    const struct seen_map want[] = {
        {0, 0x400000, 0x1000, 0, 5, ""},
        {0, UINT64_C(0x7f0000001000), 0x2000, 0x1000, 1, "libc.so"},
        {0, UINT64_C(0xfffffffff000), UINT64_C(1) << 40, UINT64_C(0x123456789000), 3,
         "/usr/lib"},
        {0, 0x600000, 0x3000, 0x2000, 7, "/lib/x.so"},
        {1, 0x400000, 0x1000, 0, 0, ""},
        {0, 0x700000, 0x4000, 0, 0, ""},
        {1, UINT64_C(0x7f0000001000), 0x2000, 0, 0, ""},
    };
    for (size_t i = 0; i < r.n_maps && i < 7; i++) {
        CHECK_EQ(r.maps[i].unmap, want[i].unmap);
        CHECK_EQ(r.maps[i].start, want[i].start);
        CHECK_EQ(r.maps[i].length, want[i].length);
        CHECK_EQ(r.maps[i].offset, want[i].offset);
        CHECK_EQ(r.maps[i].prot, want[i].prot);
        CHECK_STR(r.maps[i].path, i == 5 ? long_path : want[i].path);
    }
    CHECK_EQ(strlen(r.maps[5].path), 100);
    run_free(&r);

    /* Without map callbacks the records are still skipped whole. */
    struct run bare;
    run_init(&bare, 0);
    bare.cb.map = NULL;
    bare.cb.unmap = NULL;
    CHECK_EQ(decode(&bare, WHOLE, s.w, s.n * 8, 1), 0);
    CHECK_STR(bare.text, "t1 R0x400000/1 R0x400002/2 W0x600000/4 W0x700000/8");
    CHECK_EQ(bare.n_maps, 0);
    run_free(&bare);

    /* A refusing callback stops the decoder with its own message. */
    struct run refused;
    run_init(&refused, 0);
    refused.map_error = 1;
    CHECK_EQ(decode(&refused, WHOLE, s.w, s.n * 8, 0), -1);
    CHECK_STR(refused.err.message, "map refused: ");
    run_free(&refused);

    /* A path length that disagrees with the NUL padding. */
    static const struct {
        uint64_t len_field;
        const char *path;
        size_t words;
    } bad[] = {
        {5, "abcdefg", 1},     /* shorter than the bytes: no NUL where it says */
        {9, "abcdefg", 2},     /* longer: the NUL comes early */
        {8, "abcdefghX", 2},   /* 8 bytes, but no NUL after them */
        {0, "a", 1},           /* empty, but a byte */
        {7, "abcdefgh", 1},    /* one word, no room for the NUL */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        start(&s);
        ctl(&s, RAW_THREAD, 1);
        map_raw(&s, 0x400000, 0x1000, 0, 5, bad[i].len_field, bad[i].path, bad[i].words);
        acc(&s, RAW_READ, 1, 0x400000);
        EXPECT_ERROR(&s, "raw stream: malformed path");
    }
}

static void syscalls_and_end(void)
{
    struct stream s;
    start(&s);
    ctl(&s, RAW_UNMODELED_SYSCALL, 1000);  /* before any thread: fine */
    ctl(&s, RAW_THREAD, 1);
    ctl(&s, RAW_UNMODELED_SYSCALL, 999);
    ctl1(&s, RAW_KWRITE, 0x7000, 16);
    ctl(&s, RAW_UNMODELED_SYSCALL, 999);
    ctl(&s, RAW_UNMODELED_SYSCALL, 999);
    ctl(&s, RAW_END, 3);
    struct run r;
    DECODE_ALL(&r, &s, 0, "t1 KW0x7000/16");
    const uint64_t *calls = u64map_find(&r.summary.unmodeled_syscalls, 999);
    CHECK(calls != NULL);
    CHECK_EQ(calls ? *calls : 0, 3);
    calls = u64map_find(&r.summary.unmodeled_syscalls, 1000);
    CHECK(calls != NULL);
    CHECK_EQ(calls ? *calls : 0, 1);
    CHECK(u64map_find(&r.summary.unmodeled_syscalls, 998) == NULL);
    CHECK_EQ(r.summary.unmodeled_syscalls.count, 2);
    CHECK_EQ(r.summary.ended, 1);
    CHECK_EQ(r.summary.exit_code, 3);
    run_free(&r);

    /* The same without END: the program was killed. */
    s.n--;
    s.n_starts--;
    DECODE_ALL(&r, &s, 0, "t1 KW0x7000/16");
    CHECK_EQ(r.summary.ended, 0);
    CHECK_EQ(r.summary.exit_code, 0);
    CHECK_EQ(r.summary.unmodeled_syscalls.count, 2);
    run_free(&r);

    /* END with exit code 0 still says the tool finished. */
    ctl(&s, RAW_END, 0);
    DECODE_ALL(&r, &s, 0, "t1 KW0x7000/16");
    CHECK_EQ(r.summary.ended, 1);
    CHECK_EQ(r.summary.exit_code, 0);
    CHECK(r.summary.exec_path == NULL);
    run_free(&r);

    /* EXEC announces the program an exec goes to, EXEC_FAILED withdraws
     * it; neither needs a thread nor makes an event, and the words after
     * the path decode as themselves. */
    start(&s);
    exec_rec(&s, "/bin/true");
    ctl(&s, RAW_EXEC_FAILED, 0);
    ctl(&s, RAW_THREAD, 1);
    exec_rec(&s, "");
    acc(&s, RAW_READ, 1, 0x10);
    exec_rec(&s, "/usr/bin");
    acc(&s, RAW_READ, 2, 0x20);
    exec_rec(&s, "/usr/bin/env");
    acc(&s, RAW_WRITE, 4, 0x30);
    DECODE_ALL(&r, &s, 0, "t1 R0x10/1 R0x20/2 W0x30/4");
    CHECK_STR(r.summary.exec_path, "/usr/bin/env");
    run_free(&r);
    ctl(&s, RAW_EXEC_FAILED, 0);
    DECODE_ALL(&r, &s, 0, "t1 R0x10/1 R0x20/2 W0x30/4");
    CHECK(r.summary.exec_path == NULL);
    run_free(&r);

    /* An EXEC path that disagrees with its padding. */
    start(&s);
    exec_raw(&s, 3, "abcdefg", 1);
    EXPECT_ERROR(&s, "raw stream: malformed path");
    start(&s);
    exec_raw(&s, 8, "abcdefghX", 2);
    EXPECT_ERROR(&s, "raw stream: malformed path");
}

/* A WINDOW word turns the recording window exactly where it stands: the
 * accesses before an "on" and after an "off" are left out, those between
 * written. Without a window it is no event, only counted. */
static void window_words(void)
{
    struct stream s;
    start(&s);
    ctl(&s, RAW_THREAD, 1);
    acc(&s, RAW_READ, 4, 0x1000);
    ctl(&s, RAW_WINDOW, 1);
    acc(&s, RAW_READ, 4, 0x2000);
    acc(&s, RAW_WRITE, 8, 0x2008);
    ctl(&s, RAW_WINDOW, 0);
    acc(&s, RAW_READ, 4, 0x3000);
    ctl(&s, RAW_WINDOW, 0);  /* already off: no change */
    struct run r;
    DECODE_ALL(&r, &s, 0, "t1 R0x1000/4 R0x2000/4 W0x2008/8 R0x3000/4");
    CHECK_EQ(r.summary.window_requests, 3);
    run_free(&r);

    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/trace%d", tmpdir, ++files);
    struct trms_error err = {{0}};
    struct trace_writer *w = trace_writer_create(path, &err);
    CHECK(w != NULL);
    run_init(&r, 0);
    struct record_window_options o = {.off_at_start = 1};
    struct record_window *win = record_window_new(&o, w, &r.routines, NULL, NULL);
    struct raw_decoder *d = raw_decoder_new(w, &r.routines, &r.cb, &r.summary);
    raw_decoder_set_window(d, win);
    CHECK_EQ(feed_whole(d, s.w, s.n, &r.err), 0);
    CHECK_EQ(raw_decoder_finish(d, &r.err), 0);
    struct record_window_summary sum;
    record_window_summary(win, &sum);
    CHECK_EQ(sum.turned, 2);
    CHECK_EQ(sum.left_out[EVENT_READ], 2);
    CHECK_EQ(sum.written, 3);  /* the thread's switch, then the two between */
    record_window_free(win);
    CHECK_EQ(trace_writer_close(w, &r.routines, &err), 0);
    struct trace_stats stats;
    CHECK_EQ(trace_read(path, &r.read_routines, collect, &r, &stats, &err), 0);
    CHECK_STR(r.text, "t1 R0x2000/4 W0x2008/8");
    unlink(path);
    run_free(&r);
}

static void errors(void)
{
    struct stream s;

    /* Thread-bound records before any THREAD. */
    static const enum raw_control need_thread[] = {
        RAW_COST, RAW_CALL, RAW_RET, RAW_JUMP, RAW_SIGNAL, RAW_SIGRETURN, RAW_THREAD_EXIT,
        RAW_KREAD, RAW_KWRITE};
    for (size_t i = 0; i < sizeof need_thread / sizeof need_thread[0]; i++) {
        start(&s);
        ctl(&s, need_thread[i], 0x100);
        for (unsigned k = 0; k < raw_control_operands(need_thread[i]); k++)
            put(&s, 8);
        ctl(&s, RAW_THREAD, 1);
        EXPECT_ERROR(&s, "raw stream: ");
    }
    for (int op = RAW_READ; op <= RAW_WRITE; op++) {
        start(&s);
        acc(&s, (enum raw_op)op, 4, 0x1000);
        ctl(&s, RAW_THREAD, 1);
        EXPECT_ERROR(&s, "raw stream: a memory access before any thread");
    }
    start(&s);
    ctl1(&s, RAW_CALL, 0x100, S);
    EXPECT_ERROR(&s, "raw stream: control flow before any thread");

    /* Opcodes no tool writes: 0, 3..14 (after valid records, so that the
     * error is not the decoder giving up at once). */
    for (uint64_t op = 0; op < RAW_CONTROL; op++) {
        if (op == RAW_READ || op == RAW_WRITE)
            continue;
        start(&s);
        ctl(&s, RAW_THREAD, 1);
        acc(&s, RAW_READ, 4, 0x1000);
        begin(&s, UINT64_C(0x1000) << RAW_LOW_SHIFT | op << RAW_OP_SHIFT | 4);
        EXPECT_ERROR(&s, "raw stream: unknown word");
    }

    /* Control words no tool writes: 0 and past the last one. */
    static const uint64_t unknown[] = {0, RAW_CHANNEL_WRITE + 1, 0x7ff, 0xfff};
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        start(&s);
        ctl(&s, RAW_THREAD, 1);
        begin(&s, UINT64_C(1) << RAW_LOW_SHIFT | (uint64_t)RAW_CONTROL << RAW_OP_SHIFT | unknown[i]);
        EXPECT_ERROR(&s, "raw stream: unknown control word");
    }

    /* A thread id the trace cannot hold. */
    start(&s);
    ctl(&s, RAW_THREAD, UINT64_C(1) << 32);
    EXPECT_ERROR(&s, "raw stream: thread id 4294967296 out of range");
}

/* The stream used to cut records at every word: one of each length. */
static void mixed_stream(struct stream *s)
{
    start(s);
    ctl(s, RAW_THREAD, 1);
    ctl1(s, RAW_CALL, 0x100, S);
    acc(s, RAW_READ, 4, 0x1000);
    ctl(s, RAW_SIGNAL, 0x900);
    put(s, 11);
    put(s, S - 0x100);
    map_rec(s, 0x400000, 0x1000, 0, 5, "/lib/libm.so.6 and more");
    ctl1(s, RAW_KREAD, 0x2000, 64);
    ctl(s, RAW_SIGRETURN, 11);
    map_rec(s, 0x500000, 0x1000, 0, 5, "");
    exec_rec(s, "/usr/bin/something");
    ctl(s, RAW_COST, 42);
    ctl1(s, RAW_RET, 0, S + 8);
    ctl(s, RAW_END, 0);
}

static const char mixed_expected[] = "t1 c0x100 R0x1000/4 c0x900 KR0x2000/64 r $42 r";

static void feed_leaves_cut_records(void)
{
    struct stream s;
    mixed_stream(&s);
    struct run r;
    DECODE_ALL(&r, &s, 0, mixed_expected);
    CHECK_EQ(r.n_maps, 2);
    run_free(&r);

    /* Cut after every word: the first feed takes the whole records before
     * the cut, the second (from where the first stopped) the rest. */
    for (size_t cut = 1; cut < s.n; cut++) {
        size_t boundary = 0;
        for (size_t i = 0; i < s.n_starts; i++)
            if (s.starts[i] <= cut)
                boundary = s.starts[i];
        int before = check_failures;
        run_init(&r, 0);
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/trace%d", tmpdir, ++files);
        struct trace_writer *w = trace_writer_create(path, &r.err);
        CHECK(w != NULL);
        struct raw_decoder *d = raw_decoder_new(w, &r.routines, &r.cb, &r.summary);
        size_t used = SIZE_MAX, used2 = SIZE_MAX;
        CHECK_EQ(raw_decoder_feed(d, s.w, cut, &used, &r.err), 0);
        CHECK_EQ(used, boundary);
        /* Only the records before the cut were decoded. */
        CHECK_EQ(r.summary.words, boundary - 1);
        CHECK_EQ(raw_decoder_feed(d, s.w + used, s.n - used, &used2, &r.err), 0);
        CHECK_EQ(used + used2, s.n);
        CHECK_EQ(raw_decoder_finish(d, &r.err), 0);
        CHECK_EQ(trace_writer_close(w, &r.routines, &r.err), 0);
        CHECK_EQ(trace_read(path, &r.read_routines, collect, &r, NULL, &r.err), 0);
        CHECK_STR(r.text, mixed_expected);
        CHECK_EQ(r.n_maps, 2);
        CHECK_EQ(r.summary.ended, 1);
        CHECK_STR(r.summary.exec_path, "/usr/bin/something");
        if (check_failures != before)
            fprintf(stderr, "  (cut after word %zu)\n", cut);
        unlink(path);
        run_free(&r);
    }
}

/* The packet mode's premise: a read returns one write, never more. */
static void packets_arrive_split(void)
{
    int fds[2];
    CHECK_EQ(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, fds), 0);
    CHECK_EQ(write(fds[1], "abc", 3), 3);
    CHECK_EQ(write(fds[1], "defghijklmnop", 13), 13);
    char buf[64];
    CHECK_EQ(read(fds[0], buf, sizeof buf), 3);
    CHECK_EQ(read(fds[0], buf, sizeof buf), 13);
    close(fds[0]);
    close(fds[1]);
}

static void fd_trailing_partial_record(void)
{
    /* A stream the program's death cut: the partial record is dropped, the
     * rest decoded, and the stream did not end. Cut everywhere inside the
     * last records, down to single bytes. */
    struct stream s;
    mixed_stream(&s);
    s.n--;  /* no END */
    s.n_starts--;
    size_t total = s.n * 8;
    for (size_t cut = total - 12 * 8; cut < total; cut++) {
        size_t boundary = 0;
        for (size_t i = 0; i < s.n_starts; i++)
            if (s.starts[i] * 8 <= cut)
                boundary = s.starts[i];
        for (int mode = PACKETS; mode < MODES; mode++) {
            struct run r;
            run_init(&r, 0);
            int before = check_failures;
            CHECK_EQ(decode(&r, (enum mode)mode, s.w, cut, 1), 0);
            CHECK_EQ(r.summary.words, boundary - 1);
            CHECK_EQ(r.summary.ended, 0);
            if (check_failures != before)
                fprintf(stderr, "  (cut at byte %zu, mode %s: %s)\n", cut, mode_names[mode],
                        r.err.message);
            run_free(&r);
        }
    }
    /* Cut inside the RET (a word and a half), and inside the second map
     * (5 words) after the EXEC (4) and the COST. */
    struct run r;
    run_init(&r, 0);
    CHECK_EQ(decode(&r, PIPE, s.w, total - 12, 1), 0);
    CHECK_STR(r.text, "t1 c0x100 R0x1000/4 c0x900 KR0x2000/64 r $42");
    run_free(&r);
    run_init(&r, 0);
    CHECK_EQ(decode(&r, PIPE, s.w, total - 2 * 8 - 8 - 4 * 8 - 3 * 8 - 4, 1), 0);
    CHECK_STR(r.text, "t1 c0x100 R0x1000/4 c0x900 KR0x2000/64 r");
    CHECK_EQ(r.n_maps, 1);
    CHECK(r.summary.exec_path == NULL);
    run_free(&r);
}

/* ---- long runs: the decoder's hot loop ---- */

struct expected_events {
    struct event *items;
    size_t n, cap;
    size_t seen;            /* read back so far */
    size_t first_mismatch;  /* SIZE_MAX when none */
};

static void expect_event(struct expected_events *x, struct event ev)
{
    if (x->n == x->cap) {
        x->cap = x->cap ? 2 * x->cap : 4096;
        x->items = realloc(x->items, x->cap * sizeof *x->items);
        if (!x->items)
            abort();
    }
    x->items[x->n++] = ev;
}

static int compare_event(void *ctx, const struct event *ev, struct trms_error *err)
{
    (void)err;
    struct expected_events *x = ctx;
    const struct event *want = x->seen < x->n ? &x->items[x->seen] : NULL;
    int same = want && want->type == ev->type;
    if (same && ev->type == EVENT_THREAD)
        same = want->tid == ev->tid;
    else if (same && event_is_access(ev->type))
        same = want->addr == ev->addr && want->size == ev->size;
    else if (same && ev->type == EVENT_COST)
        same = want->size == ev->size;
    if (!same && x->first_mismatch == SIZE_MAX)
        x->first_mismatch = x->seen;
    x->seen++;
    return 0;
}

static int compare_run(void *ctx, const struct event *events, size_t n, struct trms_error *err)
{
    for (size_t i = 0; i < n; i++)
        compare_event(ctx, &events[i], err);
    return 0;
}

/* A tap that also takes the hot loop's loads and stores straight into
 * batches (as `trms record`'s analysis does): room of varying sizes,
 * refused now and then (they come through RUN then); each batch is read
 * back as events. */
struct batch_tap {
    struct expected_events *x;
    struct batch_event slots[700];
    struct batch_event *start;
    unsigned calls;
    int flows;          /* calls, returns and costs may come in the room */
    uint64_t direct;    /* accesses that came as batch events */
    uint64_t direct_flows;  /* calls, returns and costs that did */
};

static int batch_tap_run(void *ctx, const struct event *events, size_t n, struct trms_error *err)
{
    struct batch_tap *t = ctx;
    return compare_run(t->x, events, n, err);
}

static int batch_tap_room(void *ctx, struct batch_event **next, struct batch_event **end,
                          int *flows)
{
    struct batch_tap *t = ctx;
    unsigned call = t->calls++;
    if (call % 5 == 4)
        return 1;
    t->start = t->slots;
    *next = t->slots;
    *end = t->slots + 1 + call * 37 % 700;
    *flows = t->flows && call % 3 != 2;
    return 0;
}

/* A batch event of the tap's as the struct event the writer was given
 * (analysis.h, analysis_access_room, says how each type is held). */
static struct event event_of_batch(const struct batch_event *b)
{
    struct event ev = {.type = (enum event_type)b->type, .addr = b->value, .size = b->size};
    /* Every shard sees what the writer hands on (the hot loop takes this
     * byte from its table: a wrong one would hide accesses from shards). */
    CHECK_EQ(b->shards, 0xff);
    if (b->type == EVENT_CALL) {
        ev.routine = (uint32_t)b->value;
        ev.addr = 0;
    } else if (b->type == EVENT_COST) {
        ev.size = b->value;
        ev.addr = 0;
        CHECK_EQ(b->size, (uint32_t)b->value);
    }
    return ev;
}

static void batch_tap_written(void *ctx, struct batch_event *next, uint64_t accesses,
                              uint64_t writes, const struct flow_note *flows, size_t n_flows)
{
    struct batch_tap *t = ctx;
    uint64_t seen_writes = 0;
    size_t seen_flows = 0;
#if defined(__SSE2__)
    _mm_sfence();
#endif
    CHECK_EQ((uint64_t)(next - t->start), accesses + n_flows);
    CHECK(t->flows || n_flows == 0);
    for (const struct batch_event *b = t->start; b < next; b++) {
        CHECK_EQ(b->shards, 0xff);
        seen_writes += b->type == EVENT_WRITE;
        if (event_is_flow((enum event_type)b->type)) {
            /* noted in order, with its slot */
            CHECK(seen_flows < n_flows);
            if (seen_flows < n_flows) {
                CHECK_EQ(flows[seen_flows].at, (uint32_t)(b - t->start));
                CHECK_EQ(flows[seen_flows].type, b->type);
                CHECK_EQ(flows[seen_flows].value, b->value);
            }
            seen_flows++;
        }
        struct event ev = event_of_batch(b);
        compare_event(t->x, &ev, NULL);
    }
    CHECK_EQ(seen_flows, n_flows);
    CHECK_EQ(seen_writes, writes);
    t->direct += accesses;
    t->direct_flows += n_flows;
}

static uint64_t next_random(uint64_t *state)
{
    *state = *state * 6364136223846793005u + 1442695040888963407u;
    return *state >> 16;
}

/* Long runs of loads and stores take the decoder's hot loop, which encodes
 * them straight into trace blocks. Runs that cross many blocks, fed in
 * pieces that cut them anywhere, with what the hot loop leaves to the
 * general path mixed in (sizes the record spells out, accesses of no
 * bytes, costs, thread switches), must read back exactly, address deltas
 * of every varint length and the 48-bit extremes included. */
/* BATCHES: 0 none, 1 for accesses, 2 for calls, returns and costs too.
 * DISCARD: the writer keeps nothing (`record --trace none`), and its hot
 * loop fills the batches without encoding: the tap must see the same. */
static void long_access_runs(int batches, int discard)
{
    enum { WORDS = 1600000 };
    uint64_t *w = malloc((WORDS + 1) * sizeof *w);
    struct expected_events x = {.first_mismatch = SIZE_MAX};
    if (!w)
        abort();
    size_t n = 0;
    w[n++] = RAW_MAGIC;
    uint64_t state = 12345, addr = 0x1000, reads = 0, writes = 0, tid = 1;
    w[n++] = raw_control_word(RAW_THREAD, tid);
    expect_event(&x, (struct event){.type = EVENT_THREAD, .tid = 1});
    static const uint64_t odd_sizes[] = {3, 12, 100, RAW_MAX_ACCESS};
    while (n < WORDS + 1) {
        uint64_t r = next_random(&state), pick = r % 1000;
        /* with the fused flow path, costs between most runs */
        if (pick == 0 || (batches == 2 && pick >= 800)) {
            uint64_t cost = r % 5000 + 1;
            w[n++] = raw_control_word(RAW_COST, cost);
            expect_event(&x, (struct event){.type = EVENT_COST, .size = cost});
            continue;
        }
        if (pick == 1) {
            tid = 3 - tid;
            w[n++] = raw_control_word(RAW_THREAD, tid);
            expect_event(&x, (struct event){.type = EVENT_THREAD, .tid = (uint32_t)tid});
            continue;
        }
        enum raw_op op = r >> 20 & 1 ? RAW_WRITE : RAW_READ;
        uint64_t size = UINT64_C(1) << (r >> 10 & 7) % 6;     /* 1..32 */
        if (pick < 5)
            size = odd_sizes[pick - 1];
        if (pick == 5)
            size = 0;                                          /* no event */
        uint64_t jump = r >> 24 & 15;
        if (jump == 0)
            addr = next_random(&state) & RAW_LOW_MASK;         /* anywhere */
        else if (jump == 1)
            addr = (r & 1) ? RAW_LOW_MASK - size + 1 : 0;      /* the extremes */
        else if (jump == 2)
            addr -= r >> 30 & 0xffff;                          /* back a little */
        addr &= RAW_LOW_MASK;
        w[n++] = raw_access_word(op, size, addr);
        if (size > 0) {
            expect_event(&x, (struct event){.type = op == RAW_READ ? EVENT_READ : EVENT_WRITE,
                                            .addr = addr, .size = size});
            reads += op == RAW_READ;
            writes += op == RAW_WRITE;
        }
        addr += size;  /* mostly sequential: one-byte deltas */
    }

    static const size_t pieces[] = {1, 7, 4096, 100000, 3, 65536, 2};
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/trace%d", tmpdir, ++files);
    struct run r;
    run_init(&r, 0);
    /* The writer's tap (the analysis of `trms record`) must see the same
     * events, in runs, those of the hot loop in their place. */
    struct expected_events tapped = {.items = x.items, .n = x.n, .first_mismatch = SIZE_MAX};
    struct trace_writer_options options = {.level = TRACE_ZSTD_LEVEL,
                                           .tap = {.run = compare_run, .ctx = &tapped},
                                           .discard = discard};
    struct batch_tap bt = {.x = &tapped, .flows = batches == 2};
    if (batches)
        options.tap = (struct trace_event_tap){.run = batch_tap_run, .ctx = &bt,
                                               .access_room = batch_tap_room,
                                               .accesses_written = batch_tap_written};
    struct trace_writer *tw = trace_writer_create_with(path, &options, &r.err);
    CHECK(tw != NULL);
    struct raw_decoder *d = raw_decoder_new(tw, &r.routines, &r.cb, &r.summary);
    for (size_t pos = 0, i = 0; pos < n; i++) {
        size_t piece = pieces[i % (sizeof pieces / sizeof pieces[0])], used = SIZE_MAX;
        if (piece > n - pos)
            piece = n - pos;
        CHECK_EQ(raw_decoder_feed(d, w + pos, piece, &used, &r.err), 0);
        CHECK_EQ(used, piece);  /* every record here is one word */
        pos += piece;
    }
    CHECK_EQ(raw_decoder_finish(d, &r.err), 0);
    /* Every event counted, encoded or not (less the thread records that
     * switch to the current thread: none here). */
    CHECK_EQ(trace_writer_events(tw), x.n);
    CHECK_EQ(trace_writer_close(tw, &r.routines, &r.err), 0);
    struct trace_stats stats = {0};
    if (discard) {
        CHECK(access(path, F_OK) != 0); /* no file */
    } else {
        CHECK_EQ(trace_read(path, &r.read_routines, compare_event, &x, &stats, &r.err), 0);
        CHECK_EQ(x.seen, x.n);
        CHECK_EQ(x.first_mismatch, SIZE_MAX);
    }
    CHECK_EQ(tapped.seen, x.n);
    CHECK_EQ(tapped.first_mismatch, SIZE_MAX);
    if (batches) /* most of them, not all */
        CHECK(bt.direct > (reads + writes) / 2 && bt.direct < reads + writes);
    if (batches == 2) /* most costs came in the batches, not all */
        CHECK(bt.direct_flows > r.summary.events[EVENT_COST] / 2 &&
              bt.direct_flows < r.summary.events[EVENT_COST]);
    else
        CHECK_EQ(bt.direct_flows, 0);
    CHECK(discard || stats.blocks >= 10);
    CHECK_EQ(r.summary.words, WORDS);
    CHECK_EQ(r.summary.events[EVENT_READ], reads);
    CHECK_EQ(r.summary.events[EVENT_WRITE], writes);
    unlink(path);
    run_free(&r);
    free(x.items);
    free(w);
}

/* The trace file S becomes through a recording window of options O (NULL:
 * no window), read back whole into *BYTES (*LEN), with the window's
 * summary. */
static void decode_through_window(const struct stream *s, const struct record_window_options *o,
                                  uint8_t **bytes, size_t *len, struct record_window_summary *sum)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/trace%d", tmpdir, ++files);
    struct trms_error err = {{0}};
    struct trace_writer *w = trace_writer_create(path, &err);
    CHECK(w != NULL);
    struct run r;
    run_init(&r, 1);
    struct record_window *win = o ? record_window_new(o, w, &r.routines, NULL, NULL) : NULL;
    struct raw_decoder *d = raw_decoder_new(w, &r.routines, &r.cb, &r.summary);
    if (win)
        raw_decoder_set_window(d, win);
    CHECK_EQ(feed_whole(d, s->w, s->n, &r.err), 0);
    CHECK_EQ(raw_decoder_finish(d, &r.err), 0);
    *sum = (struct record_window_summary){0};
    if (win)
        record_window_summary(win, sum);
    record_window_free(win);
    CHECK_EQ(trace_writer_close(w, &r.routines, &err), 0);
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL);
    *bytes = xmalloc(1 << 16);
    *len = f ? fread(*bytes, 1, 1 << 16, f) : 0;
    if (f)
        fclose(f);
    unlink(path);
    run_free(&r);
}

/* Calls, returns and costs through a window that leaves nothing out take
 * its short way (record_window.c, pass_flow_event): the trace must be
 * byte for byte the one without a window, and the one through the window's
 * general path (an event limit never reached turns the short way off),
 * which counts the same events written. Two threads, nested and unwound
 * frames, a tail call and a return before any call of its thread. */
static void window_flow_short_way(void)
{
    static struct stream s;
    start(&s);
    ctl(&s, RAW_THREAD, 1);
    ctl1(&s, RAW_RET, 0x400000, S + 8);        /* pops nothing */
    ctl(&s, RAW_COST, 7);
    for (int i = 0; i < 40; i++) {
        ctl1(&s, RAW_CALL, 0x401000 + 0x1000 * (uint64_t)(i % 3), S);
        ctl(&s, RAW_COST, 3 + (uint64_t)i * 50);
        acc(&s, RAW_READ, 4, 0x1000 + 8 * (uint64_t)i);
        ctl1(&s, RAW_CALL, 0x405000, S - 0x20);
        ctl1(&s, RAW_JUMP, 0x200, S - 0x20);   /* a tail call (an entry) */
        ctl(&s, RAW_COST, 200000);
        /* deeper by up to 7, then back one return at a time */
        for (uint64_t k = 0; k < (uint64_t)i % 8; k++)
            ctl1(&s, RAW_CALL, 0x407000 + 0x100 * k, S - 0x40 - 0x20 * k);
        for (uint64_t k = (uint64_t)i % 8; k > 0; k--) {
            ctl(&s, RAW_COST, k);
            ctl1(&s, RAW_RET, 0x401010, S - 0x38 - 0x20 * (k - 1));
        }
        if (i % 7 == 3) {
            ctl(&s, RAW_THREAD, 2);
            ctl1(&s, RAW_CALL, 0x406000, S2);
            ctl(&s, RAW_COST, 1);
            ctl1(&s, RAW_RET, 0x400000, S2 + 8);
            ctl(&s, RAW_THREAD, 1);
        }
        ctl1(&s, RAW_RET, 0x401010, S - 0x18);
        acc(&s, RAW_WRITE, 8, 0x2000 + 8 * (uint64_t)i);
        ctl1(&s, RAW_RET, 0x400000, S + 8);
    }
    ctl(&s, RAW_THREAD, 2);
    ctl1(&s, RAW_CALL, 0x406000, S2);
    uint8_t *none, *plain, *general;
    size_t none_len, plain_len, general_len;
    struct record_window_summary none_sum, plain_sum, general_sum;
    decode_through_window(&s, NULL, &none, &none_len, &none_sum);
    decode_through_window(&s, &(struct record_window_options){0}, &plain, &plain_len,
                          &plain_sum);
    decode_through_window(&s, &(struct record_window_options){.max_events = UINT64_MAX},
                          &general, &general_len, &general_sum);
    CHECK(none_len > 100);
    CHECK(none_len == plain_len && memcmp(none, plain, none_len) == 0);
    CHECK(general_len == plain_len && memcmp(general, plain, plain_len) == 0);
    CHECK_EQ(plain_sum.written, general_sum.written);
    CHECK(plain_sum.written > 300);
    for (int t = 0; t < EVENT_TYPE_COUNT; t++)
        CHECK_EQ(plain_sum.left_out[t], general_sum.left_out[t]);
    free(none);
    free(plain);
    free(general);
}

int main(void)
{
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    signal(SIGPIPE, SIG_IGN);  /* a child writing to a decoder that stopped */
    magic_word_required();
    accesses_threads_costs();
    calls_returns_jumps();
    signals_and_thread_exit();
    maps_and_unmaps();
    syscalls_and_end();
    window_words();
    window_flow_short_way();
    errors();
    feed_leaves_cut_records();
    packets_arrive_split();
    fd_trailing_partial_record();
    long_access_runs(0, 0);
    long_access_runs(1, 0);
    long_access_runs(2, 0);
    long_access_runs(1, 1);
    long_access_runs(2, 1);
    if (cpu_fast_pext()) { /* and the hot loop without pdep, as other processors run it */
        cpu_pext_forbid(1);
        long_access_runs(1, 0);
        cpu_pext_forbid(0);
    }
    if (rmdir(tmpdir) != 0)
        perror("rmdir");
    return check_report("test_raw_decoder");
}
