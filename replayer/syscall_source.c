/* syscall_source: the default source, over the shared table. */
#include "replayer/syscall_source.h"

/* syscall_effects() has one context for reads and effects; this carries
 * both. */
struct relay {
    const struct syscall_table_source *source;
    syscall_effect_fn emit;
    void *emit_ctx;
};

static int relay_read(void *ctx, uint64_t addr, void *buf, uint64_t size)
{
    const struct relay *r = ctx;
    return r->source->read_mem ? r->source->read_mem(r->source->read_ctx, addr, buf, size) : -1;
}

static void relay_effect(void *ctx, enum syscall_access kind, uint64_t addr, uint64_t size)
{
    const struct relay *r = ctx;
    r->emit(r->emit_ctx, kind, addr, size);
}

enum syscall_known syscall_table_effects(void *ctx, const struct syscall_call *call,
                                         syscall_effect_fn emit, void *emit_ctx)
{
    struct relay r = {.source = ctx, .emit = emit, .emit_ctx = emit_ctx};
    return syscall_effects(call->nr, call->args, call->result, relay_read, relay_effect, &r);
}
