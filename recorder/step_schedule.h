/* step_schedule: the step engine's deterministic schedules; a seed alone
 * fixes each, so one seed always gives one interleaving and other seeds
 * others. The threads it orders are every thread of every process the
 * engine follows (a process tree), in the order they were created: one
 * schedule for the whole tree, never one per process, so that what
 * processes do to each other (a pipe, a wait) comes in the seed's order.
 *
 * Round-robin: threads take turns, each for a quantum of instructions;
 * with a seed, each quantum is drawn from a pseudo-random sequence
 * (uniform in [1, 2 * quantum - 1], so the mean stays the quantum).
 *
 * PCT (Burckhardt et al., ASPLOS 2010, as the memory-distance paper of
 * Li et al. uses it): every thread gets a random priority when it is
 * created, all of them at least DEPTH; the enabled thread of highest
 * priority runs, one event at a time. DEPTH - 1 change points are drawn
 * uniformly among the first EVENTS counted events (k, an estimate of how
 * many the run has): when the thread that made counted event k_i has made
 * it, its priority drops to DEPTH - i, below every initial one. The engine
 * decides which events count (step_engine.h); a result that needs
 * DEPTH - 1 particular events to be preempted, and one thread to run
 * first, appears in a run with probability at least 1 / (n k^(DEPTH-1))
 * for n threads. */
#ifndef TRMS_STEP_SCHEDULE_H
#define TRMS_STEP_SCHEDULE_H

#include <stdint.h>

#define STEP_DEFAULT_QUANTUM 1000
#define STEP_PCT_MAX_DEPTH 32
#define STEP_PCT_DEFAULT_DEPTH 3

enum step_policy { STEP_ROUND_ROBIN, STEP_PCT };

struct step_schedule {
    enum step_policy policy;
    uint32_t quantum;
    uint64_t seed;      /* round-robin: 0, every quantum is QUANTUM */
    uint64_t state;
    /* PCT */
    uint32_t depth;
    uint64_t events;                            /* k */
    uint64_t change_at[STEP_PCT_MAX_DEPTH - 1]; /* k_1 .. k_(depth-1); 0: none */
    uint64_t counted;                           /* counted events so far */
    int64_t lowest;                             /* the latest yield's priority */
};

void step_schedule_init(struct step_schedule *s, uint32_t quantum, uint64_t seed);

/* The length of the next turn, in instructions (at least 1). */
uint32_t step_schedule_next(struct step_schedule *s);

/* PCT with DEPTH (1 .. STEP_PCT_MAX_DEPTH) over an estimated EVENTS
 * counted events (at least 1): draws the change points, then hands out
 * priorities from the same sequence. */
void step_schedule_init_pct(struct step_schedule *s, uint64_t seed, uint32_t depth,
                            uint64_t events);

/* A new thread's priority: random, at least DEPTH (distinct with
 * overwhelming odds; the engine breaks ties by creation order). */
int64_t step_schedule_priority(struct step_schedule *s);

/* One more counted event: its change point i (the thread that made it
 * drops to priority DEPTH - i), or 0. */
uint32_t step_schedule_count(struct step_schedule *s);

/* The priority of a thread that yields (sched_yield, a spin-wait hint):
 * below every other so far, so that the threads it waits for run. */
int64_t step_schedule_yield_priority(struct step_schedule *s);

#endif
