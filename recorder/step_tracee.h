/* step_tracee: the ptrace and /proc chores of the step engine, kept apart
 * from its schedule and state machine: starting the program stopped at
 * its first instruction, registers as rerun records, memory, the vDSO,
 * signal dispositions, and waiting for a thread with a time limit. */
#ifndef TRMS_STEP_TRACEE_H
#define TRMS_STEP_TRACEE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/error.h"
#include "replayer/rerun_record.h"

/* Forks and execs PATH with ARGV under ptrace (threads, forks, vforks and
 * execs followed; killed if trms dies), with address space randomization
 * off; returns its pid stopped at the exec event, or -1 with ERR. */
pid_t tracee_spawn(const char *path, char *const argv[], struct trms_error *err);

/* Hides the vDSO from the program that execve just started in PID: the
 * auxiliary vector's AT_SYSINFO_EHDR entry (above the stack pointer SP)
 * becomes AT_IGNORE, so the C library makes real system calls for the
 * time. 0, or -1 when the vector could not be found or changed. */
int tracee_hide_vdso(pid_t pid, uint64_t sp);

/* The registers of stopped thread TID as a rerun record (tid, event and
 * icount left 0); ORIG_RAX, when not NULL, gets the system call number. */
int tracee_registers(pid_t tid, struct rerun_record *r, uint64_t *orig_rax);

/* Changes rax of stopped thread TID. */
int tracee_set_rax(pid_t tid, uint64_t rax);

/* Runs the LENGTH-byte cpuid at stopped thread TID's ip for it: the
 * leaf and subleaf from its eax and ecx, the results into eax, ebx, ecx,
 * edx (upper halves cleared), ip past it. */
int tracee_emulate_cpuid(pid_t tid, size_t length);

/* Copies SIZE bytes at ADDR of process PID (any of its threads); 0 or -1. */
int tracee_read(pid_t pid, uint64_t addr, void *buf, size_t size);

/* Up to SIZE bytes at ADDR, fewer where the readable memory ends; returns
 * how many. */
size_t tracee_read_some(pid_t pid, uint64_t addr, void *buf, size_t size);

/* What thread TID's process does with signal SIG. */
enum signal_disposition { SIGNAL_CAUGHT, SIGNAL_IGNORED, SIGNAL_STOPS, SIGNAL_KILLS };
enum signal_disposition tracee_signal_disposition(pid_t tid, int sig);

/* Thread TID's scheduling state as /proc/TID/stat gives it ('R' running,
 * 'S' asleep in the kernel, 't' stopped by its tracer...), '?' if unknown. */
char tracee_run_state(pid_t tid);

/* Whether thread TID waits in the kernel: in an interruptible sleep
 * ('S', how a thread waits for another, for input or for time) and off
 * the processor. A thread shows 'S' while it still runs the check before
 * it sleeps (do_wait scanning its children, say); the function it sleeps
 * in (/proc/TID/wchan) is named only once it sleeps. With WCHAN 0 (a
 * kernel that does not name it), 'S' alone. */
int tracee_waits(pid_t tid, int wchan);

/* Whether this kernel names the function stopped thread TID sleeps in. */
int tracee_names_sleeps(pid_t tid);

/* Whether descriptor FD of process PID is a regular file, a directory or
 * a block device (whose reads and writes wait for nobody), or is not open
 * (the call fails at once): 1; 0 for a pipe, socket, terminal... */
int tracee_fd_is_file(pid_t pid, uint64_t fd);

/* The thread group (process) of thread TID, or -1. */
pid_t tracee_thread_group(pid_t tid);

/* waitpid(-1, __WALL) for at most MS milliseconds (MS < 0: no limit);
 * returns the tid with *STATUS, 0 when the time ran out, -1 on error
 * (ECHILD: no tracee left). */
pid_t tracee_wait_any(int *status, long ms);

#endif
