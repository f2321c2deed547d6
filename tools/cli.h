/* cli: what the trms subcommands share: their entry points, and the way
 * they report a failure (one line on stderr, exit status 1) or a usage
 * mistake (exit status 2). */
#ifndef TRMS_CLI_H
#define TRMS_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "common/error.h"

#define EXIT_FAILED 1
#define EXIT_USAGE 2

struct command {
    const char *name;
    const char *summary;
    const char *usage;   /* full help text of `trms NAME --help` */
    int (*run)(int argc, char **argv);
    int program_operand;  /* its first operand is a program: what follows is the program's */
    const char *on_stop;  /* said after "COMMAND stopped by SIGTERM" before the command
                           * takes stop signals over, or NULL (record: "nothing recorded") */
};

extern const struct command cmd_record, cmd_import, cmd_analyze, cmd_report, cmd_diff, cmd_causal,
    cmd_export, cmd_info, cmd_control, cmd_explore, cmd_verify, cmd_gc, cmd_pack, cmd_unpack;

/* Prints "trms: MESSAGE" and returns EXIT_FAILED. */
int cli_fail(const struct trms_error *err);

/* Prints "trms CMD: MESSAGE" and a pointer to --help; returns EXIT_USAGE. */
__attribute__((format(printf, 2, 3)))
int cli_usage_error(const struct command *cmd, const char *fmt, ...);

struct option;

/* getopt_long(ARGC, ARGV, SHORTOPTS, LONGOPTS) for CMD, which says a
 * mistake once, as a usage error: `--top needs a value`, `unknown option
 * --engien (did you mean --engine?)`; then it returns '?' (the caller
 * returns EXIT_USAGE). getopt itself prints nothing. */
int cli_getopt(const struct command *cmd, int argc, char **argv, const char *shortopts,
               const struct option *longopts);

/* Parses a power-of-two size option; non-zero after printing a usage error. */
int cli_parse_power_of_two(const struct command *cmd, const char *option, const char *text,
                           uint64_t *out);

/* Prints "LABEL VALUE" (label padded to 16) on a line of its own, with
 * the control characters of both, which a recording from elsewhere may
 * hold (escape sequences for the terminal), shown as \xNN. */
void cli_print_field(FILE *out, const char *label, const char *value);

/* True when ARG is -h or --help. */
int cli_is_help(const char *arg);

/* "1.5 MiB", "512 B". */
const char *cli_human_bytes(uint64_t bytes, char buf[static 32]);

/* Says in one line on stderr which staging directories of a trms that
 * died DIR holds, if any, and that `trms gc DIR` removes them. */
void cli_note_leftovers(const char *dir);

#endif
