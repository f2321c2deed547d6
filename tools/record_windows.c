/* record_windows: see record_windows.h. */
#include "tools/record_windows.h"

#include <fnmatch.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common/parse_number.h"
#include "common/plural.h"
#include "tools/record_control.h"

/* N, or N with a K, M or G suffix (powers of 1024). */
static int parse_size(const char *text, uint64_t *out)
{
    size_t len = strlen(text);
    unsigned shift = 0;
    char digits[32];
    if (len && len < sizeof digits && strchr("KMG", text[len - 1])) {
        shift = text[len - 1] == 'K' ? 10 : text[len - 1] == 'M' ? 20 : 30;
        len--;
    }
    if (len == 0 || len >= sizeof digits)
        return -1;
    memcpy(digits, text, len);
    digits[len] = '\0';
    uint64_t v;
    if (parse_u64_cstr(digits, &v) != PARSE_NUMBER_OK || v == 0 || v > (UINT64_MAX >> shift))
        return -1;
    *out = v << shift;
    return 0;
}

int record_windows_option(struct record_windows *w, int c, const char *arg,
                          const struct command *cmd)
{
    struct record_window_options *o = &w->options;
    switch (c) {
    case 0x101:
        o->routine_pattern = arg;
        break;
    case 0x102:
        if (strcmp(arg, "yes") != 0 && strcmp(arg, "no") != 0)
            return cli_usage_error(cmd, "--collect-at-start is yes or no, not '%s'", arg);
        o->off_at_start = strcmp(arg, "no") == 0;
        break;
    case 0x103:
    case 0x104:
    case 0x105: {
        uint64_t v;
        if (parse_size(arg, &v) != 0)
            return cli_usage_error(cmd, "%s needs a number above 0 (K, M or G after it for "
                                        "units of 1024), not '%s'",
                                   c == 0x103 ? "--start-after" : c == 0x104 ? "--max-events"
                                                                             : "--max-size",
                                   arg);
        *(c == 0x103 ? &o->start_after : c == 0x104 ? &o->max_events : &o->max_bytes) = v;
        break;
    }
    default:
        return 0;
    }
    w->given = 1;
    return 1;
}

/* Names are those of the symbols: a routine is known by its entry. */
static int matches(void *ctx, const char *pattern, uint32_t routine)
{
    struct record_windows *w = ctx;
    const struct routine *r = &w->routines->items[routine];
    const char *name = r->name;
    struct symbol_info info;
    if (!name && w->symbols && symbolizer_classify(w->symbols, r->addr, &info) == 0)
        name = info.name;
    return name && fnmatch(pattern, name, 0) == 0;
}

struct record_window *record_windows_open(struct record_windows *w, struct trace_writer *writer,
                                          struct routine_table *routines,
                                          struct symbolizer *symbols)
{
    w->routines = routines;
    w->symbols = symbols;
    w->window = record_window_new(&w->options, writer, routines, matches, w);
    return w->window;
}

int record_windows_poll(struct record_windows *w, struct trms_error *err)
{
    return record_window_check(w->window, err);
}

static int take_request(void *ctx, int *on)
{
    (void)ctx;
    return record_control_take(on);
}

static void taken(void *ctx)
{
    (void)ctx;
    record_control_taken();
}

const struct window_requests *record_windows_requests(struct record_windows *w)
{
    w->requests = (struct window_requests){.fd = record_control_fd(), .take = take_request,
                                           .taken = taken};
    return w->requests.fd >= 0 ? &w->requests : NULL;
}

static const char *number(struct record_windows *w, int slot, uint64_t v)
{
    snprintf(w->numbers[slot], sizeof w->numbers[slot], "%" PRIu64, v);
    return w->numbers[slot];
}

size_t record_windows_meta(struct record_windows *w, const char **keys, const char **values,
                           uint64_t *written, char *said, size_t said_size)
{
    struct record_window_summary s;
    record_window_summary(w->window, &s);
    *written = s.written;
    said[0] = '\0';
    if (!record_window_active(w->window))
        return 0;
    const struct record_window_options *o = &w->options;
    size_t used = 0;
    char *d = w->description;
    size_t size = sizeof w->description;
#define ADD(...) used += (size_t)snprintf(d + used, used < size ? size - used : 0, __VA_ARGS__)
    if (o->routine_pattern)
        ADD("the events of a thread while it runs a routine matching '%s'; ",
            o->routine_pattern);
    if (o->off_at_start)
        ADD("nothing until `trms control on`; ");
    if (o->start_after)
        ADD("from instruction %" PRIu64 " on; ", o->start_after);
    if (o->max_events)
        ADD("up to event %" PRIu64 "; ", o->max_events);
    if (o->max_bytes)
        ADD("up to %" PRIu64 " bytes of trace file; ", o->max_bytes);
    if (s.turned)
        ADD("`trms control` turned collection on or off %" PRIu64 " time%s; ", s.turned,
            plural(s.turned));
    if (!used)
        ADD("everything; ");
#undef ADD
    if (used >= 2 && used < size)
        d[used - 2] = '\0'; /* the last "; " */
    uint64_t left = 0;
    for (int t = 0; t < EVENT_TYPE_COUNT; t++)
        left += s.left_out[t];
    keys[0] = "window";
    values[0] = w->description;
    keys[1] = "window-opened";
    values[1] = number(w, 0, s.opened);
    keys[2] = "left-out-events";
    values[2] = number(w, 1, left);
    keys[3] = "left-out-accesses";
    values[3] = number(w, 2, s.left_out[EVENT_READ] + s.left_out[EVENT_WRITE] +
                                 s.left_out[EVENT_KREAD] + s.left_out[EVENT_KWRITE]);
    keys[4] = "activations-begun-before-window";
    values[4] = number(w, 3, s.begun_before);
    keys[5] = "activations-cut-by-window";
    values[5] = number(w, 4, s.cut);
    keys[6] = "window-limit-reached";
    values[6] = s.limit_reached ? "yes" : "no";
    snprintf(said, said_size,
             "trms: the recording kept %" PRIu64 " events and left out %" PRIu64 " (%s%s); "
             "its window opened %" PRIu64 " time%s\n",
             s.written, left, s.limit_reached ? "a limit was reached" : "outside the window",
             o->routine_pattern && !s.opened ? ", and no routine matched" : "", s.opened,
             plural(s.opened));
    return 7;
}

void record_windows_close(struct record_windows *w)
{
    record_window_free(w->window);
    w->window = NULL;
}
