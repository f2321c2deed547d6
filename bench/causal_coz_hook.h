/* Force-included (-include) by bench/causal.sh into the causal test programs
 * when they are built for Coz, so that the programs' sources stay as the
 * tests build them. Two things Coz needs that the tests do not:
 * - a progress point: every pthread_join completes a piece of the round's
 *   work, so COZ_PROGRESS after each join counts rounds (twice per round);
 * - a longer run (Coz's experiments need seconds): main is renamed and
 *   bench/causal_coz_main.c calls it CAUSAL_REPEAT times. */
#ifndef CAUSAL_COZ_HOOK_H
#define CAUSAL_COZ_HOOK_H

#include <coz.h>
#include <pthread.h>

static inline int causal_coz_join(pthread_t thread, void **result)
{
    int status = pthread_join(thread, result);
    COZ_PROGRESS_NAMED("join");
    return status;
}

#define pthread_join causal_coz_join
#define main causal_program_main

#endif
