/* analysis_state: an analysis saved mid-stream and continued later
 * (checkpoints of `trms analyze`).
 *
 * analysis_save() waits until every event given so far has been through
 * every pass (the workers idle at a batch boundary), then writes the whole
 * state: the driver's (options, threads, counts), the profiles built so
 * far, and each pass's (shadow memory, shadow stacks, reuse stacks). An
 * analysis loaded from those bytes, given the events that followed, ends
 * with the same result, byte for byte, as one that never stopped. The
 * bytes go through a state_writer: where they are kept is the caller's. */
#ifndef TRMS_ANALYSIS_STATE_H
#define TRMS_ANALYSIS_STATE_H

#include "analyses/analysis.h"
#include "common/error.h"
#include "common/state_stream.h"

/* Bumped whenever the layout changes: an older checkpoint is then not
 * resumed from (the analysis starts over). */
#define ANALYSIS_STATE_VERSION 6

/* Waits until every event given to A so far has been through every pass
 * (what analysis_save does first; apart, so that a caller can time the
 * save alone). */
void analysis_quiesce(struct analysis *a);

/* Saves A (not finished); A takes events again afterwards. */
void analysis_save(struct analysis *a, struct state_writer *w);

/* An analysis that continues from the state in R, with the options it was
 * saved with, except THREADS (whether to run the passes on worker threads
 * here). ROUTINES: how many routines the events before it defined (every
 * routine id in the state is below). NULL with ERR filled when R does not
 * hold a state this trms saved (R's own failures included), or one whose
 * parts do not agree (a crafted state: every value later code relies on
 * is checked). */
struct analysis *analysis_load(struct state_reader *r, int threads, uint64_t routines,
                               struct trms_error *err);

/* The options A runs with. */
const struct analysis_options *analysis_get_options(const struct analysis *a);

#endif
