/* rerun_decoder: the per-thread record state machine (see rerun_decoder.h). */
#include "replayer/rerun_decoder.h"

#include <stdlib.h>
#include <string.h>

#include "common/oom.h"
#include "replayer/clone_call.h"
#include "replayer/code_cache.h"
#include "replayer/insn_access.h"
#include "replayer/insn_decode.h"
#include "replayer/rerun_sync.h"

#define MAX_INSN_BYTES 15

/* x86-64 system call numbers the state machine interprets. */
enum {
    NR_MMAP = 9, NR_MPROTECT = 10, NR_MUNMAP = 11, NR_RT_SIGACTION = 13, NR_RT_SIGRETURN = 15,
    NR_MREMAP = 25, NR_EXECVE = 59, NR_CLONE = 56, NR_FUTEX = 202, NR_EXIT = 60, NR_EXIT_GROUP = 231, NR_EXECVEAT = 322,
    NR_PKEY_MPROTECT = 329,
};

#define ENOSYS_RESULT ((uint64_t)-38)

/* Signals 1..64; handlers 0 and 1 are SIG_DFL and SIG_IGN. */
#define MAX_SIGNAL 64

/* x86-64 signal delivery: the kernel skips the 128-byte red zone below the
 * interrupted rsp and builds the frame beneath; rt_sigframe's fixed part
 * (return address, ucontext, siginfo) is 440 bytes, the FPU state above it. */
#define RED_ZONE 128
#define SIGFRAME_FIXED_BYTES 440
#define MAX_SIGFRAME_BYTES (UINT64_C(1) << 20)

enum thread_state { THREAD_NEW, THREAD_RUNNING, THREAD_IN_SYSCALL, THREAD_GONE };

struct thread {
    uint32_t tid;
    uint8_t state;
    uint8_t kept;              /* a thread of the recorded process */
    uint32_t group;            /* thread group (process) within the kept ones */
    struct rerun_record pre;   /* the registers before its next instruction */
    struct rerun_record at_syscall;  /* IN_SYSCALL: before the syscall instruction */
    uint64_t syscall_order;    /* IN_SYSCALL: when it entered, across threads */
    uint64_t restart_at;       /* ip past a syscall that returned -ERESTART*, or 0 */
    uint64_t restart_nr;
    struct clone_call clone;   /* IN_SYSCALL of a clone: its request */
};

/* A thread announced by its parent's clone, before its first record. */
struct child {
    uint8_t kept;
    uint8_t undecided;         /* the clone's flags were unknown: its first record decides */
    uint32_t group;
    uint32_t parent_group;
    struct rerun_record pre;   /* its registers as the clone returns to it */
    struct rerun_record at;    /* its parent's before the call */
};

struct rerun_decoder {
    struct rerun_decoder_config cfg;
    struct syscall_table_source table_source;
    struct syscall_source default_syscalls;
    const struct syscall_source *syscalls;
    struct rerun_summary *summary;
    struct insn_decoder *decoder;
    struct code_cache cache;
    struct call_tracker tracker;

    struct u64map thread_index;  /* tid -> index into threads */
    struct thread *threads;
    size_t n_threads;
    size_t last_thread;          /* index of the last record's thread, when n_threads */
    struct u64map child_index;   /* tid -> index + 1 into children, 0 when used */
    struct child *children;
    size_t n_children;
    uint32_t groups;             /* thread groups handed out */
    uint64_t syscall_order;
    uint64_t handlers[MAX_SIGNAL + 1];  /* of the recorded process */

    uint32_t current;            /* the thread the trace is at */
    int have_current;
    uint64_t pending_cost;       /* the current thread's, not yet reported */

    int failed;                  /* the sink failed inside a callback */
    struct trms_error callback_err;
};

/* ---- events ---- */

static int emit(void *ctx, const struct event *ev, struct trms_error *err)
{
    struct rerun_decoder *d = ctx;
    d->summary->events[ev->type]++;
    return d->cfg.sink(d->cfg.sink_ctx, ev, err);
}

static int flush_cost(struct rerun_decoder *d, struct trms_error *err)
{
    if (d->pending_cost == 0)
        return 0;
    struct event ev = {.type = EVENT_COST, .size = d->pending_cost};
    d->summary->instructions += d->pending_cost;
    d->pending_cost = 0;
    return emit(d, &ev, err);
}

/* Makes T the thread the following events belong to. */
static int switch_to(struct rerun_decoder *d, const struct thread *t, struct trms_error *err)
{
    if (d->have_current && d->current == t->tid)
        return 0;
    if (flush_cost(d, err) != 0)
        return -1;
    d->current = t->tid;
    d->have_current = 1;
    struct event ev = {.type = EVENT_THREAD, .tid = t->tid};
    return emit(d, &ev, err);
}

/* A sync record of T, after its cost so far (the causal model splits the
 * thread's work there). */
static int emit_sync(struct rerun_decoder *d, const struct thread *t, enum sync_kind kind,
                     uint64_t addr, uint64_t value, struct trms_error *err)
{
    if (!d->cfg.sync)
        return 0;
    if (switch_to(d, t, err) != 0 || flush_cost(d, err) != 0)
        return -1;
    struct sync_event ev = {.tid = t->tid, .kind = kind, .addr = addr, .value = value};
    d->summary->sync_records++;
    return d->cfg.sync(d->cfg.sync_ctx, &ev, err);
}

/* An access of the current thread, split to the trace's largest size and
 * cut at the end of the address space. */
static int emit_access(struct rerun_decoder *d, enum event_type type, uint64_t addr,
                       uint64_t size, struct trms_error *err)
{
    if (size == 0)
        return 0;
    if (addr + (size - 1) < addr) {
        d->summary->unexpected++;
        size = 0 - addr;
    }
    while (size > 0) {
        uint64_t part = size > EVENT_MAX_ACCESS_SIZE ? EVENT_MAX_ACCESS_SIZE : size;
        struct event ev = {.type = type, .addr = addr, .size = part};
        if (emit(d, &ev, err) != 0)
            return -1;
        addr += part;
        size -= part;
    }
    return 0;
}

static void count_at(struct u64map *map, uint64_t key)
{
    ++*u64map_upsert(map, key, NULL);
}

/* ---- instructions ---- */

static struct insn *lookup(struct rerun_decoder *d, uint64_t addr)
{
    struct insn *cached = code_cache_find(&d->cache, addr);
    if (cached)
        return cached;
    uint8_t bytes[MAX_INSN_BYTES];
    size_t n = d->cfg.read_code(d->cfg.ctx, addr, bytes, sizeof bytes);
    struct insn fresh;
    insn_decode(d->decoder, addr, bytes, n > sizeof bytes ? sizeof bytes : n, &fresh);
    return code_cache_put(&d->cache, &fresh);
}

static struct code_class classify(const struct rerun_decoder *d, uint64_t addr)
{
    struct code_class c = {0};
    if (d->cfg.classify)
        d->cfg.classify(d->cfg.ctx, addr, &c);
    return c;
}

/* Whether a jump from INSN to TARGET goes to the call tracker: every
 * indirect jump, every jump out of a PLT stub, and a direct jump to the
 * entry of another function (a tail call), as the Valgrind tool reports
 * them. Direct jumps are asked once and remembered. */
static int jump_reported(struct rerun_decoder *d, struct insn *insn, uint64_t target)
{
    int direct = insn->target != 0;
    if (!direct)
        return 1;
    if (insn->jump_reported)
        return insn->jump_reported == JUMP_REPORTED;
    int reported = classify(d, insn->addr).is_plt;
    if (!reported && classify(d, target).is_function_entry)
        reported = !d->cfg.function_of || d->cfg.function_of(d->cfg.ctx, insn->addr) != target;
    insn->jump_reported = reported ? JUMP_REPORTED : JUMP_INTERNAL;
    return reported;
}

static int emit_accesses(struct rerun_decoder *d, const struct insn_access *a, int n,
                         struct trms_error *err)
{
    for (int i = 0; i < n; i++)
        if (emit_access(d, a[i].kind == INSN_READ ? EVENT_READ : EVENT_WRITE, a[i].addr,
                        a[i].size, err) != 0)
            return -1;
    return 0;
}

/* A locked read-modify-write of ADDR by INSN, from PRE to POST: a sync
 * record when it took the word from or to 0 (rerun_sync.h). */
static int note_atomic(struct rerun_decoder *d, const struct thread *t, const struct insn *insn,
                       uint64_t addr, const struct rerun_record *pre,
                       const struct rerun_record *post, struct trms_error *err)
{
    uint8_t bytes[MAX_INSN_BYTES];
    size_t got = d->cfg.read_code(d->cfg.ctx, insn->addr, bytes, insn->length);
    uint64_t transition = 0;
    switch (rerun_sync_atomic(bytes, got, pre, post, &transition)) {
    case RERUN_ATOMIC_UNREAD:
        d->summary->unread_atomics++;
        return 0;
    case RERUN_ATOMIC_READ:
        return transition ? emit_sync(d, t, SYNC_ATOMIC, addr, transition, err) : 0;
    default:
        return 0;
    }
}

/* One execution of INSN by T from PRE to POST: its accesses, its cost,
 * its control flow. */
static int execute(struct rerun_decoder *d, struct thread *t, struct insn *insn,
                   const struct rerun_record *pre, const struct rerun_record *post,
                   struct trms_error *err)
{
    if (switch_to(d, t, err) != 0)
        return -1;
    if (insn->family == FAMILY_UNDECODABLE)
        count_at(&d->summary->undecodable, insn->addr);
    if (insn->flags & INSN_APPROXIMATE)
        count_at(&d->summary->approximated, insn->addr);
    struct insn_access a[INSN_MAX_ACCESSES];
    int n = insn_accesses(insn, pre, post, a);
    /* A ret's read of its return address is the return's: it comes after
     * the frames the ret ends, in the caller that pushed the address, so
     * that no routine reads its return address as input however it was
     * reached (a call, a PLT stub, a tail call). Nothing else happens in
     * between: the accesses stay in the machine's order. */
    if (insn->family != FAMILY_RET && emit_accesses(d, a, n, err) != 0)
        return -1;
    d->pending_cost++;
    if (d->cfg.sync && n > 0 && insn->family == FAMILY_PLAIN && note_atomic(d, t, insn, a[0].addr, pre, post, err) != 0)
        return -1;

    uint64_t sp = post->gp[RERUN_RSP];
    struct call_tracker *tracker = &d->tracker;
    switch (insn->family) {
    case FAMILY_CALL:
        if (flush_cost(d, err) != 0 || call_tracker_call(tracker, t->tid, post->ip, sp, err) != 0)
            return -1;
        /* The return address belongs to the callee: its ret reading it
         * back is not input. */
        return emit_access(d, EVENT_WRITE, sp, 8, err);
    case FAMILY_RET:
        if (flush_cost(d, err) != 0 || call_tracker_return(tracker, t->tid, sp, err) != 0)
            return -1;
        return emit_accesses(d, a, n, err);
    case FAMILY_BRANCH:
        if (post->ip != insn->target || post->ip == insn->addr + insn->length)
            return 0;  /* not taken */
        /* fall through */
    case FAMILY_JUMP:
        if (!jump_reported(d, insn, post->ip))
            return 0;
        return flush_cost(d, err) != 0 ? -1
                                       : call_tracker_jump(tracker, t->tid, post->ip, sp, err);
    default:
        return 0;
    }
}

/* ---- system calls ---- */

static int is_restart(int64_t result)
{
    /* ERESTARTSYS, ERESTARTNOINTR, ERESTARTNOHAND, ERESTART_RESTARTBLOCK */
    return result == -512 || result == -513 || result == -514 || result == -516;
}

static int failed(int64_t result)
{
    return result < 0 && result >= -4095;
}

/* Linux moves at most MAX_RW_COUNT (INT_MAX rounded down to a page) bytes
 * of user memory in one system call; a larger effect comes from a corrupt
 * record, and would be billions of events. */
#define KERNEL_ACCESS_MAX UINT64_C(0x7ffff000)

static void kernel_effect(void *ctx, enum syscall_access kind, uint64_t addr, uint64_t size)
{
    struct rerun_decoder *d = ctx;
    if (d->failed)
        return;
    if (size > KERNEL_ACCESS_MAX) {
        d->summary->unexpected++;
        size = KERNEL_ACCESS_MAX;
    }
    if (emit_access(d, kind == SYSCALL_KREAD ? EVENT_KREAD : EVENT_KWRITE, addr, size,
                    &d->callback_err) != 0)
        d->failed = 1;
}

static int read_memory(const struct rerun_decoder *d, uint64_t addr, void *buf, uint64_t size)
{
    return d->cfg.read_memory ? d->cfg.read_memory(d->cfg.ctx, addr, buf, size) : -1;
}

static struct thread *thread_of(struct rerun_decoder *d, uint32_t tid)
{
    if (d->n_threads && d->threads[d->last_thread].tid == tid)
        return &d->threads[d->last_thread];  /* threads run many steps in a row */
    int inserted;
    uint64_t *index = u64map_upsert(&d->thread_index, tid, &inserted);
    if (inserted) {
        d->threads = xrealloc(d->threads, (d->n_threads + 1) * sizeof *d->threads);
        d->threads[d->n_threads] = (struct thread){.tid = tid, .state = THREAD_NEW};
        *index = d->n_threads++;
    }
    d->last_thread = (size_t)*index;
    return &d->threads[*index];
}

/* The child of PARENT's clone as it starts; FIRST is its first record
 * when seen. */
static struct child child_of(struct rerun_decoder *d, const struct thread *parent,
                             const struct rerun_record *first)
{
    struct child child = {.at = parent->at_syscall, .parent_group = parent->group};
    clone_call_child_start(&parent->clone, &parent->at_syscall, &child.pre);
    child.undecided = !parent->clone.known && !first;
    child.kept = (uint8_t)clone_call_shares_memory(&parent->clone, &parent->at_syscall, first);
    /* Unknown flags: a child that shares the memory is taken for a thread. */
    child.group = clone_call_same_group(&parent->clone) || (!parent->clone.known && child.kept)
                      ? parent->group
                      : ++d->groups;
    return child;
}

static void announce_child(struct rerun_decoder *d, struct thread *parent, uint64_t tid)
{
    if (tid > UINT32_MAX)
        return;
    uint64_t flags;
    if (!parent->clone.known && d->cfg.clone_flags &&
        d->cfg.clone_flags(d->cfg.ctx, (uint32_t)tid, &flags)) {
        parent->clone.flags = flags;  /* the producer knows them (rr's task events) */
        parent->clone.known = 1;
    }
    const uint64_t *known = u64map_find(&d->thread_index, tid);
    if (known && d->threads[*known].state != THREAD_NEW && d->threads[*known].state != THREAD_GONE)
        return;  /* it ran before its parent's call returned */
    d->children = xrealloc(d->children, (d->n_children + 1) * sizeof *d->children);
    d->children[d->n_children] = child_of(d, parent, NULL);
    *u64map_upsert(&d->child_index, tid, NULL) = ++d->n_children;
}

/* Which code the call changed under the decoded instructions. */
static void drop_changed_code(struct rerun_decoder *d, const struct rerun_record *at,
                              int64_t result)
{
    uint64_t nr = at->gp[RERUN_RAX];
    const uint64_t *g = at->gp;
    switch (nr) {
    case NR_MMAP:
        code_cache_drop(&d->cache, (uint64_t)result, g[RERUN_RSI]);
        break;
    case NR_MUNMAP:
    case NR_MPROTECT:
    case NR_PKEY_MPROTECT:
        code_cache_drop(&d->cache, g[RERUN_RDI], g[RERUN_RSI]);
        break;
    case NR_MREMAP:
        code_cache_drop(&d->cache, g[RERUN_RDI], g[RERUN_RSI]);
        code_cache_drop(&d->cache, (uint64_t)result, g[RERUN_RDX]);
        break;
    default:
        break;
    }
}

/* rt_sigaction(sig, act, ...): the handler is act's first word. */
static void note_handler(struct rerun_decoder *d, const struct rerun_record *at)
{
    uint64_t sig = at->gp[RERUN_RDI], act = at->gp[RERUN_RSI];
    uint8_t bytes[8];
    if (act == 0 || sig == 0 || sig > MAX_SIGNAL || read_memory(d, act, bytes, 8) != 0)
        return;
    uint64_t handler = 0;
    for (int i = 7; i >= 0; i--)
        handler = handler << 8 | bytes[i];
    d->handlers[sig] = handler;
}

/* What a completed system call says about synchronization, as the
 * Valgrind tool says it; a blocking call's duration is 0 (rerun_decoder.h). */
static int note_syscall_sync(struct rerun_decoder *d, const struct thread *t,
                             const struct syscall_call *call, struct trms_error *err)
{
    int failed_call = failed(call->result);
    if (call->nr == NR_FUTEX && rerun_sync_futex_waits(call->args[1]))
        return emit_sync(d, t, SYNC_FUTEX_RESUME, call->args[0],
                         failed_call ? (uint64_t)-call->result : 0, err);
    if (call->nr == NR_FUTEX && rerun_sync_futex_wakes(call->args[1]))
        return !failed_call && call->result > 0
                   ? emit_sync(d, t, SYNC_FUTEX_WAKE, call->args[0], (uint64_t)call->result, err)
                   : 0;
    if (rerun_sync_may_block(call->nr))
        return emit_sync(d, t, SYNC_BLOCKING, call->nr, 0, err);
    return 0;
}

/* T's clone made CHILD: a thread of its process (CLONE_THREAD) is
 * created, with the address its exit clears and wakes. */
static int note_create(struct rerun_decoder *d, const struct thread *t, uint64_t child,
                       struct trms_error *err)
{
    if (!t->clone.known || !clone_call_same_group(&t->clone))
        return 0;
    uint64_t clear_tid = t->clone.flags & CLONE_CALL_CHILD_CLEARTID ? t->clone.child_tid : 0;
    return emit_sync(d, t, SYNC_CREATE, clear_tid, child, err);
}

/* A system call of T completed: AT is the thread's registers before the
 * syscall instruction, EXIT the registers after the call. */
static int complete_syscall(struct rerun_decoder *d, struct thread *t,
                            const struct rerun_record *at, const struct rerun_record *exit,
                            struct trms_error *err)
{
    const uint64_t *g = at->gp;
    struct syscall_call call = {
        .tid = t->tid, .nr = g[RERUN_RAX], .result = (int64_t)exit->gp[RERUN_RAX],
        .args = {g[RERUN_RDI], g[RERUN_RSI], g[RERUN_RDX], g[RERUN_R10], g[RERUN_R8], g[RERUN_R9]},
        .exit_record = exit,
    };
    d->summary->syscalls++;
    if (switch_to(d, t, err) != 0)
        return -1;
    enum syscall_known known = d->syscalls->effects(d->syscalls->ctx, &call, kernel_effect, d);
    if (known == SYSCALL_UNKNOWN)
        count_at(&d->summary->unmodeled_syscalls, call.nr);
    else if (known == SYSCALL_CLIPPED)
        d->summary->unexpected++;
    if (d->failed) {
        *err = d->callback_err;
        return -1;
    }
    if (is_restart(call.result)) {
        t->restart_at = exit->ip;
        t->restart_nr = call.nr;
    }
    if (note_syscall_sync(d, t, &call, err) != 0)
        return -1;
    if (failed(call.result))
        return 0;
    if (clone_call_is(call.nr) && call.result > 0) {
        announce_child(d, t, (uint64_t)call.result);
        return note_create(d, t, (uint64_t)call.result, err);
    }
    else if (call.nr == NR_RT_SIGACTION)
        note_handler(d, at);
    else
        drop_changed_code(d, at, call.result);
    return 0;
}

/* Ends the activations of T, which is gone. */
static int end_thread(struct rerun_decoder *d, struct thread *t, struct trms_error *err)
{
    t->state = THREAD_GONE;
    return switch_to(d, t, err) != 0 || flush_cost(d, err) != 0 ||
                   emit_sync(d, t, SYNC_EXIT, 0, 0, err) != 0
               ? -1
               : call_tracker_thread_exit(&d->tracker, t->tid, err);
}

/* Ends every other live thread of T's group (exit_group, execve). */
static int end_group(struct rerun_decoder *d, struct thread *t, struct trms_error *err)
{
    for (size_t i = 0; i < d->n_threads; i++) {
        struct thread *u = &d->threads[i];
        if (u != t && u->kept && u->group == t->group && u->state != THREAD_NEW &&
            u->state != THREAD_GONE && end_thread(d, u, err) != 0)
            return -1;
    }
    return 0;
}

/* The `syscall` instruction of T ran from AT (which may be T's pre) to
 * ENTRY. */
static int enter_syscall(struct rerun_decoder *d, struct thread *t, const struct rerun_record *at,
                         const struct rerun_record *entry, struct trms_error *err)
{
    t->at_syscall = *at;
    t->pre = *entry;
    if (switch_to(d, t, err) != 0)
        return -1;
    d->pending_cost++;
    /* The Valgrind tool reports the cost before every system call. */
    if (flush_cost(d, err) != 0)
        return -1;
    const uint64_t *g = t->at_syscall.gp;  /* AT may be T's pre, now the entry */
    if (g[RERUN_RAX] == NR_FUTEX && rerun_sync_futex_waits(g[RERUN_RSI]) &&
        emit_sync(d, t, SYNC_FUTEX_WAIT, g[RERUN_RDI], 0, err) != 0)
        return -1;
    if (entry->gp[RERUN_RAX] != ENOSYS_RESULT)  /* a producer that shows no entry */
        return complete_syscall(d, t, &t->at_syscall, entry, err);
    t->state = THREAD_IN_SYSCALL;
    t->syscall_order = ++d->syscall_order;
    uint64_t nr = t->at_syscall.gp[RERUN_RAX];
    if (clone_call_is(nr))
        t->clone = clone_call_read(&t->at_syscall, d->cfg.read_memory, d->cfg.ctx);
    if (nr == NR_EXIT)
        return end_thread(d, t, err);
    if (nr == NR_EXIT_GROUP)
        return end_group(d, t, err) != 0 ? -1 : end_thread(d, t, err);
    return 0;
}

/* execve succeeded in T: the old program's activations end, its code and
 * handlers are gone, T runs the new program from REGS. */
static int exec(struct rerun_decoder *d, struct thread *t, const struct rerun_record *regs,
                struct trms_error *err)
{
    d->summary->execs++;
    if (end_group(d, t, err) != 0 || end_thread(d, t, err) != 0)
        return -1;
    t->state = THREAD_RUNNING;
    t->pre = *regs;
    code_cache_clear(&d->cache);
    memset(d->handlers, 0, sizeof d->handlers);
    return 0;
}

/* ---- signals ---- */

/* The handler entered between PRE and POST: POST's ip itself, or a handler
 * whose first instruction leads to it (rr shows the state after that
 * instruction). *RAN says which; *ENTRY gets the registers at the handler's
 * entry (as far as the first instruction can be undone). */
static uint64_t find_handler(struct rerun_decoder *d, const struct rerun_record *post,
                             struct insn *first, struct rerun_record *entry, int *ran)
{
    *ran = 0;
    *entry = *post;
    for (int sig = 1; sig <= MAX_SIGNAL; sig++)
        if (d->handlers[sig] > 1 && d->handlers[sig] == post->ip)
            return post->ip;
    for (int sig = 1; sig <= MAX_SIGNAL; sig++) {
        uint64_t h = d->handlers[sig];
        if (h <= 1)
            continue;
        *first = *lookup(d, h);
        if (first->family == FAMILY_UNDECODABLE)
            continue;
        struct rerun_record at = *post;
        at.ip = h;
        at.gp[RERUN_RSP] = insn_rsp_before(first, post->gp[RERUN_RSP]);
        if (insn_follows(first, &at, post)) {
            *entry = at;
            *ran = 1;
            return h;
        }
    }
    d->summary->unknown_handlers++;
    return post->ip;
}

/* A signal handler of T was entered from PRE; POST is the thread's record
 * at or after the handler's entry. */
static int deliver_signal(struct rerun_decoder *d, struct thread *t, const struct rerun_record *pre,
                          const struct rerun_record *post, struct trms_error *err)
{
    struct insn first;
    struct rerun_record entry;
    int ran;
    uint64_t handler = find_handler(d, post, &first, &entry, &ran);
    d->summary->signals++;
    uint64_t sp = pre->gp[RERUN_RSP];
    if (switch_to(d, t, err) != 0 || flush_cost(d, err) != 0 ||
        call_tracker_signal(&d->tracker, t->tid, handler, sp, err) != 0)
        return -1;
    /* The frame: from the handler's stack pointer up to the red zone, or
     * its fixed part on another (alternate) stack. */
    uint64_t frame = entry.gp[RERUN_RSP], top = sp - RED_ZONE;
    uint64_t bytes = frame < top && top - frame <= MAX_SIGFRAME_BYTES ? top - frame
                                                                       : SIGFRAME_FIXED_BYTES;
    if (emit_access(d, EVENT_KWRITE, frame, bytes, err) != 0)
        return -1;
    return ran ? execute(d, t, &first, &entry, post, err) : 0;
}

/* ---- the state machine ---- */

static int leave_syscall(struct rerun_decoder *d, struct thread *t, const struct rerun_record *r,
                         struct trms_error *err);

/* T ran from its previous record to R. */
static int step(struct rerun_decoder *d, struct thread *t, const struct rerun_record *r,
                struct trms_error *err)
{
    const struct rerun_record *pre = &t->pre;
    if (t->restart_at) {
        uint64_t restart_at = t->restart_at;
        t->restart_at = 0;
        if (r->ip == restart_at - 2) {
            t->pre = *r;
            return 0;  /* the kernel moved back onto the syscall instruction */
        }
        if (r->ip == restart_at && r->gp[RERUN_RAX] == ENOSYS_RESULT) {
            struct rerun_record at = *pre;
            at.ip = restart_at - 2;
            at.gp[RERUN_RAX] = t->restart_nr;
            return enter_syscall(d, t, &at, r, err);
        }
    }
    struct insn *insn = lookup(d, pre->ip);
    if (insn->family == FAMILY_SYSCALL) {
        if (r->ip == pre->ip + insn->length)
            return enter_syscall(d, t, pre, r, err);
        uint64_t nr = pre->gp[RERUN_RAX];
        if (nr == NR_RT_SIGRETURN || nr == NR_EXECVE || nr == NR_EXECVEAT) {
            /* A producer that shows no entry record, at a call whose exit
             * is elsewhere: the entry it would have shown, then R. */
            struct rerun_record entry = *pre;
            entry.ip += insn->length;
            entry.gp[RERUN_RAX] = ENOSYS_RESULT;
            if (enter_syscall(d, t, pre, &entry, err) != 0)
                return -1;
            return leave_syscall(d, t, r, err);
        }
    }
    int rc = insn_follows(insn, pre, r) ? execute(d, t, insn, pre, r, err)
                                        : deliver_signal(d, t, pre, r, err);
    t->pre = *r;
    return rc;
}

/* T's record R while T is inside a system call: the call's exit. */
static int leave_syscall(struct rerun_decoder *d, struct thread *t, const struct rerun_record *r,
                         struct trms_error *err)
{
    uint64_t nr = t->at_syscall.gp[RERUN_RAX], resumes_at = t->at_syscall.ip + 2;
    t->state = THREAD_RUNNING;
    if (nr == NR_RT_SIGRETURN) {
        /* The exit is the interrupted state, restored from the frame. */
        d->summary->sigreturns++;
        d->summary->syscalls++;
        t->pre = *r;
        return switch_to(d, t, err) != 0 || flush_cost(d, err) != 0
                   ? -1
                   : call_tracker_sigreturn(&d->tracker, t->tid, err);
    }
    if ((nr == NR_EXECVE || nr == NR_EXECVEAT) && r->ip != resumes_at)
        return exec(d, t, r, err);
    if (r->ip != resumes_at) {
        /* No exit record (a producer that skips it): carry on from the
         * entry; a signal handler is the likely destination. */
        d->summary->unexpected++;
        return step(d, t, r, err);
    }
    t->pre = *r;
    return complete_syscall(d, t, &t->at_syscall, r, err);
}

/* The first record of a thread, or of a tid reused after its thread left. */
static int first_record(struct rerun_decoder *d, struct thread *t, const struct rerun_record *r,
                        struct trms_error *err)
{
    int first_ever = d->groups == 0;
    *t = (struct thread){.tid = t->tid, .state = THREAD_RUNNING, .pre = *r};
    if (first_ever) {
        t->kept = 1;
        t->group = ++d->groups;
        d->summary->threads++;
        return emit_sync(d, t, SYNC_START, 0, 0, err);
    }
    struct child child;
    uint64_t *slot = u64map_find(&d->child_index, r->tid);
    if (slot && *slot) {
        child = d->children[*slot - 1];
        *slot = 0;
        if (child.undecided) {
            struct clone_call unknown = {0};
            child.kept = (uint8_t)clone_call_shares_memory(&unknown, &child.at, r);
            child.group = child.kept ? child.parent_group : ++d->groups;
        }
    } else {
        /* Not announced: the latest clone of the recorded process still in
         * progress, if any, made it. */
        const struct thread *parent = NULL;
        for (size_t i = 0; i < d->n_threads; i++) {
            const struct thread *u = &d->threads[i];
            if (u->kept && u->state == THREAD_IN_SYSCALL && clone_call_is(u->at_syscall.gp[RERUN_RAX]) &&
                (!parent || u->syscall_order > parent->syscall_order))
                parent = u;
        }
        if (!parent) {
            child = (struct child){.kept = 0};
        } else {
            child = child_of(d, parent, r);
        }
    }
    t->kept = child.kept;
    if (!t->kept) {
        d->summary->other_process_threads++;
        d->summary->other_process_records++;
        return 0;
    }
    t->group = child.group;
    d->summary->threads++;
    if (emit_sync(d, t, SYNC_START, 0, 0, err) != 0)
        return -1;
    if (r->ip == child.pre.ip)
        return 0;  /* a record before its first instruction */
    t->pre = child.pre;
    return step(d, t, r, err);
}

int rerun_decoder_record(struct rerun_decoder *d, const struct rerun_record *r,
                         struct trms_error *err)
{
    d->summary->records++;
    struct thread *t = thread_of(d, r->tid);
    if (t->state == THREAD_NEW || t->state == THREAD_GONE)
        return first_record(d, t, r, err);
    if (!t->kept) {
        d->summary->other_process_records++;
        return 0;
    }
    if (t->state == THREAD_IN_SYSCALL)
        return leave_syscall(d, t, r, err);
    return step(d, t, r, err);
}

/* ---- life cycle ---- */

void rerun_summary_free(struct rerun_summary *s)
{
    u64map_free(&s->unmodeled_syscalls);
    u64map_free(&s->undecodable);
    u64map_free(&s->approximated);
}

struct rerun_decoder *rerun_decoder_new(const struct rerun_decoder_config *config,
                                        struct rerun_summary *summary, struct trms_error *err)
{
    struct insn_decoder *decoder = insn_decoder_new(config->xsave_bytes, err);
    if (!decoder)
        return NULL;
    *summary = (struct rerun_summary){0};
    u64map_init(&summary->unmodeled_syscalls);
    u64map_init(&summary->undecodable);
    u64map_init(&summary->approximated);
    struct rerun_decoder *d = xcalloc(1, sizeof *d);
    d->cfg = *config;
    d->summary = summary;
    d->decoder = decoder;
    d->table_source = (struct syscall_table_source){.read_mem = config->read_memory,
                                                    .read_ctx = config->ctx};
    d->default_syscalls = (struct syscall_source){.effects = syscall_table_effects,
                                                  .ctx = &d->table_source};
    d->syscalls = config->syscalls ? config->syscalls : &d->default_syscalls;
    code_cache_init(&d->cache);
    u64map_init(&d->thread_index);
    u64map_init(&d->child_index);
    call_tracker_init(&d->tracker, config->routines, config->classify, config->ctx, emit, d);
    return d;
}

void rerun_decoder_invalidate_code(struct rerun_decoder *d, uint64_t addr, uint64_t length)
{
    code_cache_drop(&d->cache, addr, length);
}

int rerun_decoder_finish(struct rerun_decoder *d, struct trms_error *err)
{
    int rc = flush_cost(d, err);
    d->summary->tail_calls = d->tracker.tail_calls;
    d->summary->unwound_frames = d->tracker.unwound;
    call_tracker_free(&d->tracker);
    code_cache_free(&d->cache);
    insn_decoder_free(d->decoder);
    u64map_free(&d->thread_index);
    u64map_free(&d->child_index);
    free(d->threads);
    free(d->children);
    free(d);
    return rc;
}
