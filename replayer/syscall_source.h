/* syscall_source: where the decoder learns what a system call did to user
 * memory. The records carry registers only, so each producer brings its own
 * source: the step engine reads the live tracee, the rr adapter the
 * trace's recorded writes (`rr dump -m`). The default here is the shared
 * syscall table (recorder/syscall_effects.h, the Valgrind engine's) with
 * indirect memory (iovecs, msghdrs...) read through a callback. */
#ifndef TRMS_SYSCALL_SOURCE_H
#define TRMS_SYSCALL_SOURCE_H

#include <stdint.h>

#include "recorder/syscall_effects.h"
#include "replayer/rerun_record.h"

/* One completed system call. */
struct syscall_call {
    uint32_t tid;
    uint64_t nr;
    uint64_t args[6];                        /* rdi rsi rdx r10 r8 r9 at entry */
    int64_t result;                          /* rax at exit */
    const struct rerun_record *exit_record;  /* for sources keyed by trace frame */
};

struct syscall_source {
    /* Emits CALL's kernel reads, then its writes, through EMIT; returns
     * SYSCALL_UNKNOWN for a call the source cannot describe (the decoder
     * counts and reports it). */
    enum syscall_known (*effects)(void *ctx, const struct syscall_call *call,
                                  syscall_effect_fn emit, void *emit_ctx);
    void *ctx;
};

/* The default source's context: READ_MEM may be NULL (indirect memory is
 * then unreadable and those effects are skipped). */
struct syscall_table_source {
    syscall_read_fn read_mem;
    void *read_ctx;
};

/* syscall_effects() over a struct syscall_table_source CTX. */
enum syscall_known syscall_table_effects(void *ctx, const struct syscall_call *call,
                                         syscall_effect_fn emit, void *emit_ctx);

#endif
