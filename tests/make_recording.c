/* make_recording: writes a recording of random multithreaded events, as
 * large as asked, for the CLI tests that need an analysis to take a while
 * (tests/cli/test_cli_resume.sh).
 *
 *   make_recording DIR EVENTS [SEED] */
#include <stdio.h>
#include <stdlib.h>

#include "common/parse_number.h"
#include "tests/random_trace.h"
#include "trace/recording.h"
#include "trace/trace_writer.h"

#define SEGMENT 100000u

int main(int argc, char **argv)
{
    uint64_t events, seed = 1;
    if (argc < 3 || parse_u64_cstr(argv[2], &events) != PARSE_NUMBER_OK ||
        (argc > 3 && parse_u64_cstr(argv[3], &seed) != PARSE_NUMBER_OK)) {
        fprintf(stderr, "usage: make_recording DIR EVENTS [SEED]\n");
        return 2;
    }
    struct trms_error err;
    char *staging;
    if (recording_stage(argv[1], &staging, &err) != 0) {
        fprintf(stderr, "make_recording: %s\n", err.message);
        return 1;
    }
    struct routine_table routines;
    routine_table_init(&routines);
    char *path = recording_file(staging, RECORDING_EVENTS);
    struct trace_writer *w = trace_writer_create(path, &err);
    free(path);
    int rc = w ? 0 : -1;
    /* Segments of a random stream, each well formed: calls left pending by
     * one are completed at the end of the trace. Small regions keep the
     * analysis state (and so each checkpoint) at a few MiB. */
    struct random_trace_shape shape = {.threads = 4, .events = SEGMENT, .routines = 40,
                                       .regions = 4, .region_span = 1u << 15, .max_depth = 12};
    for (uint64_t done = 0, k = 0; rc == 0 && done < events; done += SEGMENT, k++) {
        struct event_list list = {0};
        random_trace(seed * 1000003 + k, &shape, &list, &routines);
        for (size_t i = 0; rc == 0 && i < list.count; i++)
            rc = trace_writer_event(w, &list.items[i], &routines, &err);
        event_list_free(&list);
    }
    if (rc == 0)
        rc = trace_writer_close(w, &routines, &err);
    const char *keys[] = {"engine", "source"}, *values[] = {"test", "random"};
    if (rc == 0)
        rc = recording_write_meta(staging, keys, values, 2, &err);
    if (rc == 0)
        rc = recording_commit(staging, argv[1], &err);
    if (rc != 0) {
        fprintf(stderr, "make_recording: %s\n", err.message);
        recording_discard(staging);
    }
    free(staging);
    routine_table_free(&routines);
    return rc ? 1 : 0;
}
