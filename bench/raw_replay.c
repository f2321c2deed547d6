/* trms-raw-replay: decodes a raw stream kept by trms-raw-capture into a
 * trace, as `trms record` does while the program runs, but alone: the
 * recorder's per-event path (raw_decoder, trace_writer, checksums, the
 * write of each block) without Valgrind, for timing and for callgrind.
 *
 *   trms-raw-replay RAW OUT [REPEAT [WINDOW]]
 *
 * The stream is read into memory first (not timed) and decoded in ring
 * segment-sized pieces; code addresses are classified from the mappings
 * the stream announces, as `trms record` does. OUT is written REPEAT times
 * (default 1), removed before each run; prints each run's time. WINDOW
 * "open" puts a recording window that leaves nothing out in between, as
 * `trms record` does; "limit" one with an event limit never reached, which
 * takes the window's general path for every event: the three traces must
 * be the same bytes (the window's short way for calls, returns and costs
 * against its general path). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "recorder/raw_decoder.h"
#include "recorder/raw_stream.h"
#include "recorder/record_window.h"
#include "symbols/symbolizer.h"
#include "trace/trace_writer.h"

static void classify(void *ctx, uint64_t addr, struct code_class *out)
{
    struct symbol_info info;
    symbolizer_classify(ctx, addr, &info);
    out->is_plt = info.is_plt;
    out->is_function_entry = info.name && info.entry == addr;
}

static int add_mapping(void *ctx, const struct raw_mapping *m, struct trms_error *err)
{
    (void)err;
    struct map_entry e = {.start = m->start, .end = m->start + m->length, .offset = m->offset,
                          .prot = m->prot, .path = (char *)m->path};
    if (e.prot & MAPS_PROT_X)
        symbolizer_add_map(ctx, &e);
    return 0;
}

static void remove_mapping(void *ctx, uint64_t start, uint64_t length)
{
    symbolizer_remove_range(ctx, start, start + length);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int replay(const uint64_t *words, size_t n, const char *out, const char *window,
                  struct raw_summary *summary, struct trms_error *err)
{
    unlink(out);
    struct trace_writer *w = trace_writer_create(out, err);
    if (!w)
        return -1;
    struct routine_table routines;
    routine_table_init(&routines);
    struct symbolizer *symbols = symbolizer_new();
    struct raw_decoder_callbacks cb = {.classify = classify, .map = add_mapping,
                                       .unmap = remove_mapping, .ctx = symbols};
    struct raw_decoder *d = raw_decoder_new(w, &routines, &cb, summary);
    struct record_window_options o = {.max_events = strcmp(window, "limit") == 0 ? UINT64_MAX : 0};
    struct record_window *win =
        strcmp(window, "none") ? record_window_new(&o, w, &routines, NULL, NULL) : NULL;
    if (win)
        raw_decoder_set_window(d, win);
    int rc = 0;
    for (size_t pos = 0, used; rc == 0 && pos < n; pos += used) {
        size_t piece = n - pos < RAW_SEGMENT_WORDS ? n - pos : RAW_SEGMENT_WORDS;
        rc = raw_decoder_feed(d, words + pos, piece, &used, err);
        if (rc == 0 && used == 0)
            rc = error_set(err, "a record cut short at word %zu", pos);
    }
    if (raw_decoder_finish(d, rc == 0 ? err : &(struct trms_error){0}) != 0)
        rc = -1;
    record_window_free(win);
    if (rc == 0)
        rc = trace_writer_close(w, &routines, err);
    else
        trace_writer_abandon(w);
    symbolizer_free(symbols);
    routine_table_free(&routines);
    return rc;
}

int main(int argc, char **argv)
{
    const char *window = argc == 5 ? argv[4] : "none";
    if (argc < 3 || argc > 5 ||
        (strcmp(window, "none") && strcmp(window, "open") && strcmp(window, "limit"))) {
        fprintf(stderr, "usage: trms-raw-replay RAW OUT [REPEAT [none|open|limit]]\n");
        return 2;
    }
    int repeat = argc >= 4 ? atoi(argv[3]) : 1;
    int fd = open(argv[1], O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        fprintf(stderr, "trms-raw-replay: %s: %s\n", argv[1], strerror(errno));
        return 1;
    }
    size_t n = (size_t)st.st_size / 8;
    const uint64_t *words =
        n ? mmap(NULL, n * 8, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0) : NULL;
    if (words == MAP_FAILED) {
        fprintf(stderr, "trms-raw-replay: %s: %s\n", argv[1], strerror(errno));
        return 1;
    }
    close(fd);
    for (int i = 0; i < repeat; i++) {
        struct raw_summary summary;
        struct trms_error err = {0};
        double start = now();
        int rc = replay(words, n, argv[2], window, &summary, &err);
        double seconds = now() - start;
        uint64_t events = 0;
        for (int t = 0; t < EVENT_TYPE_COUNT; t++)
            events += summary.events[t];
        raw_summary_free(&summary);
        if (rc != 0) {
            fprintf(stderr, "trms-raw-replay: %s\n", err.message);
            return 1;
        }
        printf("%.3f s, %" PRIu64 " words, %" PRIu64 " events, %.2f ns/event\n", seconds,
               (uint64_t)n, events, seconds * 1e9 / (double)events);
    }
    return 0;
}
