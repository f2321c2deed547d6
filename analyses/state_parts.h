/* state_parts: how each part of an analysis saves its state and loads it
 * back (checkpoints). Internal to analyses/: the rest of trms sees only
 * analysis_save() and analysis_load() (analysis_state.h).
 *
 * Every save writes exactly what the part's future behaviour depends on;
 * what is only a cache (shadow-map caches, reuse marks and their tree,
 * which follow from the lines' times) is rebuilt on load. A load checks
 * what could make the part misbehave (an owner index past the threads, a
 * time past the clock) and fails the reader instead. */
#ifndef TRMS_STATE_PARTS_H
#define TRMS_STATE_PARTS_H

#include "analyses/activation.h"
#include "analyses/shadow_map.h"
#include "common/state_stream.h"

struct engine;
struct engine_config;

/* What the driver's loaded state says the parts' states must agree with:
 * a pass that disagrees would index past its threads, pop a frame the
 * driver thinks is not there, or name a routine the recording never
 * defined (a crafted checkpoint; its checksum proves nothing). */
struct state_bounds {
    uint64_t routines;          /* routine ids are below it, or ROUTINE_ROOT */
    uint64_t contexts;          /* the calling context tree's size, 0 when not kept */
    size_t threads;             /* the driver's threads, by dense index: */
    const uint32_t *tids;
    const uint64_t *depth;      /* pending calls of each */
    const uint64_t *cost;       /* instructions of each */
    int has_current;
    uint32_t current;           /* the current thread's index, when has_current */
};
struct input_size;
struct reuse_distance;
struct profiles;

/* Chunks of a shadow map (MAP initialized, empty, with the saved word count). */
void shadow_map_save(struct shadow_map *map, struct state_writer *w);
/* MAY_WIDEN: the map may hold widened chunks (shadow_map_widen). */
void shadow_map_load(struct shadow_map *map, struct state_reader *r, int may_widen);

void input_size_save(const struct input_size *is, struct state_writer *w);
/* NULL with R failed when the state is not one input_size_save wrote. */
struct input_size *input_size_load(struct state_reader *r, const struct state_bounds *b,
                                   activation_sink sink, void *ctx);

void reuse_distance_save(const struct reuse_distance *rd, struct state_writer *w);
/* MIN_WINDOW: reuse_distance_new's, which the saved stack must have had
 * (or OTHER_WINDOW's: a thread's own stack starts smaller than the
 * global one it may have been copied from). */
struct reuse_distance *reuse_distance_load(struct state_reader *r, uint64_t min_window,
                                           uint64_t other_window);

void profiles_save(const struct profiles *p, struct state_writer *w);
/* Into P, which is new and empty. */
void profiles_load(struct profiles *p, const struct state_bounds *b, struct state_reader *r);

/* The jobs' states, in job order, of an engine quiesced (engine_quiesce). */
void engine_save(const struct engine *e, struct state_writer *w);
/* A new engine (engine_new's arguments) whose jobs take up the saved
 * states; NULL with R failed when they do not fit CONFIG. */
struct engine *engine_load(const struct engine_config *config, const struct state_bounds *b,
                           activation_sink collect, void *ctx, struct state_reader *r);

#endif
