/* clone_call: clone flags and the child's first registers (see clone_call.h). */
#include "replayer/clone_call.h"

enum { NR_CLONE = 56, NR_FORK = 57, NR_VFORK = 58, NR_CLONE3 = 435 };

#define CLONE_VM UINT64_C(0x100)
#define CLONE_VFORK UINT64_C(0x4000)
#define CLONE_THREAD UINT64_C(0x10000)
#define CLONE_SETTLS UINT64_C(0x80000)

/* struct clone_args (clone3): the fields read, by byte offset. */
enum { ARGS_FLAGS = 0, ARGS_CHILD_TID = 16, ARGS_STACK = 40, ARGS_STACK_SIZE = 48, ARGS_TLS = 56, ARGS_BYTES = 64 };

int clone_call_is(uint64_t nr)
{
    return nr == NR_CLONE || nr == NR_FORK || nr == NR_VFORK || nr == NR_CLONE3;
}

static uint64_t le64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

struct clone_call clone_call_read(const struct rerun_record *at, syscall_read_fn read_mem,
                                  void *ctx)
{
    struct clone_call c = {.known = 1};
    switch (at->gp[RERUN_RAX]) {
    case NR_CLONE:  /* clone(flags, stack, parent_tid, child_tid, tls) */
        c.flags = at->gp[RERUN_RDI];
        c.stack = at->gp[RERUN_RSI];
        c.tls = at->gp[RERUN_R8];
        c.child_tid = at->gp[RERUN_R10];
        break;
    case NR_VFORK:
        c.flags = CLONE_VM | CLONE_VFORK;
        break;
    case NR_CLONE3: {  /* clone3(args, size) */
        uint8_t args[ARGS_BYTES];
        if (!read_mem || read_mem(ctx, at->gp[RERUN_RDI], args, sizeof args) != 0) {
            c.known = 0;
            break;
        }
        c.flags = le64(args + ARGS_FLAGS);
        uint64_t stack = le64(args + ARGS_STACK);
        c.stack = stack ? stack + le64(args + ARGS_STACK_SIZE) : 0;
        c.tls = le64(args + ARGS_TLS);
        c.child_tid = le64(args + ARGS_CHILD_TID);
        break;
    }
    default:  /* fork: flags 0 */
        break;
    }
    return c;
}

int clone_call_shares_memory(const struct clone_call *c, const struct rerun_record *at,
                             const struct rerun_record *first)
{
    if (!c->known)
        return first && first->gp[RERUN_RSP] != at->gp[RERUN_RSP];
    return (c->flags & CLONE_VM) && !(c->flags & CLONE_VFORK);
}

int clone_call_same_group(const struct clone_call *c)
{
    return c->known && (c->flags & CLONE_THREAD);
}

void clone_call_child_start(const struct clone_call *c, const struct rerun_record *at,
                            struct rerun_record *out)
{
    *out = *at;
    out->ip += 2;  /* past `syscall` */
    out->gp[RERUN_RAX] = 0;
    out->gp[RERUN_RCX] = out->ip;
    out->gp[RERUN_R11] = out->flags;
    if (c->stack)
        out->gp[RERUN_RSP] = c->stack;
    if (c->flags & CLONE_SETTLS)
        out->fsbase = c->tls;
}
