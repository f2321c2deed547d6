/* trms-raw-capture: runs a program under the trms Valgrind tool exactly as
 * `trms record` does, but keeps the raw stream (recorder/raw_stream.h)
 * instead of decoding it, so that the two sides of recording can be
 * measured apart (see bench/README.md, "Recording real programs").
 *
 *   trms-raw-capture OUT -- PROG ARGS...
 *
 * OUT receives the segments' words back to back, as raw_decode_fd reads
 * them (trms-raw-replay decodes such a file). With OUT /dev/null nothing
 * is kept and the figure is the tool's alone: the reader only reads each
 * segment (an XOR of its words, printed) and hands it back, so the
 * segments still move between the cores as they do under `trms record`. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "recorder/valgrind_engine.h"

struct capture {
    FILE *out;
    uint64_t words, segments;
    uint64_t xor;
};

static int keep_segment(void *ctx, const uint64_t *words, size_t n, struct trms_error *err)
{
    struct capture *c = ctx;
    for (size_t i = 0; i < n; i++)
        c->xor ^= words[i];
    if (fwrite(words, 8, n, c->out) != n)
        return error_set(err, "cannot write the capture: %s", strerror(errno));
    c->words += n;
    c->segments++;
    return 0;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    if (argc < 4 || strcmp(argv[2], "--") != 0) {
        fprintf(stderr, "usage: trms-raw-capture OUT -- PROG ARGS...\n");
        return 2;
    }
    struct trms_error err = {0};
    char *tool_dir = valgrind_tool_dir(&err);
    if (!tool_dir) {
        fprintf(stderr, "trms-raw-capture: %s\n", err.message);
        return 1;
    }
    struct capture c = {.out = fopen(argv[1], "wb")};
    if (!c.out) {
        fprintf(stderr, "trms-raw-capture: %s: %s\n", argv[1], strerror(errno));
        return 1;
    }
    struct valgrind_run run = {.tool_dir = tool_dir, .log_path = "/dev/null", .argv = argv + 3};
    struct raw_segment_sink sink = {.segment = keep_segment, .ctx = &c};
    struct program_outcome outcome;
    double start = now();
    int rc = valgrind_stream(&run, &sink, &outcome, &err);
    double seconds = now() - start;
    if (fclose(c.out) != 0 && rc == 0)
        rc = error_set(&err, "cannot write the capture: %s", strerror(errno));
    free(tool_dir);
    if (rc != 0) {
        fprintf(stderr, "trms-raw-capture: %s\n", err.message);
        return 1;
    }
    struct rusage tool;
    getrusage(RUSAGE_CHILDREN, &tool);
    double tool_cpu = (double)(tool.ru_utime.tv_sec + tool.ru_stime.tv_sec) +
                      (double)(tool.ru_utime.tv_usec + tool.ru_stime.tv_usec) * 1e-6;
    fprintf(stderr, "trms-raw-capture: %.3f s (tool CPU %.3f s), %" PRIu64 " words in %" PRIu64
            " segments (xor %016" PRIx64 "); the program %s %d\n", seconds, tool_cpu, c.words,
            c.segments, c.xor,
            outcome.signal ? "was killed by signal" : "exited with",
            outcome.signal ? outcome.signal : outcome.exit_code);
    return 0;
}
