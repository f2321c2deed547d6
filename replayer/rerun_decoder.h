/* rerun_decoder: rr rerun records (one register snapshot per executed
 * instruction, rerun_record.h) become the event trace.
 *
 * The records say nothing but registers, so the decoder reconstructs each
 * step from the thread's previous record (the state before) and the new one
 * (the state after), per thread, threads interleaving freely:
 *  - an instruction: decoded from the code source once per address
 *    (insn_decode.h), its accesses computed from the registers before it
 *    (insn_access.h), its calls, returns and jumps fed to the shared call
 *    tracker exactly as the Valgrind engine feeds it;
 *  - a system call: the `syscall` step yields an entry record (ip past it,
 *    rax = -ENOSYS), the thread is then inside the call until its next
 *    record, the exit, whose rax is the result; the kernel's reads and
 *    writes come from the syscall source. rt_sigreturn's exit is the
 *    restored state, execve's the new program, exit and exit_group have
 *    none; a restart (-ERESTART*) re-enters the call;
 *  - a signal: a record whose ip the instruction cannot lead to is a
 *    handler (registered through rt_sigaction, its first instruction
 *    possibly already executed, as rr shows it); the interrupted
 *    instruction did not run;
 *  - processes: only the first process is recorded (one address space per
 *    trace); threads (clone with CLONE_VM) join it, forked children and
 *    their records are counted and left out.
 * Conventions follow the Valgrind engine (recorder/valgrind/trms_tool.c):
 * a call's return address is written after the call event; a ret's read of
 * it comes before the return event; an instruction's cost is reported
 * before the call, return or jump it makes; a signal frame is a kernel
 * write after the signal event. */
#ifndef TRMS_RERUN_DECODER_H
#define TRMS_RERUN_DECODER_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "common/u64map.h"
#include "recorder/call_tracker.h"
#include "recorder/syscall_effects.h"
#include "replayer/rerun_record.h"
#include "replayer/syscall_source.h"
#include "trace/event.h"
#include "trace/routine_table.h"
#include "trace/sync_event.h"

struct rerun_decoder_config {
    /* Copies up to SIZE bytes of the code at ADDR into BUF; returns how many
     * (0: none there). Required. */
    size_t (*read_code)(void *ctx, uint64_t addr, uint8_t *buf, size_t size);
    /* The program's memory, for rt_sigaction's handlers and clone3's
     * arguments, and for the default syscall source; may be NULL. */
    syscall_read_fn read_memory;
    /* What symbols say about code (PLT stubs, function entries); may be
     * NULL. */
    code_classifier classify;
    /* The entry of the function holding ADDR, 0 when unknown; may be NULL.
     * A jump to its own function's entry is a loop, not a tail call. */
    uint64_t (*function_of)(void *ctx, uint64_t addr);
    /* The clone flags that made thread TID, when the producer knows them
     * and the memory did not say (clone3's arguments): 1 with *FLAGS;
     * may be NULL. */
    int (*clone_flags)(void *ctx, uint32_t tid, uint64_t *flags);
    void *ctx;  /* passed to the five above */
    /* NULL: the shared syscall table over read_memory. */
    const struct syscall_source *syscalls;
    event_sink sink;
    void *sink_ctx;
    /* Sync records (rerun_sync.h), each after the events of its thread up
     * to it (the thread event, the cost before it); NULL: none. Blocking
     * system calls get a duration of 0: records have no wall time. */
    sync_sink sync;
    void *sync_ctx;
    struct routine_table *routines;  /* calls intern their targets here */
    uint32_t xsave_bytes;            /* xsave area; 0: INSN_DEFAULT_XSAVE_BYTES */
};

struct rerun_summary {
    uint64_t records;
    uint64_t instructions;              /* cost reported */
    uint64_t events[EVENT_TYPE_COUNT];
    uint64_t threads;                   /* of the recorded process */
    uint64_t syscalls;                  /* completed */
    struct u64map unmodeled_syscalls;   /* number -> calls the source did not know */
    struct u64map undecodable;          /* address -> executions without accesses */
    struct u64map approximated;         /* address -> executions whose accesses are a
                                           superset or unknown (masks, gathers) */
    uint64_t signals;
    uint64_t unknown_handlers;          /* deliveries named after the ip reached */
    uint64_t sigreturns;
    uint64_t execs;
    uint64_t other_process_threads;     /* threads of processes left out */
    uint64_t other_process_records;     /* and their records */
    uint64_t unexpected;                /* records no transition explains, accesses
                                           cut at the end of the address space,
                                           syscalls clipped (SYSCALL_CLIPPED) */
    uint64_t tail_calls, unwound_frames;
    uint64_t sync_records;              /* given to the sync sink */
    uint64_t unread_atomics;            /* locked arithmetic whose values the
                                           registers do not tell (rerun_sync.h) */
};

void rerun_summary_free(struct rerun_summary *s);

struct rerun_decoder;

/* A decoder with CONFIG (copied); SUMMARY is filled as it goes. NULL with
 * ERR filled when capstone cannot be used. */
struct rerun_decoder *rerun_decoder_new(const struct rerun_decoder_config *config,
                                        struct rerun_summary *summary, struct trms_error *err);

/* Decodes one record; non-zero when the sink failed. */
int rerun_decoder_record(struct rerun_decoder *d, const struct rerun_record *r,
                         struct trms_error *err);

/* Forgets the decoded instructions in [ADDR, ADDR + LENGTH): code there
 * changed in a way the system calls did not show. */
void rerun_decoder_invalidate_code(struct rerun_decoder *d, uint64_t addr, uint64_t length);

/* Reports the cost still pending, completes SUMMARY and frees D (also
 * after an error). */
int rerun_decoder_finish(struct rerun_decoder *d, struct trms_error *err);

#endif
