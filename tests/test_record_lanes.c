/* test_record_lanes: the word beside a widened input-size record against
 * a naive model, four times in an array with the left-out slot's marked,
 * over every move of the left-out slot and random times, edge values
 * (0 and the largest time) included, and sequences of moves. */
#include <stdint.h>
#include <stdio.h>

#include "analyses/record_lanes.h"
#include "tests/check.h"
#include "tests/random_trace.h"

static uint64_t rng = 1;

static uint64_t next_random(void)
{
    return random_next(&rng);
}

static uint64_t random_time(void)
{
    switch (next_random() % 4) {
    case 0:
        return 0;
    case 1:
        return RECORD_LANE_MASK;
    default:
        return next_random() & RECORD_LANE_MASK;
    }
}

/* The word that holds the times T of every slot but LEFT_OUT, in lanes
 * by the slots' order: built one lane at a time. */
static uint64_t word_of(const uint64_t t[RECORD_LANE_THREADS], unsigned left_out)
{
    uint64_t w = 0;
    unsigned lane = 0;
    for (unsigned slot = 0; slot < RECORD_LANE_THREADS; slot++)
        if (slot != left_out)
            w |= t[slot] << (RECORD_LANE_BITS * lane++);
    return w;
}

static void check_word(uint64_t w, const uint64_t t[RECORD_LANE_THREADS], unsigned left_out)
{
    CHECK_EQ(w, word_of(t, left_out));
    for (unsigned lane = 0; lane < RECORD_LANES; lane++)
        CHECK_EQ(record_lanes_get(w, lane), t[record_lanes_thread(lane, left_out)]);
    CHECK_EQ(w >> 63, 0);
}

static void every_move(void)
{
    for (int round = 0; round < 2000; round++)
        for (unsigned a = 0; a < RECORD_LANE_THREADS; a++)
            for (unsigned b = 0; b < RECORD_LANE_THREADS; b++) {
                if (a == b)
                    continue;
                uint64_t t[RECORD_LANE_THREADS];
                for (unsigned s = 0; s < RECORD_LANE_THREADS; s++)
                    t[s] = random_time();
                uint64_t w = word_of(t, a);
                check_word(w, t, a);
                CHECK_EQ(record_lanes_move(&w, a, t[a], b), t[b]);
                check_word(w, t, b);
            }
}

/* Ownership passing around at random, times growing: the word always
 * holds the model's times of every slot but the owner's. */
static void sequences(void)
{
    for (int run = 0; run < 200; run++) {
        uint64_t t[RECORD_LANE_THREADS] = {0}, w = 0, now = 0;
        unsigned owner = (unsigned)(next_random() % RECORD_LANE_THREADS);
        for (int step = 0; step < 500; step++) {
            unsigned next = (unsigned)(next_random() % RECORD_LANE_THREADS);
            t[owner] = now = (now + 1 + next_random() % 1000) & RECORD_LANE_MASK;
            if (next != owner)
                CHECK_EQ(record_lanes_move(&w, owner, t[owner], next), t[next]);
            owner = next;
            check_word(w, t, owner);
            unsigned lane = (unsigned)(next_random() % RECORD_LANES);
            uint64_t time = random_time(); /* (a renumbering) */
            w = record_lanes_set(w, lane, time);
            t[record_lanes_thread(lane, owner)] = time;
            check_word(w, t, owner);
        }
    }
}

static void left_out_slots(void)
{
    for (uint32_t owner = 0; owner < RECORD_LANE_THREADS - 1; owner++)
        CHECK_EQ(record_lanes_left_out(owner), owner);
    CHECK_EQ(record_lanes_left_out(RECORD_LANE_THREADS - 1), RECORD_LANE_THREADS - 1);
    CHECK_EQ(record_lanes_left_out(RECORD_LANE_THREADS + 5), RECORD_LANE_THREADS - 1);
    CHECK_EQ(record_lanes_left_out(UINT32_MAX), RECORD_LANE_THREADS - 1); /* nobody */
}

int main(void)
{
    left_out_slots();
    every_move();
    sequences();
    return check_report("test_record_lanes");
}
