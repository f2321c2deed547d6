/* rr_engine: `trms record --engine rr`: the program runs under
 * `rr record -n` (no syscall buffer, so that every system call is a trace
 * frame and its kernel writes are in the trace), into a directory inside
 * the recording; `trms analyze` replays it later (replayer/rr_replay.h).
 * rr needs a hardware counter of retired conditional branches, both to
 * record and to replay: the engine checks for it first and says why it
 * cannot run, rather than letting rr fail. */
#ifndef TRMS_RR_ENGINE_H
#define TRMS_RR_ENGINE_H

#include <stddef.h>

#include "common/error.h"
#include "recorder/program_outcome.h"

/* Where a recording keeps rr's own trace. */
#define RR_ENGINE_TRACE_DIR "rr"

/* 1 when rr is installed and this machine has the counters it needs;
 * else 0 with the reason in WHY. With TRMS_RR_ASSUME_COUNTERS=1 in the
 * environment, the counters are not probed (rr says why when it cannot
 * record): for machines where the probe is wrong, and for the tests'
 * stand-in rr. */
int rr_engine_available(char *why, size_t size);

/* "rr version 5.6.0" as rr prints it, or NULL. Free it. */
char *rr_engine_version(void);

/* Runs `rr record -n [--chaos] -o TRACE_DIR ARGV...` with this process's
 * stdin, stdout and stderr; OUTCOME is how the program ended (rr exits as
 * its program did). CHAOS: rr's chaos mode, which randomizes the
 * scheduling (priorities, time slices) to bring out rare interleavings.
 * Fails when rr could not record (no trace was written). */
int rr_engine_record(const char *trace_dir, char *const argv[], int chaos,
                     struct program_outcome *outcome, struct trms_error *err);

#endif
