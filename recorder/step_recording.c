/* step_recording: the step engine through the decoder into a recording
 * (step_recording.h). */
#include "recorder/step_recording.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
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

/* One program image (step_recording.h): the process it runs in, and its
 * recording when it has one. */
struct image {
    struct step_run *run;
    struct step_image_info info;
    char **argv;                    /* info.argv's, owned */
    const struct step_image_recording *rec;  /* NULL: stepped, not recorded */
    struct rerun_decoder *decoder;
    struct step_image_end end;      /* end.decoded: what its decoder made */
    struct memory_maps current;     /* its file mappings now */
    size_t named;                   /* routines named so far */
    struct symbol_names names;      /* theirs */
    struct data_objects watched;    /* with watch_objects: the variables that count */
    int live;                       /* its process has not exec'd or ended */
    int inherited;                  /* forked: its mappings, its parent's, not yet followed */
    int cut;                        /* its recording failed (a full disk): no longer decoded */
};

struct step_run {
    const struct step_recording_config *c;
    struct step_recording_result *result;
    struct step_image_recording first;  /* the config's */
    struct image **images;          /* in the order they started */
    size_t n_images;
    unsigned recorded;              /* images numbered: recorded, or whose recording failed */
    struct u64map unrecorded_threads;  /* vtids of records dropped */
    pid_t pid;                      /* the first process (for the capture) */
    struct capture capture;
    struct trms_error *err;
    int failed;                     /* an observer call failed: the run stops */
    /* PCT: the instruction being decoded, and the count of the events
     * that can matter (step_recording.h). */
    uint32_t record_tid;
    pid_t record_pid;
    uint64_t record_sp;
    int touched_shared;
    uint64_t events_that_matter;
    struct stack_mapping *stacks;
    size_t n_stacks;
};

/* The image process PID runs now, or NULL. */
static struct image *live_image(const struct step_run *s, pid_t pid)
{
    for (size_t i = s->n_images; i-- > 0;)
        if (s->images[i]->live && s->images[i]->info.pid == pid)
            return s->images[i];
    return NULL;
}

/* ---- what the decoder reads from the live process ---- */

static size_t read_code(void *ctx, uint64_t addr, uint8_t *buf, size_t size)
{
    struct image *m = ctx;
    size_t got = 0;
    /* byte by byte at the end of what is readable: code may end a page
     * before an unmapped one */
    if (step_read_memory(m->info.pid, addr, buf, size) == 0)
        return size;
    while (got < size && step_read_memory(m->info.pid, addr + got, buf + got, 1) == 0)
        got++;
    return got;
}

static int read_memory(void *ctx, uint64_t addr, void *buf, uint64_t size)
{
    struct image *m = ctx;
    return step_read_memory(m->info.pid, addr, buf, size);
}

static void classify(void *ctx, uint64_t addr, struct code_class *out)
{
    struct image *m = ctx;
    code_symbols_classify(m->rec->symbols, addr, out);
}

static uint64_t function_of(void *ctx, uint64_t addr)
{
    struct image *m = ctx;
    return code_symbols_function_of(m->rec->symbols, addr);
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
        if (mapping_of(s->record_pid, s->record_sp, &t->start, &t->end) != 0)
            t->start = t->end = 0;
    }
    return addr >= t->start && addr < t->end;
}

static int touches_watched(const struct image *m, const struct event *ev)
{
    size_t i = data_objects_first_after(&m->watched, ev->addr);
    if (i == m->watched.count)
        return 0;
    const struct data_object *o = &m->watched.items[i];
    return (o->start <= ev->addr || o->start - ev->addr < ev->size);
}

static int sink(void *ctx, const struct event *ev, struct trms_error *err)
{
    struct image *m = ctx;
    struct step_run *s = m->run;
    if ((ev->type == EVENT_READ || ev->type == EVENT_WRITE) && !s->touched_shared)
        s->touched_shared = s->c->watch_objects ? touches_watched(m, ev)
                                                : !on_own_stack(s, ev->addr);
    return trace_writer_event(m->rec->writer, ev, m->rec->routines, err);
}

static int sync_sink_of(void *ctx, const struct sync_event *ev, struct trms_error *err)
{
    struct image *m = ctx;
    return trace_writer_sync(m->rec->writer, ev, err);
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

/* An image's mappings changed (or, with EXEC, were all replaced): the
 * symbols follow, the recording's list keeps every one seen, and the
 * capture shows the first process's new ones in this frame. */
static int follow_mappings(struct image *m, int exec)
{
    struct step_run *s = m->run;
    struct memory_maps now;
    memory_maps_init(&now);
    if (proc_maps_read(m->info.pid, &now, s->err) != 0) {
        memory_maps_free(&now);
        return -1;
    }
    struct symbolizer *symbols = m->rec->symbols;
    for (size_t i = 0; i < m->current.count; i++) {
        const struct map_entry *old = &m->current.items[i];
        const struct map_entry *kept = exec ? NULL : memory_maps_find(&now, old->start);
        if (!kept || !same_entry(kept, old))
            symbolizer_remove_range(symbols, old->start, old->end);
    }
    for (size_t i = 0; i < now.count; i++) {
        const struct map_entry *e = &now.items[i];
        const struct map_entry *was = exec ? NULL : memory_maps_find(&m->current, e->start);
        if (was && same_entry(was, e))
            continue;
        memory_maps_add(m->rec->maps, e);
        if (e->prot & MAPS_PROT_X)
            symbolizer_add_map(symbols, e);
        if (s->capture.dump && m->info.pid == s->pid) {
            char prot[5];
            rr_dump_write_mapping(s->capture.dump, e->path, e->start, e->end - e->start,
                                  prot_text(e->prot, prot), e->offset, e->path, e->offset,
                                  file_size(e->path));
        }
    }
    memory_maps_free(&m->current);
    m->current = now;
    return 0;
}

/* An image's program started: the variables PCT watches are its own. */
static int watch_program(struct image *m, struct trms_error *err)
{
    struct step_run *s = m->run;
    data_objects_free(&m->watched);
    char exe[64], path[4096];
    snprintf(exe, sizeof exe, "/proc/%d/exe", (int)m->info.pid);
    ssize_t len = readlink(exe, path, sizeof path - 1);
    if (len <= 0)
        return error_set(err, "%s: %s", exe, strerror(errno));
    path[len] = '\0';
    data_objects_from_maps(&m->watched, &m->current, path);
    const char *unmatched = data_objects_select(&m->watched, s->c->watch, s->c->n_watch);
    if (unmatched && m->info.number == 1)
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
    return step_read_memory(w->run->pid, addr, buf, size);  /* the first process's */
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

/* ---- images: each program a process runs, a recording of its own ---- */

static char **copy_argv(char *const *argv)
{
    size_t n = 0;
    while (argv[n])
        n++;
    char **copy = xcalloc(n + 1, sizeof *copy);
    for (size_t i = 0; i < n; i++)
        copy[i] = xstrdup(argv[i]);
    return copy;
}

static void free_argv(char **argv)
{
    for (char **a = argv; a && *a; a++)
        free(*a);
    free(argv);
}

/* The command line of process PID as /proc has it (one empty argument
 * when it cannot be read). */
static char **proc_argv(pid_t pid)
{
    char path[64], buf[8192];
    snprintf(path, sizeof path, "/proc/%d/cmdline", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
    if (fd >= 0)
        close(fd);
    if (n <= 0)
        n = 0;
    buf[n] = '\0';
    size_t count = 0;
    for (ssize_t i = 0; i < n; i++)
        count += buf[i] == '\0';
    if (n > 0 && buf[n - 1] != '\0')
        count++;  /* cut short */
    if (count == 0)
        count = 1;
    char **argv = xcalloc(count + 1, sizeof *argv);
    size_t k = 0;
    for (ssize_t i = 0; i < n && k < count; i += (ssize_t)strlen(buf + i) + 1)
        argv[k++] = xstrdup(buf + i);
    if (k == 0)
        argv[k++] = xstrdup("?");
    return argv;
}

/* Whether the ELF file at PATH asks for a program interpreter (ld.so):
 * dynamically linked. */
static int dynamically_linked(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    Elf64_Ehdr eh;
    int dynamic = 0;
    if (pread(fd, &eh, sizeof eh, 0) == (ssize_t)sizeof eh &&
        memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 && eh.e_ident[EI_CLASS] == ELFCLASS64 &&
        eh.e_phentsize == sizeof(Elf64_Phdr)) {
        for (unsigned i = 0; i < eh.e_phnum && !dynamic; i++) {
            Elf64_Phdr ph;
            if (pread(fd, &ph, sizeof ph, (off_t)(eh.e_phoff + i * sizeof ph)) != sizeof ph)
                break;
            dynamic = ph.p_type == PT_INTERP;
        }
    }
    close(fd);
    return dynamic;
}

/* Why the program PATH a process exec'd is left out, or NULL. */
static const char *leave_out(const struct step_run *s, const char *path)
{
    const struct step_children *ch = s->c->children;
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    for (size_t i = 0; ch && i < ch->n_exclude; i++)
        if (fnmatch(ch->exclude[i], path, 0) == 0 || fnmatch(ch->exclude[i], base, 0) == 0)
            return "excluded";
    return dynamically_linked(path) ? "dynamic" : NULL;
}

/* Its decoder, reading its own process. */
static int start_decoder(struct image *m, struct trms_error *err)
{
    struct rerun_decoder_config cfg = {
        .read_code = read_code, .read_memory = read_memory, .classify = classify,
        .function_of = function_of, .ctx = m, .sink = sink, .sink_ctx = m,
        .sync = sync_sink_of, .sync_ctx = m, .routines = m->rec->routines};
    m->decoder = rerun_decoder_new(&cfg, &m->end.decoded, err);
    return m->decoder ? 0 : -1;
}

static struct image *add_image(struct step_run *s, pid_t pid, pid_t ppid, unsigned parent,
                               const char *via, char **argv)
{
    struct image *m = xcalloc(1, sizeof *m);
    m->run = s;
    m->argv = argv;
    m->info = (struct step_image_info){.number = s->n_images == 0 ? 1 : 0, .parent = parent,
                                       .pid = pid, .ppid = ppid, .via = via, .argv = argv};
    m->live = 1;
    memory_maps_init(&m->current);
    symbol_names_init(&m->names);
    s->images = xrealloc(s->images, (s->n_images + 1) * sizeof *s->images);
    s->images[s->n_images++] = m;
    return m;
}

/* An image after the first: recorded when the bound allows and its
 * recording can be made. */
static int begin_image(struct image *m, struct trms_error *err)
{
    struct step_run *s = m->run;
    const struct step_children *ch = s->c->children;
    if (!ch || (ch->max_processes && s->recorded >= ch->max_processes)) {
        s->result->over_limit++;
        return 0;
    }
    m->info.number = ++s->recorded;  /* numbers run without gaps over the recorded */
    m->rec = ch->begin(ch->ctx, &m->info);
    if (!m->rec)
        return 0;
    return start_decoder(m, err);
}

/* M's process exec'd (EXEC_PATH) or ended: its decoder finishes, its
 * routines are named, and its recording is handed back. */
static int end_image(struct image *m, const char *end, const char *exec_path,
                     struct trms_error *err)
{
    struct step_run *s = m->run;
    if (!m->live)
        return 0;
    m->live = 0;
    snprintf(m->end.end, sizeof m->end.end, "%s", end);
    m->end.exec_path = exec_path ? xstrdup(exec_path) : NULL;
    int rc = 0;
    struct trms_error finish_err;
    if (m->decoder && rerun_decoder_finish(m->decoder, &finish_err) != 0) {
        if (m->info.number == 1) {
            *err = finish_err;
            rc = -1;
        } else {  /* the others' recordings go on */
            fprintf(stderr, "trms: warning: process %d (#%u) is recorded up to its end: %s\n",
                    (int)m->info.pid, m->info.number, finish_err.message);
        }
    }
    m->decoder = NULL;
    if (m->rec) {
        /* Names are a convenience: the recording stands without them. */
        symbols_name_routines_since(m->rec->symbols, m->rec->routines, &m->named, &m->names);
        if (m->names.count &&
            symbol_store_save(m->rec->rec_path, m->names.items, m->names.count, &finish_err) != 0)
            fprintf(stderr, "trms: warning: routine names of %s not resolved: %s\n",
                    m->rec->rec_path, finish_err.message);
    }
    if (m->info.number == 1) {
        struct step_recording_result *r = s->result;
        snprintf(r->end, sizeof r->end, "%s", m->end.end);
        r->exec_path = m->end.exec_path;
        m->end.exec_path = NULL;
        r->decoded = m->end.decoded;
        m->end.decoded = (struct rerun_summary){0};
    } else if (m->rec) {
        s->c->children->end(s->c->children->ctx, &m->info, m->rec, &m->end);
    }
    memory_maps_free(&m->current);
    symbol_names_free(&m->names);
    data_objects_free(&m->watched);
    return rc;
}

static void free_image(struct image *m)
{
    rerun_summary_free(&m->end.decoded);
    free(m->end.exec_path);
    free_argv(m->argv);
    free(m);
}

static int on_image(void *ctx, const struct step_process *p, struct trms_error *err)
{
    struct step_run *s = ctx;
    s->result->images++;
    if (p->via == STEP_VIA_START) {
        s->pid = s->result->pid = p->pid;
        s->result->ppid = p->ppid;
        struct image *m = add_image(s, p->pid, p->ppid, 0, "start",
                                    copy_argv(s->c->step->argv));
        m->rec = &s->first;
        s->recorded++;
        return start_decoder(m, err) == 0 ? 1 : -1;
    }
    if (p->via == STEP_VIA_FORK) {
        const struct image *parent = live_image(s, p->ppid);
        struct image *m = add_image(s, p->pid, p->ppid, parent ? parent->info.number : 0, "fork",
                                    parent ? copy_argv(parent->argv) : proc_argv(p->pid));
        m->inherited = 1;
        return begin_image(m, err) == 0 ? 1 : -1;
    }
    struct image *old = live_image(s, p->pid);
    char exe[64], path[4096];
    snprintf(exe, sizeof exe, "/proc/%d/exe", (int)p->pid);
    ssize_t len = readlink(exe, path, sizeof path - 1);
    path[len > 0 ? len : 0] = '\0';
    const char *reason = leave_out(s, path);
    if (old && end_image(old, "exec", path, err) != 0)
        return -1;
    if (reason) {
        const struct step_children *ch = s->c->children;
        s->result->images--;  /* not followed */
        if (ch && ch->left_out) {
            char **argv = proc_argv(p->pid);
            size_t size = 1;
            for (char **a = argv; *a; a++)
                size += strlen(*a) + 1;
            char *command = xcalloc(1, size);
            for (char **a = argv; *a; a++)
                strcat(strcat(command, a == argv ? "" : " "), *a);
            ch->left_out(ch->ctx, p->pid, command, reason);
            free(command);
            free_argv(argv);
        }
        return 0;
    }
    struct image *m = add_image(s, p->pid, old ? old->info.ppid : 0,
                                old ? old->info.number : 0, "exec", proc_argv(p->pid));
    if (begin_image(m, err) != 0)
        return -1;
    return 1;
}

static void on_process_ended(void *ctx, pid_t pid, int status)
{
    struct step_run *s = ctx;
    struct image *m = live_image(s, pid);
    if (!m)
        return;
    char end[32];
    if (WIFSIGNALED(status))
        snprintf(end, sizeof end, "signal:%d", WTERMSIG(status));
    else
        snprintf(end, sizeof end, "exit:%d", WEXITSTATUS(status));
    m->end.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 0;
    m->end.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    struct trms_error err;
    if (end_image(m, end, NULL, &err) != 0 && !s->failed) {
        /* told from deep in the engine: the failure stops the run at the next record */
        s->failed = 1;
        *s->err = err;
    }
}

/* ---- the observer ---- */

static int on_record(void *ctx, pid_t pid, const struct rerun_record *r, struct trms_error *err)
{
    struct step_run *s = ctx;
    if (s->failed) {
        *err = *s->err;
        return -1;
    }
    if (s->capture.raw) {
        unsigned char bytes[RERUN_RECORD_BYTES];
        rerun_record_encode(r, bytes);
        if (fwrite(bytes, sizeof bytes, 1, s->capture.raw) != 1)
            return error_set(err, "capture: rerun.raw: %s", strerror(errno));
    }
    struct image *m = live_image(s, pid);
    if (!m || !m->decoder) {
        if (!m || !m->cut)
            u64map_upsert(&s->unrecorded_threads, r->tid, NULL);
        return 0;
    }
    if (m->inherited) {
        /* a forked child runs its parent's program, mapped where it was */
        m->inherited = 0;
        if (follow_mappings(m, 1) != 0 || (s->c->watch_objects && watch_program(m, err) != 0)) {
            if (!s->c->watch_objects)
                *err = *s->err;
            return -1;
        }
    }
    s->record_tid = r->tid;
    s->record_pid = pid;
    s->record_sp = r->gp[RERUN_RSP];
    s->touched_shared = 0;
    if (rerun_decoder_record(m->decoder, r, err) != 0) {
        if (m->info.number == 1)
            return -1;
        /* A later process's recording failed (its trace could not be
         * written): it is kept up to there, the others go on. */
        fprintf(stderr, "trms: warning: process %d (#%u) is recorded up to here: %s\n",
                (int)pid, m->info.number, err->message);
        struct trms_error ignored;
        rerun_decoder_finish(m->decoder, &ignored);
        m->decoder = NULL;
        m->cut = 1;
        return 0;
    }
    s->events_that_matter += s->touched_shared;
    return 0;
}

static int on_frame(void *ctx, const struct step_frame *f, struct trms_error *err)
{
    struct step_run *s = ctx;
    int first = f->pid == s->pid;
    struct image *m = live_image(s, f->pid);
    if (m && !m->decoder)
        m = NULL;  /* stepped, not recorded */
    if (f->kind == STEP_FRAME_SYSCALL_ENTRY && !s->c->watch_objects && synchronizes(f))
        s->events_that_matter++;
    int exit = f->kind == STEP_FRAME_SYSCALL_EXIT && !(f->result < 0 && f->result >= -4095);
    int exec = exit && (f->nr == NR_EXECVE || f->nr == NR_EXECVEAT);
    if (s->capture.dump) {
        capture_frame_start(s, f);
        if (exec)
            rr_dump_write_exec(s->capture.dump, (uint32_t)f->tid, s->c->step->path);
        if (f->kind == STEP_FRAME_SYSCALL_EXIT && !exec && first)
            capture_syscall_writes(s, f);
    }
    if (m && (exec || (exit && changes_mappings(f->nr))) && follow_mappings(m, exec) != 0) {
        *err = *s->err;
        return -1;
    }
    if (m && exec && s->c->watch_objects && watch_program(m, err) != 0)
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
    struct step_run s = {.c = c, .result = r, .err = &follow_err,
                         .first = {.writer = c->writer, .routines = c->routines, .maps = c->maps,
                                   .symbols = c->symbols, .rec_path = c->rec_path}};
    u64map_init(&s.unrecorded_threads);
    if (c->capture_dir && open_capture(&s.capture, c->capture_dir, err) != 0) {
        close_capture(&s.capture, &follow_err);
        return -1;
    }
    struct step_observer observer = {.record = on_record, .frame = on_frame,
                                     .events_that_matter = events_that_matter,
                                     .image = on_image, .process_ended = on_process_ended,
                                     .ctx = &s};
    int rc = step_record(c->step, &observer, &r->step, &r->outcome, err);
    if (rc == 0 && s.failed) {
        *err = follow_err;
        rc = -1;
    }
    /* Images whose process did not end under the engine (a failed run). */
    for (size_t i = 0; i < s.n_images; i++) {
        struct trms_error end_err;
        if (end_image(s.images[i], "died", NULL, &end_err) != 0 && rc == 0 &&
            s.images[i]->info.number == 1) {
            *err = end_err;
            rc = -1;
        }
    }
    r->unrecorded_threads = s.unrecorded_threads.count;
    if (close_capture(&s.capture, &follow_err) != 0 && rc == 0) {
        *err = follow_err;
        rc = -1;
    }
    for (size_t i = 0; i < s.n_images; i++)
        free_image(s.images[i]);
    free(s.images);
    u64map_free(&s.unrecorded_threads);
    free(s.stacks);
    return rc;
}
