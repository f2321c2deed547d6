/* record_windows: `trms record`'s windows (recorder/record_window.h) as
 * the command line sets them, follows them and writes them down: the
 * options, the routine names the patterns match, requests from `trms
 * control`, and the lines of the meta that say what was left out. */
#ifndef TRMS_RECORD_WINDOWS_H
#define TRMS_RECORD_WINDOWS_H

#include <stddef.h>

#include "recorder/record_window.h"
#include "recorder/valgrind_engine.h"
#include "symbols/symbolizer.h"
#include "tools/cli.h"

struct record_windows {
    struct record_window_options options;
    int given;                      /* an option was given */
    struct record_window *window;   /* while recording */
    struct routine_table *routines;
    struct symbolizer *symbols;     /* names the routines as they come */
    struct window_requests requests;    /* from `trms control` */
    char description[512];
    char numbers[6][32];
};

/* The long options (getopt_long), each with its value; ... */
#define RECORD_WINDOW_LONG_OPTIONS                                                    \
    {"toggle-collect", required_argument, NULL, 0x101},                              \
        {"collect-at-start", required_argument, NULL, 0x102},                        \
        {"start-after", required_argument, NULL, 0x103},                             \
        {"max-events", required_argument, NULL, 0x104},                              \
        {"max-size", required_argument, NULL, 0x105}

/* ...parsed here: 1 when C was one of them (0 when not, EXIT_USAGE after a
 * usage error). */
int record_windows_option(struct record_windows *w, int c, const char *arg,
                          const struct command *cmd);

/* The window of a recording written by WRITER (whose routines SYMBOLS
 * names), which `trms control` can turn on and off from now on. */
struct record_window *record_windows_open(struct record_windows *w, struct trace_writer *writer,
                                          struct routine_table *routines,
                                          struct symbolizer *symbols);

/* The raw decoder's poll (raw_decoder_callbacks): looks at the limits. */
int record_windows_poll(struct record_windows *w, struct trms_error *err);

/* Where the engine takes `trms control`'s requests from (NULL when it
 * cannot take any). */
const struct window_requests *record_windows_requests(struct record_windows *w);

/* After the recording: the meta's lines (KEYS, VALUES, at most 8; 0 when
 * nothing was left out), the events written, and a line for stderr. */
size_t record_windows_meta(struct record_windows *w, const char **keys, const char **values,
                           uint64_t *written, char *said, size_t said_size);

void record_windows_close(struct record_windows *w);

#endif
