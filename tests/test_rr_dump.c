/* test_rr_dump: the parser of `rr dump -e -m -p` text against a fixture
 * written from rr 5.6.0's printf formats (tests/fixtures/rr/), every field
 * checked; then cut and corrupted copies of it, which must fail naming the
 * line. */
#define _GNU_SOURCE /* fmemopen */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replayer/rr_dump.h"
#include "tests/check.h"

enum { MAX_ITEMS = 64 };

struct seen {
    char log[MAX_ITEMS][320];  /* one line per callback, in order */
    int n;
    struct rr_frame frames[16];
    int n_frames;
    int stop_at;               /* fail on this callback (1-based), 0 = never */
};

static int note(struct seen *s, struct trms_error *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int note(struct seen *s, struct trms_error *err, const char *fmt, ...)
{
    if (s->n < MAX_ITEMS) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(s->log[s->n], sizeof s->log[s->n], fmt, ap);
        va_end(ap);
    }
    s->n++;
    if (s->stop_at && s->n == s->stop_at)
        return error_set(err, "stopped by the consumer");
    return 0;
}

static int on_frame(void *ctx, const struct rr_frame *f, struct trms_error *err)
{
    struct seen *s = ctx;
    if (s->n_frames < 16)
        s->frames[s->n_frames++] = *f;
    return note(s, err, "frame %llu tid %u `%s' [%s] ticks %lld regs %d",
                (unsigned long long)f->time, f->tid, f->event, f->state, (long long)f->ticks,
                f->has_regs);
}

static int on_task(void *ctx, const struct rr_frame *f, const struct rr_task_event *e,
                   struct trms_error *err)
{
    static const char *const kinds[] = {"clone", "exec", "exit", "detach"};
    return note(ctx, err, "task %llu %s tid %u parent %u flags 0x%x status %d file %s",
                (unsigned long long)f->time, kinds[e->kind], e->tid, e->parent, e->clone_flags,
                e->exit_status, e->file ? e->file : "-");
}

static int on_mapping(void *ctx, const struct rr_frame *f, const struct rr_mapping *m,
                      struct trms_error *err)
{
    return note(ctx, err, "map %llu %s 0x%llx+0x%llx prot %u shared %d off 0x%llx dev %lld ino %lld "
                          "data %s@0x%llx size 0x%llx",
                (unsigned long long)f->time, m->map_file, (unsigned long long)m->addr,
                (unsigned long long)m->length, m->prot, m->shared,
                (unsigned long long)m->file_offset, (long long)m->device, (long long)m->inode,
                m->data_file, (unsigned long long)m->data_offset,
                (unsigned long long)m->file_size);
}

static int on_mem(void *ctx, const struct rr_frame *f, const struct rr_mem_write *w,
                  struct trms_error *err)
{
    char holes[64] = "";
    size_t used = 0;
    for (size_t i = 0; i < w->n_holes; i++)
        used += (size_t)snprintf(holes + used, sizeof holes - used, " hole %llu+%llu",
                                 (unsigned long long)w->holes[i].offset,
                                 (unsigned long long)w->holes[i].size);
    return note(ctx, err, "mem %llu tid %u 0x%llx+%llu%s", (unsigned long long)f->time, w->tid,
                (unsigned long long)w->addr, (unsigned long long)w->length, holes);
}

static int on_end(void *ctx, const struct rr_frame *f, struct trms_error *err)
{
    return note(ctx, err, "end %llu", (unsigned long long)f->time);
}

static const struct rr_dump_callbacks callbacks = {on_frame, on_task, on_mapping, on_mem,
                                                   on_end, NULL};

static char *read_fixture(size_t *len)
{
    FILE *f = fopen(RR_DUMP_FIXTURE, "rb");
    if (!f) {
        perror(RR_DUMP_FIXTURE);
        exit(1);
    }
    char *buf = malloc(1 << 16);
    *len = fread(buf, 1, (1 << 16) - 1, f);
    buf[*len] = '\0';
    fclose(f);
    return buf;
}

static int parse_text(const char *text, size_t len, struct seen *s, struct trms_error *err)
{
    struct rr_dump_callbacks cb = callbacks;
    cb.ctx = s;
    FILE *in = fmemopen((void *)text, len, "r");
    int rc = rr_dump_parse(in, "dump.txt", &cb, err);
    fclose(in);
    return rc;
}

static const char *const expected[] = {
    "frame 1 tid 4242 `SYSCALL: execve' [EXITING_SYSCALL] ticks 0 regs 1",
    "task 1 exec tid 4242 parent 0 flags 0x0 status 0 file /home/u/prog with space",
    "map 1 /home/u/prog with space 0x400000+0x1000 prot 1 shared 0 off 0x0 dev 2049 ino 1311 "
    "data /home/u/.local/share/rr/prog-0/mmap_hardlink_3_prog@0x0 size 0x2340",
    "map 1 /home/u/prog with space 0x401000+0x1000 prot 5 shared 0 off 0x1000 dev 2049 ino 1311 "
    "data /home/u/.local/share/rr/prog-0/mmap_hardlink_3_prog@0x1000 size 0x2340",
    "map 1 <ZERO> 0x7ffd0000+0x21000 prot 3 shared 0 off 0x0 dev 0 ino 0 data @0x0 size 0x0",
    "end 1",
    "frame 2 tid 4242 `SYSCALL: read' [ENTERING_SYSCALL] ticks 120 regs 1",
    "end 2",
    "frame 3 tid 4242 `SYSCALL: read' [EXITING_SYSCALL] ticks 120 regs 1",
    "mem 3 tid 4242 0x404000+17",
    "end 3",
    "frame 4 tid 4242 `SYSCALL: clone' [EXITING_SYSCALL] ticks 300 regs 1",
    "task 4 clone tid 4243 parent 4242 flags 0x3d0f00 status 0 file -",
    "mem 4 tid 4242 0x7f0000001000+4",
    "mem 4 tid 4243 0x7f0000001000+4",
    "end 4",
    "frame 5 tid 4243 `SCHED' [] ticks 5000 regs 1",
    "end 5",
    "frame 6 tid 4243 `SYSCALL: recvmsg' [EXITING_SYSCALL] ticks 6000 regs 1",
    "mem 6 tid 4243 0x405000+64 hole 0+8 hole 16+16",
    "mem 6 tid 4243 0x0+0",
    "end 6",
    "frame 7 tid 4243 `EXIT' [] ticks 6100 regs 0",
    "task 7 exit tid 4243 parent 0 flags 0x0 status 0 file -",
    "end 7",
    "frame 8 tid 4242 `SIGNAL_HANDLER: SIGSEGV(det)' [] ticks 7000 regs 1",
    "mem 8 tid 4242 0x7ffd0b40+1088",
    "end 8",
};
#define N_EXPECTED (int)(sizeof expected / sizeof *expected)

static void whole_fixture(const char *text, size_t len)
{
    struct seen s = {0};
    struct trms_error err;
    CHECK_EQ(parse_text(text, len, &s, &err), 0);
    CHECK_EQ(s.n, N_EXPECTED);
    for (int i = 0; i < N_EXPECTED && i < s.n; i++)
        CHECK_STR(s.log[i], expected[i]);
    /* Registers, in rr's gp_x16 order. */
    const struct rr_frame *read_entry = &s.frames[1], *read_exit = &s.frames[2];
    CHECK_EQ(read_entry->gp[0], (uint64_t)-38);  /* -ENOSYS at entry */
    CHECK_EQ(read_entry->gp[2], 64);             /* rdx: count */
    CHECK_EQ(read_entry->gp[6], 0x404000);       /* rsi: buffer */
    CHECK_EQ(read_entry->gp[4], 0x7ffd1000);     /* rsp */
    CHECK_EQ(read_entry->orig_rax, 0);
    CHECK_EQ(read_entry->fs_base, 0x4c6880);
    CHECK_EQ(read_entry->rip, 0x401010);
    CHECK_EQ(read_exit->gp[0], 17);
    CHECK_EQ(s.frames[3].gp[0], 4243);
    CHECK_EQ(s.frames[4].gp[3], UINT64_MAX);
    CHECK_EQ(s.frames[4].orig_rax, UINT64_MAX);
    CHECK_EQ(s.frames[7].eflags, 0x10246);
}

/* Every cut of the fixture that ends inside a frame is "truncated"; a cut
 * between frames parses the frames before it. */
static void truncated(const char *text, size_t len)
{
    for (size_t cut = 0; cut < len; cut++) {
        struct seen s = {0};
        struct trms_error err;
        int rc = parse_text(text, cut, &s, &err);
        /* After a line that is exactly "}", with or without its newline. */
        size_t end = cut && text[cut - 1] == '\n' ? cut - 1 : cut;
        int between = cut == 0 || (end >= 2 && text[end - 1] == '}' && text[end - 2] == '\n');
        if (between) {
            CHECK_EQ(rc, 0);
        } else if (rc == 0) {
            fprintf(stderr, "a cut at byte %zu was accepted\n", cut);
            check_failures++;
        } else if (!strstr(err.message, "dump.txt:")) {
            fprintf(stderr, "cut at %zu: error lacks the line: %s\n", cut, err.message);
            check_failures++;
        }
    }
}

/* Changing the dump breaks it at the line changed. */
static void corrupted(const char *text, size_t len)
{
    static const struct {
        const char *from, *to, *line;
    } cases[] = {
        {"global_time:3,", "global_time:x,", "dump.txt:14:"},
        {"length:0x11 }", "length:0x11", "dump.txt:16:"},
        {"rip:0x401010 eflags:0x246", "rip:0x401010 eflags:246", "dump.txt:11:"},
        {"prot_flags:\"r-xp\"", "prot_flags:\"r-xq\"", "dump.txt:6:"},
        {"clone_flags=0x3d0f00", "clone_flags=3d0f00", "dump.txt:21:"},
        {"(nil)-0x8", "0x9-0x8", "dump.txt:32:"},                  /* a hole ending before it starts */
        {"  TraceTaskEvent::EXIT", "  TraceTaskEvent::QUIT", "dump.txt:37:"},
        {"rax:0x1093 rcx", "rax:0x10000000000000000 rcx", "dump.txt:20:"},  /* 65 bits */
        {"}\n{\n  real_time:2.000000", "}\n{{\n  real_time:2.000000", "dump.txt:25:"},
        {"tid:4243, ticks:5000", "tid:-4243, ticks:5000", "dump.txt:26:"},  /* a negative tid */
        {"orig_rax:0x3b fs_base:0x0 gs_base:0x0 ", "orig_rax:0x3b fs_base:0x0 ", "dump.txt:3:"},
        {"0x10-0x20]", "0x10-0x48]", "dump.txt:32:"},  /* a hole past the write's 0x40 bytes */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const char *at = strstr(text, cases[i].from);
        CHECK(at != NULL);
        if (!at)
            continue;
        char *copy = malloc(len + 64);
        size_t head = (size_t)(at - text), from_len = strlen(cases[i].from);
        memcpy(copy, text, head);
        strcpy(copy + head, cases[i].to);
        strcpy(copy + head + strlen(cases[i].to), at + from_len);
        struct seen s = {0};
        struct trms_error err;
        CHECK(parse_text(copy, strlen(copy), &s, &err) != 0);
        if (!strstr(err.message, cases[i].line)) {
            fprintf(stderr, "case %zu: expected %s in: %s\n", i, cases[i].line, err.message);
            check_failures++;
        }
        free(copy);
    }
}

/* A consumer's failure stops the parse with its message. */
static void consumer_stops(const char *text, size_t len)
{
    struct seen s = {.stop_at = 10};
    struct trms_error err;
    CHECK(parse_text(text, len, &s, &err) != 0);
    CHECK_EQ(s.n, 10);
    CHECK_STR(err.message, "stopped by the consumer");
}

int main(void)
{
    size_t len;
    char *text = read_fixture(&len);
    whole_fixture(text, len);
    truncated(text, len);
    corrupted(text, len);
    consumer_stops(text, len);
    free(text);
    return check_report("test_rr_dump");
}
