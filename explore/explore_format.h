/* explore_format: what `trms explore` prints, with `trms report`'s
 * conventions (text by default, json with everything exact, html one
 * self-contained page). Every extreme names the recording of the first
 * run that produced it and how many runs did. */
#ifndef TRMS_EXPLORE_FORMAT_H
#define TRMS_EXPLORE_FORMAT_H

#include <stddef.h>
#include <stdio.h>

#include "explore/explore.h"

/* TOP: routines shown (those whose input changed from run to run first);
 * 0 shows all. */
int explore_text(FILE *out, const struct explore *x, size_t top);
int explore_json(FILE *out, const struct explore *x);
int explore_html(FILE *out, const struct explore *x, size_t top);

/* The schedule in words: "PCT depth 3", "random quanta (mean 100)". */
const char *explore_schedule_name(const struct explore *x, char *buf, size_t size);

/* The routines, those whose points varied first (by how many did), then
 * by name: an array of indexes into X->routines (free it). */
size_t *explore_routine_order(const struct explore *x);

#endif
