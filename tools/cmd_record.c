/* trms record: runs a program under a recording engine and keeps what it
 * did as a recording directory. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/oom.h"
#include "recorder/perf_counters.h"
#include "recorder/syscall_effects.h"
#include "recorder/valgrind_engine.h"
#include "symbols/memory_maps.h"
#include "symbols/resolve_routines.h"
#include "symbols/routine_resolver.h"
#include "symbols/symbolizer.h"
#include "tools/cli.h"
#include "tools/record_progress.h"
#include "trace/recording.h"
#include "trace/trace_writer.h"

#define EXIT_NOT_FOUND 127
#define EXIT_NOT_EXECUTABLE 126

struct record {
    struct trace_writer *writer;
    struct routine_table routines;
    struct memory_maps maps;        /* every file mapping seen, for names */
    struct symbolizer *symbols;     /* the live ones, for PLTs and entries */
    struct routine_resolver *resolver;  /* names routines meanwhile, or NULL */
    size_t routines_queued;         /* to the resolver */
    const char *tool_dir;
    const char *valgrind_version;   /* "valgrind-3.19.0" */
};

/* Routines appear as calls are tracked, each after a classification. */
static void queue_new_routines(struct record *r)
{
    for (; r->routines_queued < r->routines.count; r->routines_queued++) {
        const struct routine *routine = &r->routines.items[r->routines_queued];
        if (!routine->name && routine->addr)
            routine_resolver_routine(r->resolver, routine->addr);
    }
}

static void classify(void *ctx, uint64_t addr, struct code_class *out)
{
    struct record *r = ctx;
    if (r->resolver && r->routines_queued < r->routines.count)
        queue_new_routines(r);
    struct symbol_info info;
    symbolizer_classify(r->symbols, addr, &info);  /* PLT stubs have no name */
    out->is_plt = info.is_plt;
    out->is_function_entry = info.name && info.entry == addr;
}

static int add_mapping(void *ctx, const struct raw_mapping *m, struct trms_error *err)
{
    struct record *r = ctx;
    /* All of them, Valgrind's preload library and trampoline page too:
     * the program's threads run code there. */
    struct map_entry e = {.start = m->start, .end = m->start + m->length, .offset = m->offset,
                          .prot = m->prot, .path = (char *)m->path};
    if (memory_maps_add(&r->maps, &e) != 0)
        return error_set(err, "cannot keep the mapping of %s", m->path);
    /* Code only; a file without symbols just leaves its routines unnamed. */
    if (e.prot & MAPS_PROT_X)
        symbolizer_add_map(r->symbols, &e);
    if (r->resolver)
        routine_resolver_map(r->resolver, &e);
    return 0;
}

static void remove_mapping(void *ctx, uint64_t start, uint64_t length)
{
    struct record *r = ctx;
    /* The maps file keeps it: its routines still need names. */
    symbolizer_remove_range(r->symbols, start, start + length);
}

/* The program as execvp would find it: PATH search when NAME has no '/'. */
static char *find_program(const char *name, int *status)
{
    *status = EXIT_NOT_FOUND;
    if (strchr(name, '/')) {
        if (access(name, F_OK) != 0)
            return NULL;
        *status = EXIT_NOT_EXECUTABLE;
        struct stat st;
        if (access(name, X_OK) != 0 || stat(name, &st) != 0 || !S_ISREG(st.st_mode))
            return NULL;
        return realpath(name, NULL);
    }
    const char *path = getenv("PATH");
    if (!path)
        path = "/usr/local/bin:/usr/bin:/bin";
    while (*path) {
        size_t len = strcspn(path, ":");
        char candidate[PATH_MAX];
        snprintf(candidate, sizeof candidate, "%.*s/%s", (int)len, len ? path : ".", name);
        struct stat st;
        if (stat(candidate, &st) == 0 && S_ISREG(st.st_mode)) {
            if (access(candidate, X_OK) == 0)
                return realpath(candidate, NULL);
            *status = EXIT_NOT_EXECUTABLE;
        }
        path += len + (path[len] == ':');
    }
    return NULL;
}

/* PROG.rec, or PROG.2.rec and so on when taken. */
static char *default_output(const char *program)
{
    const char *base = strrchr(program, '/') ? strrchr(program, '/') + 1 : program;
    size_t size = strlen(base) + 32;
    char *out = xmalloc(size);
    for (unsigned n = 1;; n++) {
        if (n == 1)
            snprintf(out, size, "%s.rec", base);
        else
            snprintf(out, size, "%s.%u.rec", base, n);
        if (access(out, F_OK) != 0)
            return out;
    }
}

/* The command line as a shell would need it typed. */
static char *quoted_command(char *const *argv)
{
    size_t size = 1;
    for (char *const *a = argv; *a; a++)
        size += 4 * strlen(*a) + 3;
    char *out = xmalloc(size), *p = out;
    for (char *const *a = argv; *a; a++) {
        if (a != argv)
            *p++ = ' ';
        int plain = **a && strspn(*a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                       "0123456789-_./=:,+@%") == strlen(*a);
        if (plain) {
            p = stpcpy(p, *a);
            continue;
        }
        *p++ = '\'';
        for (const char *c = *a; *c; c++)
            p = *c == '\'' ? stpcpy(p, "'\\''") : (*p = *c, p + 1);
        *p++ = '\'';
    }
    *p = '\0';
    return out;
}

static void describe_outcome(const struct program_outcome *o, char *buf, size_t size)
{
    if (o->signal)
        snprintf(buf, size, "killed by signal %d (%s)", o->signal, strsignal(o->signal));
    else
        snprintf(buf, size, "exited with status %d", o->exit_code);
}

/* "16 (ioctl) x2, 999 x1" for the meta and the warning. */
struct unmodeled_list {
    char *text;
    size_t used, size;
    uint64_t total;
};

static int describe_one(void *ctx, uint64_t nr, uint64_t calls)
{
    struct unmodeled_list *l = ctx;
    const char *name = syscall_name(nr);
    l->used += (size_t)snprintf(l->text + l->used, l->size - l->used,
                                "%s%" PRIu64 "%s%s%s x%" PRIu64, l->used ? ", " : "", nr,
                                name ? " (" : "", name ? name : "", name ? ")" : "", calls);
    l->total += calls;
    return 0;
}

static char *describe_unmodeled(const struct raw_summary *s, uint64_t *total)
{
    struct unmodeled_list l = {.size = 1 + s->unmodeled_syscalls.count * 64};
    l.text = xmalloc(l.size);
    l.text[0] = '\0';
    u64map_each(&s->unmodeled_syscalls, describe_one, &l);
    *total = l.total;
    return l.text;
}

static int write_meta(const char *staging, const char *program, char *const *argv,
                      const char *version, const struct raw_summary *s,
                      const struct program_outcome *o, size_t routines, struct trms_error *err)
{
    char created[32], events[32], threads[32], how[96], tails[32], unwound[32],
        routine_count[32], unmodeled_total[32];
    time_t now = time(NULL);
    strftime(created, sizeof created, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    uint64_t total_events = 0, unmodeled;
    for (int t = 0; t < EVENT_TYPE_COUNT; t++)
        total_events += s->events[t];
    snprintf(events, sizeof events, "%" PRIu64, total_events);
    snprintf(threads, sizeof threads, "%" PRIu64, s->threads);
    snprintf(routine_count, sizeof routine_count, "%zu", routines);
    snprintf(tails, sizeof tails, "%" PRIu64, s->tail_calls);
    snprintf(unwound, sizeof unwound, "%" PRIu64, s->unwound_frames);
    describe_outcome(o, how, sizeof how);
    char *command = quoted_command(argv);
    char *unmodeled_list = describe_unmodeled(s, &unmodeled);
    snprintf(unmodeled_total, sizeof unmodeled_total, "%" PRIu64, unmodeled);
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd))
        strcpy(cwd, "?");
    const char *keys[] = {"engine", "engine-version", "program", "command", "cwd", "created",
                          "trms-version", "outcome", "complete", "events", "threads",
                          "routines", "tail-calls", "unwound-frames", "unmodeled-syscalls",
                          "unmodeled-syscall-list", "exec"};
    const char *values[] = {"valgrind", version, program, command, cwd,
                            created, TRMS_VERSION, how, s->ended ? "yes" : "no", events,
                            threads, routine_count, tails, unwound, unmodeled_total,
                            unmodeled_list[0] ? unmodeled_list : "-",
                            s->exec_path ? s->exec_path : "-"};
    int rc = recording_write_meta(staging, keys, values, sizeof keys / sizeof *keys, err);
    free(command);
    free(unmodeled_list);
    return rc;
}

/* The first line Valgrind logged, for when it could not even start. */
static void first_log_line(const char *log_path, char *buf, size_t size)
{
    buf[0] = '\0';
    FILE *f = fopen(log_path, "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        char *text = line + strspn(line, "=0123456789 ");
        text[strcspn(text, "\n")] = '\0';
        if (*text) {
            snprintf(buf, size, "%s", text);
            break;
        }
    }
    fclose(f);
}

static int record_into(const char *staging, const char *program, char **argv,
                       struct record *r, struct raw_summary *summary,
                       struct program_outcome *outcome, struct trms_error *err)
{
    char *events_path = recording_file(staging, RECORDING_EVENTS);
    char *log_path = recording_file(staging, "valgrind.log");
    r->writer = trace_writer_create(events_path, err);
    free(events_path);
    int rc = r->writer ? 0 : -1;
    if (rc == 0) {
        char *run_argv0 = argv[0];
        argv[0] = (char *)program;
        struct valgrind_run run = {.tool_dir = r->tool_dir, .log_path = log_path, .argv = argv};
        struct raw_decoder_callbacks cb = {.classify = classify,
                                           .map = add_mapping, .unmap = remove_mapping,
                                           .ctx = r};
        char *watched = recording_file(staging, RECORDING_EVENTS);
        struct record_progress *progress = record_progress_start(watched);
        rc = valgrind_record(&run, r->writer, &r->routines, &cb, summary, outcome, err);
        record_progress_finish(progress);
        free(watched);
        argv[0] = run_argv0;
        if (rc != 0 && summary->words == 0) {
            char line[400];
            first_log_line(log_path, line, sizeof line);
            if (line[0])
                error_set(err, "valgrind could not run the program: %s", line);
        }
    }
    free(log_path);
    if (rc == 0) {
        rc = trace_writer_close(r->writer, &r->routines, err);
        r->writer = NULL;
    }
    if (rc != 0)
        return -1;
    memory_maps_fill_build_ids(&r->maps);
    char *maps_path = recording_file(staging, MAPS_FILE);
    rc = memory_maps_write(&r->maps, maps_path, err);
    free(maps_path);
    if (rc == 0)
        rc = write_meta(staging, program, argv, r->valgrind_version, summary, outcome,
                        r->routines.count, err);
    /* Named by the resolver's symbolizer when there is one: it followed
     * every mapping and looked most routines up already. */
    struct symbolizer *warm = r->resolver ? routine_resolver_finish(r->resolver) : NULL;
    r->resolver = NULL;
    if (rc == 0 && symbols_resolve_routines_with(warm ? warm : r->symbols, staging, &r->maps,
                                                 &r->routines, err) != 0) {
        /* Names are a convenience: the recording stands without them. */
        fprintf(stderr, "trms: warning: routine names not resolved: %s\n", err->message);
    }
    symbolizer_free(warm);
    return rc;
}

static int choose_engine(const char *engine)
{
    if (strcmp(engine, "valgrind") == 0)
        return 0;
    if (strcmp(engine, "auto") != 0)
        return -1;
    char why[160];
    if (perf_counters_available(why, sizeof why))
        fprintf(stderr, "trms: engine auto: the rr engine is not built yet; recording with "
                        "Valgrind\n");
    else
        fprintf(stderr, "trms: engine auto: no hardware performance counters for rr (%s); "
                        "recording with Valgrind\n", why);
    return 0;
}

static int run(int argc, char **argv)
{
    static const struct option options[] = {{"output", required_argument, NULL, 'o'},
                                            {"engine", required_argument, NULL, 'e'},
                                            {NULL, 0, NULL, 0}};
    const char *output = NULL, *engine = "auto";
    int c;
    /* '+': options end at the program's name, so its own options pass through. */
    while ((c = getopt_long(argc, argv, "+o:e:", options, NULL)) != -1) {
        if (c == 'o')
            output = optarg;
        else if (c == 'e')
            engine = optarg;
        else
            return cli_usage_error(&cmd_record, "unknown option");
    }
    if (optind >= argc)
        return cli_usage_error(&cmd_record, "expects the program to record: -- PROG ARGS...");
    if (strcmp(engine, "auto") != 0 && strcmp(engine, "valgrind") != 0)
        return cli_usage_error(&cmd_record, "unknown engine '%s' (auto or valgrind)", engine);
    char **prog_argv = argv + optind;

    int not_found_status;
    char *program = find_program(prog_argv[0], &not_found_status);
    if (!program) {
        fprintf(stderr, "trms: record: %s: %s\n", prog_argv[0],
                not_found_status == EXIT_NOT_FOUND ? "no such program"
                                                   : "not an executable file");
        return not_found_status;
    }
    struct trms_error err;
    /* Asked once: each `valgrind --version` takes a shell and two execs. */
    char *version = valgrind_version();
    if (!version) {
        free(program);
        error_set(&err, "valgrind is not installed (Debian package valgrind; "
                        "tools/install-deps.sh installs it)");
        return cli_fail(&err);
    }
    char *tool_dir = valgrind_tool_dir(&err);
    if (!tool_dir) {
        free(version);
        free(program);
        return cli_fail(&err);
    }
    choose_engine(engine);
    char *default_path = output ? NULL : default_output(program);
    if (!output)
        output = default_path;

    char *staging = NULL;
    struct record r = {.tool_dir = tool_dir, .valgrind_version = version};
    routine_table_init(&r.routines);
    memory_maps_init(&r.maps);
    r.symbols = symbolizer_new();
    r.resolver = routine_resolver_start();
    struct raw_summary summary = {0};
    struct program_outcome outcome = {0};
    int rc = recording_stage(output, &staging, &err);
    if (rc == 0) {
        rc = record_into(staging, program, prog_argv, &r, &summary, &outcome, &err);
        if (rc != 0)
            trace_writer_abandon(r.writer);
    }
    if (rc == 0)
        rc = recording_commit(staging, output, &err);
    if (rc != 0 && staging)
        recording_discard(staging);

    int status = rc != 0 ? EXIT_FAILED
                 : outcome.signal ? 128 + outcome.signal
                                  : outcome.exit_code;
    if (rc != 0) {
        cli_fail(&err);
    } else {
        char how[96];
        describe_outcome(&outcome, how, sizeof how);
        uint64_t total = 0, unmodeled;
        for (int t = 0; t < EVENT_TYPE_COUNT; t++)
            total += summary.events[t];
        free(describe_unmodeled(&summary, &unmodeled));
        if (unmodeled)
            fprintf(stderr, "trms: %" PRIu64 " system calls outside the syscall table; their "
                            "memory effects came from Valgrind (see `unmodeled-syscall-list` "
                            "in %s/meta)\n", unmodeled, output);
        if (summary.exec_path)
            fprintf(stderr, "trms: %s exec'd %s, where Valgrind cannot follow: the recording "
                            "ends at the exec (record %s itself to see it)\n",
                    prog_argv[0], summary.exec_path, summary.exec_path);
        fprintf(stderr, "trms: %s %s%s; recorded %" PRIu64 " events, %" PRIu64
                        " threads, %zu routines into %s\n",
                prog_argv[0], how,
                summary.ended || summary.exec_path ? "" : " (recording stops where it died)",
                total, summary.threads, r.routines.count, output);
    }
    raw_summary_free(&summary);
    if (r.resolver)  /* the recording failed before naming */
        symbolizer_free(routine_resolver_finish(r.resolver));
    symbolizer_free(r.symbols);
    memory_maps_free(&r.maps);
    routine_table_free(&r.routines);
    free(staging);
    free(default_path);
    free(tool_dir);
    free(version);
    free(program);
    return status;
}

const struct command cmd_record = {
    .name = "record",
    .summary = "run a program and record what it does",
    .usage =
        "usage: trms record [--engine auto|valgrind] [-o REC] [--] PROG [ARGS...]\n\n"
        "Runs PROG with its arguments, keeping its stdin, stdout and stderr, and\n"
        "records every routine call and return, load, store, kernel read and write\n"
        "of user memory, and instruction count, thread by thread, into the\n"
        "recording directory REC (default: PROG.rec, or PROG.N.rec when taken).\n"
        "Then `trms analyze REC` and `trms report REC`.\n\n"
        "The exit status is the program's (128 + N when signal N killed it); a\n"
        "program that crashes still leaves a recording up to the crash. A program\n"
        "that cannot be found exits 127 and one that cannot be run 126, recording\n"
        "nothing.\n\n"
        "options:\n"
        "  -e, --engine E    auto (default) or valgrind. auto would choose rr where\n"
        "                    hardware performance counters work; the rr engine is not\n"
        "                    built yet, so auto records with Valgrind and says why\n"
        "  -o, --output REC  the recording directory to create; must not exist\n",
    .run = run,
    .program_operand = 1,
};
