/* test_tsc_clock: the Valgrind tool's clock (recorder/tsc_clock.h) against
 * simulated clocks: a TSC at a steady rate gives times within a few ns of
 * the real clock between real readings; a wait past the span ends on a
 * real reading; the times never go back; a TSC that runs backwards or at
 * an absurd rate stops the estimates for good. */
#include <stdint.h>
#include <stdio.h>

#include "recorder/tsc_clock.h"
#include "tests/check.h"
#include "tests/random_trace.h"

/* A simulated machine: the real clock in ns and a TSC at TICKS_PER_US
 * ticks a microsecond from TSC0, and the tool's reading of the time. */
struct machine {
    struct tsc_clock clock;
    uint64_t real_ns;
    uint64_t tsc0, ticks_per_us;
    uint64_t real_readings;
};

static uint64_t tsc_now(const struct machine *m)
{
    return m->tsc0 + m->real_ns * m->ticks_per_us / 1000;
}

/* now_ns of the tool, on the machine. */
static uint64_t read_time(struct machine *m, uint64_t tsc)
{
    uint64_t ns;
    if (tsc_clock_estimate(&m->clock, tsc, &ns))
        return ns;
    m->real_readings++;
    return tsc_clock_real(&m->clock, tsc, m->real_ns);
}

static uint64_t gap(uint64_t a, uint64_t b)
{
    return a > b ? a - b : b - a;
}

/* Steady TSCs of several rates, readings at random gaps, many shorter than
 * the span, some longer (a sleep): every time within 2 ns a ms of the
 * real clock's since the last real reading, never back, and most times
 * estimated. */
static void steady(uint64_t ticks_per_us, uint64_t seed)
{
    struct machine m = {.real_ns = 1000000000, .tsc0 = 123456789, .ticks_per_us = ticks_per_us};
    uint64_t rng = seed, last = 0, reads = 0, worst = 0;
    for (int i = 0; i < 200000; i++) {
        uint64_t r = random_next(&rng);
        m.real_ns += r % 100 == 0 ? r % 300000000 : r % 200000; /* up to 0.3 s, 0.2 ms */
        uint64_t t = read_time(&m, tsc_now(&m));
        reads++;
        CHECK(t >= last);
        last = t;
        /* off by the rate's error over at most a span (~0.2 ns a tick's
         * rounding, and the ns lost converting the simulated TSC) */
        uint64_t off = gap(t, m.real_ns);
        if (off > worst)
            worst = off;
    }
    CHECK(worst <= 2000); /* 2 us: the TSC's ns rounding over a span */
    CHECK(m.real_readings < reads / 20);
    CHECK(!m.clock.unusable);
    CHECK(m.clock.rate_q32 != 0);
}

/* Readings every 10 us from the start (a program of system calls only,
 * as dd bs=512): the rate is measured within the first span, and after
 * it nearly every time is an estimate. */
static void frequent_from_start(void)
{
    struct machine m = {.real_ns = 777, .tsc0 = 99, .ticks_per_us = 2800};
    uint64_t last = 0;
    for (int i = 0; i < 100000; i++) { /* a second */
        m.real_ns += 10000;
        uint64_t t = read_time(&m, tsc_now(&m));
        CHECK(t >= last && gap(t, m.real_ns) <= 2000);
        last = t;
    }
    CHECK(m.clock.rate_q32 != 0);
    /* every one of the first span's (some 2,400), then one a span (42) */
    CHECK(m.real_readings < 100000 / 30);
}

/* A wait longer than the span: the time after it is the real clock's. */
static void long_wait(void)
{
    struct machine m = {.real_ns = 5000, .tsc0 = 1000, .ticks_per_us = 3000};
    for (int i = 0; i < 100; i++) {
        m.real_ns += 10000000; /* 10 ms: measures the rate */
        read_time(&m, tsc_now(&m));
    }
    uint64_t before = m.real_readings;
    m.real_ns += 5000000000ULL; /* a sleep of 5 s */
    CHECK_EQ(read_time(&m, tsc_now(&m)), m.real_ns);
    CHECK_EQ(m.real_readings, before + 1);
}

/* A TSC that goes back: the estimates stop, every reading is real. */
static void backwards(void)
{
    struct machine m = {.real_ns = 5000, .tsc0 = 1000000000000ULL, .ticks_per_us = 2500};
    for (int i = 0; i < 50; i++) {
        m.real_ns += 30000000;
        read_time(&m, tsc_now(&m));
    }
    CHECK(m.clock.rate_q32 != 0);
    m.tsc0 -= 900000000000ULL; /* another core's TSC, far behind */
    m.real_ns += 40000000;     /* past the span: a real reading sees it */
    CHECK_EQ(read_time(&m, tsc_now(&m)), m.real_ns);
    CHECK(m.clock.unusable);
    uint64_t before = m.real_readings;
    for (int i = 0; i < 10; i++) {
        m.real_ns += 1000;
        CHECK_EQ(read_time(&m, tsc_now(&m)), m.real_ns);
    }
    CHECK_EQ(m.real_readings, before + 10);
}

/* A TSC at a rate no clock has (here 100 GHz): the estimates stop. */
static void absurd_rate(void)
{
    struct machine m = {.real_ns = 5000, .tsc0 = 7, .ticks_per_us = 100000};
    for (int i = 0; i < 20; i++) {
        m.real_ns += 10000000;
        read_time(&m, tsc_now(&m));
    }
    CHECK(m.clock.unusable);
    uint64_t before = m.real_readings;
    m.real_ns += 10;
    CHECK_EQ(read_time(&m, tsc_now(&m)), m.real_ns);
    CHECK_EQ(m.real_readings, before + 1);
}

/* An estimate ahead of the next real reading (the TSC sped up): the time
 * stays where it was until the real clock passes it. */
static void never_back(void)
{
    struct machine m = {.real_ns = 5000, .tsc0 = 5, .ticks_per_us = 3000};
    for (int i = 0; i < 50; i++) {
        m.real_ns += 30000000;
        read_time(&m, tsc_now(&m));
    }
    uint64_t tsc = tsc_now(&m);
    m.ticks_per_us = 3300; /* 10% faster from here, on from the same tick */
    m.tsc0 = tsc - m.real_ns * 3300 / 1000;
    uint64_t last = 0;
    for (int i = 0; i < 2000; i++) {
        m.real_ns += 100000;
        uint64_t t = read_time(&m, tsc_now(&m));
        CHECK(t >= last);
        last = t;
    }
    CHECK(!m.clock.unusable);
}

int main(void)
{
    steady(3000, 1);  /* 3 GHz */
    steady(2445, 2);  /* 2.445 GHz */
    steady(1000, 3);  /* 1 GHz */
    steady(4800, 4);
    frequent_from_start();
    long_wait();
    backwards();
    absurd_rate();
    never_back();
    return check_report("test_tsc_clock");
}
