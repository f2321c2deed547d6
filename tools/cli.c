#include "tools/cli.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/parse_number.h"
#include "common/visible.h"

int cli_fail(const struct trms_error *err)
{
    fprintf(stderr, "trms: %s\n", err->message);
    return EXIT_FAILED;
}

int cli_usage_error(const struct command *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "trms %s: ", cmd->name);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, " (see `trms %s --help`)\n", cmd->name);
    return EXIT_USAGE;
}

int cli_parse_power_of_two(const struct command *cmd, const char *option, const char *text,
                           uint64_t *out)
{
    uint64_t v;
    if (parse_u64_cstr(text, &v) != PARSE_NUMBER_OK || v == 0 || (v & (v - 1)) != 0 ||
        v > (UINT64_C(1) << 20)) {
        cli_usage_error(cmd, "%s must be a power of two from 1 to 1048576 bytes, not '%s'",
                        option, text);
        return -1;
    }
    *out = v;
    return 0;
}

int cli_is_help(const char *arg)
{
    return strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0;
}

void cli_print_field(FILE *out, const char *label, const char *value)
{
    size_t len = strlen(label);
    visible_fputs(label, out);
    fprintf(out, "%*s ", len < 16 ? (int)(16 - len) : 0, "");
    visible_fputs(value, out);
    fputc('\n', out);
}

const char *cli_human_bytes(uint64_t bytes, char buf[static 32])
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = (double)bytes;
    size_t u = 0;
    while (v >= 1024 && u + 1 < sizeof units / sizeof *units) {
        v /= 1024;
        u++;
    }
    if (u == 0)
        snprintf(buf, 32, "%" PRIu64 " B", bytes);
    else
        snprintf(buf, 32, "%.1f %s", v, units[u]);
    return buf;
}
