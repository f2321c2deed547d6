/* step_schedule: quanta from splitmix64 (step_schedule.h). */
#include "recorder/step_schedule.h"

void step_schedule_init(struct step_schedule *s, uint32_t quantum, uint64_t seed)
{
    *s = (struct step_schedule){.quantum = quantum ? quantum : 1, .seed = seed, .state = seed};
}

/* splitmix64: tiny, well mixed, and the same on every machine. */
static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

uint32_t step_schedule_next(struct step_schedule *s)
{
    if (s->seed == 0 || s->quantum == 1)
        return s->quantum;
    uint64_t span = 2 * (uint64_t)s->quantum - 1;
    return (uint32_t)(1 + splitmix64(&s->state) % span);
}
