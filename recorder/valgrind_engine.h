/* valgrind_engine: runs a program under the trms Valgrind tool and decodes
 * its raw stream as it comes (the tool on one core, decoding on another). */
#ifndef TRMS_VALGRIND_ENGINE_H
#define TRMS_VALGRIND_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "recorder/program_outcome.h"
#include "recorder/raw_decoder.h"

struct record_window;

/* Requests to turn collection on or off while the program runs (`trms
 * control`): FD becomes readable when one comes, and take() then gives
 * each (1, with *ON), and 0 when none is left; taken() follows once they
 * are handed to the tool. The tool hears a request at the next basic
 * block of the program that accesses memory, and the window turns exactly
 * there in the stream. */
struct window_requests {
    int fd;
    int (*take)(void *ctx, int *on);
    void (*taken)(void *ctx);
    void *ctx;
};

/* Receives the tool's raw stream a ring segment at a time, in order;
 * records never span segments. */
struct raw_segment_sink {
    int (*segment)(void *ctx, const uint64_t *words, size_t n, struct trms_error *err);
    void *ctx;
};

/* A process image after the first: a forked child, or what a process
 * exec'd (the same pid as the image before). */
struct valgrind_process {
    int pid, ppid;
    int forked;             /* 1: a fork of ppid's image; 0: an exec'd image */
    char *const *argv;      /* its arguments (a fork: its parent's) */
    int collecting;         /* `trms control`'s state when its ring was made: its
                               window starts there; later requests reach its ring */
};

/* Every process of the tree after the first, each on a thread of its
 * own, so that all of them may run at once. */
struct valgrind_children {
    /* Its stream is about to come: the sink it goes to (NULL: read and
     * dropped, for a recording that could not be made; the callee says
     * why). Calls are serialized; NUMBER counts the images from 1, the
     * first program. */
    const struct raw_segment_sink *(*begin)(void *ctx, const struct valgrind_process *p,
                                            unsigned number);
    /* A program image that runs unrecorded (over max_processes); forked
     * children beyond it are only counted. NULL: nothing to say. */
    void (*skipped)(void *ctx, const struct valgrind_process *p);
    /* Its stream ended; RC -1 with ERR when it could not be read whole.
     * Calls may overlap. */
    void (*end)(void *ctx, const struct raw_segment_sink *sink, int rc,
                const struct trms_error *err);
    void *ctx;
    unsigned max_processes; /* images recorded at most, the first included */
    const char *exclude;    /* Valgrind's --trace-children-skip patterns, or NULL */
    uint64_t over_limit;    /* out: images that ran unrecorded beyond max_processes */
    int root_pid, root_ppid;    /* out: the first image's */
    int collecting;         /* `trms control`'s state at the start (1: on) */
};

struct valgrind_run {
    const char *tool_dir;   /* holds trms-amd64-linux and the core's files */
    const char *log_path;   /* Valgrind's own messages go there */
    char *const *argv;      /* the program and its arguments */
    struct record_window *window;   /* what to keep, or NULL for everything */
    const struct window_requests *requests;  /* NULL: none are taken */
    struct valgrind_children *children;  /* NULL: children run unrecorded */
};

/* The directory of the tool beside the trms binary, or NULL (with ERR
 * saying what is missing). Free the result. */
char *valgrind_tool_dir(struct trms_error *err);

/* Whether PATH is one of Valgrind's preload libraries (vgpreload_*.so),
 * which Valgrind maps into the program: its code is the recorder's. */
int valgrind_preload_path(const char *path);

/* The version Valgrind prints ("valgrind-3.19.0"), or NULL when there is no
 * valgrind to run. Free it. */
char *valgrind_version(void);

/* Runs RUN->argv under the tool and passes its stream to SINK as it comes
 * (including, from a tool that died, what it wrote up to its last system
 * call); the streams of the processes it starts and execs go to
 * RUN->children. Returns once the first process and every recorded one
 * have ended. Signals and descriptors as for valgrind_record. */
int valgrind_stream(const struct valgrind_run *run, const struct raw_segment_sink *sink,
                    struct program_outcome *outcome, struct trms_error *err);

/* Runs RUN->argv under the tool, decoding into WRITER (maps and symbols
 * through CB). The program's stdin,
 * stdout and stderr are this process's. Interrupts (^C) go to the program
 * alone, so that the recording is kept however it ends. */
int valgrind_record(const struct valgrind_run *run, struct trace_writer *writer,
                    struct routine_table *routines,
                    const struct raw_decoder_callbacks *cb, struct raw_summary *summary,
                    struct program_outcome *outcome, struct trms_error *err);

#endif
