#include "trace/event.h"

static const char *const names[EVENT_TYPE_COUNT] = {
    [EVENT_THREAD] = "thread", [EVENT_CALL] = "call",   [EVENT_RETURN] = "return",
    [EVENT_READ] = "read",     [EVENT_WRITE] = "write", [EVENT_KREAD] = "kread",
    [EVENT_KWRITE] = "kwrite", [EVENT_COST] = "cost",
};

const char *event_type_name(enum event_type type)
{
    return (unsigned)type < EVENT_TYPE_COUNT ? names[type] : "?";
}
