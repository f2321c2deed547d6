/* fixture: test helpers that turn a text trace (a string) into events and
 * run the real analyses over them, keeping every completed activation. */
#ifndef TRMS_FIXTURE_H
#define TRMS_FIXTURE_H

#include <stddef.h>

#include "analyses/activation.h"
#include "analyses/result.h"
#include "trace/event.h"
#include "trace/routine_table.h"

struct event_list {
    struct event *items;
    size_t count;
    size_t capacity;
};

void event_list_push(struct event_list *list, const struct event *ev);
void event_list_free(struct event_list *list);

/* Parses TEXT; exits the test on a parse error (fixtures are valid). */
void fixture_parse(const char *text, struct event_list *events, struct routine_table *routines);

struct run {
    struct activation *activations;  /* completion order */
    size_t n_activations;
    struct analysis_result *result;
    struct routine_table routines;
    uint64_t renumberings;       /* timestamp renumberings that happened */
};

/* Runs the analyses over EVENTS with the given sizes; TIME_LIMIT is 0 or
 * a small timestamp range that forces renumbering. */
void fixture_run_events(const struct event *events, size_t n, const struct routine_table *routines,
                        uint64_t cell_size, uint64_t line_size, uint64_t time_limit,
                        struct run *out);

/* The same with every analysis option given. */
struct analysis_options;
void fixture_run_with(const struct event *events, size_t n, const struct routine_table *routines,
                      const struct analysis_options *options, struct run *out);

/* Parses and runs TEXT. */
void fixture_run_text(const char *text, uint64_t cell_size, uint64_t line_size, struct run *out);

void run_free(struct run *run);

/* The run's result, which the caller now owns; frees the rest of RUN. */
struct analysis_result *run_take_result(struct run *run);

/* The result of a random trace of SHAPE drawn from SEED (random_trace.h),
 * analyzed with OPTIONS; the caller owns it. */
struct random_trace_shape;
struct analysis_result *fixture_random_result(uint64_t seed, const struct random_trace_shape *shape,
                                              const struct analysis_options *options);

/* The Nth completed activation of routine NAME in thread TID (N from 0), or
 * NULL. */
const struct activation *run_find(const struct run *run, const char *name, uint32_t tid,
                                  size_t n);

/* Accesses at exactly DISTANCE in a histogram. */
uint64_t histogram_count(const struct reuse_histogram *h, uint64_t distance);

#endif
