/* step_engine: `trms record --engine step`: runs a program under ptrace,
 * one thread at a time, single-stepping every instruction, and reports
 * exactly the records `rr rerun --singlestep=tid,event,icount,ip,fsbase,
 * gsbase,flags,gp_x16` would print for an rr recording of that run
 * (replayer/rerun_record.h): one per completed instruction, one per system
 * call entry and exit, a whole `rep` string instruction as one record, a
 * signal handler's first record after its first instruction. Fed to the
 * rerun decoder, they become the event trace, so the decoder that serves
 * rr is proven on real programs where rr itself cannot run.
 *
 * The schedule is a function of the seed, the program and its input
 * alone: threads take turns round-robin for a quantum of instructions, or
 * run by PCT priorities (step_schedule.h). A thread blocks when the kernel
 * puts its call to sleep (not after a time), and the others run meanwhile;
 * after each call the engine lets the kernel finish whatever it set in
 * motion (a woken waiter leaving its call), so whose wait a call ended is
 * the same on every run; a sleep or a timed wait ends in virtual time
 * (STEP_VIRTUAL_NS_PER_RECORD), not by the host's clock. What comes from
 * outside the program (input on a terminal or a pipe, a signal sent to it,
 * a wait that timed out) can still move the schedule: it is counted
 * (step_summary). The vDSO is hidden from
 * the program (time queries become real system calls) and address space
 * randomization is off, so that addresses repeat from run to run. Forked
 * children and exec'd programs are followed and stepped too, every thread
 * of every process in the one schedule above (threads in the order they
 * were created, whatever process they belong to), so that a process tree
 * interleaves the same way on every run; the observer hears of each
 * program image (step_observer.image) and may leave an exec'd one
 * untraced. Records name
 * threads by creation order (1, 2, ...), not by their tids, which differ
 * from run to run; a clone's result shows the child's number. `cpuid` is
 * run by the engine on the program's behalf: in a virtual machine, a
 * single-step over it traps one instruction late. */
#ifndef TRMS_STEP_ENGINE_H
#define TRMS_STEP_ENGINE_H

#include <stdint.h>
#include <sys/types.h>

#include "common/error.h"
#include "recorder/program_outcome.h"
#include "recorder/step_schedule.h"
#include "replayer/rerun_record.h"

struct step_options {
    const char *path;           /* the program to execute */
    char *const *argv;          /* its arguments, argv[0] included */
    uint32_t quantum;           /* instructions per turn (mean when seeded); 0: default */
    uint64_t seed;              /* round-robin: 0, fixed quanta */
    enum step_policy policy;    /* round-robin (default) or PCT */
    uint32_t depth;             /* PCT: its depth d (d - 1 change points) */
    uint64_t pct_events;        /* PCT: k, the counted events expected */
};

/* PCT counts the steps that make events that can matter (the observer
 * says which: step_observer.events_that_matter) while at least one other
 * thread is enabled (stopped before an instruction, not blocked in the
 * kernel). Whatever one thread does alone (the program's start-up, a
 * thread's work while the others wait) cannot be reordered with anything
 * and is not counted, so that k stays small and a small depth has a real
 * chance. A thread that yields (sched_yield, the `pause` of a spin-wait)
 * or runs STEP_PCT_SPIN_LIMIT instructions in a row while others are
 * enabled drops below every other thread, so that a spinning thread does
 * not starve the one it waits for. */
#define STEP_PCT_SPIN_LIMIT 50000

/* The virtual clock that ends sleeps and timed waits: each record (an
 * instruction, a system call's entry or exit) takes this long, as if the
 * program ran at a million instructions a second; a 10 ms sleep ends after
 * the others have run 10,000 instructions, or at once when all wait. */
#define STEP_VIRTUAL_NS_PER_RECORD 1000u

/* Trace frames, rr's unit of `event` time: each system call entry and
 * exit, exec, switch of thread, signal delivery and thread exit is one. */
enum step_frame_kind {
    STEP_FRAME_EXEC,            /* a program started (exit of execve) */
    STEP_FRAME_SYSCALL_ENTRY,
    STEP_FRAME_SYSCALL_EXIT,
    STEP_FRAME_SCHED,           /* the thread's turn ended */
    STEP_FRAME_SIGNAL,          /* a signal handler is entered */
    STEP_FRAME_EXIT,            /* the thread is gone */
};

struct step_frame {
    uint64_t time;
    enum step_frame_kind kind;
    pid_t tid, pid;             /* the thread and its process */
    const struct rerun_record *regs;  /* at the frame; NULL for SCHED and EXIT */
    uint64_t nr, args[6];       /* SYSCALL_*: the call (rdi rsi rdx r10 r8 r9) */
    int64_t result;             /* SYSCALL_EXIT */
    pid_t new_tid;              /* SYSCALL_EXIT of a clone, fork or vfork: the child, else 0 */
    uint64_t clone_flags;       /* and what it asked for */
    int signal;                 /* SIGNAL */
    int exit_status;            /* EXIT: as wait(2) reports it, when known */
};

/* Sees the run as it goes; a non-zero return stops it (the program is
 * killed). Records come in rr's order: a frame's record (if it has one)
 * before the frame. */
/* A program image the engine meets: the first program, a process forked
 * (fork, vfork, or clone without CLONE_THREAD), or the program a process
 * exec'd (a `#!` script's interpreter included). */
enum step_via { STEP_VIA_START, STEP_VIA_FORK, STEP_VIA_EXEC };

struct step_process {
    pid_t pid;
    pid_t ppid;             /* START: trms; FORK: the process that forked; EXEC: 0 */
    enum step_via via;
};

struct step_observer {
    /* PID is the process of the thread R names. */
    int (*record)(void *ctx, pid_t pid, const struct rerun_record *r, struct trms_error *err);
    int (*frame)(void *ctx, const struct step_frame *f, struct trms_error *err);
    /* PCT: how many events that can matter (instructions touching memory
     * that can be shared, synchronizing system calls...) the records and
     * frames so far made; NULL counts every record. */
    uint64_t (*events_that_matter)(void *ctx);
    /* An image starts in P, before any record of it (a fork's child
     * before its first, an exec before the record that leaves execve).
     * 1: follow it; 0, for an exec only: let the process run untraced
     * from here (detached; what it forks is not seen either); -1 fails
     * the run. NULL: every image is followed. */
    int (*image)(void *ctx, const struct step_process *p, struct trms_error *err);
    /* Process PID is gone; STATUS as wait(2) reports it. May be NULL. */
    void (*process_ended)(void *ctx, pid_t pid, int status);
    void *ctx;
};

struct step_summary {
    uint64_t steps;             /* ptrace resumptions */
    uint64_t records;
    uint64_t frames;
    uint64_t threads, processes;
    uint64_t signals;           /* delivered to handlers */
    uint64_t ignored_signals;   /* ignored, or stop signals not delivered */
    uint64_t blocked;           /* system calls during which others ran */
    uint64_t late_wakes;        /* the kernel took over 10 s to finish what the program set in
                                   motion (a woken waiter, an exit): the schedule went on */
    uint64_t outside_wakes;     /* waits ended from outside the program (input, a signal) */
    uint64_t clock_decided;     /* waits whose end the host's clock decided: timed waits that
                                   timed out, sleeps until a time of day */
    uint64_t emulated;          /* cpuid instructions, run by the engine */
    uint64_t counted;           /* PCT: events counted (k of this run) */
    uint64_t change_points;     /* PCT: change points reached */
    uint64_t yields;            /* PCT: threads dropped for yielding or spinning */
    uint64_t detached;          /* processes let run untraced after an exec (image: 0) */
};

/* Runs the program to its end (every process it started) under OBSERVER;
 * OUTCOME is how the first process ended. Fails when the program cannot
 * be started or traced, or the observer fails. */
int step_record(const struct step_options *o, const struct step_observer *observer,
                struct step_summary *summary, struct program_outcome *outcome,
                struct trms_error *err);

/* Copies SIZE bytes of process PID's memory at ADDR, for observers during
 * the run; 0, or -1 when they cannot be read. */
int step_read_memory(pid_t pid, uint64_t addr, void *buf, uint64_t size);

#endif
