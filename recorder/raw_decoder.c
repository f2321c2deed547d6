/* raw_decoder: raw words to events (see raw_decoder.h). */
#include "recorder/raw_decoder.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyses/batch_event.h"
#include "common/compiler.h"
#include "common/cpu_features.h"
#include "common/oom.h"
#include "recorder/raw_stream.h"
#include "recorder/record_window.h"
#include "trace/trace_writer.h"

#define CHUNK_WORDS (1 << 17)

/* Words by their low 16 bits: opcode << 12 | size for loads and stores. */
#define OP_AND_SUB(word) ((word) & 0xffff)
#define OP_AND_SUB_VALUES (1u << 16)

struct raw_decoder {
    const struct raw_decoder_callbacks *cb;
    struct raw_summary *summary;
    struct call_tracker tracker;
    struct u64map threads;
    uint32_t tid;
    int have_thread;
    struct trace_writer *writer;
    struct routine_table *routines;
    int started;        /* the magic word was seen */
    uint32_t source;    /* RAW_KSOURCE: the channel of the kernel writes at hand */
    struct record_window *window;   /* NULL: every event is written */
    uint64_t fast[OP_AND_SUB_VALUES];   /* fill_fast_table */
};

static int emit(void *ctx, const struct event *ev, struct trms_error *err)
{
    struct raw_decoder *d = ctx;
    if (d->window) /* it counts what it writes */
        return record_window_event(d->window, ev, err);
    d->summary->events[ev->type]++;
    return trace_writer_event(d->writer, ev, d->routines, err);
}

static int emit_access(struct raw_decoder *d, enum event_type type, uint64_t addr, uint64_t size,
                       struct trms_error *err)
{
    if (!d->have_thread)
        return error_set(err, "raw stream: a memory access before any thread");
    if (size == 0)
        return 0;
    if (d->window) {
        struct event ev = {.type = type, .addr = addr, .size = size};
        return record_window_event(d->window, &ev, err);
    }
    d->summary->events[type]++;
    return trace_writer_access(d->writer, type, addr, size, err);
}

static int switch_thread(struct raw_decoder *d, uint64_t tid, struct trms_error *err)
{
    if (tid > UINT32_MAX)
        return error_set(err, "raw stream: thread id %" PRIu64 " out of range", tid);
    if (d->have_thread && d->tid == tid)
        return 0;
    int inserted;
    u64map_upsert(&d->threads, tid, &inserted);
    d->summary->threads += inserted;
    d->tid = (uint32_t)tid;
    d->have_thread = 1;
    struct event ev = {.type = EVENT_THREAD, .tid = d->tid};
    return emit(d, &ev, err);
}

static int need_thread(const struct raw_decoder *d, struct trms_error *err)
{
    return d->have_thread ? 0 : error_set(err, "raw stream: control flow before any thread");
}

/* Words the record starting at W[0] takes, given at least its operand
 * words (path length is in the fourth word of a MAP). */
static size_t record_words(const uint64_t *w, size_t available)
{
    if (raw_word_op(w[0]) != RAW_CONTROL)
        return 1;
    enum raw_control what = (enum raw_control)raw_word_sub(w[0]);
    size_t n = 1 + raw_control_operands(what);
    if (what == RAW_MAP) {
        if (available < 4)
            return 4;
        n += (size_t)((w[3] >> 8) + 8) / 8;
    } else if (what == RAW_EXEC) {
        n += (size_t)(raw_word_low(w[0]) + 8) / 8;
    }
    return n;
}

/* The path of LENGTH bytes at P, checked against its padding. */
static const char *path_at(const uint64_t *p, uint64_t length, struct trms_error *err)
{
    const char *path = (const char *)p;
    if (memchr(path, '\0', (size_t)length + 1) != path + length) {
        error_set(err, "raw stream: malformed path");
        return NULL;
    }
    return path;
}

static int map(struct raw_decoder *d, const uint64_t *w, struct trms_error *err)
{
    const char *path = path_at(&w[4], w[3] >> 8, err);
    if (!path)
        return -1;
    struct raw_mapping m = {.start = raw_word_low(w[0]), .length = w[1], .offset = w[2],
                            .prot = (unsigned)(w[3] & 7), .path = path};
    return d->cb->map ? d->cb->map(d->cb->ctx, &m, err) : 0;
}

static int control(struct raw_decoder *d, const uint64_t *w, struct trms_error *err)
{
    enum raw_control what = (enum raw_control)raw_word_sub(w[0]);
    uint64_t low = raw_word_low(w[0]);
    struct call_tracker *t = &d->tracker;
    /* A read's source holds for its kernel writes only. */
    if (what != RAW_KWRITE && what != RAW_KREAD)
        d->source = 0;
    switch (what) {
    case RAW_THREAD:
        return switch_thread(d, low, err);
    case RAW_COST: {
        if (need_thread(d, err) != 0)
            return -1;
        if (low == 0) /* the tool's inline flow records say 0 rather than branch */
            return 0;
        struct event ev = {.type = EVENT_COST, .size = low};
        return emit(d, &ev, err);
    }
    case RAW_CALL:
        return need_thread(d, err) ? -1 : call_tracker_call(t, d->tid, low, w[1], err);
    case RAW_RET:
        return need_thread(d, err) ? -1 : call_tracker_return(t, d->tid, w[1], err);
    case RAW_JUMP:
        return need_thread(d, err) ? -1 : call_tracker_jump(t, d->tid, low, w[1], err);
    case RAW_KREAD:
        return emit_access(d, EVENT_KREAD, low, w[1], err);
    case RAW_KWRITE:
        if (d->source && w[1]) {
            if (!d->have_thread)
                return error_set(err, "raw stream: a memory access before any thread");
            struct event ev = {.type = EVENT_KWRITE, .addr = low, .size = w[1],
                               .routine = d->source};
            return emit(d, &ev, err);
        }
        return emit_access(d, EVENT_KWRITE, low, w[1], err);
    case RAW_KSOURCE:
        if (low == 0 || low > UINT32_MAX)
            return error_set(err, "raw stream: channel inode %" PRIu64 " out of range", low);
        d->source = (uint32_t)low;
        return 0;
    case RAW_CHANNEL_WRITE:
        u64map_upsert(&d->summary->channels_written, low, NULL);
        return 0;
    case RAW_SIGNAL:
        return need_thread(d, err) ? -1 : call_tracker_signal(t, d->tid, low, w[2], err);
    case RAW_SIGRETURN:
        return need_thread(d, err) ? -1 : call_tracker_sigreturn(t, d->tid, err);
    case RAW_THREAD_EXIT:
        return need_thread(d, err) ? -1 : call_tracker_thread_exit(t, d->tid, err);
    case RAW_MAP:
        return map(d, w, err);
    case RAW_UNMAP:
        if (d->cb->unmap)
            d->cb->unmap(d->cb->ctx, low, w[1]);
        return 0;
    case RAW_UNMODELED_SYSCALL:
        ++*u64map_upsert(&d->summary->unmodeled_syscalls, low, NULL);
        return 0;
    case RAW_EXEC: {
        const char *path = path_at(&w[1], low, err);
        if (!path)
            return -1;
        free(d->summary->exec_path);
        d->summary->exec_path = xstrdup(path);
        return 0;
    }
    case RAW_EXEC_FAILED:
        free(d->summary->exec_path);
        d->summary->exec_path = NULL;
        return 0;
    case RAW_WINDOW:
        /* Where the tool heard `trms control`: the window turns here. */
        d->summary->window_requests++;
        return d->window ? record_window_set(d->window, (int)(low & 1), err) : 0;
    case RAW_SYNC: {
        if (need_thread(d, err) != 0)
            return -1;
        if (low == 0 || low >= SYNC_KIND_END)
            return error_set(err, "raw stream: unknown sync kind %" PRIu64, low);
        struct sync_event ev = {.tid = d->tid, .kind = (uint32_t)low, .addr = w[1],
                                .value = w[2]};
        d->summary->sync_records++;
        if (d->window) /* it decides, as for the events */
            return record_window_sync(d->window, &ev, &d->summary->sync_left_out, err);
        return trace_writer_sync(d->writer, &ev, err);
    }
    case RAW_END:
        d->summary->ended = 1;
        d->summary->exit_code = low;
        return 0;
    default:
        return error_set(err, "raw stream: unknown control word 0x%016" PRIx64, w[0]);
    }
}

static int record(struct raw_decoder *d, const uint64_t *w, struct trms_error *err)
{
    switch (raw_word_op(w[0])) {
    case RAW_READ:
        return emit_access(d, EVENT_READ, raw_word_low(w[0]), raw_word_sub(w[0]), err);
    case RAW_WRITE:
        return emit_access(d, EVENT_WRITE, raw_word_low(w[0]), raw_word_sub(w[0]), err);
    case RAW_CONTROL:
        return control(d, w, err);
    default:
        return error_set(err, "raw stream: unknown word 0x%016" PRIx64, w[0]);
    }
}

/* What the hot loop needs of each load and store it encodes, in one load
 * by the word's low 16 bits: the high half of its batch event
 * (batch_event_high: size, type, every shard) in bits 0..47 and its trace
 * opcodes (event_load_store_opcodes) above. 0 for the rest (no bytes, or
 * a size the record must spell out): the general path takes those. The
 * struct is calloc'ed. */
#define FAST_OPCODES_SHIFT 48
#define FAST_BATCH_HIGH(fast) ((fast) << 16 >> 16)
static void fill_fast_table(uint64_t *fast)
{
    static const enum event_type types[] = {[RAW_READ] = EVENT_READ, [RAW_WRITE] = EVENT_WRITE};
    for (uint64_t op = RAW_READ; op <= RAW_WRITE; op++)
        for (uint64_t size = 1; size <= RAW_MAX_ACCESS; size++)
            if (event_size_class(size) != EVENT_SIZE_FOLLOWS)
                fast[op << RAW_OP_SHIFT | size] =
                    batch_event_high((uint32_t)size, (uint8_t)types[op], 0xff) |
                    (uint64_t)event_load_store_opcodes(types[op], size) << FAST_OPCODES_SHIFT;
}

_Static_assert(RAW_READ == 1 && RAW_WRITE == 2, "the hot loop counts writes by opcode sum");

/* Longest record the hot loop writes. */
#define FAST_RECORD_MAX LOAD_STORE_RECORD_MAX

/* Consecutive loads and stores, encoded straight into the trace block: the
 * recorder's hot loop (nearly every word is one). Stops at any word the
 * table leaves to the general path; returns the words taken. */
/* Consecutive loads and stores the recording window leaves out: counted
 * only. Returns the words taken. */
static size_t skip_access_run(struct raw_decoder *d, const uint64_t *w, size_t n)
{
    size_t i = 0;
    uint64_t ops = 0;
    for (; i < n && d->fast[OP_AND_SUB(w[i])]; i++)
        ops += OP_AND_SUB(w[i]) >> RAW_OP_SHIFT;
    record_window_left_out(d->window, EVENT_READ, i - (ops - i));
    record_window_left_out(d->window, EVENT_WRITE, ops - i);
    d->summary->words += i;
    return i;
}

/* Events the writer's tap gets at a time from the hot loop. */
#define TAP_RUN 256

/* How the hot loop hands its accesses on, besides the trace. */
enum access_copy {  /* (access_loops' index: 0, 1, 2) */
    COPY_NONE = 0,      /* no tap */
    COPY_EVENTS = 1,    /* as struct events, for the tap's run */
    COPY_BATCH = 2,     /* straight into the tap's batches (trace_writer_access_room) */
};

/* Where the hot loop's encoding stands: the next trace byte and the sum of
 * the opcodes taken (one per read, two per write). */
struct access_loop {
    uint8_t *p;
    uint64_t ops;
};

/* The hot loop proper: encodes W[I..STOP) at S->p (unless not ENCODE: a
 * writer that keeps nothing) while they are loads and stores it takes,
 * each also copied as COPY says (COPY_BATCH: to SLOT[i]; COPY_EVENTS: to
 * OUT[i - I]); returns where it stopped. */
static ALWAYS_INLINE size_t access_loop(const uint64_t *w, size_t i, size_t stop,
                                        const uint64_t *table, struct event_encoder *enc,
                                        struct access_loop *s, enum access_copy copy,
                                        struct batch_event *slot, struct event *out,
                                        int pdep, int encode)
{
    uint8_t *p = s->p;
    uint64_t ops = s->ops;
    for (size_t from = i; i < stop; i++) {
        uint64_t word = w[i];  /* once: the stores below may alias W */
        uint64_t op_and_sub = OP_AND_SUB(word);
        uint64_t fast = table[op_and_sub];
        if (fast == 0)
            break;
        if (encode)
            p = event_put_load_store_with(enc, (uint16_t)(fast >> FAST_OPCODES_SHIFT),
                                          raw_word_low(word), op_and_sub & RAW_SUB_MASK, p,
                                          pdep);
        ops += op_and_sub >> RAW_OP_SHIFT;
        if (copy == COPY_BATCH)
            batch_event_store_halves(&slot[i], raw_word_low(word), FAST_BATCH_HIGH(fast));
        if (copy == COPY_EVENTS)
            out[i - from] = (struct event){
                .type = (op_and_sub >> RAW_OP_SHIFT) == RAW_READ ? EVENT_READ : EVENT_WRITE,
                .addr = raw_word_low(word), .size = op_and_sub & RAW_SUB_MASK};
    }
    s->p = p;
    s->ops = ops;
    return i;
}

/* One function for each way of copying (and of spreading an address's
 * bytes: PDEP), kept out of raw_decoder_feed: its register allocation is
 * the loop's own (fewer instructions an access as measured; GCC still
 * reloads W, the table and the encoder from the stack, and a
 * pointer-walking loop was no better). */
#define ACCESS_LOOP_ARGS                                                                     \
    const uint64_t *w, size_t i, size_t stop, const uint64_t *table,                         \
        struct event_encoder *enc, struct access_loop *s, struct batch_event *slot,          \
        struct event *out
#define ACCESS_LOOP(name, copy, pdep)                                                        \
    static __attribute__((noinline)) size_t name(ACCESS_LOOP_ARGS)                           \
    {                                                                                        \
        (void)slot;                                                                          \
        (void)out;                                                                           \
        return access_loop(w, i, stop, table, enc, s, copy,                                  \
                           copy == COPY_BATCH ? slot : NULL,                                 \
                           copy == COPY_EVENTS ? out : NULL, pdep, 1);                       \
    }
ACCESS_LOOP(loop_plain, COPY_NONE, 0)
ACCESS_LOOP(loop_events, COPY_EVENTS, 0)
ACCESS_LOOP(loop_batch, COPY_BATCH, 0)
ACCESS_LOOP(loop_plain_pdep, COPY_NONE, 1)
ACCESS_LOOP(loop_events_pdep, COPY_EVENTS, 1)
ACCESS_LOOP(loop_batch_pdep, COPY_BATCH, 1)

typedef size_t (*access_loop_fn)(ACCESS_LOOP_ARGS);
/* By [pdep fast][enum access_copy]. */
static const access_loop_fn access_loops[2][3] = {
    {loop_plain, loop_events, loop_batch},
    {loop_plain_pdep, loop_events_pdep, loop_batch_pdep},
};

/* Counts a run of I loads and stores whose opcodes sum to OPS (one a
 * read, two a write), handed to the tap's batches up to SLOT + I unless
 * SLOT is NULL. */
static void count_access_run(struct raw_decoder *d, struct batch_event *slot, size_t i,
                             uint64_t ops)
{
    if (slot)
        trace_writer_accesses_written(d->writer, slot + i, i, ops - i);
    d->summary->events[EVENT_READ] += i - (ops - i);
    d->summary->events[EVENT_WRITE] += ops - i;
    d->summary->words += i;
    if (d->window)
        record_window_wrote(d->window, i);
}

/* The hot loop, with COPY of each access (a constant where it is inlined;
 * COPY_BATCH: into SLOT on, room for N). */
static ALWAYS_INLINE size_t encode_access_run(struct raw_decoder *d, const uint64_t *w,
                                              size_t n, enum access_copy copy,
                                              struct batch_event *slot, struct trms_error *err)
{
    int tapped = copy == COPY_EVENTS;
    struct trace_window win;
    if (trace_writer_open_window(d->writer, &win, err) != 0)
        return SIZE_MAX;
    struct access_loop s = {.p = win.next, .ops = 0};
    size_t i = 0, k = 0;
    int failed = 0;
    struct event run[tapped ? TAP_RUN : 1];
    access_loop_fn loop = access_loops[cpu_fast_pext()][copy];
    while (i < n && s.p < win.end) {
        /* As many records as surely start in the window: no room check
         * inside (nor a full run for the tap). */
        size_t chunk = (size_t)(win.end - s.p) / FAST_RECORD_MAX + 1;
        if (tapped && chunk > TAP_RUN - k)
            chunk = TAP_RUN - k;
        size_t stop = n - i < chunk ? n : i + chunk;
        size_t from = i;
        i = loop(w, i, stop, d->fast, win.encoder, &s, slot, &run[k]);
        if (tapped)
            k += i - from;
        if (i < stop)
            break;
        if (tapped && k == TAP_RUN) {
            if (trace_writer_tap(d->writer, run, k, err) != 0) {
                failed = 1;
                break;
            }
            k = 0;
        }
    }
    win.next = s.p;
    trace_writer_close_window(d->writer, &win, (uint32_t)i);
    if (tapped && !failed && trace_writer_tap(d->writer, run, k, err) != 0)
        failed = 1;
    count_access_run(d, copy == COPY_BATCH ? slot : NULL, i, s.ops);
    return failed ? SIZE_MAX : i;
}

/* The hot loop of a writer that keeps nothing (`record --trace none`):
 * W[0..N) into the tap's batches at SLOT, with no trace encoded (a
 * discarding writer drops its blocks unread: the encoding was a third of
 * the recorder thread's time). Returns the words taken. */
static __attribute__((noinline)) size_t copy_access_run(struct raw_decoder *d, const uint64_t *w,
                                                        size_t n, struct batch_event *slot)
{
    struct access_loop s = {0};
    size_t i = access_loop(w, 0, n, d->fast, NULL, &s, COPY_BATCH, slot, NULL, 0, 0);
    trace_writer_count_unencoded(d->writer, i);
    count_access_run(d, slot, i, s.ops);
    return i;
}

static size_t decode_access_run(struct raw_decoder *d, const uint64_t *w, size_t n,
                                struct trms_error *err)
{
    if (d->window) {
        uint64_t room = record_window_room(d->window);
        if (room == 0)
            return skip_access_run(d, w, n);
        if (room < n)
            n = (size_t)room;
    }
    if (!trace_writer_tapped(d->writer))
        return encode_access_run(d, w, n, COPY_NONE, NULL, err);
    struct batch_event *slot, *end;
    int room = trace_writer_access_room(d->writer, &slot, &end, err);
    if (room < 0)
        return SIZE_MAX;
    if (room > 0)
        return encode_access_run(d, w, n, COPY_EVENTS, NULL, err);
    if ((size_t)(end - slot) < n)
        n = (size_t)(end - slot);
    if (trace_writer_discards(d->writer))
        return copy_access_run(d, w, n, slot);
    return encode_access_run(d, w, n, COPY_BATCH, slot, err);
}

static int is_access(uint64_t word)
{
    unsigned op = raw_word_op(word);
    return op == RAW_READ || op == RAW_WRITE;
}

void raw_summary_free(struct raw_summary *s)
{
    u64map_free(&s->unmodeled_syscalls);
    u64map_free(&s->channels_written);
    free(s->exec_path);
}

struct raw_decoder *raw_decoder_new(struct trace_writer *writer, struct routine_table *routines,
                                    const struct raw_decoder_callbacks *cb,
                                    struct raw_summary *summary)
{
    *summary = (struct raw_summary){0};
    u64map_init(&summary->unmodeled_syscalls);
    u64map_init(&summary->channels_written);
    struct raw_decoder *d = xcalloc(1, sizeof *d);
    d->cb = cb;
    d->summary = summary;
    d->writer = writer;
    d->routines = routines;
    u64map_init(&d->threads);
    fill_fast_table(d->fast);
    call_tracker_init(&d->tracker, routines, cb->classify, cb->ctx, emit, d);
    return d;
}

int raw_decoder_feed(struct raw_decoder *d, const uint64_t *words, size_t n, size_t *used,
                     struct trms_error *err)
{
    size_t pos = 0;
    if (d->cb->poll && d->cb->poll(d->cb->ctx, err) != 0)
        return -1;
    if (!d->started && n > 0) {
        if (words[0] != RAW_MAGIC)
            return error_set(err, "the recorder's stream does not start like one");
        d->started = 1;
        pos = 1;
    }
    while (pos < n) {
        if (d->have_thread && is_access(words[pos])) {
            size_t run = decode_access_run(d, &words[pos], n - pos, err);
            if (run == SIZE_MAX)
                return -1;
            pos += run;
            if (run > 0)
                continue;
        }
        size_t need = record_words(&words[pos], n - pos);
        if (need > n - pos)
            break;
        if (record(d, &words[pos], err) != 0)
            return -1;
        pos += need;
        d->summary->words += need;
    }
    *used = pos;
    return 0;
}

void raw_decoder_set_window(struct raw_decoder *d, struct record_window *win)
{
    d->window = win;
}

int raw_decoder_finish(struct raw_decoder *d, struct trms_error *err)
{
    int rc = d->started ? 0 : error_set(err, "the recorder produced no stream");
    d->summary->tail_calls = d->tracker.tail_calls;
    d->summary->unwound_frames = d->tracker.unwound;
    call_tracker_free(&d->tracker);
    u64map_free(&d->threads);
    free(d);
    return rc;
}

int raw_decode_fd(int fd, struct trace_writer *writer, struct routine_table *routines,
                  const struct raw_decoder_callbacks *cb, struct raw_summary *summary,
                  struct trms_error *err)
{
    struct raw_decoder *d = raw_decoder_new(writer, routines, cb, summary);
    uint64_t *words = xmalloc(CHUNK_WORDS * sizeof *words);
    size_t bytes = 0;   /* in words[], from its start */
    int rc = 0;
    for (;;) {
        ssize_t n = read(fd, (char *)words + bytes, CHUNK_WORDS * 8 - bytes);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            rc = error_set(err, "reading the recorder's stream: %s", strerror(errno));
            break;
        }
        if (n == 0)
            break;  /* a record cut short by the program's death is dropped */
        bytes += (size_t)n;
        size_t used;
        if ((rc = raw_decoder_feed(d, words, bytes / 8, &used, err)) != 0)
            break;
        if (used == 0 && bytes == CHUNK_WORDS * 8) {
            rc = error_set(err, "raw stream: a record longer than %d words", CHUNK_WORDS);
            break;
        }
        memmove(words, &words[used], bytes - used * 8);
        bytes -= used * 8;
    }
    free(words);
    if (raw_decoder_finish(d, rc == 0 ? err : &(struct trms_error){0}) != 0)
        rc = -1;
    return rc;
}
