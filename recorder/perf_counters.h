/* perf_counters: whether this machine has the hardware counter rr needs
 * (retired conditional branches), for `trms record --engine auto`. */
#ifndef TRMS_PERF_COUNTERS_H
#define TRMS_PERF_COUNTERS_H

#include <stddef.h>

/* 1 when a branch counter can be opened; else 0 with the reason in WHY. */
int perf_counters_available(char *why, size_t size);

#endif
