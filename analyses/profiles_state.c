/* profiles_state: the profiles being built, saved and loaded, through
 * profiles.h alone.
 *
 *   u64:profiles, per profile u64: routine context tid calls cost
 *       self_cost induced_thread induced_external induced_channel channel,
 *       then its RMS points and
 *       its TRMS points: u64:count, per point u64: n calls min max sum,
 *       u128:sumsq, u64: real_sum self_min self_max self_sum,
 *       u128:self_sumsq */
#include <stdlib.h>

#include "analyses/profiles.h"
#include "analyses/state_parts.h"
#include "common/oom.h"

static void save_points(struct state_writer *w, const struct profile_point *pts, size_t n)
{
    state_put_u64(w, n);
    for (size_t i = 0; i < n; i++) {
        const struct profile_point *p = &pts[i];
        state_put_u64(w, p->n);
        state_put_u64(w, p->calls);
        state_put_u64(w, p->min);
        state_put_u64(w, p->max);
        state_put_u64(w, p->sum);
        state_put_u128(w, p->sumsq);
        state_put_u64(w, p->real_sum);
        state_put_u64(w, p->self_min);
        state_put_u64(w, p->self_max);
        state_put_u64(w, p->self_sum);
        state_put_u128(w, p->self_sumsq);
    }
}

struct profile_saver {
    struct state_writer *w;
    uint64_t count;
};

static void count_profile(void *ctx, const struct routine_profile *rp)
{
    (void)rp;
    ((struct profile_saver *)ctx)->count++;
}

static void save_profile(void *ctx, const struct routine_profile *rp)
{
    struct state_writer *w = ((struct profile_saver *)ctx)->w;
    const uint64_t totals[] = {rp->routine,   rp->context,        rp->tid,
                               rp->calls,     rp->cost,           rp->self_cost,
                               rp->induced_thread, rp->induced_external,
                               rp->induced_channel, rp->channel};
    for (size_t i = 0; i < sizeof totals / sizeof *totals; i++)
        state_put_u64(w, totals[i]);
    save_points(w, rp->rms_points, rp->n_rms_points);
    save_points(w, rp->trms_points, rp->n_trms_points);
}

void profiles_save(const struct profiles *p, struct state_writer *w)
{
    struct profile_saver s = {w, 0};
    profiles_each(p, count_profile, &s);
    state_put_u64(w, s.count);
    profiles_each(p, save_profile, &s);
}

static struct profile_point *load_points(struct state_reader *r, size_t *n)
{
    *n = (size_t)state_get_count(r, 13);
    struct profile_point *pts = xcalloc(*n ? *n : 1, sizeof *pts);
    for (size_t i = 0; i < *n && !r->failed; i++) {
        struct profile_point *p = &pts[i];
        p->n = state_get_u64(r);
        p->calls = state_get_u64(r);
        p->min = state_get_u64(r);
        p->max = state_get_u64(r);
        p->sum = state_get_u64(r);
        p->sumsq = state_get_u128(r);
        p->real_sum = state_get_u64(r);
        p->self_min = state_get_u64(r);
        p->self_max = state_get_u64(r);
        p->self_sum = state_get_u64(r);
        p->self_sumsq = state_get_u128(r);
    }
    return pts;
}

void profiles_load(struct profiles *p, const struct state_bounds *b, struct state_reader *r)
{
    uint64_t count = state_get_count(r, 12);
    for (uint64_t i = 0; i < count && !r->failed; i++) {
        struct routine_profile rp = {0};
        uint64_t routine = state_get_u64(r), context = state_get_u64(r), tid = state_get_u64(r);
        rp.routine = (uint32_t)routine;
        rp.context = (uint32_t)context;
        rp.tid = (uint32_t)tid;
        rp.calls = state_get_u64(r);
        rp.cost = state_get_u64(r);
        rp.self_cost = state_get_u64(r);
        rp.induced_thread = state_get_u64(r);
        rp.induced_external = state_get_u64(r);
        rp.induced_channel = state_get_u64(r);
        uint64_t channel = state_get_u64(r);
        rp.channel = (uint32_t)channel;
        if (channel > UINT32_MAX)
            state_reader_fail(r, "a profile's channel that cannot be");
        rp.rms_points = load_points(r, &rp.n_rms_points);
        rp.trms_points = load_points(r, &rp.n_trms_points);
        if (routine > UINT32_MAX || context > UINT32_MAX || tid > UINT32_MAX)
            state_reader_fail(r, "a profile of a routine or thread that cannot be");
        /* The stored result must hold together (result_codec refuses one
         * whose profiles name an undefined routine or context). */
        if ((routine != ROUTINE_ROOT && routine >= b->routines) ||
            (b->contexts ? context >= b->contexts : context != CONTEXT_NONE))
            state_reader_fail(r, "a profile of a routine or calling context never defined");
        if (!r->failed && profiles_restore(p, &rp) != 0)
            state_reader_fail(r, "a profile or a point saved twice");
        free(rp.rms_points);
        free(rp.trms_points);
    }
}
