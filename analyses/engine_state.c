/* engine_state: the engine's jobs, saved and loaded.
 *
 *   u64:jobs, then per job u64:kind and its state: an input-size shard;
 *   the global reuse stack; or u64:threads, their reuse stacks, and
 *   u64:the current one's index + 1 (0: none yet). A thread whose stack is
 *   still the global one (a stream of one thread so far) is saved with a
 *   copy of it, and loaded as a stack of its own.
 *
 * Saved only when the engine is quiesced: no batch in flight, no partial
 * activation waiting to be merged, the workers idle. */
#include <stdlib.h>

#include "analyses/engine_internal.h"
#include "analyses/input_size.h"
#include "analyses/input_size_internal.h"
#include "analyses/reuse_distance.h"
#include "analyses/state_parts.h"
#include "common/oom.h"

void engine_save(const struct engine *e, struct state_writer *w)
{
    state_put_u64(w, e->n_jobs);
    for (unsigned j = 0; j < e->n_jobs; j++) {
        const struct job *job = &e->jobs[j];
        state_put_u64(w, job->kind);
        switch (job->kind) {
        case JOB_INPUT_SIZE:
            input_size_save(job->input_size, w);
            break;
        case JOB_REUSE_GLOBAL:
            reuse_distance_save(job->global, w);
            break;
        case JOB_REUSE_THREADS: {
            state_put_u64(w, job->n_per_thread);
            /* A stack shared with the global one is saved as its own. */
            for (size_t i = 0; i < job->n_per_thread; i++)
                reuse_distance_save(job->per_thread[i] ? job->per_thread[i]
                                                       : engine_global_reuse(e), w);
            state_put_u64(w, job->current == SIZE_MAX ? 0 : job->current + 1);
            break;
        }
        }
    }
}

static void load_job(struct engine *e, struct job *job, const struct state_bounds *b,
                     struct state_reader *r)
{
    switch (job->kind) {
    case JOB_INPUT_SIZE: {
        struct input_size *is = input_size_load(r, b, engine_keep_partial, job);
        if (is && (is->cell_shift != e->config.cell_shift || is->shard != job->shard ||
                   is->shard_shift != e->config.shard_shift)) {
            state_reader_fail(r, "an input-size shard of other options");
            input_size_free(is);
            is = NULL;
        }
        if (is) {
            if (!e->config.kernel_writes) /* an option: the saved options say it */
                input_size_skip_kernel_writes(is);
            input_size_free(job->input_size);
            job->input_size = is;
        }
        break;
    }
    case JOB_REUSE_GLOBAL: {
        struct reuse_distance *rd =
            reuse_distance_load(r, e->config.reuse_window, e->config.reuse_window);
        if (rd) {
            reuse_distance_free(job->global);
            job->global = rd;
        }
        break;
    }
    case JOB_REUSE_THREADS: {
        uint64_t n = state_get_count(r, 8);
        /* The driver's thread events index these stacks: a thread it knows
         * and they lack would be a stack past the array. */
        if (!r->failed && n != b->threads)
            state_reader_fail(r, "per-thread reuse stacks that are not the threads");
        job->per_thread = xcalloc(n ? n : 1, sizeof *job->per_thread);
        job->per_thread_capacity = n ? n : 1;
        for (uint64_t i = 0; i < n && !r->failed; i++) {
            struct reuse_distance *rd = reuse_distance_load(r, e->config.reuse_window,
                                                            engine_thread_window(&e->config));
            if (rd) {
                reuse_distance_count_ahead(rd, &job->marks_ahead_stacks);
                job->per_thread[job->n_per_thread++] = rd;
            }
        }
        uint64_t current = state_get_u64(r);
        /* The driver sends no thread event for the thread it has current:
         * the stack the job has current must be that thread's. */
        if (!r->failed && current != (b->has_current ? (uint64_t)b->current + 1 : 0))
            state_reader_fail(r, "a current reuse stack that is not the current thread's");
        else if (!r->failed && current)
            job->current = current - 1;
        /* Loaded stacks are the threads' own: the global one goes on alone. */
        for (unsigned j = 0; j < e->n_jobs && job->n_per_thread; j++)
            if (e->jobs[j].kind == JOB_REUSE_GLOBAL)
                e->jobs[j].fork_wanted = 0;
        break;
    }
    }
}

struct engine *engine_load(const struct engine_config *config, const struct state_bounds *b,
                           activation_sink collect, void *ctx, struct state_reader *r)
{
    struct engine *e = engine_new(config, collect, ctx);
    uint64_t jobs = state_get_u64(r);
    if (jobs != e->n_jobs)
        state_reader_fail(r, "the saved engine ran other passes");
    for (unsigned j = 0; j < e->n_jobs && !r->failed; j++) {
        if (state_get_u64(r) != (uint64_t)e->jobs[j].kind) {
            state_reader_fail(r, "the saved engine ran other passes");
            break;
        }
        load_job(e, &e->jobs[j], b, r);
    }
    if (r->failed) {
        engine_free(e);
        return NULL;
    }
    return e;
}
