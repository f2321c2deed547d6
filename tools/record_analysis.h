/* record_analysis: `trms record` analyzing the events as it writes them.
 *
 * Each events block the trace writer seals is decoded, on a thread of its
 * own, exactly as `trms analyze` decodes the finished file, and fed to the
 * analysis (which runs its passes on the workers), so recording and
 * analysis overlap on the cores. Once the recording is complete, the
 * result is stored in the recording as `trms analyze` would have stored
 * it with the same options. */
#ifndef TRMS_RECORD_ANALYSIS_H
#define TRMS_RECORD_ANALYSIS_H

#include "analyses/analysis.h"
#include "common/error.h"
#include "trace/trace_writer.h"

struct record_analysis;

/* An analysis with OPT, waiting for blocks; NULL with ERR filled when an
 * option is invalid. */
struct record_analysis *record_analysis_start(const struct analysis_options *opt,
                                              struct trms_error *err);

/* What the trace writer is given (trace_writer_options.observer)... */
struct trace_block_observer record_analysis_observer(struct record_analysis *ra);

/* ...and the writer it was given to, before the first event. */
void record_analysis_attach(struct record_analysis *ra, struct trace_writer *w);

/* After the writer closed: waits for the last block, completes the
 * analysis and stores its result in the recording at REC_PATH; SAID gets
 * the line that tells the user (of the recording SHOWN). An analysis that
 * failed is said on stderr and stores nothing (the recording stands:
 * `trms analyze` it); -1 then, but only a result store that cannot be
 * written fills ERR. Frees RA. */
int record_analysis_finish(struct record_analysis *ra, const char *rec_path, const char *shown,
                           char *said, size_t said_size, struct trms_error *err);

/* After the writer was abandoned (or never made): stops and frees RA. */
void record_analysis_abandon(struct record_analysis *ra);

#endif
