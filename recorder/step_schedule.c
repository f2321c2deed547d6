/* step_schedule: quanta and PCT priorities from splitmix64
 * (step_schedule.h). */
#include "recorder/step_schedule.h"

#include <string.h>

void step_schedule_init(struct step_schedule *s, uint32_t quantum, uint64_t seed)
{
    memset(s, 0, sizeof *s);
    s->policy = STEP_ROUND_ROBIN;
    s->quantum = quantum ? quantum : 1;
    s->seed = s->state = seed;
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
    if (s->policy == STEP_PCT)
        return 1;  /* priorities are looked at after every event */
    if (s->seed == 0 || s->quantum == 1)
        return s->quantum;
    uint64_t span = 2 * (uint64_t)s->quantum - 1;
    return (uint32_t)(1 + splitmix64(&s->state) % span);
}

/* Uniform in [0, n) without the bias of a plain modulo. */
static uint64_t below(uint64_t *state, uint64_t n)
{
    uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t x;
    do
        x = splitmix64(state);
    while (x >= limit);
    return x % n;
}

void step_schedule_init_pct(struct step_schedule *s, uint64_t seed, uint32_t depth,
                            uint64_t events)
{
    step_schedule_init(s, 1, seed);
    s->policy = STEP_PCT;
    s->depth = depth < 1 ? 1 : depth > STEP_PCT_MAX_DEPTH ? STEP_PCT_MAX_DEPTH : depth;
    s->events = events ? events : 1;
    /* Distinct change points when there are enough events to hold them. */
    for (uint32_t i = 0; i + 1 < s->depth; i++) {
        for (;;) {
            uint64_t k = 1 + below(&s->state, s->events);
            int taken = 0;
            for (uint32_t j = 0; j < i; j++)
                taken |= s->change_at[j] == k;
            if (!taken || i >= s->events) {
                s->change_at[i] = taken ? 0 : k;
                break;
            }
        }
    }
}

int64_t step_schedule_priority(struct step_schedule *s)
{
    return (int64_t)s->depth + (int64_t)(splitmix64(&s->state) >> 2);
}

uint32_t step_schedule_count(struct step_schedule *s)
{
    s->counted++;
    for (uint32_t i = 0; i + 1 < s->depth; i++)
        if (s->change_at[i] == s->counted)
            return i + 1;
    return 0;
}

int64_t step_schedule_yield_priority(struct step_schedule *s)
{
    return --s->lowest;
}
