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
