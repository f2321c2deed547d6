/* trms control: turns the collection of a running `trms record` on or off
 * (callgrind_control -i on|off). */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/oom.h"
#include "common/parse_number.h"
#include "tools/cli.h"
#include "tools/record_control.h"
#include "trace/recording.h"

/* The process id in the staging directory of the recording REC, 0 when
 * none is running (several: the error says so). */
static long recorder_of(const char *rec, struct trms_error *err)
{
    const char *slash = strrchr(rec, '/');
    size_t dir_len = slash ? (size_t)(slash - rec) + 1 : 0;
    const char *base = slash ? slash + 1 : rec;
    char dir[4096];
    snprintf(dir, sizeof dir, "%.*s", dir_len ? (int)dir_len : 1, dir_len ? rec : ".");
    size_t prefix_len = strlen(base) + 10;
    char *prefix = xmalloc(prefix_len + 1);
    snprintf(prefix, prefix_len + 1, ".%s.staging-", base);
    DIR *d = opendir(dir);
    long found = 0;
    int many = 0;
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (strncmp(e->d_name, prefix, strlen(prefix)) != 0)
            continue;
        char path[8192];
        snprintf(path, sizeof path, "%.*s%s/" RECORD_CONTROL_PID_FILE, (int)dir_len, rec,
                 e->d_name);
        FILE *f = fopen(path, "r");
        long pid = 0;
        if (f && fscanf(f, "%ld", &pid) == 1 && pid > 0) {
            many += found != 0;
            found = pid;
        }
        if (f)
            fclose(f);
    }
    if (d)
        closedir(d);
    free(prefix);
    if (many)
        return error_set(err, "%s: several recordings of it are running; give the process id",
                         rec);
    if (!found)
        return error_set(err, "%s: no `trms record -o %s` is running", rec, rec);
    return found;
}

/* Signals only a trms: another process could die of SIGUSR1. */
static int is_trms(long pid)
{
    char path[64], comm[64] = "";
    snprintf(path, sizeof path, "/proc/%ld/comm", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    int ok = fgets(comm, sizeof comm, f) != NULL && strcmp(comm, "trms\n") == 0;
    fclose(f);
    return ok;
}

static int run(int argc, char **argv)
{
    if (argc != 3)
        return cli_usage_error(&cmd_control, "expects a recording (or a process id) and on or "
                                             "off");
    int on = strcmp(argv[2], "on") == 0;
    if (!on && strcmp(argv[2], "off") != 0)
        return cli_usage_error(&cmd_control, "on or off, not '%s'", argv[2]);
    struct trms_error err;
    uint64_t number;
    long pid;
    if (parse_u64_cstr(argv[1], &number) == PARSE_NUMBER_OK && number > 0 && number < 1u << 30)
        pid = (long)number;
    else if ((pid = recorder_of(argv[1], &err)) < 0)
        return cli_fail(&err);
    if (!is_trms(pid)) {
        error_set(&err, "process %ld is not a running trms", pid);
        return cli_fail(&err);
    }
    if (kill((pid_t)pid, on ? RECORD_CONTROL_ON_SIGNAL : RECORD_CONTROL_OFF_SIGNAL) != 0) {
        error_set(&err, "process %ld: %s", pid, strerror(errno));
        return cli_fail(&err);
    }
    fprintf(stderr, "trms: collection %s asked of process %ld\n", on ? "on" : "off", pid);
    return 0;
}

const struct command cmd_control = {
    .name = "control",
    .summary = "turn a running recording's collection on or off",
    .usage =
        "usage: trms control REC|PID on|off\n\n"
        "Asks the running `trms record -o REC` (or the trms process PID) to start\n"
        "or stop keeping events: `trms record --collect-at-start=no` starts with\n"
        "collection off. What is left out while it is off is counted in the\n"
        "recording's meta and said by the reports. The same as sending the\n"
        "recorder SIGUSR1 (on) or SIGUSR2 (off). It takes effect where the\n"
        "recorder next reads the program's stream (within a few hundred\n"
        "thousand events of a running program).\n",
    .run = run,
};
