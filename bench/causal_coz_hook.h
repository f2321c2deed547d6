/* Force-included (-include) by bench/causal.sh into the causal test programs
 * when they are built for Coz, so that the programs' sources stay as the
 * tests build them. Two things Coz needs that the tests do not:
 * - a progress point, where the program completes a piece of work:
 *   CAUSAL_COZ_AT_JOIN, after each pthread_join (fork-join programs: a
 *   round is done), or CAUSAL_COZ_AT_UNLOCK, after each
 *   pthread_mutex_unlock (the pipeline's pushes and pops, the contended
 *   mutex's critical sections);
 * - a longer run (Coz's experiments last half a second each): main is
 *   renamed and bench/causal_coz_main.c calls it again and again. */
#ifndef CAUSAL_COZ_HOOK_H
#define CAUSAL_COZ_HOOK_H

#include <coz.h>
#include <pthread.h>

#if defined(CAUSAL_COZ_AT_JOIN)
static inline int causal_coz_join(pthread_t thread, void **result)
{
    int status = pthread_join(thread, result);
    COZ_PROGRESS_NAMED("join");
    return status;
}
#define pthread_join causal_coz_join
#elif defined(CAUSAL_COZ_AT_UNLOCK)
static inline int causal_coz_unlock(pthread_mutex_t *mutex)
{
    int status = pthread_mutex_unlock(mutex);
    COZ_PROGRESS_NAMED("unlock");
    return status;
}
#define pthread_mutex_unlock causal_coz_unlock
#else
#error "bench/causal.sh: say where the progress point goes (CAUSAL_COZ_AT_JOIN or CAUSAL_COZ_AT_UNLOCK)"
#endif

#define main causal_program_main

#endif
