/* test_step_parts: the step engine's pure pieces (the instruction kinds it
 * resumes by, the seeded schedule, the table of blocking system calls), the
 * rr dump text it writes (read back by the rr adapter's own parser), and
 * /proc/PID/maps lines. The engine itself runs real programs in the
 * end-to-end tests (tests/e2e/step_e2e.py). */
#define _GNU_SOURCE /* open_memstream */
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "recorder/step_insn_kind.h"
#include "recorder/step_schedule.h"
#include "recorder/syscall_blocking.h"
#include "replayer/rr_dump.h"
#include "replayer/rr_dump_writer.h"
#include "replayer/rr_trace.h"
#include "symbols/proc_maps.h"

static enum step_insn_kind kind_of(const char *hex, size_t *length)
{
    uint8_t bytes[16];
    size_t n = 0;
    for (const char *p = hex; *p && n < sizeof bytes;) {
        if (*p == ' ') {
            p++;
            continue;
        }
        bytes[n++] = (uint8_t)strtoul((char[3]){p[0], p[1], 0}, NULL, 16);
        p += 2;
    }
    *length = 0;
    return step_insn_kind(bytes, n, length);
}

static void test_insn_kinds(void)
{
    size_t len;
    CHECK(kind_of("0f 05", &len) == STEP_INSN_SYSCALL);
    CHECK(kind_of("0f 05 90 90", &len) == STEP_INSN_SYSCALL);
    CHECK(kind_of("f3 a4", &len) == STEP_INSN_REP_STRING);          /* rep movsb */
    CHECK(kind_of("f3 48 ab", &len) == STEP_INSN_REP_STRING);       /* rep stosq */
    CHECK(kind_of("f2 ae", &len) == STEP_INSN_REP_STRING);          /* repne scasb */
    CHECK(kind_of("66 f3 a5", &len) == STEP_INSN_REP_STRING);       /* rep movsw */
    CHECK(kind_of("f3 a6", &len) == STEP_INSN_REP_STRING);          /* repe cmpsb */
    CHECK(kind_of("f3 6c", &len) == STEP_INSN_REP_STRING);          /* rep insb */
    CHECK(kind_of("a4", &len) == STEP_INSN_OTHER);                  /* movsb alone */
    CHECK(kind_of("f3 0f 1e fa", &len) == STEP_INSN_OTHER);         /* endbr64 */
    CHECK(kind_of("f3 c3", &len) == STEP_INSN_OTHER);               /* rep ret */
    CHECK(kind_of("f3 90", &len) == STEP_INSN_PAUSE);               /* pause */
    CHECK(kind_of("90", &len) == STEP_INSN_OTHER);                  /* nop */
    CHECK(kind_of("f3 48 90", &len) == STEP_INSN_OTHER);            /* not pause */
    CHECK(kind_of("0f a2", &len) == STEP_INSN_CPUID && len == 2);
    CHECK(kind_of("2e 0f a2", &len) == STEP_INSN_CPUID && len == 3);
    CHECK(kind_of("0f", &len) == STEP_INSN_OTHER);                  /* cut short */
    CHECK(kind_of("", &len) == STEP_INSN_OTHER);
    CHECK(kind_of("66 66 66 66 66 66 66 66 66 66 66 66 66 66 66 0f", &len) == STEP_INSN_OTHER);
    CHECK(kind_of("48 0f 05", &len) == STEP_INSN_SYSCALL);          /* REX.W syscall */
    CHECK(kind_of("48 f3 a4", &len) == STEP_INSN_REP_STRING);       /* a REX not last: ignored */
}

static void test_schedule(void)
{
    struct step_schedule fixed, a, b, c;
    step_schedule_init(&fixed, 100, 0);
    for (int i = 0; i < 50; i++)
        CHECK_EQ(step_schedule_next(&fixed), 100);
    step_schedule_init(&a, 100, 42);
    step_schedule_init(&b, 100, 42);
    step_schedule_init(&c, 100, 43);
    int differ = 0;
    uint64_t sum = 0, n = 100000, low = UINT64_MAX, high = 0;
    for (uint64_t i = 0; i < n; i++) {
        uint32_t x = step_schedule_next(&a), y = step_schedule_next(&b), z = step_schedule_next(&c);
        CHECK_EQ(x, y);
        differ += x != z;
        sum += x;
        low = x < low ? x : low;
        high = x > high ? x : high;
    }
    CHECK(differ > (int)(n / 2));
    CHECK_EQ(low, 1);
    CHECK_EQ(high, 199);
    CHECK(sum / n >= 98 && sum / n <= 102);  /* the mean stays the quantum */
    struct step_schedule one;
    step_schedule_init(&one, 1, 9);
    CHECK_EQ(step_schedule_next(&one), 1);
    step_schedule_init(&one, 0, 0);  /* 0 would never run anyone */
    CHECK_EQ(step_schedule_next(&one), 1);
}

/* PCT: change points distinct and uniform over [1, k], priorities drawn
 * from the seed alone, change i reached at the i-th drawn count. */
static void test_pct(void)
{
    struct step_schedule a, b;
    step_schedule_init_pct(&a, 7, 3, 10);
    step_schedule_init_pct(&b, 7, 3, 10);
    CHECK(a.policy == STEP_PCT && a.depth == 3 && a.events == 10);
    CHECK(a.change_at[0] >= 1 && a.change_at[0] <= 10 && a.change_at[1] >= 1 &&
          a.change_at[1] <= 10 && a.change_at[0] != a.change_at[1] && a.change_at[2] == 0);
    CHECK(a.change_at[0] == b.change_at[0] && a.change_at[1] == b.change_at[1]);
    CHECK_EQ(step_schedule_next(&a), 1);  /* priorities are looked at after every step */
    int64_t p[4];
    for (int i = 0; i < 4; i++) {
        p[i] = step_schedule_priority(&a);
        CHECK(p[i] >= 3);
        CHECK_EQ(p[i], step_schedule_priority(&b));
        for (int j = 0; j < i; j++)
            CHECK(p[i] != p[j]);
    }
    /* The counts hit the change points in order of count, each naming its
     * index (the thread drops to depth - index). */
    uint32_t hits[11] = {0};
    for (uint64_t k = 1; k <= 10; k++)
        hits[k] = step_schedule_count(&a);
    for (uint64_t k = 1; k <= 10; k++)
        CHECK_EQ(hits[k], k == a.change_at[0] ? 1 : k == a.change_at[1] ? 2 : 0);
    CHECK_EQ(step_schedule_count(&a), 0);  /* past k: none */
    CHECK(step_schedule_yield_priority(&a) < 1 && step_schedule_yield_priority(&a) < -1);

    /* Uniform: each of k = 5 counts is a change point as often as another
     * (depth 2: one change point), within 10% over 50,000 seeds; depth 1
     * has none, and depth k + 1 takes every count. */
    uint64_t seen[6] = {0};
    for (uint64_t seed = 1; seed <= 50000; seed++) {
        struct step_schedule s;
        step_schedule_init_pct(&s, seed, 2, 5);
        seen[s.change_at[0]]++;
    }
    CHECK_EQ(seen[0], 0);
    for (int k = 1; k <= 5; k++)
        CHECK(seen[k] > 9000 && seen[k] < 11000);
    struct step_schedule one, all, over;
    step_schedule_init_pct(&one, 3, 1, 100);
    CHECK_EQ(one.change_at[0], 0);
    step_schedule_init_pct(&all, 3, 4, 3);
    CHECK(all.change_at[0] + all.change_at[1] + all.change_at[2] == 6 &&
          all.change_at[0] * all.change_at[1] * all.change_at[2] == 6);
    step_schedule_init_pct(&over, 3, 6, 3);  /* more change points than events */
    int drawn = 0;
    for (int i = 0; i < 5; i++)
        drawn += over.change_at[i] != 0;
    CHECK_EQ(drawn, 3);
    /* Other seeds, other priorities. */
    struct step_schedule c;
    step_schedule_init_pct(&c, 8, 3, 10);
    step_schedule_init_pct(&b, 7, 3, 10);
    CHECK(step_schedule_priority(&c) != step_schedule_priority(&b));
}

static void test_blocking(void)
{
    uint64_t none[6] = {0};
    CHECK(syscall_blocking(0, none) == SYSCALL_MAY_BLOCK);    /* read */
    CHECK(syscall_blocking(61, none) == SYSCALL_MAY_BLOCK);   /* wait4 */
    CHECK(syscall_blocking(35, none) == SYSCALL_MAY_BLOCK);   /* nanosleep */
    CHECK(syscall_blocking(39, none) == SYSCALL_RETURNS);     /* getpid */
    CHECK(syscall_blocking(9, none) == SYSCALL_RETURNS);      /* mmap */
    CHECK(syscall_blocking(58, none) == SYSCALL_WAITS_CHILD); /* vfork */
    uint64_t futex[6] = {0x1000, 0, 1, 0, 0, 0};
    struct {
        uint64_t op;
        enum syscall_blocking expect;
    } ops[] = {
        {0, SYSCALL_FUTEX_WAIT},                 /* FUTEX_WAIT */
        {0 | 128, SYSCALL_FUTEX_WAIT},           /* private */
        {9 | 128 | 256, SYSCALL_FUTEX_WAIT},     /* WAIT_BITSET, private, realtime clock */
        {1 | 128, SYSCALL_FUTEX_WAKE},           /* FUTEX_WAKE */
        {10, SYSCALL_FUTEX_WAKE},                /* WAKE_BITSET */
        {5, SYSCALL_FUTEX_WAKE},                 /* WAKE_OP */
        {4, SYSCALL_RETURNS},                    /* CMP_REQUEUE: counts the moved too */
        {6, SYSCALL_MAY_BLOCK},                  /* LOCK_PI */
        {8, SYSCALL_RETURNS},                    /* TRYLOCK_PI */
    };
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++) {
        futex[1] = ops[i].op;
        CHECK_EQ(syscall_blocking(202, futex), ops[i].expect);
    }
}

/* The dump the engine writes reads back through the adapter's parser. */
static int dump_frame(void *ctx, const struct rr_frame *f, struct trms_error *err)
{
    (void)err;
    struct rr_frame *frames = ctx;
    if (f->time <= 3)
        frames[f->time] = *f;
    return 0;
}

static void test_dump_writer(void)
{
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    struct rerun_record r = {.ip = 0x401000, .flags = 0x246, .fsbase = 0x4c6880};
    for (int i = 0; i < RERUN_GP_COUNT; i++)
        r.gp[i] = 0x1000 + (uint64_t)i;
    rr_dump_write_frame(out, 1, "SYSCALL: execve", "EXITING_SYSCALL", 1, 0);
    rr_dump_write_registers(out, &r, 59);
    rr_dump_write_exec(out, 1, "/t/prog");
    rr_dump_write_mapping(out, "/t/prog", 0x400000, 0x2000, "r-xp", 0x1000, "/t/prog", 0x1000,
                          0x5000);
    rr_dump_write_frame_end(out);
    rr_dump_write_frame(out, 2, "SCHED", NULL, 1, 0);
    rr_dump_write_frame_end(out);
    r.gp[0] = 5;
    rr_dump_write_frame(out, 3, "SYSCALL: read", "EXITING_SYSCALL", 2, 0);
    rr_dump_write_registers(out, &r, 0);
    rr_dump_write_clone(out, 3, 2, 0x3d0f00);
    rr_dump_write_memory(out, 2, 0x7ffd0000, 5);
    rr_dump_write_memory(out, 2, 0x7ffd0100, 0);
    rr_dump_write_frame_end(out);
    fclose(out);

    struct rr_frame frames[4] = {0};
    struct rr_dump_callbacks cb = {.frame = dump_frame, .ctx = frames};
    FILE *in = fmemopen(text, size, "r");
    struct trms_error err;
    CHECK(rr_dump_parse(in, "written", &cb, &err) == 0);
    fclose(in);
    CHECK_EQ(frames[1].tid, 1);
    CHECK_STR(frames[1].event, "SYSCALL: execve");
    CHECK_STR(frames[1].state, "EXITING_SYSCALL");
    CHECK(frames[1].has_regs && frames[1].rip == 0x401000 && frames[1].orig_rax == 59);
    CHECK(frames[1].gp[15] == 0x100f && frames[1].fs_base == 0x4c6880 && frames[1].eflags == 0x246);
    CHECK_STR(frames[2].event, "SCHED");
    CHECK(!frames[2].has_regs);
    CHECK(frames[3].tid == 2 && frames[3].gp[0] == 5);

    struct rr_trace trace;
    in = fmemopen(text, size, "r");
    CHECK(rr_trace_read(in, "written", &trace, &err) == 0);
    fclose(in);
    CHECK_EQ(trace.n_mappings, 1);
    CHECK(trace.n_mappings == 1 && trace.mappings[0].start == 0x400000 &&
          trace.mappings[0].end == 0x402000 && trace.mappings[0].data_offset == 0x1000 &&
          trace.mappings[0].time == 1);
    CHECK_STR(trace.n_mappings ? trace.mappings[0].data_file : NULL, "/t/prog");
    size_t n;
    const struct rr_trace_write *w = rr_trace_writes_of(&trace, 3, &n);
    CHECK(n >= 1 && w && w[0].tid == 2 && w[0].addr == 0x7ffd0000 && w[0].length == 5);
    CHECK_EQ(trace.threads, 2);
    CHECK_EQ(trace.last_time, 3);
    rr_trace_free(&trace);
    free(text);
}

static void test_proc_maps(void)
{
    struct map_entry e;
    char line1[] = "00400000-00401000 r-xp 00001000 08:01 1311  /usr/bin/with space\n";
    CHECK(proc_maps_parse_line(line1, &e) == 0);
    CHECK(e.start == 0x400000 && e.end == 0x401000 && e.offset == 0x1000);
    CHECK_EQ(e.prot, MAPS_PROT_R | MAPS_PROT_X);
    CHECK_STR(e.path, "/usr/bin/with space");
    char line2[] = "7ffff7ff9000-7ffff7ffd000 r--p 00000000 00:00 0                          [vvar]";
    CHECK(proc_maps_parse_line(line2, &e) == 1);
    char line3[] = "7ffff7dd0000-7ffff7dd2000 rw-p 00000000 00:00 0 \n";
    CHECK(proc_maps_parse_line(line3, &e) == 1);
    CHECK_EQ(e.prot, MAPS_PROT_R | MAPS_PROT_W);
    char line4[] = "not a maps line";
    CHECK(proc_maps_parse_line(line4, &e) == -1);
    struct memory_maps maps;
    memory_maps_init(&maps);
    struct trms_error err;
    CHECK(proc_maps_read(getpid(), &maps, &err) == 0);
    char self[4096];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    CHECK(len > 0);
    self[len > 0 ? len : 0] = '\0';
    int found = 0;
    for (size_t i = 0; i < maps.count; i++)
        found |= strcmp(maps.items[i].path, self) == 0 && (maps.items[i].prot & MAPS_PROT_X);
    CHECK(found);  /* this program's own code */
    memory_maps_free(&maps);
    CHECK(proc_maps_read(999999999, &maps, &err) == -1);
}

int main(void)
{
    test_insn_kinds();
    test_schedule();
    test_pct();
    test_blocking();
    test_dump_writer();
    test_proc_maps();
    return check_report("test_step_parts");
}
