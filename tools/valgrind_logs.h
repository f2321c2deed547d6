/* valgrind_logs: Valgrind's own messages, one log per process of a tree.
 *
 * Each Valgrind of a tree (one per process: a child of a fork starts its
 * own, an exec restarts it) opens its --log-file afresh, truncating it: one
 * log for the whole tree kept only the last exec'd program's messages. So
 * `trms record` asks for one log per pid (VALGRIND_LOGS_DIR/%p, inside the
 * staging recording), and once the program has ended moves each into the
 * recording of its process, as valgrind.log. An exec in the same pid
 * would restart that pid's log: the tool moves it aside first, as PID.N,
 * which goes to the pid's N-th image (PID itself to its latest). A log of a pid
 * no recorded image has (one over --max-processes) is appended to the
 * first's, under a line naming its pid: never dropped. */
#ifndef TRMS_VALGRIND_LOGS_H
#define TRMS_VALGRIND_LOGS_H

#include <stddef.h>

#include "tools/process_tree.h"

#define VALGRIND_LOGS_DIR "valgrind-logs"
#define VALGRIND_LOG "valgrind.log"

/* The --log-file Valgrind is given for STAGING, in a new string (its
 * directory made). */
char *valgrind_logs_pattern(const char *staging);

/* Moves each pid's log into the recording in STAGING of TREE's latest
 * image of that pid (ROOT_PID: the first image's; 0 when Valgrind never
 * said, when every log is the first's), then removes the directory. */
void valgrind_logs_distribute(const char *staging, const struct process_tree *tree,
                              int root_pid);

#endif
