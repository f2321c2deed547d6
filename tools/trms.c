/* trms: the command-line entry point; dispatches to one subcommand. */
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/stop_signals.h"
#include "common/visible.h"
#include "recorder/valgrind_engine.h"
#include "tools/cli.h"
#include "tools/launcher.h"

static const struct command *const commands[] = {&cmd_record, &cmd_import, &cmd_analyze, &cmd_report,
                                                 &cmd_diff, &cmd_export, &cmd_info,
                                                 &cmd_control, &cmd_explore, &cmd_verify, &cmd_gc,
                                                 &cmd_pack, &cmd_unpack, &cmd_causal};
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

/* The stop signals the launcher blocked for us (tools/launcher.h): ours
 * to handle now; a signal that came meanwhile is delivered here. */
static void unblock_launched(void)
{
    const char *list = getenv(LAUNCHER_UNBLOCK_ENV);
    if (!list)
        return;
    sigset_t set;
    sigemptyset(&set);
    for (char *end; *list; list = *end ? end + 1 : end) {
        long sig = strtol(list, &end, 10);
        if (end == list)
            break;
        if (sig == SIGTERM || sig == SIGHUP || sig == SIGINT)
            sigaddset(&set, (int)sig);
    }
    unsetenv(LAUNCHER_UNBLOCK_ENV);  /* not the recorded program's */
    sigprocmask(SIG_UNBLOCK, &set, NULL);
}

int main(int argc, char **argv)
{
    /* Before anything else: a stop signal is a line on stderr and status
     * 1, never a death; record and analyze take over with their own
     * handling (stop_signals.h). */
    const struct command *named = NULL;
    for (size_t i = 0; argc > 1 && i < N_COMMANDS; i++)
        if (strcmp(commands[i]->name, argv[1]) == 0)
            named = commands[i];
    stop_signals_install_exiting(named ? named->name : "trms", named ? named->on_stop : NULL);
    unblock_launched();
    /* Nothing from a recording reaches a terminal raw (visible.h). */
    visible_std_streams();
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
