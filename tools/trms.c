/* trms: the command-line entry point; dispatches to one subcommand. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recorder/valgrind_engine.h"
#include "tools/cli.h"

static const struct command *const commands[] = {&cmd_record, &cmd_import, &cmd_analyze, &cmd_report,
                                                 &cmd_diff, &cmd_export, &cmd_info,
                                                 &cmd_control, &cmd_explore, &cmd_verify, &cmd_gc,
                                                 &cmd_pack, &cmd_unpack};
#define N_COMMANDS (sizeof commands / sizeof *commands)

static void print_help(FILE *out)
{
    fprintf(out,
            "trms %s: record a program once, then analyze that exact execution:\n"
            "input-sensitive profiles (RMS, TRMS), thread-induced and external input,\n"
            "and exact reuse distances.\n\n"
            "usage: trms COMMAND [ARGS]\n\ncommands:\n",
            TRMS_VERSION);
    for (size_t i = 0; i < N_COMMANDS; i++)
        fprintf(out, "  %-9s %s\n", commands[i]->name, commands[i]->summary);
    fprintf(out, "\n`trms COMMAND --help` describes a command; `trms --version` prints the "
                 "version.\n");
}

/* The version, then where the Valgrind engine's tool is (found beside the
 * binary, in the build tree and once installed) and which valgrind runs it. */
static void print_version(void)
{
    printf("trms %s\n", TRMS_VERSION);
    struct trms_error err = {{0}};
    char *dir = valgrind_tool_dir(&err);
    char *valgrind = valgrind_version();
    char resolved[PATH_MAX];
    if (dir)
        printf("valgrind tool: %s (%s)\n", realpath(dir, resolved) ? resolved : dir,
               valgrind ? valgrind : "no valgrind to run it: install the Debian package valgrind");
    else
        printf("valgrind tool: none (%s)\n", err.message);
    free(dir);
    free(valgrind);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        print_help(stderr);
        return EXIT_USAGE;
    }
    const char *name = argv[1];
    if (cli_is_help(name) || strcmp(name, "help") == 0) {
        if (argc > 2 && strcmp(name, "help") == 0)
            name = argv[2];
        else {
            print_help(stdout);
            return 0;
        }
        for (size_t i = 0; i < N_COMMANDS; i++)
            if (strcmp(commands[i]->name, name) == 0) {
                fputs(commands[i]->usage, stdout);
                return 0;
            }
    }
    if (strcmp(name, "--version") == 0) {
        print_version();
        return 0;
    }
    for (size_t i = 0; i < N_COMMANDS; i++) {
        if (strcmp(commands[i]->name, name) != 0)
            continue;
        for (int a = 2; a < argc && strcmp(argv[a], "--") != 0; a++) {
            if (commands[i]->program_operand && argv[a][0] != '-')
                break;  /* `trms record prog --help` asks prog */
            if (cli_is_help(argv[a])) {
                fputs(commands[i]->usage, stdout);
                return 0;
            }
        }
        return commands[i]->run(argc - 1, argv + 1);
    }
    fprintf(stderr, "trms: unknown command '%s' (see `trms --help`)\n", name);
    return EXIT_USAGE;
}
