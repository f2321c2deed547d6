/* rr_replay: the event trace of an rr recording, by replaying it.
 *
 *   rr dump -e -m -p TRACE      mappings and kernel writes (rr_trace.h)
 *   rr rerun --singlestep=tid,event,icount,ip,fsbase,gsbase,flags,gp_x16
 *            --raw [-s FROM] [-e TO] TRACE
 *
 * rerun's records stream through the decoder (rerun_decoder.h) straight
 * into the caller's event sink: the instruction stream is never written to
 * disk. Code bytes are read from the files the trace keeps of each mapping;
 * a system call's kernel writes are the ones rr recorded for its exit
 * frame, its kernel reads come from the shared syscall table (without the
 * program's memory: reads through iovecs and the like are not known and
 * such calls are counted as unmodeled). */
#ifndef TRMS_RR_REPLAY_H
#define TRMS_RR_REPLAY_H

#include <stdint.h>

#include "common/error.h"
#include "store/symbol_store.h"
#include "replayer/rerun_decoder.h"
#include "symbols/memory_maps.h"
#include "symbols/symbolizer.h"
#include "trace/event.h"
#include "trace/routine_table.h"

struct rr_replay_options {
    const char *trace_dir;
    uint64_t from, to;          /* rr's event window; 0: the trace's start, end */
    event_sink sink;
    void *sink_ctx;
    sync_sink sync;             /* sync records (rerun_decoder.h); may be NULL */
    void *sync_ctx;
    struct routine_table *routines;
    /* Called every few thousand records: the frame reached, the last
     * frame of the trace, instructions decoded so far. May be NULL. */
    void (*progress)(void *ctx, uint64_t time, uint64_t last_time, uint64_t instructions);
    void *progress_ctx;
};

/* What a replay leaves for the caller: the decoder's counts, every
 * mapping of the program (by the files inside the trace), the symbolizer
 * that followed them, and the routines' names. Each program the recorded
 * process exec'd has its own routines (routine_table_tag_addresses), named
 * from its own symbols when the next program starts, and the last one's
 * at the end. */
struct rr_replay_result {
    struct rerun_summary summary;
    struct memory_maps maps;
    struct symbolizer *symbols;
    struct symbol_names names;      /* by (tagged) routine address; they own their strings */
    uint64_t last_time;
    uint64_t threads;
};

void rr_replay_result_free(struct rr_replay_result *r);

/* The name of ROUTINE as far as the replay has come: from NAMES, else
 * (a routine of the program running now) from the symbolizer; NULL. */
const char *rr_replay_routine_name(const struct rr_replay_result *r, uint64_t addr,
                                   const struct routine_table *routines);

/* Replays O->trace_dir into O->sink. RESULT is initialized before the
 * first record (its symbolizer follows the mappings as the replay goes, so
 * that a sink can name code with it) and filled (free it) also on
 * failure. Failures: rr missing, rr failing or dying (its message), a
 * truncated or corrupt record stream, a sink error. */
int rr_replay(const struct rr_replay_options *o, struct rr_replay_result *result,
              struct trms_error *err);

#endif
