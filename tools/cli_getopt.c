/* cli_getopt: getopt_long that says a command-line mistake once, in the
 * command's words, and suggests the option that was meant (cli.h). */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/cli.h"

/* Edits (insertions, deletions, substitutions) from A to B, counting at
 * most up to a small bound: only near misses are suggested. */
#define NEAR_MISS 2
static size_t edits(const char *a, size_t na, const char *b)
{
    size_t nb = strlen(b);
    if (na > 64 || nb > 64)
        return NEAR_MISS + 1;
    size_t row[65];
    for (size_t j = 0; j <= nb; j++)
        row[j] = j;
    for (size_t i = 1; i <= na; i++) {
        size_t diagonal = row[0];
        row[0] = i;
        for (size_t j = 1; j <= nb; j++) {
            size_t above = row[j];
            size_t best = diagonal + (a[i - 1] != b[j - 1]);
            if (above + 1 < best)
                best = above + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diagonal = above;
        }
    }
    return row[nb];
}

/* The long option nearest to NAME (LEN bytes), or NULL when none is near. */
static const char *nearest(const struct option *longopts, const char *name, size_t len)
{
    const char *best = NULL;
    size_t best_edits = NEAR_MISS + 1;
    for (const struct option *o = longopts; o && o->name; o++) {
        size_t d = edits(name, len, o->name);
        if (d < best_edits) {
            best_edits = d;
            best = o->name;
        }
    }
    return best;
}

/* Two long options with one code would each run the other's handler (a
 * merge once gave --max-processes the code of --analyses): a command whose
 * table has such a pair refuses to run, whatever it is given. */
static void check_distinct_codes(const struct command *cmd, const struct option *longopts)
{
    for (const struct option *a = longopts; a && a->name; a++)
        for (const struct option *b = a + 1; !a->flag && b->name; b++)
            if (!b->flag && b->val == a->val) {
                fprintf(stderr, "trms %s: internal error: --%s and --%s share option code %d\n",
                        cmd->name, a->name, b->name, a->val);
                exit(70);
            }
}

int cli_getopt(const struct command *cmd, int argc, char **argv, const char *shortopts,
               const struct option *longopts)
{
    check_distinct_codes(cmd, longopts);
    /* ':' first (after a '+' or '-'): a missing value is told apart. */
    char opts[64];
    size_t flag = shortopts[0] == '+' || shortopts[0] == '-';
    snprintf(opts, sizeof opts, "%.*s:%s", (int)flag, shortopts, shortopts + flag);
    opterr = 0;
    int c = getopt_long(argc, argv, opts, longopts, NULL);
    if (c != ':' && c != '?')
        return c;
    const char *arg = optind > 0 && optind <= argc ? argv[optind - 1] : "";
    if (c == ':') {
        if (optopt && !(arg[0] == '-' && arg[1] == '-'))
            cli_usage_error(cmd, "-%c needs a value", optopt);
        else
            cli_usage_error(cmd, "%.*s needs a value", (int)strcspn(arg, "="), arg);
        return '?';
    }
    if (optopt && !(arg[0] == '-' && arg[1] == '-')) {
        cli_usage_error(cmd, "unknown option -%c", optopt);
        return '?';
    }
    size_t len = strcspn(arg + 2, "=");
    const char *meant = nearest(longopts, arg + 2, len);
    if (meant)
        cli_usage_error(cmd, "unknown option --%.*s (did you mean --%s?)", (int)len, arg + 2,
                        meant);
    else
        cli_usage_error(cmd, "unknown option --%.*s", (int)len, arg + 2);
    return '?';
}
