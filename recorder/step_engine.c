/* step_engine: the scheduler and per-thread state machine (step_engine.h). */
#define _GNU_SOURCE
#include "recorder/step_engine.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/oom.h"
#include "common/stop_signals.h"
#include "common/u64map.h"
#include "recorder/step_insn_kind.h"
#include "recorder/step_schedule.h"
#include "recorder/step_tracee.h"
#include "recorder/syscall_blocking.h"
#include "recorder/syscall_timeout.h"

/* x86-64 system call numbers the engine interprets. */
enum {
    NR_MMAP = 9, NR_MPROTECT = 10, NR_MUNMAP = 11, NR_MREMAP = 25, NR_CLONE = 56,
    NR_SCHED_YIELD = 24, NR_FORK = 57, NR_VFORK = 58, NR_EXECVE = 59, NR_EXIT = 60, NR_FUTEX = 202,
    NR_EXIT_GROUP = 231, NR_EXECVEAT = 322, NR_PKEY_MPROTECT = 329, NR_CLONE3 = 435,
};

#define CLONE_VFORK_FLAG 0x4000u
#define CLONE_THREAD_FLAG 0x10000u

/* si_code of a SIGTRAP stop: a step or a return from a system call under
 * single-step (brkpt, trace, hwbkpt), the stop at a signal handler's entry
 * that a single-stepped delivery makes (the kernel notifies with code
 * SIGTRAP), or a trap instruction's own signal (SI_KERNEL). */
enum { STEP_TRAP_BRKPT = 1, STEP_TRAP_TRACE = 2, STEP_TRAP_HWBKPT = 4, TRAP_HANDLER_ENTRY = 5 };
#define ENOSYS_RESULT ((uint64_t)-38)

/* How long the kernel may take to finish what the program set in motion
 * (a woken waiter leaving its call, an exiting thread's end) before the
 * engine goes on without it and counts a late wake: far above what it
 * takes on the busiest machine, so that no schedule depends on it. */
#define SETTLE_LIMIT_MS 10000
#define NO_DEADLINE UINT64_MAX

enum thread_state {
    T_NEW,          /* created; its first stop not yet handled */
    T_READY,        /* stopped before an instruction */
    T_EXIT_PENDING, /* stopped at a system call's exit, not yet reported */
    T_IN_SYSCALL,   /* in the kernel while others run */
    T_EXITING,      /* past its exit event, not yet reaped */
};

struct sthread {
    pid_t tid, pid;             /* real thread id and process */
    uint32_t vtid;              /* the id its records carry: creation order */
    enum thread_state state;
    int stopped;                /* T_NEW: its first stop has arrived */
    struct rerun_record regs;   /* at its stop (tid: vtid) */
    uint64_t nr, args[6];       /* the call it is in or just left */
    enum syscall_blocking blocking;
    pid_t new_tid;              /* the child its clone, fork or vfork made */
    uint64_t clone_flags;
    int child_went;             /* T_IN_SYSCALL in vfork: the child has exec'd or died */
    /* T_IN_SYSCALL: the call left the kernel (stopped at its exit), while
     * the program was doing nothing that could end it (from_outside) */
    int done, from_outside;
    int exits_alone;            /* its exit event ends only this thread (exit(2)) */
    struct syscall_timeout timeout;  /* of the call it is in */
    uint64_t deadline;          /* T_IN_SYSCALL: virtual time its wait ends by, or NO_DEADLINE */
    uint64_t host_deadline;     /* the same by the host's clock (host_ns) */
    int restart;                /* its call returned -ERESTART*: the kernel re-enters it */
    int pending_signal;         /* to deliver before its next instruction */
    int64_t priority;           /* PCT: the highest enabled runs */
    int yielded;                /* PCT: its last step was a yield */
    uint64_t run_length;        /* PCT: its steps in a row while others were enabled */
};

struct engine {
    const struct step_options *o;
    const struct step_observer *obs;
    struct step_summary *s;
    struct program_outcome *outcome;
    struct step_schedule schedule;
    struct sthread **threads;   /* live, in creation order */
    size_t n, cursor;           /* cursor: index of the thread whose turn it is */
    uint32_t vtids;             /* handed out */
    pid_t leader;               /* the first process */
    struct sthread *current;    /* whose records come now, or NULL */
    uint64_t time, icount;      /* rr's frame time and count within it */
    uint64_t vclock;            /* virtual time: records made */
    int acting;                 /* the program is doing what can end waits (a call, an exit) */
    int unsettled;              /* it did: the kernel may still be finishing it */
    int wchan;                  /* the kernel names where threads sleep (tracee_waits) */
    struct u64map kinds;        /* ip -> step_insn_kind + 1 */
    struct trms_error *err;
};

/* ---- threads ---- */

static struct sthread *find(const struct engine *e, pid_t tid)
{
    for (size_t i = 0; i < e->n; i++)
        if (e->threads[i]->tid == tid)
            return e->threads[i];
    return NULL;
}

static struct sthread *add_thread(struct engine *e, pid_t tid, pid_t pid)
{
    struct sthread *t = xcalloc(1, sizeof *t);
    *t = (struct sthread){.tid = tid, .pid = pid, .vtid = ++e->vtids, .state = T_NEW};
    if (e->schedule.policy == STEP_PCT)
        t->priority = step_schedule_priority(&e->schedule);
    e->threads = xrealloc(e->threads, (e->n + 1) * sizeof *e->threads);
    e->threads[e->n++] = t;
    e->s->threads++;
    if (tid == pid)
        e->s->processes++;
    return t;
}

static void remove_thread(struct engine *e, struct sthread *t)
{
    size_t i = 0;
    while (i < e->n && e->threads[i] != t)
        i++;
    if (i == e->n)
        return;
    memmove(&e->threads[i], &e->threads[i + 1], (e->n - i - 1) * sizeof *e->threads);
    e->n--;
    if (i < e->cursor)
        e->cursor--;
    if (e->current == t)
        e->current = NULL;
    free(t);
}

static uint32_t vtid_of(const struct engine *e, pid_t tid)
{
    const struct sthread *t = find(e, tid);
    return t ? t->vtid : (uint32_t)tid;
}

/* ---- records and frames ---- */

static int emit_record(struct engine *e, const struct sthread *t,
                       const struct rerun_record *regs)
{
    e->vclock++;
    struct rerun_record r = *regs;
    r.event = e->time;
    r.icount = e->icount++;
    e->s->records++;
    return e->obs->record(e->obs->ctx, t->pid, &r, e->err);
}

static int end_frame(struct engine *e, struct step_frame *f)
{
    f->time = e->time++;
    e->icount = 1;
    e->s->frames++;
    return e->obs->frame ? e->obs->frame(e->obs->ctx, f, e->err) : 0;
}

static struct step_frame frame_of(const struct sthread *t, enum step_frame_kind kind)
{
    struct step_frame f = {.kind = kind, .tid = (pid_t)t->vtid, .pid = t->pid, .regs = &t->regs,
                           .nr = t->nr};
    memcpy(f.args, t->args, sizeof f.args);
    return f;
}

/* ---- ptrace ---- */

static int resume(struct engine *e, struct sthread *t, int request, int sig)
{
    e->s->steps++;
    if (ptrace(request, t->tid, NULL, (void *)(long)sig) == 0 || errno == ESRCH)
        return 0;  /* ESRCH: killed meanwhile; its death is reported next */
    return error_set(e->err, "ptrace of thread %d: %s", (int)t->tid, strerror(errno));
}

static int fetch_registers(struct engine *e, struct sthread *t, uint64_t *orig_rax)
{
    if (tracee_registers(t->tid, &t->regs, orig_rax) != 0)
        return error_set(e->err, "registers of thread %d: %s", (int)t->tid, strerror(errno));
    t->regs.tid = t->vtid;
    return 0;
}

/* The kind of T's next instruction, and its length where the kind needs
 * it; remembered by address until the mappings change. */
static enum step_insn_kind kind_at(struct engine *e, const struct sthread *t, size_t *length)
{
    uint64_t ip = t->regs.ip;
    const uint64_t *known = u64map_find(&e->kinds, ip);
    if (known) {
        *length = (size_t)(*known >> 8);
        return (enum step_insn_kind)((*known & 0xff) - 1);
    }
    uint8_t bytes[16];
    size_t n = tracee_read_some(t->pid, ip, bytes, sizeof bytes);
    *length = 0;
    enum step_insn_kind kind = step_insn_kind(bytes, n, length);
    *u64map_upsert(&e->kinds, ip, NULL) = (uint64_t)*length << 8 | ((uint64_t)kind + 1);
    return kind;
}

/* ---- threads appearing and leaving ---- */

static int thread_died(struct engine *e, struct sthread *t, int status);

/* The first stop of new thread T (SIGSTOP, which is not delivered). */
static int first_stop(struct engine *e, struct sthread *t)
{
    if (!t->stopped) {
        int status;
        if (waitpid(t->tid, &status, __WALL) != t->tid)
            return error_set(e->err, "waitpid of new thread %d: %s", (int)t->tid,
                             strerror(errno));
        if (WIFEXITED(status) || WIFSIGNALED(status))
            return thread_died(e, t, status);
    }
    t->stopped = 1;
    if (fetch_registers(e, t, NULL) != 0)
        return -1;
    t->state = T_READY;
    return 0;
}

/* PARENT's clone, fork or vfork made a thread or a process. */
static int new_child(struct engine *e, struct sthread *parent)
{
    unsigned long tid;
    if (ptrace(PTRACE_GETEVENTMSG, parent->tid, NULL, &tid) != 0)
        return error_set(e->err, "new thread of %d: %s", (int)parent->tid, strerror(errno));
    /* A process unless it shares its parent's thread group: fork, vfork,
     * clone without CLONE_THREAD (even with CLONE_VM, as posix_spawn). */
    int process = !(parent->clone_flags & CLONE_THREAD_FLAG);
    struct sthread *child = find(e, (pid_t)tid);
    if (!child) {
        child = add_thread(e, (pid_t)tid, process ? (pid_t)tid : parent->pid);
    } else if (child->pid != (process ? (pid_t)tid : parent->pid)) {
        /* it stopped before this event, its process guessed from /proc */
        e->s->processes += process ? 1 : -1;
        child->pid = process ? (pid_t)tid : parent->pid;
    }
    parent->new_tid = (pid_t)tid;
    if (child->state != T_NEW)
        return 0;
    if (process && e->obs->image) {
        struct step_process p = {.pid = (pid_t)tid, .ppid = parent->pid, .via = STEP_VIA_FORK};
        if (e->obs->image(e->obs->ctx, &p, e->err) < 0)
            return -1;
    }
    return first_stop(e, child);
}

/* A vfork parent waits for its child CHILD to exec or die: it has. */
static void vfork_child_went(struct engine *e, pid_t child)
{
    for (size_t i = 0; i < e->n; i++)
        if (e->threads[i]->state == T_IN_SYSCALL && e->threads[i]->new_tid == child &&
            e->threads[i]->blocking == SYSCALL_WAITS_CHILD)
            e->threads[i]->child_went = 1;
}

/* T is gone. Whoever waited for it (a joiner on the word its exit
 * cleared, a parent in wait4, a vfork parent) is being woken: the next
 * settle waits for them. */
static int thread_died(struct engine *e, struct sthread *t, int status)
{
    if (t->tid == e->leader) {
        e->outcome->signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
        e->outcome->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 0;
    }
    vfork_child_went(e, t->tid);
    pid_t process = t->tid == t->pid ? t->pid : 0;  /* its first thread goes last */
    remove_thread(e, t);
    e->unsettled = 1;
    if (process && e->obs->process_ended)
        e->obs->process_ended(e->obs->ctx, process, status);
    return 0;
}

/* Whether T is the last thread of its process the engine knows. */
static int last_of_process(const struct engine *e, const struct sthread *t)
{
    for (size_t i = 0; i < e->n; i++)
        if (e->threads[i] != t && e->threads[i]->pid == t->pid)
            return 0;
    return 1;
}

/* T stopped at its exit event: let it go, and reap it at once, so that
 * whoever its end wakes (a joiner, a parent in wait4, a SIGCHLD) is woken
 * before anyone else runs. A process's first thread cannot be reaped
 * before the others: it is left to report later, and settle waits for it
 * to have become a zombie (its own wakes made). */
static int thread_exiting(struct engine *e, struct sthread *t, int report)
{
    t->state = T_EXITING;
    e->unsettled = 1;
    if (report) {
        struct step_frame f = frame_of(t, STEP_FRAME_EXIT);
        f.regs = NULL;
        unsigned long status = 0;
        if (ptrace(PTRACE_GETEVENTMSG, t->tid, NULL, &status) == 0)
            f.exit_status = (int)status;
        if (end_frame(e, &f) != 0)
            return -1;
    }
    if (resume(e, t, PTRACE_CONT, 0) != 0)
        return -1;
    if (t->tid == t->pid && !last_of_process(e, t))
        return 0;
    int status;
    for (;;) {
        pid_t r = waitpid(t->tid, &status, __WALL);
        if (r == t->tid && (WIFEXITED(status) || WIFSIGNALED(status)))
            return thread_died(e, t, status);
        if (r == t->tid)
            continue;  /* a stop on the way out */
        if (errno == EINTR)
            continue;
        return thread_died(e, t, 0);  /* already reaped */
    }
}

/* ---- asynchronous reports: threads other than the one stepping ---- */

static int exit_stop(struct engine *e, struct sthread *t);

static int dispatch(struct engine *e, pid_t tid, int status)
{
    struct sthread *t = find(e, tid);
    if (!t) {
        /* A new thread stopped before its parent's clone event. */
        if (WIFSTOPPED(status)) {
            pid_t pid = tracee_thread_group(tid);
            t = add_thread(e, tid, pid > 0 ? pid : tid);
            t->stopped = 1;
        }
        return 0;
    }
    if (WIFEXITED(status) || WIFSIGNALED(status))
        return thread_died(e, t, status);
    if (status >> 8 == (SIGTRAP | PTRACE_EVENT_EXIT << 8))
        return thread_exiting(e, t, 0);  /* killed with its process */
    switch (t->state) {
    case T_NEW:
        t->stopped = 1;
        return 0;
    case T_IN_SYSCALL:
        break;
    default:
        return 0;
    }
    int event = status >> 16, sig = WSTOPSIG(status);
    if (sig == (SIGTRAP | 0x80)) {
        /* Its call is over; it rejoins the schedule when release says. */
        if (fetch_registers(e, t, NULL) != 0)
            return -1;
        t->done = 1;
        t->from_outside = !e->acting;
        return 0;
    }
    if (event == PTRACE_EVENT_CLONE || event == PTRACE_EVENT_FORK || event == PTRACE_EVENT_VFORK) {
        if (new_child(e, t) != 0)
            return -1;
    }
    return resume(e, t, PTRACE_SYSCALL, 0);
}

/* Takes every report that has arrived, without waiting. */
static int collect(struct engine *e)
{
    int status;
    pid_t tid;
    while ((tid = tracee_wait_any(&status, 0)) > 0)
        if (dispatch(e, tid, status) != 0)
            return -1;
    return 0;
}

/* Waits for a report of T, passing the others' to dispatch; MS as for
 * tracee_wait_any. 1 with *STATUS, 0 when the time ran out, -1. */
static int wait_for(struct engine *e, struct sthread *t, int *status, long ms)
{
    for (;;) {
        pid_t tid = tracee_wait_any(status, ms);
        if (tid == t->tid)
            return 1;
        if (tid == 0)
            return 0;
        if (tid < 0)
            return error_set(e->err, "waitpid: %s", strerror(errno));
        if (dispatch(e, tid, *status) != 0)
            return -1;
    }
}

/* ---- settling: the schedule never waits on the host's timing ----
 *
 * Only what the program does (a system call, a thread's end) can end a
 * wait of another of its threads, and the kernel finishes it (the woken
 * thread leaves its call) a little later, at a time the host decides. So
 * after each such action the engine lets the kernel finish: it waits until
 * every thread in a call has either left it or is asleep in it (state 'S':
 * an interruptible sleep, which is how a thread waits for another, for
 * input or for time; short sleeps on the kernel's own locks and disks are
 * uninterruptible, 'D'). Whose wait ended is then the same on every run. */

/* The host's monotonic clock, in ns: only for how long to wait for the
 * kernel, never for a choice of the schedule. */
static uint64_t host_ns(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

/* Milliseconds left until host time LIMIT (at least 0). */
static long ms_until(uint64_t limit)
{
    uint64_t now = host_ns();
    return limit > now ? (long)((limit - now) / 1000000u) : 0;
}

#define SETTLE_LIMIT_NS ((uint64_t)SETTLE_LIMIT_MS * 1000000u)

/* Whether T still waits, as far as the kernel has got: asleep in its call,
 * or (a vfork parent) with its child still in the vfork. */
static int asleep(const struct engine *e, const struct sthread *t)
{
    if (t->blocking == SYSCALL_WAITS_CHILD)
        return !t->child_went;
    return tracee_waits(t->tid, e->wchan);
}

/* Whether the kernel is still finishing something for T. */
static int unsettled_thread(const struct engine *e, const struct sthread *t)
{
    if (t->state == T_IN_SYSCALL)
        return !t->done && !asleep(e, t);
    if (t->state != T_EXITING)
        return 0;
    if (last_of_process(e, t))
        return 1;  /* its death is on the way */
    char state = tracee_run_state(t->tid);
    return state != 'Z' && state != 'X';
}

/* A pause between looks at the kernel: at once at first, then backing off
 * to a millisecond. */
static void back_off(unsigned *looks)
{
    if (++*looks < 64)
        return;
    long us = *looks < 128 ? 20 : 1000;
    struct timespec pause = {0, us * 1000};
    nanosleep(&pause, NULL);
}

/* Lets the kernel finish what the program set in motion (above). */
static int settle(struct engine *e)
{
    if (!e->unsettled) {
        e->acting = 0;
        return 0;
    }
    uint64_t limit = host_ns() + SETTLE_LIMIT_NS;
    for (unsigned looks = 0;; back_off(&looks)) {
        if (collect(e) != 0)
            return -1;
        int busy = 0;
        for (size_t i = 0; i < e->n && !busy; i++)
            busy = unsettled_thread(e, e->threads[i]);
        if (!busy)
            break;
        if (host_ns() >= limit) {
            e->s->late_wakes++;
            break;
        }
    }
    e->unsettled = e->acting = 0;
    return 0;
}

/* T was let into a call that may block: 1 with *STATUS once it reported
 * (the call did not block after all), 0 once it sleeps in the call. */
static int wait_reported_or_asleep(struct engine *e, struct sthread *t, int *status)
{
    for (unsigned looks = 0;; back_off(&looks)) {
        pid_t r = waitpid(t->tid, status, __WALL | WNOHANG);
        if (r == t->tid)
            return 1;
        if (r < 0 && errno != EINTR)
            return error_set(e->err, "waitpid of thread %d: %s", (int)t->tid, strerror(errno));
        if (r == 0 && asleep(e, t))
            return 0;
    }
}

/* ---- release: when a blocked thread rejoins the schedule ----
 *
 * A thread whose call has ended rejoins at the next choice of thread,
 * unless the clock ended it (a sleep, a wait that timed out): then it
 * rejoins when the virtual clock (records made, STEP_VIRTUAL_NS_PER_RECORD
 * each) reaches the call's limit, wherever the host's clock was. */

static int ended_by_clock(const struct sthread *t)
{
    return t->timeout.bounded && (int64_t)t->regs.gp[RERUN_RAX] == t->timeout.expired;
}

/* Whether T's call ran out its limit, a limit of some time: in virtual
 * time it waits that long, however soon the host's clock ended it. */
static int waited_out(const struct sthread *t)
{
    return t->timeout.ns > 0 && ended_by_clock(t);
}

/* A call whose limit has come in virtual time is awaited: its real timer,
 * which runs ahead of the virtual clock unless that jumped, ends it. */
static int await_due_one(struct engine *e, struct sthread *t)
{
    int status;
    int r = wait_for(e, t, &status, ms_until(t->host_deadline + SETTLE_LIMIT_NS));
    if (r <= 0) {
        if (r == 0) {
            e->s->late_wakes++;
            t->deadline = NO_DEADLINE;  /* back when it reports */
        }
        return r;
    }
    int acting = e->acting;
    e->acting = 1;  /* its own limit ended it, not the outside */
    r = dispatch(e, t->tid, status);
    e->acting = acting;
    return r;
}

static int await_due(struct engine *e)
{
    for (size_t i = 0; i < e->n; i++) {
        struct sthread *t = e->threads[i];
        if (t->state == T_IN_SYSCALL && !t->done && t->deadline <= e->vclock) {
            if (await_due_one(e, t) != 0)
                return -1;
            i = (size_t)-1;  /* threads may have come and gone: look again from the first */
        }
    }
    return 0;
}

/* Done threads rejoin the schedule, but those the clock ended before
 * their virtual limit (unless the engine gave up awaiting it: no limit). */
static void release(struct engine *e)
{
    for (size_t i = 0; i < e->n; i++) {
        struct sthread *t = e->threads[i];
        if (t->state != T_IN_SYSCALL || !t->done)
            continue;
        int clock = ended_by_clock(t);
        if (clock && t->deadline != NO_DEADLINE && t->deadline > e->vclock)
            continue;
        if (clock && (!t->timeout.sleep || t->timeout.absolute))
            e->s->clock_decided++;  /* a relative sleep ends at its virtual time: not counted */
        else if (!clock && t->from_outside)
            e->s->outside_wakes++;
        t->state = T_EXIT_PENDING;
    }
}

/* The earliest limit of a blocked call, or NO_DEADLINE. */
static uint64_t next_deadline(const struct engine *e)
{
    uint64_t next = NO_DEADLINE;
    for (size_t i = 0; i < e->n; i++)
        if (e->threads[i]->state == T_IN_SYSCALL && e->threads[i]->deadline < next)
            next = e->threads[i]->deadline;
    return next;
}

/* ---- system calls ---- */

static int is_restart(int64_t result)
{
    return result == -512 || result == -513 || result == -514 || result == -516;
}

static int changes_mappings(uint64_t nr)
{
    return nr == NR_MMAP || nr == NR_MUNMAP || nr == NR_MPROTECT || nr == NR_MREMAP ||
           nr == NR_PKEY_MPROTECT || nr == NR_EXECVE || nr == NR_EXECVEAT;
}

static uint64_t clone_flags_of(const struct sthread *t)
{
    if (t->nr == NR_CLONE)
        return t->args[0];
    if (t->nr == NR_CLONE3) {
        uint64_t flags;
        return tracee_read(t->pid, t->args[0], &flags, sizeof flags) == 0 ? flags : 0;
    }
    return t->nr == NR_VFORK ? CLONE_VFORK_FLAG : 0;
}

static int read_memory_of(void *thread, uint64_t addr, void *buf, uint64_t size)
{
    const struct sthread *t = thread;
    return tracee_read(t->pid, addr, buf, (size_t)size);
}

/* Whether T's call works on descriptors that are all regular files (or
 * the like), which wait for nobody. */
static int on_files_only(const struct sthread *t)
{
    unsigned fds = syscall_fd_args(t->nr);
    if (!fds)
        return 0;
    for (int i = 0; i < 6; i++)
        if ((fds >> i & 1) && !tracee_fd_is_file(t->pid, t->args[i]))
            return 0;
    return 1;
}

/* T is at its system call's entry: report it, and let it into the kernel;
 * T->blocking says whether it may stay there while others run. */
static int enter_syscall(struct engine *e, struct sthread *t)
{
    uint64_t nr;
    if (fetch_registers(e, t, &nr) != 0)
        return -1;
    const uint64_t *g = t->regs.gp;
    t->nr = nr;
    uint64_t args[6] = {g[RERUN_RDI], g[RERUN_RSI], g[RERUN_RDX],
                        g[RERUN_R10], g[RERUN_R8], g[RERUN_R9]};
    memcpy(t->args, args, sizeof args);
    t->new_tid = 0;
    t->clone_flags = clone_flags_of(t);
    struct step_frame f = frame_of(t, STEP_FRAME_SYSCALL_ENTRY);
    if (emit_record(e, t, &t->regs) != 0 || end_frame(e, &f) != 0)
        return -1;
    t->yielded |= nr == NR_SCHED_YIELD;
    t->blocking = syscall_blocking(nr, t->args);
    if ((nr == NR_CLONE || nr == NR_CLONE3) && (t->clone_flags & CLONE_VFORK_FLAG))
        t->blocking = SYSCALL_WAITS_CHILD;
    if (nr == NR_EXIT || nr == NR_EXIT_GROUP ||
        (t->blocking == SYSCALL_MAY_BLOCK && on_files_only(t)))
        t->blocking = SYSCALL_RETURNS;
    t->exits_alone = nr == NR_EXIT;
    t->done = t->from_outside = t->child_went = 0;
    t->timeout = (struct syscall_timeout){0};
    t->deadline = NO_DEADLINE;
    if (t->blocking == SYSCALL_MAY_BLOCK || t->blocking == SYSCALL_FUTEX_WAIT)
        t->timeout = syscall_timeout(nr, t->args, read_memory_of, t);
    if (t->timeout.bounded) {
        uint64_t records = (t->timeout.ns + STEP_VIRTUAL_NS_PER_RECORD - 1) /
                           STEP_VIRTUAL_NS_PER_RECORD;
        t->deadline = e->vclock + records;
        t->host_deadline = host_ns() + t->timeout.ns;
    }
    return resume(e, t, PTRACE_SYSCALL, 0);
}

/* T is stopped at its system call's exit: report it. */
static int exit_stop(struct engine *e, struct sthread *t)
{
    int64_t result = (int64_t)t->regs.gp[RERUN_RAX];
    struct rerun_record shown = t->regs;
    struct step_frame f = frame_of(t, STEP_FRAME_SYSCALL_EXIT);
    f.result = result;
    f.regs = &shown;
    if (t->new_tid && result > 0) {
        /* The records name threads by creation order, so that runs repeat:
         * the child's id too. */
        shown.gp[RERUN_RAX] = vtid_of(e, t->new_tid);
        f.result = (int64_t)shown.gp[RERUN_RAX];
        f.new_tid = (pid_t)shown.gp[RERUN_RAX];
        f.clone_flags = t->clone_flags;
    }
    t->state = T_READY;
    t->restart = is_restart(result);
    e->unsettled = 1;  /* the call may have ended others' waits */
    if (changes_mappings(t->nr) && !(result < 0 && result >= -4095))
        u64map_free(&e->kinds), u64map_init(&e->kinds);
    return emit_record(e, t, &shown) != 0 || end_frame(e, &f) != 0 ? -1 : 0;
}

/* The program started in T by execve: its vDSO hidden, code forgotten;
 * 1 when the observer leaves it out: T's process is detached, and runs on
 * untraced. */
static int exec_event(struct engine *e, struct sthread *t)
{
    unsigned long former;
    if (ptrace(PTRACE_GETEVENTMSG, t->tid, NULL, &former) == 0 && (pid_t)former != t->tid)
        return error_set(e->err, "thread %d exec'd from a thread other than its process's "
                                 "first, which the step engine does not follow",
                         (int)former);
    int first = t->tid == e->leader && e->time == 0;
    if (e->obs->image) {
        struct step_process p = {.pid = t->pid, .ppid = first ? getpid() : 0,
                                 .via = first ? STEP_VIA_START : STEP_VIA_EXEC};
        int follow = e->obs->image(e->obs->ctx, &p, e->err);
        if (follow < 0)
            return -1;
        if (follow == 0 && !first) {
            vfork_child_went(e, t->tid);
            e->unsettled = 1;
            e->s->detached++;
            if (ptrace(PTRACE_DETACH, t->tid, NULL, NULL) != 0 && errno != ESRCH)
                return error_set(e->err, "detaching process %d: %s", (int)t->tid,
                                 strerror(errno));
            remove_thread(e, t);
            return 1;
        }
    }
    struct rerun_record regs;
    if (tracee_registers(t->tid, &regs, NULL) != 0)
        return error_set(e->err, "registers after exec: %s", strerror(errno));
    tracee_hide_vdso(t->pid, regs.gp[RERUN_RSP]);
    vfork_child_went(e, t->tid);
    e->unsettled = 1;
    u64map_free(&e->kinds);
    u64map_init(&e->kinds);
    return 0;
}

/* The rest of process PID is going too (exit_group, a fatal signal): its
 * threads' ends are awaited and reaped, so that its parent's wait4 or
 * SIGCHLD comes at this point of the schedule on every run. */
static int await_process_end(struct engine *e, pid_t pid)
{
    uint64_t limit = host_ns() + SETTLE_LIMIT_NS;
    for (;;) {
        int alive = 0;
        for (size_t i = 0; i < e->n && !alive; i++)
            alive = e->threads[i]->pid == pid;
        if (!alive)
            return 0;
        int status;
        pid_t tid = tracee_wait_any(&status, ms_until(limit));
        if (tid == 0) {
            e->s->late_wakes++;
            return 0;
        }
        if (tid < 0)
            return errno == ECHILD ? 0 : error_set(e->err, "waitpid: %s", strerror(errno));
        if (dispatch(e, tid, status) != 0)
            return -1;
    }
}

/* ---- one step ---- */

enum step_result { STEP_DONE, STEP_BLOCKED, STEP_GONE };

/* A signal-delivery stop for SIG: how to go on. *REQUEST and *DELIVER are
 * set for the resumption; returns -1 on failure. */
static int signal_stop(struct engine *e, struct sthread *t, int sig, int *request, int *deliver)
{
    *deliver = 0;
    switch (tracee_signal_disposition(t->tid, sig)) {
    case SIGNAL_CAUGHT: {
        /* Single-stepped into the handler, the kernel stops at its entry. */
        e->s->signals++;
        struct step_frame f = frame_of(t, STEP_FRAME_SIGNAL);
        f.signal = sig;
        *request = PTRACE_SINGLESTEP;
        *deliver = sig;
        return end_frame(e, &f);
    }
    case SIGNAL_KILLS:
        *request = PTRACE_CONT;
        *deliver = sig;
        return 0;
    case SIGNAL_STOPS:   /* a stopped tracee would stall the schedule */
    case SIGNAL_IGNORED:
        e->s->ignored_signals++;
        return 0;
    }
    return 0;
}

/* Runs T's next instruction (or system call) and reports it. */
static int step_one(struct engine *e, struct sthread *t, enum step_result *result)
{
    size_t length;
    enum step_insn_kind kind = t->restart ? STEP_INSN_SYSCALL : kind_at(e, t, &length);
    if (kind == STEP_INSN_CPUID && !t->pending_signal) {
        e->s->emulated++;
        if (tracee_emulate_cpuid(t->tid, length) != 0 || fetch_registers(e, t, NULL) != 0)
            return error_set(e->err, "cpuid of thread %d: %s", (int)t->tid, strerror(errno));
        *result = STEP_DONE;
        return emit_record(e, t, &t->regs);
    }
    t->yielded = kind == STEP_INSN_PAUSE;
    e->acting = kind == STEP_INSN_SYSCALL;  /* only a call can end another's wait */
    int request = kind == STEP_INSN_SYSCALL ? PTRACE_SYSCALL : PTRACE_SINGLESTEP;
    int in_kernel = 0;  /* past the syscall's entry */
    uint64_t start_ip = t->regs.ip, start_rcx = t->regs.gp[RERUN_RCX];
    int deliver = t->pending_signal;
    t->restart = 0;
    t->pending_signal = 0;
    if (deliver && signal_stop(e, t, deliver, &request, &deliver) != 0)
        return -1;
    if (resume(e, t, request, deliver) != 0)
        return -1;
    *result = STEP_DONE;
    int status, have_status = 0;
    for (;;) {
        if (!have_status && wait_for(e, t, &status, -1) < 0)
            return -1;
        have_status = 0;
        if (WIFEXITED(status) || WIFSIGNALED(status)) {
            *result = STEP_GONE;
            return thread_died(e, t, status);
        }
        int event = status >> 16, sig = WSTOPSIG(status);
        if (event == PTRACE_EVENT_EXIT) {
            *result = STEP_GONE;
            pid_t pid = t->pid;
            int alone = in_kernel && t->exits_alone;
            e->acting = 1;  /* whom its end wakes, the program woke */
            return thread_exiting(e, t, 1) != 0 || (!alone && await_process_end(e, pid) != 0)
                       ? -1 : 0;
        }
        if (event == PTRACE_EVENT_CLONE || event == PTRACE_EVENT_FORK ||
            event == PTRACE_EVENT_VFORK) {
            if (new_child(e, t) != 0 || resume(e, t, PTRACE_SYSCALL, 0) != 0)
                return -1;
            if (t->blocking == SYSCALL_WAITS_CHILD) {
                t->state = T_IN_SYSCALL;  /* until the child execs or exits */
                e->s->blocked++;
                *result = STEP_BLOCKED;
                return 0;
            }
            continue;
        }
        if (event == PTRACE_EVENT_EXEC) {
            int left = exec_event(e, t);
            if (left == 1) {
                *result = STEP_GONE;  /* runs on untraced */
                return 0;
            }
            if (left != 0 || resume(e, t, PTRACE_SYSCALL, 0) != 0)
                return -1;
            continue;
        }
        if (sig == (SIGTRAP | 0x80) && !in_kernel) {
            if (enter_syscall(e, t) != 0)
                return -1;
            in_kernel = 1;
            if (t->blocking != SYSCALL_FUTEX_WAIT && t->blocking != SYSCALL_MAY_BLOCK)
                continue;
            /* 1: T reported meanwhile, 0: it sleeps in the kernel */
            int back = wait_reported_or_asleep(e, t, &status);
            if (back < 0)
                return -1;
            if (back == 0) {
                t->state = T_IN_SYSCALL;
                e->s->blocked++;
                *result = STEP_BLOCKED;
                return 0;
            }
            have_status = 1;
            continue;
        }
        if (sig == (SIGTRAP | 0x80)) {
            if (fetch_registers(e, t, NULL) != 0)
                return -1;
            if (waited_out(t)) {
                /* Ended by its own limit before the engine saw it asleep
                 * (the host was slow to look): it blocked all the same. */
                t->state = T_IN_SYSCALL;
                t->done = 1;
                t->from_outside = 0;
                e->s->blocked++;
                *result = STEP_BLOCKED;
                return 0;
            }
            return exit_stop(e, t);
        }
        siginfo_t info = {0};
        int code = sig == SIGTRAP && ptrace(PTRACE_GETSIGINFO, t->tid, NULL, &info) == 0
                       ? info.si_code
                       : 0;
        if (sig == SIGTRAP && code == TRAP_HANDLER_ENTRY)
            return fetch_registers(e, t, NULL);  /* at a handler's entry: rr shows the
                                                    state after its first instruction */
        if (sig == SIGTRAP && (code == STEP_TRAP_BRKPT || code == STEP_TRAP_TRACE ||
                                code == STEP_TRAP_HWBKPT)) {
            if (fetch_registers(e, t, NULL) != 0)
                return -1;
            if (kind == STEP_INSN_REP_STRING && t->regs.ip == start_ip &&
                t->regs.gp[RERUN_RCX] != 0) {
                if (resume(e, t, PTRACE_SINGLESTEP, 0) != 0)  /* the next iteration */
                    return -1;
                continue;
            }
            return emit_record(e, t, &t->regs);
        }
        if (sig == SIGTRAP && code == SI_KERNEL) {
            /* int3 and the like: the instruction ran, then its signal */
            if (fetch_registers(e, t, NULL) != 0)
                return -1;
            t->pending_signal = SIGTRAP;
            return emit_record(e, t, &t->regs);
        }
        /* A signal before the instruction ran (a fault, or one sent); a
         * string instruction it interrupts shows the part done, as rr
         * does. */
        if (kind == STEP_INSN_REP_STRING && t->regs.gp[RERUN_RCX] != start_rcx &&
            emit_record(e, t, &t->regs) != 0)
            return -1;
        start_rcx = t->regs.gp[RERUN_RCX];
        if (signal_stop(e, t, sig, &request, &deliver) != 0 ||
            resume(e, t, request, deliver) != 0)
            return -1;
    }
}

/* ---- the schedule ---- */

static struct sthread *next_runnable(struct engine *e, int include_current_first)
{
    if (e->n == 0)
        return NULL;
    size_t start = e->cursor < e->n ? e->cursor : 0;
    for (size_t k = include_current_first ? 0 : 1; k <= e->n; k++) {
        size_t i = (start + k) % e->n;
        struct sthread *t = e->threads[i];
        if (t->state == T_READY || t->state == T_EXIT_PENDING) {
            e->cursor = i;
            return t;
        }
    }
    return NULL;
}

static int enabled(const struct sthread *t)
{
    return t->state == T_READY || t->state == T_EXIT_PENDING;
}

/* PCT: the enabled thread of highest priority (the first created of
 * equals). */
static struct sthread *highest_priority(struct engine *e)
{
    struct sthread *best = NULL;
    for (size_t i = 0; i < e->n; i++) {
        struct sthread *t = e->threads[i];
        if (enabled(t) && (!best || t->priority > best->priority)) {
            best = t;
            e->cursor = i;
        }
    }
    return best;
}

static uint64_t events_that_matter(const struct engine *e)
{
    return e->obs->events_that_matter ? e->obs->events_that_matter(e->obs->ctx) : e->s->records;
}

/* PCT, after a thread's step (STEPPED, or NULL when it is gone), which
 * began with BEFORE events that matter: counts the step when it can
 * matter, moves the thread's priority at a
 * change point, and drops a thread that yields or spins. */
static void pct_after_step(struct engine *e, struct sthread *stepped, int others_enabled,
                           uint64_t before)
{
    if (others_enabled && events_that_matter(e) != before) {
        e->s->counted++;        uint32_t change = step_schedule_count(&e->schedule);
        if (change) {
            e->s->change_points++;
            if (stepped)
                stepped->priority = (int64_t)e->schedule.depth - change;
        }
    }
    if (!stepped)
        return;
    stepped->run_length = others_enabled ? stepped->run_length + 1 : 0;
    if (stepped->yielded || stepped->run_length >= STEP_PCT_SPIN_LIMIT) {
        if (others_enabled) {
            e->s->yields++;
            stepped->priority = step_schedule_yield_priority(&e->schedule);
        }
        stepped->yielded = 0;
        stepped->run_length = 0;
    }
}

static struct sthread *find_vtid(const struct engine *e, uint32_t vtid)
{
    for (size_t i = 0; i < e->n; i++)
        if (e->threads[i]->vtid == vtid)
            return e->threads[i];
    return NULL;
}

/* T's turn: up to a quantum of instructions, or until it blocks or ends. */
static int run_turn(struct engine *e, struct sthread *t)
{
    if (e->schedule.policy == STEP_PCT) {
        int others = 0;
        for (size_t i = 0; i < e->n; i++)
            others |= e->threads[i] != t && enabled(e->threads[i]);
        uint64_t before = events_that_matter(e);
        uint32_t vtid = t->vtid;
        enum step_result r = STEP_DONE;
        if (t->state == T_EXIT_PENDING ? exit_stop(e, t) : step_one(e, t, &r))
            return -1;
        pct_after_step(e, r == STEP_GONE ? NULL : find_vtid(e, vtid), others, before);
        return 0;
    }
    uint32_t quantum = step_schedule_next(&e->schedule);
    for (uint32_t i = 0; i < quantum; i++) {
        enum step_result r = STEP_DONE;
        if (t->state == T_EXIT_PENDING ? exit_stop(e, t) : step_one(e, t, &r))
            return -1;
        /* What the step set in motion in the kernel is over before the next:
         * a woken reader has taken its bytes before T looks at the pipe. */
        if (settle(e) != 0)
            return -1;
        if (r != STEP_DONE)
            return 0;
    }
    return 0;
}

static int run(struct engine *e)
{
    for (;;) {
        if (collect(e) != 0 || settle(e) != 0 || await_due(e) != 0)
            return -1;
        release(e);
        struct sthread *previous = e->current;
        struct sthread *t = e->schedule.policy == STEP_PCT ? highest_priority(e)
                            : next_runnable(e, previous == NULL ||
                                                 (previous->state != T_READY &&
                                                  previous->state != T_EXIT_PENDING));
        if (!t && previous && (previous->state == T_READY || previous->state == T_EXIT_PENDING))
            t = previous;  /* the only one that can run */
        if (!t) {
            if (e->n == 0)
                return 0;
            uint64_t next = next_deadline(e);
            if (next != NO_DEADLINE) {
                /* All wait, some until a time: virtual time jumps to the first. */
                if (next > e->vclock)
                    e->vclock = next;
                continue;
            }
            int status;
            pid_t tid = tracee_wait_any(&status, -1);
            if (tid < 0)
                return errno == ECHILD ? 0 : error_set(e->err, "waitpid: %s", strerror(errno));
            if (dispatch(e, tid, status) != 0)
                return -1;
            continue;
        }
        if (previous && previous != t &&
            (previous->state == T_READY || previous->state == T_EXIT_PENDING)) {
            struct step_frame f = frame_of(previous, STEP_FRAME_SCHED);
            f.regs = NULL;
            if (end_frame(e, &f) != 0)
                return -1;
        }
        e->current = t;
        if (run_turn(e, t) != 0)
            return -1;
    }
}

/* ---- start and end ---- */

static void kill_all(struct engine *e)
{
    for (size_t i = 0; i < e->n; i++)
        kill(e->threads[i]->tid, SIGKILL);
    int status;
    while (tracee_wait_any(&status, 1000) > 0)
        ;
}

/* The program as the exec left it: the exec's frame, then rr's first
 * record (before any step). */
static int start(struct engine *e, pid_t pid)
{
    e->leader = pid;
    e->wchan = tracee_names_sleeps(pid);  /* stopped at its exec */
    struct sthread *t = add_thread(e, pid, pid);
    t->stopped = 1;
    if (exec_event(e, t) != 0 || resume(e, t, PTRACE_SYSCALL, 0) != 0)
        return -1;
    int status;
    if (waitpid(pid, &status, __WALL) != pid || !WIFSTOPPED(status) ||
        WSTOPSIG(status) != (SIGTRAP | 0x80))
        return error_set(e->err, "%s did not leave its exec as expected (status 0x%x)",
                         e->o->path, status);
    if (fetch_registers(e, t, NULL) != 0)
        return -1;
    t->state = T_READY;
    t->nr = NR_EXECVE;
    struct step_frame f = frame_of(t, STEP_FRAME_SYSCALL_EXIT);
    e->time = 1;
    if (end_frame(e, &f) != 0)
        return -1;
    e->icount = 0;
    struct rerun_record first = t->regs;
    first.event = e->time - 1;
    first.icount = 0;
    e->s->records++;
    if (e->obs->record(e->obs->ctx, pid, &first, e->err) != 0)
        return -1;
    e->current = t;
    return 0;
}

int step_record(const struct step_options *o, const struct step_observer *observer,
                struct step_summary *summary, struct program_outcome *outcome,
                struct trms_error *err)
{
    *summary = (struct step_summary){0};
    *outcome = (struct program_outcome){0};
    struct engine e = {.o = o, .obs = observer, .s = summary, .outcome = outcome, .err = err};
    if (o->policy == STEP_PCT)
        step_schedule_init_pct(&e.schedule, o->seed, o->depth, o->pct_events);
    else
        step_schedule_init(&e.schedule, o->quantum ? o->quantum : STEP_DEFAULT_QUANTUM, o->seed);
    u64map_init(&e.kinds);
    /* ^C goes to the program (it shares our terminal), not to us: the
     * recording is kept however the program ends. */
    struct sigaction ignore = {.sa_handler = SIG_IGN}, old_int, old_quit;
    sigemptyset(&ignore.sa_mask);
    sigaction(SIGINT, NULL, &old_int);
    if (old_int.sa_handler == SIG_DFL)  /* a caller that handles it (stop_signals) knows */
        sigaction(SIGINT, &ignore, NULL);
    sigaction(SIGQUIT, &ignore, &old_quit);
    pid_t pid = tracee_spawn(o->path, o->argv, err);
    if (pid > 0)
        stop_signals_set_target(pid);  /* a request to stop goes to it */
    int rc = pid < 0 ? -1 : start(&e, pid);
    if (rc == 0)
        rc = run(&e);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGQUIT, &old_quit, NULL);
    if (rc != 0 && pid > 0)
        kill_all(&e);
    stop_signals_set_target(0);
    while (e.n > 0)
        remove_thread(&e, e.threads[e.n - 1]);
    free(e.threads);
    u64map_free(&e.kinds);
    return rc;
}

int step_read_memory(pid_t pid, uint64_t addr, void *buf, uint64_t size)
{
    return tracee_read(pid, addr, buf, (size_t)size);
}
