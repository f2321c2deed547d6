/* trms control: turns the collection of a running `trms record` on or off
 * (callgrind_control -i on|off), talking only to that recorder
 * (record_control.h). */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/oom.h"
#include "common/parse_number.h"
#include "tools/cli.h"
#include "tools/record_control.h"
#include "trace/recording.h"
#include "trace/staging.h"

/* Asks the recorder of the recording REC: the one whose staging directory
 * beside REC has a socket it listens on. 0, or -1 with ERR. */
static int ask_recording(const char *rec, int on, struct trms_error *err)
{
    char *dir = staging_parent_dir(rec);
    const char *slash = strrchr(rec, '/');
    const char *base = slash ? slash + 1 : rec;
    size_t prefix_len = strlen(base) + 10;
    char *prefix = xmalloc(prefix_len + 1);
    snprintf(prefix, prefix_len + 1, ".%s.staging-", base);
    DIR *d = opendir(dir);
    char *found = NULL;
    int listening = 0;
    for (struct dirent *e; d && (e = readdir(d));) {
        if (strncmp(e->d_name, prefix, strlen(prefix)) != 0 || !staging_is_name(e->d_name))
            continue;
        char *staging = recording_file(dir, e->d_name);
        if (record_control_listening(staging)) {
            listening++;
            free(found);
            found = staging;
        } else {
            free(staging);
        }
    }
    if (d)
        closedir(d);
    free(prefix);
    free(dir);
    int rc;
    if (listening > 1)
        rc = error_set(err, "%s: several recordings of it are running; give the process id", rec);
    else if (listening == 0)
        rc = error_set(err, "%s: no `trms record -o %s` is running", rec, rec);
    else if ((rc = record_control_send(found, on, err)) == 1)
        rc = error_set(err, "%s: its recorder ended meanwhile", rec);
    free(found);
    return rc;
}

/* Whether PATH is the same file as this process's binary. */
static int same_binary(const char *path)
{
    struct stat a, b;
    return stat(path, &a) == 0 && stat("/proc/self/exe", &b) == 0 && a.st_dev == b.st_dev &&
           a.st_ino == b.st_ino;
}

/* Whether process PID runs `trms record`: this trms binary, asked to
 * record (its command line's first argument). */
static int is_recorder(long pid)
{
    char path[64], cmdline[256];
    snprintf(path, sizeof path, "/proc/%ld/exe", pid);
    if (!same_binary(path))
        return 0;
    snprintf(path, sizeof path, "/proc/%ld/cmdline", pid);
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(cmdline, 1, sizeof cmdline - 1, f) : 0;
    if (f)
        fclose(f);
    cmdline[n] = '\0';
    const char *first = memchr(cmdline, '\0', n);  /* argv[1] follows argv[0] */
    return first && (size_t)(first + 1 - cmdline) < n && strcmp(first + 1, "record") == 0;
}

/* Asks the recorder PID through its socket, found in the staging
 * directory it holds open (staging_lock). */
static int ask_process(long pid, int on, struct trms_error *err)
{
    if (!is_recorder(pid))
        return error_set(err, "process %ld is not a running `trms record`", pid);
    char fds[64];
    snprintf(fds, sizeof fds, "/proc/%ld/fd", pid);
    DIR *d = opendir(fds);
    if (!d)
        return error_set(err, "process %ld: %s", pid, strerror(errno));
    int rc = 1;
    for (struct dirent *e; rc == 1 && (e = readdir(d));) {
        char link[sizeof fds + sizeof e->d_name + 1], target[PATH_MAX];
        snprintf(link, sizeof link, "%s/%s", fds, e->d_name);
        ssize_t n = readlink(link, target, sizeof target - 1);
        if (n <= 0)
            continue;
        target[n] = '\0';
        const char *base = strrchr(target, '/');
        if (target[0] == '/' && base && staging_is_name(base + 1))
            rc = record_control_send(target, on, err);
    }
    closedir(d);
    if (rc == 1)
        return error_set(err, "process %ld records without taking `trms control` (only "
                              "--engine valgrind does)", pid);
    return rc;
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
    int rc;
    if (parse_u64_cstr(argv[1], &number) == PARSE_NUMBER_OK && number > 0 && number < 1u << 30)
        rc = ask_process((long)number, on, &err);
    else
        rc = ask_recording(argv[1], on, &err);
    if (rc != 0)
        return cli_fail(&err);
    fprintf(stderr, "trms: collection %s in the recording of %s from the program's next basic "
                    "block\n", on ? "on" : "off", argv[1]);
    return 0;
}

const struct command cmd_control = {
    .name = "control",
    .summary = "turn a running recording's collection on or off",
    .usage =
        "usage: trms control REC|PID on|off\n\n"
        "Asks the running `trms record -o REC` (or the `trms record` whose process\n"
        "id is PID) to start or stop keeping events: `trms record\n"
        "--collect-at-start=no` starts with collection off. What is left out while\n"
        "it is off is counted in the recording's meta and said by the reports.\n"
        "It talks to the recorder through a socket in its staging directory, and\n"
        "to nothing else. The recorder also takes SIGUSR1 (on) and SIGUSR2 (off).\n"
        "It takes effect where the recorder next reads the program's stream\n"
        "(within a few hundred thousand events of a running program).\n",
    .run = run,
};
