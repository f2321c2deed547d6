/* syscall_blocking: which x86-64 system calls can keep a thread in the
 * kernel until something else happens (another thread's action, data on a
 * pipe, time passing), so that the step engine keeps the other threads
 * stepping meanwhile instead of waiting (a call that may block does block
 * when the kernel puts it to sleep: step_engine.c); and the futex operations, whose
 * blocking and waking the engine follows exactly, so that a program that
 * synchronizes through futexes (every pthread mutex, condition variable
 * and join) is scheduled the same way on every run. */
#ifndef TRMS_SYSCALL_BLOCKING_H
#define TRMS_SYSCALL_BLOCKING_H

#include <stdint.h>

enum syscall_blocking {
    SYSCALL_RETURNS,        /* completes without waiting for anyone */
    SYSCALL_MAY_BLOCK,      /* may wait for an outside event or for time */
    SYSCALL_FUTEX_WAIT,     /* waits while the word at args[0] holds args[2] */
    SYSCALL_FUTEX_WAKE,     /* returns the number of waiters it woke */
    SYSCALL_WAITS_CHILD,    /* vfork: the caller sleeps until its child execs or exits */
};

enum syscall_blocking syscall_blocking(uint64_t nr, const uint64_t args[6]);

/* For a call that may block: the arguments (bit i: args[i]) that are file
 * descriptors, all of which must be pipes, sockets, terminals or the like
 * for the call to wait; where all are regular files, directories or block
 * devices, it returns without waiting for anyone. 0: no such argument. */
unsigned syscall_fd_args(uint64_t nr);

#endif
