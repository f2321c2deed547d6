/* rr_engine: rr record as a recording engine (rr_engine.h). */
#include "recorder/rr_engine.h"

#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/oom.h"
#include "common/stop_signals.h"
#include "recorder/perf_counters.h"

extern char **environ;

char *rr_engine_version(void)
{
    FILE *p = popen("rr --version 2>/dev/null", "r");
    if (!p)
        return NULL;
    char line[128] = "";
    char *got = fgets(line, sizeof line, p);
    int status = pclose(p);
    if (!got || status != 0 || strncmp(line, "rr version ", 11) != 0)
        return NULL;
    line[strcspn(line, "\n")] = '\0';
    return xstrdup(line);
}

int rr_engine_available(char *why, size_t size)
{
    char *version = rr_engine_version();
    if (!version) {
        snprintf(why, size, "rr is not installed (Debian package rr)");
        return 0;
    }
    free(version);
    char counters[160];
    const char *assume = getenv("TRMS_RR_ASSUME_COUNTERS");
    if (assume && strcmp(assume, "1") == 0)
        return 1;
    if (!perf_counters_available(counters, sizeof counters)) {
        snprintf(why, size, "rr needs hardware performance counters, which this machine does "
                            "not have (%s)", counters);
        return 0;
    }
    return 1;
}

int rr_engine_record(const char *trace_dir, char *const argv[], int chaos,
                     struct program_outcome *outcome, struct trms_error *err)
{
    size_t n = 0;
    while (argv[n])
        n++;
    const char **args = xcalloc(n + 8, sizeof *args);
    size_t h = 0;
    args[h++] = "rr", args[h++] = "record", args[h++] = "-n";
    if (chaos)
        args[h++] = "--chaos";
    args[h++] = "-o", args[h++] = trace_dir, args[h++] = "--";
    memcpy(args + h, argv, n * sizeof *args);
    pid_t pid;
    int rc = posix_spawnp(&pid, "rr", NULL, NULL, (char *const *)args, environ);
    free(args);
    if (rc != 0)
        return error_set(err, "cannot run rr: %s", strerror(rc));
    /* ^C goes to the program (rr passes it on), not to us: the recording
     * is kept however the program ends. */
    struct sigaction ignore = {.sa_handler = SIG_IGN}, old_int;
    sigemptyset(&ignore.sa_mask);
    sigaction(SIGINT, NULL, &old_int);
    if (old_int.sa_handler == SIG_DFL)  /* a caller that handles it (stop_signals) knows */
        sigaction(SIGINT, &ignore, NULL);
    stop_signals_set_target(pid);  /* rr ends its recording on SIGTERM or SIGINT */
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    stop_signals_set_target(0);
    sigaction(SIGINT, &old_int, NULL);
    /* rr writes TRACE/incomplete as it starts and renames it TRACE/version
     * once the trace is whole; a trace left incomplete cannot be replayed. */
    char path[4096];
    struct stat st;
    snprintf(path, sizeof path, "%s/version", trace_dir);
    if (stat(path, &st) != 0) {
        snprintf(path, sizeof path, "%s/incomplete", trace_dir);
        if (stat(path, &st) == 0)
            return error_set(err, "rr record ended abnormally and its trace is incomplete");
        return error_set(err, "rr record did not record (see its message above)");
    }
    *outcome = (struct program_outcome){0};
    if (WIFSIGNALED(status))
        outcome->signal = WTERMSIG(status);
    else
        outcome->exit_code = WEXITSTATUS(status);
    return 0;
}
