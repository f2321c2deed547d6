/* rr_trace: what an rr trace says besides its rerun records, read once
 * from `rr dump -e -m -p` (rr_dump.h) before the replay:
 *  - every file mapping, with the frame it appeared in and the file inside
 *    the trace that holds its contents (code bytes and symbols come from
 *    there, so the recording stands without the original binaries);
 *  - every write the kernel made to user memory, by frame and thread, less
 *    the holes rr noted (bytes it did not write);
 *  - the flags of the clone that made each task (the decoder cannot read
 *    clone3's from memory);
 *  - the frames where the first task started a program (its execs), so
 *    that each program's routines are named after its own symbols.
 * Both are kept in frame order, as the dump gives them. */
#ifndef TRMS_RR_TRACE_H
#define TRMS_RR_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/error.h"
#include "common/u64map.h"

struct rr_trace_mapping {
    uint64_t time;          /* the frame it appeared in */
    uint64_t start, end;
    uint64_t file_offset;   /* of START in the file the program mapped */
    uint64_t data_offset;   /* where START's bytes are in DATA_FILE */
    unsigned prot;          /* RR_PROT_* */
    char *data_file;        /* a file inside the trace (or the original) */
    char *map_file;         /* the name the program mapped */
};

/* One write, split at its holes: [addr, addr + length) was written. */
struct rr_trace_write {
    uint64_t time;
    uint32_t tid;
    uint64_t addr, length;
};

struct rr_trace {
    struct rr_trace_mapping *mappings;   /* by time */
    size_t n_mappings;
    struct rr_trace_write *writes;       /* by time, then as dumped */
    size_t n_writes;
    uint64_t frames;                     /* frames dumped */
    uint64_t last_time;                  /* the last frame's time */
    uint64_t threads;                    /* tasks created (the first included) */
    struct u64map clone_flags;           /* tid -> the flags of the clone that made it */
    uint32_t first_tid;                  /* the recorded process's first task */
    uint64_t *exec_times;                /* frames where it started a program, in order */
    size_t n_execs;
};

/* Reads a dump from IN (NAME for messages) into TRACE (zeroed first). */
int rr_trace_read(FILE *in, const char *name, struct rr_trace *trace, struct trms_error *err);

void rr_trace_free(struct rr_trace *trace);

/* The writes of frame TIME, every thread's: *COUNT of them from the
 * returned pointer (NULL when none). */
const struct rr_trace_write *rr_trace_writes_of(const struct rr_trace *trace, uint64_t time,
                                                size_t *count);

#endif
