/* proc_maps: the file mappings of a live process, from /proc/PID/maps, for
 * engines that watch a process from outside (the step engine) and must
 * follow its mappings as they come and go. */
#ifndef TRMS_PROC_MAPS_H
#define TRMS_PROC_MAPS_H

#include <sys/types.h>

#include "common/error.h"
#include "symbols/memory_maps.h"

/* Replaces MAPS (initialized) with the file-backed mappings of PID now:
 * those whose path is absolute ([vdso], [stack] and anonymous ones are
 * left out). */
int proc_maps_read(pid_t pid, struct memory_maps *maps, struct trms_error *err);

/* Parses one line of /proc/PID/maps into E (E->path points into LINE,
 * whose newline is cut); 0 for a file mapping, 1 for another, -1 when it
 * is not such a line. */
int proc_maps_parse_line(char *line, struct map_entry *e);

#endif
