#include "trace/text_writer.h"

#include <inttypes.h>

void text_write_event(FILE *out, const struct event *ev, const struct routine_table *routines)
{
    char buf[19];
    switch (ev->type) {
    case EVENT_THREAD:
        fprintf(out, "thread %" PRIu32 "\n", ev->tid);
        break;
    case EVENT_CALL:
        fprintf(out, "call %s\n", routine_table_label(routines, ev->routine, buf));
        break;
    case EVENT_RETURN:
        fputs("return\n", out);
        break;
    case EVENT_COST:
        fprintf(out, "cost %" PRIu64 "\n", ev->size);
        break;
    default:
        fprintf(out, "%s 0x%" PRIx64 " %" PRIu64 "\n", event_type_name(ev->type), ev->addr,
                ev->size);
        break;
    }
}

void text_write_sync(FILE *out, const struct sync_event *ev)
{
    const char *ops = sync_kind_operands(ev->kind);
    if (!ops)
        return;
    fprintf(out, "#@sync %s", sync_kind_name(ev->kind));
    for (; *ops; ops++) {
        /* Addresses in hex, counts in decimal, as the events print them. */
        int addr = *ops == 'a' && ev->kind != SYNC_BLOCKING;
        uint64_t v = *ops == 'a' ? ev->addr : ev->value;
        fprintf(out, addr ? " 0x%" PRIx64 : " %" PRIu64, v);
    }
    fputc('\n', out);
}
