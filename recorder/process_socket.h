/* process_socket: how each process of a tree gets its own ring.
 *
 * `trms record` runs Valgrind with --trace-children=yes and listens on a
 * Unix socket in a private directory, whose path it gives the tool
 * (--trms-socket, which Valgrind passes on to every child it follows). A
 * tool asks for a ring (raw_stream.h) on a fresh connection:
 *
 *  - RAW_HELLO_IMAGE when a program image starts: the first program, or
 *    the one a process exec'd;
 *  - RAW_HELLO_FORK in the parent, just before a fork: the child's ring is
 *    made before the child exists, so that a parent that exits at once
 *    cannot leave it unrecorded. The child, which inherits the connection,
 *    writes its pid (a 32-bit int) there; the parent closes its copy.
 *    End of file before a pid: the fork failed.
 *
 * The hello is followed by the command line (each argument NUL-ended).
 * The answer is one byte: RAW_ANSWER_RECORD with three descriptors
 * (SCM_RIGHTS: the ring's memfd, the notify pipe's write end, the free
 * pipe's read end), or RAW_ANSWER_SKIP: the process runs unrecorded (over
 * --max-processes). Each ring's notify pipe ends when its image does.
 *
 * Header only, freestanding: the tool includes it too. */
#ifndef TRMS_PROCESS_SOCKET_H
#define TRMS_PROCESS_SOCKET_H

#include <stdint.h>

#define RAW_HELLO_MAGIC UINT64_C(0x314f4c4c45485452)  /* "RTHELLO1" */
#define RAW_HELLO_MAX_COMMAND 4096u                  /* longer command lines are cut */

enum raw_hello_kind {
    RAW_HELLO_IMAGE = 1,
    RAW_HELLO_FORK = 2,
};

struct raw_hello {
    uint64_t magic;
    uint32_t kind;
    int32_t pid;            /* IMAGE: this process; FORK: the parent */
    int32_t ppid;           /* its parent */
    uint32_t command_bytes; /* that follow, at most RAW_HELLO_MAX_COMMAND */
};

enum raw_answer {
    RAW_ANSWER_SKIP = 0,
    RAW_ANSWER_RECORD = 1,
};

#endif
