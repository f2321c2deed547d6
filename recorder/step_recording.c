/* step_recording: the step engine through the decoder into a recording
 * (step_recording.h). */
#include "recorder/step_recording.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "recorder/syscall_blocking.h"
#include "recorder/syscall_effects.h"
#include "common/oom.h"
#include "replayer/code_symbols.h"
#include "replayer/rr_dump_writer.h"
#include "store/symbol_store.h"
#include "symbols/proc_maps.h"
#include "symbols/resolve_routines.h"

enum { NR_MMAP = 9, NR_MPROTECT = 10, NR_MUNMAP = 11, NR_MREMAP = 25, NR_EXECVE = 59,
       NR_EXECVEAT = 322, NR_PKEY_MPROTECT = 329 };

struct capture {
    FILE *raw, *dump;
};

/* The mapping holding a thread's stack, for PCT's count of the
 * instructions that touch memory other threads can share. */
struct stack_mapping {
    uint32_t tid;
    uint64_t start, end;
};

struct step_run {
    const struct step_recording_config *c;
    struct rerun_decoder *decoder;
    pid_t pid;                      /* the recorded process */
    struct memory_maps current;     /* its file mappings now */
    struct capture capture;
    size_t named;                   /* routines named so far */
    struct symbol_names names;      /* theirs */
    unsigned programs;              /* execs of the recorded process seen */
    struct trms_error *err;
    /* PCT: the instruction being decoded, and the count of the events
     * that can matter (step_recording.h). */
    uint32_t record_tid;
    uint64_t record_sp;
    int touched_shared;
    uint64_t events_that_matter;
    struct stack_mapping *stacks;
    size_t n_stacks;
    struct data_objects watched;    /* with watch_objects: the variables that count */
};

/* ---- what the decoder reads from the live process ---- */

static size_t read_code(void *ctx, uint64_t addr, uint8_t *buf, size_t size)
{
    struct step_run *s = ctx;
    size_t got = 0;
    /* byte by byte at the end of what is readable: code may end a page
     * before an unmapped one */
    if (step_read_memory(s->pid, addr, buf, size) == 0)
        return size;
    while (got < size && step_read_memory(s->pid, addr + got, buf + got, 1) == 0)
        got++;
    return got;
}

static int read_memory(void *ctx, uint64_t addr, void *buf, uint64_t size)
{
    struct step_run *s = ctx;
    return step_read_memory(s->pid, addr, buf, size);
}

static void classify(void *ctx, uint64_t addr, struct code_class *out)
{
    struct step_run *s = ctx;
    code_symbols_classify(s->c->symbols, addr, out);
}

static uint64_t function_of(void *ctx, uint64_t addr)
{
    struct step_run *s = ctx;
    return code_symbols_function_of(s->c->symbols, addr);
}

/* The mapping of PID that holds ADDR (anonymous ones too): 0 with
 * [*START, *END), or -1. */
static int mapping_of(pid_t pid, uint64_t addr, uint64_t *start, uint64_t *end)
{
    char path[64], line[512];
    snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    int found = -1;
    unsigned long long lo, hi;
    while (found != 0 && fgets(line, sizeof line, f)) {
        if (sscanf(line, "%llx-%llx", &lo, &hi) == 2 && addr >= lo && addr < hi) {
            *start = lo;
            *end = hi;
            found = 0;
        }
    }
    fclose(f);
    return found;
}

/* Whether ADDR is in the stack of the thread whose instruction is being
 * decoded: its mapping is looked up once, and again when the stack
 * pointer leaves it (a signal stack, a coroutine). */
static int on_own_stack(struct step_run *s, uint64_t addr)
{
    struct stack_mapping *t = NULL;
    for (size_t i = 0; i < s->n_stacks && !t; i++)
        if (s->stacks[i].tid == s->record_tid)
            t = &s->stacks[i];
    if (!t) {
        s->stacks = xrealloc(s->stacks, (s->n_stacks + 1) * sizeof *s->stacks);
        t = &s->stacks[s->n_stacks++];
        *t = (struct stack_mapping){.tid = s->record_tid};
    }
    if (s->record_sp < t->start || s->record_sp >= t->end) {
        /* Below the stack pointer: the red zone, or the page it grows into. */
        if (mapping_of(s->pid, s->record_sp, &t->start, &t->end) != 0)
            t->start = t->end = 0;
    }
    return addr >= t->start && addr < t->end;
}

static int touches_watched(const struct step_run *s, const struct event *ev)
{
    size_t i = data_objects_first_after(&s->watched, ev->addr);
    if (i == s->watched.count)
        return 0;
    const struct data_object *o = &s->watched.items[i];
    return (o->start <= ev->addr || o->start - ev->addr < ev->size);
}

static int sink(void *ctx, const struct event *ev, struct trms_error *err)
{
    struct step_run *s = ctx;
    if ((ev->type == EVENT_READ || ev->type == EVENT_WRITE) && !s->touched_shared)
        s->touched_shared = s->c->watch_objects ? touches_watched(s, ev)
                                                : !on_own_stack(s, ev->addr);
    return trace_writer_event(s->c->writer, ev, s->c->routines, err);
}

static uint64_t events_that_matter(void *ctx)
{
    const struct step_run *s = ctx;
    return s->events_that_matter;
}

/* Waits, wakes and calls that may block, threads made and gone: the
 * system calls that other threads can see happen before or after theirs
 * (mmap or getpid cannot be told apart from a reordering). */
static int synchronizes(const struct step_frame *f)
{
    enum { NR_SCHED_YIELD = 24, NR_CLONE = 56, NR_EXIT = 60, NR_EXIT_GROUP = 231,
           NR_CLONE3 = 435 };
    return syscall_blocking(f->nr, f->args) != SYSCALL_RETURNS || f->nr == NR_CLONE ||
           f->nr == NR_CLONE3 || f->nr == NR_EXIT || f->nr == NR_EXIT_GROUP ||
           f->nr == NR_SCHED_YIELD;
}

/* ---- mappings ---- */

static int same_entry(const struct map_entry *a, const struct map_entry *b)
{
    return a->start == b->start && a->end == b->end && a->offset == b->offset &&
           a->prot == b->prot && strcmp(a->path, b->path) == 0;
}

static const char *prot_text(unsigned prot, char buf[5])
{
    buf[0] = prot & MAPS_PROT_R ? 'r' : '-';
    buf[1] = prot & MAPS_PROT_W ? 'w' : '-';
    buf[2] = prot & MAPS_PROT_X ? 'x' : '-';
    buf[3] = 'p';
    buf[4] = '\0';
    return buf;
}

static uint64_t file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
}

/* The recorded process's mappings changed (or, with EXEC, were all
 * replaced): the symbols follow, the recording's list keeps every one
 * seen, and the capture shows the new ones in this frame. */
static int follow_mappings(struct step_run *s, int exec)
{
    struct memory_maps now;
    memory_maps_init(&now);
    if (proc_maps_read(s->pid, &now, s->err) != 0) {
        memory_maps_free(&now);
        return -1;
    }
    struct symbolizer *symbols = s->c->symbols;
    for (size_t i = 0; i < s->current.count; i++) {
        const struct map_entry *old = &s->current.items[i];
        const struct map_entry *kept = exec ? NULL : memory_maps_find(&now, old->start);
        if (!kept || !same_entry(kept, old))
            symbolizer_remove_range(symbols, old->start, old->end);
    }
    for (size_t i = 0; i < now.count; i++) {
        const struct map_entry *e = &now.items[i];
        const struct map_entry *was = exec ? NULL : memory_maps_find(&s->current, e->start);
        if (was && same_entry(was, e))
            continue;
        memory_maps_add(s->c->maps, e);
        if (e->prot & MAPS_PROT_X)
            symbolizer_add_map(symbols, e);
        if (s->capture.dump) {
            char prot[5];
            rr_dump_write_mapping(s->capture.dump, e->path, e->start, e->end - e->start,
                                  prot_text(e->prot, prot), e->offset, e->path, e->offset,
                                  file_size(e->path));
        }
    }
    memory_maps_free(&s->current);
    s->current = now;
    return 0;
}

/* The recorded process exec'd another program: the old one's routines are
 * named before its symbols go, the new one's kept apart. */
static int new_program(struct step_run *s, struct trms_error *err)
{
    (void)err;
    if (s->programs++ == 0)
        return 0;  /* the program trms started */
    symbols_name_routines_since(s->c->symbols, s->c->routines, &s->named, &s->names);
    routine_table_tag_addresses(s->c->routines, (uint64_t)(s->programs - 1) << 56);
    return 0;
}

/* The recorded program started (or exec'd another): the variables PCT
 * watches are its own. */
static int watch_program(struct step_run *s, struct trms_error *err)
{
    data_objects_free(&s->watched);
    char exe[64], path[4096];
    snprintf(exe, sizeof exe, "/proc/%d/exe", (int)s->pid);
    ssize_t len = readlink(exe, path, sizeof path - 1);
    if (len <= 0)
        return error_set(err, "%s: %s", exe, strerror(errno));
    path[len] = '\0';
    data_objects_from_maps(&s->watched, &s->current, path);
    const char *unmatched = data_objects_select(&s->watched, s->c->watch, s->c->n_watch);
    if (unmatched && s->programs == 1)
        return error_set(err, "no variable of %s matches '%s'", path, unmatched);
    return 0;
}

static int changes_mappings(uint64_t nr)
{
    return nr == NR_MMAP || nr == NR_MUNMAP || nr == NR_MPROTECT || nr == NR_MREMAP ||
           nr == NR_PKEY_MPROTECT;
}

/* ---- the capture: rr's view of the run ---- */

struct write_capture {
    struct step_run *run;
    uint32_t tid;
};

static void capture_write(void *ctx, enum syscall_access kind, uint64_t addr, uint64_t size)
{
    struct write_capture *w = ctx;
    if (kind == SYSCALL_KWRITE && size > 0)
        rr_dump_write_memory(w->run->capture.dump, w->tid, addr, size);
}

static int capture_read(void *ctx, uint64_t addr, void *buf, uint64_t size)
{
    struct write_capture *w = ctx;
    return step_read_memory(w->run->pid, addr, buf, size);
}

static void capture_frame_start(struct step_run *s, const struct step_frame *f)
{
    FILE *out = s->capture.dump;
    const char *state = NULL;
    char event[64];
    const char *name = syscall_name(f->nr);
    switch (f->kind) {
    case STEP_FRAME_SYSCALL_ENTRY:
    case STEP_FRAME_SYSCALL_EXIT:
    case STEP_FRAME_EXEC:
        if (name)
            snprintf(event, sizeof event, "SYSCALL: %s", name);
        else
            snprintf(event, sizeof event, "SYSCALL: <unknown-syscall-%llu>",
                     (unsigned long long)f->nr);
        state = f->kind == STEP_FRAME_SYSCALL_ENTRY ? "ENTERING_SYSCALL" : "EXITING_SYSCALL";
        break;
    case STEP_FRAME_SCHED:
        snprintf(event, sizeof event, "SCHED");
        break;
    case STEP_FRAME_SIGNAL:
        snprintf(event, sizeof event, "SIGNAL_DELIVERY: %d", f->signal);
        break;
    case STEP_FRAME_EXIT:
        snprintf(event, sizeof event, "EXIT");
        break;
    }
    rr_dump_write_frame(out, f->time, event, state, (uint32_t)f->tid, 0);
    if (f->regs)
        rr_dump_write_registers(out, f->regs, f->kind == STEP_FRAME_SYSCALL_ENTRY ||
                                                      f->kind == STEP_FRAME_SYSCALL_EXIT
                                                  ? f->nr
                                                  : UINT64_MAX);
    if (f->kind == STEP_FRAME_SYSCALL_EXIT && f->new_tid)
        rr_dump_write_clone(out, (uint32_t)f->new_tid, (uint32_t)f->tid, f->clone_flags);
    if (f->kind == STEP_FRAME_EXIT)
        rr_dump_write_exit(out, (uint32_t)f->tid, f->exit_status);
}

static void capture_syscall_writes(struct step_run *s, const struct step_frame *f)
{
    struct write_capture w = {s, (uint32_t)f->tid};
    syscall_effects(f->nr, f->args, f->result, capture_read, capture_write, &w);
}

/* ---- the observer ---- */

static int on_record(void *ctx, const struct rerun_record *r, struct trms_error *err)
{
    struct step_run *s = ctx;
    if (s->capture.raw) {
        unsigned char bytes[RERUN_RECORD_BYTES];
        rerun_record_encode(r, bytes);
        if (fwrite(bytes, sizeof bytes, 1, s->capture.raw) != 1)
            return error_set(err, "capture: rerun.raw: %s", strerror(errno));
    }
    s->record_tid = r->tid;
    s->record_sp = r->gp[RERUN_RSP];
    s->touched_shared = 0;
    if (rerun_decoder_record(s->decoder, r, err) != 0)
        return -1;
    s->events_that_matter += s->touched_shared;
    return 0;
}

static int on_frame(void *ctx, const struct step_frame *f, struct trms_error *err)
{
    struct step_run *s = ctx;
    if (s->pid == 0)
        s->pid = f->pid;  /* the first frame is the first program's exec */
    int recorded = f->pid == s->pid;
    if (recorded && f->kind == STEP_FRAME_SYSCALL_ENTRY && !s->c->watch_objects && synchronizes(f))
        s->events_that_matter++;
    int exit = f->kind == STEP_FRAME_SYSCALL_EXIT && !(f->result < 0 && f->result >= -4095);
    int exec = exit && (f->nr == NR_EXECVE || f->nr == NR_EXECVEAT);
    if (s->capture.dump) {
        capture_frame_start(s, f);
        if (exec)
            rr_dump_write_exec(s->capture.dump, (uint32_t)f->tid, s->c->step->path);
        if (f->kind == STEP_FRAME_SYSCALL_EXIT && !exec && recorded)
            capture_syscall_writes(s, f);
    }
    if (recorded && exec && new_program(s, err) != 0)
        return -1;
    if (recorded && (exec || (exit && changes_mappings(f->nr))) &&
        follow_mappings(s, exec) != 0) {
        *err = *s->err;
        return -1;
    }
    if (recorded && exec && s->c->watch_objects && watch_program(s, err) != 0)
        return -1;
    if (s->capture.dump) {
        rr_dump_write_frame_end(s->capture.dump);
        if (ferror(s->capture.dump))
            return error_set(err, "capture: dump.txt: %s", strerror(errno));
    }
    return 0;
}

/* ---- the run ---- */

static int open_capture(struct capture *c, const char *dir, struct trms_error *err)
{
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return error_set(err, "capture directory %s: %s", dir, strerror(errno));
    char path[4096];
    snprintf(path, sizeof path, "%s/rerun.raw", dir);
    c->raw = fopen(path, "wb");
    snprintf(path, sizeof path, "%s/dump.txt", dir);
    c->dump = fopen(path, "w");
    if (!c->raw || !c->dump)
        return error_set(err, "%s: %s", path, strerror(errno));
    return 0;
}

static int close_capture(struct capture *c, struct trms_error *err)
{
    int bad = (c->raw && fclose(c->raw) != 0) | (c->dump && fclose(c->dump) != 0);
    *c = (struct capture){0};
    return bad ? error_set(err, "capture: %s", strerror(errno)) : 0;
}

int step_recording_run(const struct step_recording_config *c, struct step_recording_result *r,
                       struct trms_error *err)
{
    *r = (struct step_recording_result){0};
    struct trms_error follow_err;
    struct step_run s = {.c = c, .err = &follow_err};
    memory_maps_init(&s.current);
    symbol_names_init(&s.names);
    if (c->capture_dir && open_capture(&s.capture, c->capture_dir, err) != 0) {
        close_capture(&s.capture, &follow_err);
        return -1;
    }
    struct rerun_decoder_config cfg = {
        .read_code = read_code, .read_memory = read_memory, .classify = classify,
        .function_of = function_of, .ctx = &s, .sink = sink, .sink_ctx = &s,
        .routines = c->routines};
    s.decoder = rerun_decoder_new(&cfg, &r->decoded, err);
    int rc = s.decoder ? 0 : -1;
    if (rc == 0) {
        struct step_observer observer = {.record = on_record, .frame = on_frame,
                                         .events_that_matter = events_that_matter,
                                         .ctx = &s};
        rc = step_record(c->step, &observer, &r->step, &r->outcome, err);
        struct trms_error finish_err;
        if (rerun_decoder_finish(s.decoder, &finish_err) != 0 && rc == 0) {
            *err = finish_err;
            rc = -1;
        }
        /* Names are a convenience: the recording stands without them. */
        symbols_name_routines_since(c->symbols, c->routines, &s.named, &s.names);
        if (rc == 0 && s.names.count &&
            symbol_store_save(c->rec_path, s.names.items, s.names.count, &finish_err) != 0)
            fprintf(stderr, "trms: warning: routine names not resolved: %s\n",
                    finish_err.message);
    }
    if (close_capture(&s.capture, &follow_err) != 0 && rc == 0) {
        *err = follow_err;
        rc = -1;
    }
    memory_maps_free(&s.current);
    symbol_names_free(&s.names);
    free(s.stacks);
    data_objects_free(&s.watched);
    return rc;
}
