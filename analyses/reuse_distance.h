/* reuse_distance: exact LRU stack distances of one stream of line accesses.
 *
 * The distance of an access is the number of distinct other lines accessed
 * since the previous access to the same line; a first access is cold.
 * The 16 latest lines are a front, ranked apart (a short reuse moves
 * nothing else); every line that fell out of it has the time it fell out
 * as a mark in a bitmap over time, counted
 * in groups of a cache line or less (4 words, then 16 counts, and so on), so a
 * distance behind the front is 16 plus the number of marks after the
 * line's own: a few adds to
 * move a mark, one line per level to count. When time runs past
 * the bitmap, the live marks are renumbered 1..M, so memory stays O(M)
 * however long the stream is. */
#ifndef TRMS_REUSE_DISTANCE_H
#define TRMS_REUSE_DISTANCE_H

#include <stddef.h>
#include <stdint.h>

#include "analyses/batch_event.h"

struct reuse_distance;

/* MIN_WINDOW: 0 for the default first window, or a small one (rounded up
 * to 64 times) so that tests renumber often. */
struct reuse_distance *reuse_distance_new(uint64_t min_window);
void reuse_distance_free(struct reuse_distance *rd);

void reuse_distance_access(struct reuse_distance *rd, uint64_t line);

/* The same, returning the access's distance, or REUSE_COLD for a first
 * access. */
#define REUSE_COLD UINT64_MAX
uint64_t reuse_distance_access_distance(struct reuse_distance *rd, uint64_t line);

/* Where reuse_distance_events stops: at a thread event of this dense
 * index, at any thread event, or never. */
#define REUSE_STOP_NEVER UINT32_MAX
#define REUSE_STOP_ANY (UINT32_MAX - 1)

/* The loads and stores among EVENTS[0..N), in order, each an access to
 * every LINE_SHIFT-line it overlaps (other events are passed over), up to
 * the first thread event STOP names (see above): returns its index, N
 * when there is none. The engine's batch loop; it asks for lines ahead of
 * their use. */
size_t reuse_distance_events(struct reuse_distance *rd, const struct batch_event *events,
                             size_t n, unsigned line_shift, uint32_t stop);

/* The same for per-thread stacks: the loads and stores of the thread of
 * dense index *CURRENT go to STACKS[*CURRENT] (nowhere before any thread
 * event: SIZE_MAX), and thread events set *CURRENT, up to the first thread
 * event whose thread has no stack of its own (its index is N_STACKS or
 * more, or its stack NULL): returns its index, N when there is none. A
 * line is asked for ahead of its use in the stack of the thread that will
 * touch it, and with MARKS_AHEAD (some stack asks for it:
 * reuse_distance_count_ahead) its marks too. Costs nothing per stack that
 * is not touched. */
size_t reuse_distance_thread_events(struct reuse_distance *const *stacks, size_t n_stacks,
                                    size_t *current, const struct batch_event *events, size_t n,
                                    unsigned line_shift, int marks_ahead);

/* RD counts itself in *AHEAD_STACKS while it asks for marks ahead (a set
 * of stacks keeps the count, not a loop over them); NULL: no count. */
void reuse_distance_count_ahead(struct reuse_distance *rd, unsigned *ahead_stacks);

/* A copy of RD, to go on separately (a stack that was shared until now). */
struct reuse_distance *reuse_distance_clone(const struct reuse_distance *rd);

uint64_t reuse_distance_accesses(const struct reuse_distance *rd);
uint64_t reuse_distance_cold(const struct reuse_distance *rd);

/* Non-cold accesses at exactly DISTANCE. */
uint64_t reuse_distance_count(const struct reuse_distance *rd, uint64_t distance);

/* One more than the largest distance seen (0 when none). */
uint64_t reuse_distance_span(const struct reuse_distance *rd);

size_t reuse_distance_bytes(const struct reuse_distance *rd);

#endif
