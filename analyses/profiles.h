/* profiles: the input-sensitive profile of every (routine, thread), or of
 * every (calling context, thread) for activations that carry a context.
 *
 * For each distinct input size n, the performance tuple of the papers
 * (calls, min, max, sum, sum of squares of cost), kept once with RMS and
 * once with TRMS as n; plus per-routine totals of induced input. */
#ifndef TRMS_PROFILES_H
#define TRMS_PROFILES_H

#include "analyses/activation.h"
#include "analyses/result.h"

struct profiles;

struct profiles *profiles_new(void);
void profiles_free(struct profiles *p);

void profiles_add(struct profiles *p, const struct activation *a);

/* Whether P's points are past the caches (65,536 or more, about 8 MiB
 * with their maps' entries), so that asking for them ahead pays: a
 * program's few sizes stay in the caches (xz -6 of 48 KiB: 2,766 points). */
int profiles_scattered(const struct profiles *p);

/* Asks the caches for what profiles_add(P, A) will touch, a few
 * activations ahead: with NEAR 0 the entries of A's sizes in its
 * profile's maps, with NEAR 1 (later, those entries having come) the
 * points they name. A hint: changes nothing. The points are spread over
 * every size a routine has seen, and missed the caches on the hostile
 * shape (add_point: 6% of trms analyze's samples, three quarters of them
 * on its first touch of the point). */
void profiles_prefetch(const struct profiles *p, const struct activation *a, int near);

/* Hands the profiles to RESULT (sorted by routine, context, thread; points
 * by n) and empties P. */
void profiles_export(struct profiles *p, struct analysis_result *result);

size_t profiles_bytes(const struct profiles *p);

/* Calls VISIT with each profile as it stands (its points in no particular
 * order); P is unchanged. For checkpoints. */
void profiles_each(const struct profiles *p,
                   void (*visit)(void *ctx, const struct routine_profile *rp), void *ctx);

/* Adds RP, as profiles_each gave it, as a profile of its own; -1 when P
 * has its routine and thread already or two of its points have the same
 * n. */
int profiles_restore(struct profiles *p, const struct routine_profile *rp);

#endif
