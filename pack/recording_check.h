/* recording_check: what makes a directory a valid recording: one notion,
 * shared by every command that vouches for a recording: `trms verify`
 * (all of it), `trms pack` (before it packs), `trms unpack` (the
 * recording it made, before it is put in place: unpack makes only
 * recordings verify accepts) and `trms info` (its cheap part).
 *
 *   meta          its format line; numbers where numbers belong (events,
 *                 threads, routines), at most RECORDING_MAX_THREADS threads
 *   events.trms   a regular file; in full, every block read with its
 *                 checksum and its totals, and the meta's events, routines
 *                 and threads agree with what it holds; cheaply, its end
 *                 block agrees with the meta. Only an rr recording has
 *                 none (its trace is rr's, in the directory rr/), and
 *                 one whose meta says "trace none" (`record --trace
 *                 none`: it keeps only its analysis; one that has
 *                 events.trms all the same is refused)
 *   maps, symbols regular files when present, parsed whole (small beside
 *                 the trace: the cheap check reads them too)
 *   valgrind.log  a regular file when present
 *
 * Every file is opened the one way a recording's files are
 * (regular_file_open_in). The result store is not part of it: a damaged
 * store is rebuilt from the recording, and checked on its own. */
#ifndef TRMS_RECORDING_CHECK_H
#define TRMS_RECORDING_CHECK_H

#include <stdint.h>

#include "common/error.h"

struct recording_facts {
    int has_trace;              /* events.trms (an rr recording has none) */
    int no_trace;               /* recorded with --trace none: no events.trms,
                                   by design (the meta says so) */
    uint64_t events, blocks, bytes, threads, routines;  /* the trace's (in full) */
};

/* Checks the recording in DIR; FULL reads every block of the trace, else
 * only its end block. 0 with FACTS, or -1
 * with ERR: "DIR: ...what is wrong", naming the file. */
int recording_check(const char *dir, int full, struct recording_facts *facts,
                    struct trms_error *err);

/* Whether DIR/NAME exists (as anything, a dangling link included). */
int recording_has(const char *dir, const char *name);

#endif
