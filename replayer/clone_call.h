/* clone_call: what a clone, clone3, fork or vfork asks for, and the thread
 * it starts, from the parent's registers at the call (the records carry
 * nothing else). */
#ifndef TRMS_CLONE_CALL_H
#define TRMS_CLONE_CALL_H

#include <stdint.h>

#include "recorder/syscall_effects.h"
#include "replayer/rerun_record.h"

struct clone_call {
    uint64_t flags;
    uint64_t stack;  /* the child's rsp (clone3: stack + stack_size); 0: the parent's */
    uint64_t tls;    /* the child's fs base under CLONE_SETTLS */
    uint64_t child_tid;  /* where CLONE_CHILD_CLEARTID clears and wakes at its exit */
    int known;       /* the flags are known (clone3's arguments were readable) */
};

/* Whether syscall NR creates a thread or a process. */
int clone_call_is(uint64_t nr);

/* The request of the call about to run from AT (the parent's registers
 * before `syscall`); clone3's struct clone_args is read through READ_MEM
 * (may be NULL: then unknown). */
struct clone_call clone_call_read(const struct rerun_record *at, syscall_read_fn read_mem,
                                  void *ctx);

/* Whether the child shares the parent's address space (CLONE_VM without
 * CLONE_VFORK). When the flags are unknown, the child's FIRST record (NULL:
 * not yet seen, taken as no) decides: a thread starts on a stack of its
 * own, a forked child on its parent's. */
int clone_call_shares_memory(const struct clone_call *c, const struct rerun_record *at,
                             const struct rerun_record *first);

/* The CLONE_CHILD_CLEARTID flag: the child's exit clears child_tid and
 * wakes its waiters (pthread_join waits there). */
#define CLONE_CALL_CHILD_CLEARTID UINT64_C(0x200000)

/* Whether the child joins the parent's thread group (CLONE_THREAD). */
int clone_call_same_group(const struct clone_call *c);

/* The child's registers as the call returns to it: the parent's at the
 * call with rax 0, rcx and r11 as `syscall` leaves them (return address,
 * flags), its own stack and TLS when given. */
void clone_call_child_start(const struct clone_call *c, const struct rerun_record *at,
                            struct rerun_record *out);

#endif
