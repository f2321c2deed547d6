/* record_lanes: the word beside a widened input-size record, which holds
 * the latest access times of the first four threads but one.
 *
 * A cell's owner keeps its own time in the record (input_size_internal.h),
 * so of threads 0-3 at most three have a time elsewhere. The word holds
 * three 21-bit lanes (bit 63 unused): the times of threads 0-3 in order of
 * their index, leaving out one, the "left-out slot":
 *
 *   - the owner itself, when it is one of threads 0-3;
 *   - thread 3, when the owner is a later thread: thread 3's time is then
 *     in the evicted times of group 0 (evicted_times.h);
 *   - thread 3 when nobody owns the cell (then every lane is 0: nobody
 *     accessed it).
 *
 * So a cell shared among four threads costs 16 bytes, record and lanes in
 * a quarter of a cache line, where a lane for each of the four cost 32.
 * When the cell changes hands, the left-out slot moves from the old
 * owner's to the new one's (record_lanes_move): the old owner's time
 * enters the word and the new owner's leaves it. */
#ifndef TRMS_RECORD_LANES_H
#define TRMS_RECORD_LANES_H

#include <stdint.h>

#include "common/compiler.h"

#define RECORD_LANE_BITS 21
#define RECORD_LANE_MASK ((UINT64_C(1) << RECORD_LANE_BITS) - 1)
#define RECORD_LANES 3
/* Threads 0 .. RECORD_LANE_THREADS-1 have their times in the word. */
#define RECORD_LANE_THREADS (RECORD_LANES + 1)

/* The slot (a thread 0-3) left out while thread OWNER (a dense index, or
 * UINT32_MAX for nobody) owns the cell. */
static ALWAYS_INLINE unsigned record_lanes_left_out(uint32_t owner)
{
    return owner < RECORD_LANE_THREADS - 1 ? owner : RECORD_LANE_THREADS - 1;
}

/* The thread whose time is in LANE (0-2) while slot LEFT_OUT is left out. */
static ALWAYS_INLINE uint32_t record_lanes_thread(unsigned lane, unsigned left_out)
{
    return lane + (lane >= left_out);
}

static ALWAYS_INLINE uint64_t record_lanes_get(uint64_t lanes, unsigned lane)
{
    return lanes >> (RECORD_LANE_BITS * lane) & RECORD_LANE_MASK;
}

/* LANES with LANE's time TIME (below 2^RECORD_LANE_BITS). */
static ALWAYS_INLINE uint64_t record_lanes_set(uint64_t lanes, unsigned lane, uint64_t time)
{
    unsigned shift = RECORD_LANE_BITS * lane;
    return (lanes & ~(RECORD_LANE_MASK << shift)) | time << shift;
}

/* The bits of the lanes below lane POS. */
#define RECORD_LANES_BELOW(pos) ((UINT64_C(1) << (RECORD_LANE_BITS * (pos))) - 1)

/* How the word changes when the left-out slot moves from A to B: the
 * lanes that stay (KEEP), those that shift a lane, up (UP) or down
 * (MOVED: where they are after the shift), where slot A's time enters
 * (IN) and where slot B's was (OUT). From A to a later B, slot B is in
 * lane B-1 and slots A+1 .. B-1 move up a lane; to an earlier B, slot B
 * is in lane B and slots B+1 .. A-1 move down a lane. */
struct record_lanes_step {
    uint64_t keep, moved;
    uint8_t up, in, out;
};

#define RECORD_LANES_STEP(a, b)                                                            \
    {(a) < (b) ? RECORD_LANES_BELOW(a) | ~RECORD_LANES_BELOW(b)                            \
               : RECORD_LANES_BELOW(b) | ~RECORD_LANES_BELOW(a),                           \
     (a) < (b) ? RECORD_LANES_BELOW(b) & ~RECORD_LANES_BELOW((a) + 1)                      \
               : RECORD_LANES_BELOW((a) - 1) & ~RECORD_LANES_BELOW(b),                     \
     (a) < (b), RECORD_LANE_BITS * ((a) < (b) ? (a) : (a) - 1),                            \
     RECORD_LANE_BITS * ((a) < (b) ? (b) - 1 : (b))}

static const struct record_lanes_step record_lanes_steps[RECORD_LANE_THREADS][RECORD_LANE_THREADS] = {
    {{0, 0, 0, 0, 0}, RECORD_LANES_STEP(0, 1), RECORD_LANES_STEP(0, 2), RECORD_LANES_STEP(0, 3)},
    {RECORD_LANES_STEP(1, 0), {0, 0, 0, 0, 0}, RECORD_LANES_STEP(1, 2), RECORD_LANES_STEP(1, 3)},
    {RECORD_LANES_STEP(2, 0), RECORD_LANES_STEP(2, 1), {0, 0, 0, 0, 0}, RECORD_LANES_STEP(2, 3)},
    {RECORD_LANES_STEP(3, 0), RECORD_LANES_STEP(3, 1), RECORD_LANES_STEP(3, 2), {0, 0, 0, 0, 0}},
};

/* The left-out slot moves from A to B (A != B, both 0-3): slot A's time
 * VA enters the word, and slot B's leaves it, returned. A table of the
 * twelve moves: computing the masks from A and B took twice the
 * instructions (callgrind, the input-size pass on the hostile shape:
 * +10% over 32-byte records, against +5%). */
static ALWAYS_INLINE uint64_t record_lanes_move(uint64_t *lanes, unsigned a, uint64_t va,
                                               unsigned b)
{
    const struct record_lanes_step *s = &record_lanes_steps[a][b];
    uint64_t l = *lanes, vb = l >> s->out & RECORD_LANE_MASK;
    uint64_t shifted = s->up ? l << RECORD_LANE_BITS : l >> RECORD_LANE_BITS;
    *lanes = (l & s->keep) | (shifted & s->moved) | va << s->in;
    return vb;
}

#endif
