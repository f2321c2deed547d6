/* step_schedule: the step engine's deterministic schedule. Threads take
 * turns round-robin, each for a quantum of instructions; with a seed, each
 * quantum is drawn from a pseudo-random sequence that the seed alone
 * fixes (uniform in [1, 2 * quantum - 1], so the mean stays the quantum),
 * so one seed always gives one interleaving and other seeds others. */
#ifndef TRMS_STEP_SCHEDULE_H
#define TRMS_STEP_SCHEDULE_H

#include <stdint.h>

#define STEP_DEFAULT_QUANTUM 1000

struct step_schedule {
    uint32_t quantum;
    uint64_t seed;      /* 0: every quantum is QUANTUM */
    uint64_t state;
};

void step_schedule_init(struct step_schedule *s, uint32_t quantum, uint64_t seed);

/* The length of the next turn, in instructions (at least 1). */
uint32_t step_schedule_next(struct step_schedule *s);

#endif
