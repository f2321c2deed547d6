/* rr_command: runs one rr command (`rr dump ...`, `rr rerun ...`) as a
 * child whose standard output the caller reads as it comes, and whose
 * standard error is kept aside so that a failure can be told in rr's own
 * words, in one line. */
#ifndef TRMS_RR_COMMAND_H
#define TRMS_RR_COMMAND_H

#include <sys/types.h>

#include "common/error.h"

struct rr_command {
    pid_t pid;
    int out;            /* read end of the child's stdout */
    int err_fd;         /* the child's stderr, an unlinked temporary file */
    const char *what;   /* "rr rerun", for messages */
    int status;         /* its wait status, once finished */
};

/* Starts `rr ARGS...` (ARGV[0] is "rr", found on PATH). Fails with a
 * message naming the Debian package when rr is not installed. */
int rr_command_start(struct rr_command *c, const char *what, char *const argv[],
                     struct trms_error *err);

/* Closes stdout (a child still writing gets SIGPIPE) and waits for the
 * child. 0 when it exited with status 0; else -1 with ERR saying how it
 * ended and the first line of what it printed on stderr. */
int rr_command_finish(struct rr_command *c, struct trms_error *err);

#endif
