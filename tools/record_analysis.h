/* record_analysis: `trms record` analyzing the events as it writes them.
 *
 * The trace writer's tap hands every event it writes, in runs, to the
 * analysis, whose passes run on its worker threads while the recording
 * goes on: recording and analysis overlap on the cores. These are exactly
 * the events a read of the finished file delivers (trace_writer.h), so
 * once the recording is complete, the result stored in it is what `trms
 * analyze` with the same options stores. */
#ifndef TRMS_RECORD_ANALYSIS_H
#define TRMS_RECORD_ANALYSIS_H

#include <stddef.h>

#include "analyses/analysis.h"
#include "common/error.h"
#include "trace/routine_table.h"
#include "trace/trace_writer.h"

struct record_analysis;

/* An analysis with OPT; NULL with ERR filled when an option is invalid. */
struct record_analysis *record_analysis_start(const struct analysis_options *opt,
                                              struct trms_error *err);

/* Calls, returns and costs reach the analysis and the causal input as
 * events (the tap's RUN), not through the batches with the accesses: the
 * path before the fused one, which a test compares it with (the
 * environment's TRMS_RECORD_NO_FUSED_FLOW, cmd_record.c). */
void record_analysis_no_fused_flow(struct record_analysis *ra);

/* Also writes the causal model's part of the trace into the recording
 * being made in DIR (analyses/causal_input.h), its routines ROUTINES; a
 * failure is said on stderr and the recording goes on without it. */
void record_analysis_keep_causal_input(struct record_analysis *ra, const char *dir,
                                       const struct routine_table *routines);

/* What the trace writer is given (trace_writer_options.tap). An analysis
 * that fails (a stream it refuses) stops there without failing the
 * recording: record_analysis_finish says so. */
struct trace_event_tap record_analysis_tap(struct record_analysis *ra);

/* After the writer closed: completes the analysis, naming routines from
 * ROUTINES (the trace's), and stores its result in the recording at
 * REC_PATH; SAID gets the line that tells the user (of the recording
 * SHOWN). An analysis that failed is said on stderr and stores nothing
 * (the recording stands: `trms analyze` it); -1 then, but only a result
 * store that cannot be written fills ERR. Frees RA. */
int record_analysis_finish(struct record_analysis *ra, const struct routine_table *routines,
                           const char *rec_path, const char *shown, char *said,
                           size_t said_size, struct trms_error *err);

/* After the writer was abandoned (or never made): frees RA. */
void record_analysis_abandon(struct record_analysis *ra);

#endif
