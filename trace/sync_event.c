#include "trace/sync_event.h"

static const char *const names[SYNC_KIND_END] = {
    [SYNC_CREATE] = "create",           [SYNC_START] = "start",
    [SYNC_EXIT] = "exit",               [SYNC_FUTEX_WAIT] = "futex_wait",
    [SYNC_FUTEX_RESUME] = "futex_resume", [SYNC_FUTEX_WAKE] = "futex_wake",
    [SYNC_BLOCKING] = "blocking",       [SYNC_ATOMIC] = "atomic",
};

const char *sync_kind_name(uint32_t kind)
{
    return kind >= 1 && kind < SYNC_KIND_END ? names[kind] : 0;
}

/* Which fields each kind's text operands are, in order: 'a' addr, 'v' value. */
static const char *const operands[SYNC_KIND_END] = {
    [SYNC_CREATE] = "va", [SYNC_START] = "", [SYNC_EXIT] = "",
    [SYNC_FUTEX_WAIT] = "a", [SYNC_FUTEX_RESUME] = "av", [SYNC_FUTEX_WAKE] = "av",
    [SYNC_BLOCKING] = "av", [SYNC_ATOMIC] = "av",
};

const char *sync_kind_operands(uint32_t kind)
{
    return kind >= 1 && kind < SYNC_KIND_END ? operands[kind] : 0;
}
