/* causal_model: a happens-before model of a recorded run, for what-if
 * questions ("routine R runs s% faster: how long does the program take?").
 *
 * Built once from the events and the sync records of a trace
 * (trace/sync_event.h), engine-agnostic. Each thread's work is cut into
 * segments at its synchronization; a segment knows its instructions (the
 * cost unit: the trace's EVENT_COST), the inclusive instructions of every
 * routine active in it (Coz attributes callees to the routine in scope),
 * and what must end before it may start:
 *   - the thread's previous segment;
 *   - one release it acquired: create -> the child's start, the wake of a
 *     futex -> the end of the wait it ended (the last release on that
 *     address before the wait's return), a thread's exit -> its joiner (the
 *     wait on, or the first read by another thread of, the address its
 *     exit clears);
 *   - a fixed delay: a blocking system call's recorded wall time;
 *   - for a segment that takes a lock: the lock, and the critical sections
 *     of other threads that its own critical section read from.
 * Locks are the addresses a locked read-modify-write took from 0 (lock)
 * and the same thread gave back to 0 (unlock), never two holders at once
 * and no holder blocked in a futex wait on a non-lock while holding one.
 * Their recorded order is not kept: in the simulation a lock goes to the
 * thread that arrives first (the others wait until it is given back, then
 * the first of them to arrive takes it), and futex waits on the lock word
 * itself are left to the simulation. What keeps a consumer from taking an
 * item before it was produced is the data: a critical section that read
 * an address another thread's critical section wrote, and did not write
 * it itself (a message, not a shared counter like a queue's count), may
 * not take its lock before that writer's segment ended. Other addresses
 * (condition variables' words, counters, a lock held across a blocking
 * wait) keep their recorded order: the last unlock by another thread ->
 * the next lock. A recorded futex wait on a condition variable is an
 * edge from the wake: where the waiter arrives after it in the
 * simulation, the wait costs nothing.
 *
 * A what-if then simulates the segment graph (not the events), in time
 * order: a segment starts when what it waits for has ended, its lock is
 * its and, with fewer cores than threads, a core is free (segments take
 * the core free first in the order they start, and run to their end: no
 * time slicing); the predicted program time is the makespan. Should the
 * simulation's order of locks deadlock (two threads taking two locks in
 * an order the recording did not have), the first waiter takes its lock
 * anyway. */
#ifndef TRMS_CAUSAL_MODEL_H
#define TRMS_CAUSAL_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "trace/event.h"
#include "trace/sync_event.h"

struct causal_model;

struct causal_model_options {
    /* Instructions a nanosecond of blocking is worth: converts the
     * recorded wall time of blocking system calls into the cost unit. */
    double instructions_per_ns;
    /* NULL, or whether ROUTINE is a progress point: each completion of
     * one (the return of its outermost activation) ends a segment, and
     * causal_model_period() measures the time between them. It returns 0
     * for no, CAUSAL_PROGRESS (also a latency's begin) or CAUSAL_END (a
     * latency's end: causal_model_latency()). */
    int (*is_progress)(void *ctx, uint32_t routine);
    void *progress_ctx;
};

struct causal_model *causal_model_new(const struct causal_model_options *options);
void causal_model_free(struct causal_model *m);

/* The trace, in order: events (an event_sink) and sync records (a
 * sync_sink), CTX the model. Of the memory accesses it reads a thread's
 * while it holds an address (took it from 0 and has neither given all
 * back to 0 nor waited on a futex since), at most 4096 after each take,
 * counted only once the program is threaded (a thread creation, or a
 * second thread, was seen), and the reads of an address a thread's exit
 * clears: a reduced trace must keep at least those for the same model.
 * Before the first creation no other thread can read what a critical
 * section wrote but after the creation, which orders it all: following
 * then would only add flows the creation implies, and cost the causal
 * input every access of a single-threaded program's locked sections
 * (sqlite3 takes a mutex around each allocation). */
#define CAUSAL_MODEL_FOLLOWED_ACCESSES 4096u
int causal_model_event(void *ctx, const struct event *ev, struct trms_error *err);
int causal_model_events(void *ctx, const struct event *events, size_t n,
                        struct trms_error *err);
int causal_model_sync(void *ctx, const struct sync_event *ev, struct trms_error *err);

/* Ends the build (every thread's open segment closes). */
void causal_model_finish(struct causal_model *m);

struct causal_model_stats {
    uint64_t segments;
    uint64_t edges;           /* cross-thread: create, wake, atomic, join */
    uint64_t threads;
    uint64_t sync_records;
    uint64_t instructions;
    double blocking;          /* fixed delays, in instructions */
    uint64_t locks;           /* addresses granted in simulated order */
    uint64_t flows;           /* critical section -> critical section it read from */
};
void causal_model_stats(const struct causal_model *m, struct causal_model_stats *s);

/* Routines seen (ids of the trace's routine table, below this), and the
 * inclusive instructions of ROUTINE over the run. */
uint32_t causal_model_routines(const struct causal_model *m);
uint64_t causal_model_routine_cost(const struct causal_model *m, uint32_t routine);

/* The simulated program time, in instructions, when ROUTINE's inclusive
 * instructions shrink by the fraction SPEEDUP (0..1; ROUTINE
 * CAUSAL_NO_ROUTINE for none), on CORES cores (0: one per thread). */
#define CAUSAL_NO_ROUTINE UINT32_MAX
#define CAUSAL_PROGRESS 1
#define CAUSAL_END 2
double causal_model_time(struct causal_model *m, uint32_t routine, double speedup,
                         unsigned cores);

/* After causal_model_time(): the mean time between two completions of the
 * progress points in that simulation, or a negative number when there
 * were fewer than two. *COMPLETIONS (may be NULL) receives their count. */
double causal_model_period(const struct causal_model *m, uint64_t *completions);

/* After causal_model_time(): the mean time from the k-th completion of a
 * CAUSAL_PROGRESS point to the k-th of a CAUSAL_END one (recorded order),
 * or a negative number when there is no pair; *PAIRS (may be NULL)
 * receives their count. */
double causal_model_latency(const struct causal_model *m, uint64_t *pairs);

#endif
