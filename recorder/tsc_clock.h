/* tsc_clock: a monotonic clock in ns from the TSC, checked against a real
 * clock now and then.
 *
 * The Valgrind tool reads the time twice for every system call that may
 * block (what the program waited for, in the causal model), and its
 * clock_gettime is a system call: no vDSO for the tool (dd bs=512 spent a
 * tenth of its recording in them). Between real readings at most
 * TSC_CLOCK_SPAN ticks apart, the time is the last real reading plus the
 * ticks since, at the rate the last two real readings measured; a wait
 * longer than that (a sleep, a read of a slow pipe) ends on a real
 * reading. A TSC that runs backwards, or at a rate no clock has, ends the
 * estimates for good: every reading is then a real one.
 *
 * The caller reads the TSC, asks tsc_clock_estimate, and when it says no,
 * reads the real clock and gives both to tsc_clock_real.
 *
 * Header only, freestanding: the tool includes it too. */
#ifndef TRMS_TSC_CLOCK_H
#define TRMS_TSC_CLOCK_H

#include <stdint.h>

#define TSC_CLOCK_SPAN (UINT64_C(1) << 26)   /* some 20 ms at 3 GHz */

struct tsc_clock {
    uint64_t tsc_base, ns_base;   /* the last real reading (tsc_base 0: none) */
    uint64_t ns_last;             /* the latest time given */
    uint64_t rate_q32;            /* ns a tick, times 2^32; 0: not measured */
    int unusable;                 /* the TSC failed a check */
};

static inline uint64_t tsc_clock_monotonic(struct tsc_clock *c, uint64_t ns)
{
    if (ns < c->ns_last) /* an estimate ran ahead of the real clock */
        ns = c->ns_last;
    c->ns_last = ns;
    return ns;
}

/* 1 and the time in *NS when the TSC reading TSC gives it; 0 when a real
 * reading is wanted. */
static inline int tsc_clock_estimate(struct tsc_clock *c, uint64_t tsc, uint64_t *ns)
{
    if (c->unusable || c->rate_q32 == 0 || tsc < c->tsc_base ||
        tsc - c->tsc_base >= TSC_CLOCK_SPAN)
        return 0;
    /* (ticks < 2^26 and rate < 2^36: no overflow) */
    *ns = tsc_clock_monotonic(c, c->ns_base + ((tsc - c->tsc_base) * c->rate_q32 >> 32));
    return 1;
}

/* A real reading NS taken with TSC. One at least TSC_CLOCK_SPAN ticks
 * (and less than 2^31 ns) after the base measures the rate against it and
 * becomes the base; so does the first, and any once the rate is known.
 * Before the rate is known, readings closer to the base leave it, so that
 * a program whose calls come every few microseconds from its start still
 * gets its rate measured within a span. Returns the time to give. */
static inline uint64_t tsc_clock_real(struct tsc_clock *c, uint64_t tsc, uint64_t ns)
{
    int far = c->tsc_base == 0 || tsc - c->tsc_base >= TSC_CLOCK_SPAN;
    if (c->tsc_base && tsc < c->tsc_base) {
        c->unusable = 1; /* backwards */
        far = 1;
    } else if (c->tsc_base && far && ns > c->ns_base && (ns - c->ns_base) >> 31 == 0) {
        uint64_t rate = ((ns - c->ns_base) << 32) / (tsc - c->tsc_base);
        /* TSCs tick at 0.1 to 10 GHz: 0.1 to 10 ns a tick */
        if (rate < (UINT64_C(1) << 32) / 10 || rate > (UINT64_C(1) << 32) * 10)
            c->unusable = 1;
        else
            c->rate_q32 = rate;
    }
    if (far || c->rate_q32) {
        c->tsc_base = tsc;
        c->ns_base = ns;
    }
    return tsc_clock_monotonic(c, ns);
}

#endif
