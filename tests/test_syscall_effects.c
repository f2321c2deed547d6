/* test_syscall_effects: the syscall table against hand-built arguments (the
 * exact effects, in order) and against real syscalls (the effects cover
 * exactly the bytes the kernel changed). Arguments point into this
 * program's memory, so read_mem copies from host addresses. */
/* struct mmsghdr, AT_EMPTY_PATH */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/poll.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "recorder/syscall_effects.h"
#include "tests/check.h"

#define P(x) ((uint64_t)(uintptr_t)(x))

struct effect {
    enum syscall_access kind;
    uint64_t addr, size;
};

enum { MAX_RECORDED = 64 };

static struct effect recorded[MAX_RECORDED];
static int recorded_count;
static int overflowed;

static void record_effect(void *ctx, enum syscall_access kind, uint64_t addr, uint64_t size)
{
    (void)ctx;
    if (recorded_count == MAX_RECORDED) {
        overflowed = 1;
        return;
    }
    recorded[recorded_count].kind = kind;
    recorded[recorded_count].addr = addr;
    recorded[recorded_count].size = size;
    recorded_count++;
}

/* Copies byte by byte from the host address. Strings are scanned in chunks
 * that may pass the end of a buffer (never of a page), which AddressSanitizer
 * would flag in a memcpy. */
__attribute__((no_sanitize_address)) static int host_read(void *ctx, uint64_t addr, void *buf,
                                                          uint64_t size)
{
    const uint64_t *readable_end = ctx;
    if (readable_end && addr + size > *readable_end)
        return -1;
    const volatile uint8_t *src = (const volatile uint8_t *)(uintptr_t)addr;
    uint8_t *dst = buf;
    for (uint64_t i = 0; i < size; i++)
        dst[i] = src[i];
    return 0;
}

/* Runs the table on NR(ARGS) returning RESULT; the effects land in recorded[]. */
static enum syscall_known run_with(uint64_t nr, int64_t result, const uint64_t args[6],
                                   void *read_ctx)
{
    recorded_count = 0;
    overflowed = 0;
    return syscall_effects(nr, args, result, host_read, record_effect, read_ctx);
}

#define RUN(nr, result, ...) run_with(nr, result, (const uint64_t[6]){__VA_ARGS__}, NULL)
#define KR(a, s) {SYSCALL_KREAD, P(a), (s)}
#define KW(a, s) {SYSCALL_KWRITE, P(a), (s)}

static void expect_effects(int line, const struct effect *want, int want_count)
{
    int ok = !overflowed && recorded_count == want_count;
    for (int i = 0; ok && i < want_count; i++)
        ok = recorded[i].kind == want[i].kind && recorded[i].addr == want[i].addr &&
             recorded[i].size == want[i].size;
    if (ok)
        return;
    check_failures++;
    fprintf(stderr, "%s:%d: effects differ\n  expected:", __FILE__, line);
    for (int i = 0; i < want_count; i++)
        fprintf(stderr, " %s(%#" PRIx64 ",%" PRIu64 ")", want[i].kind == SYSCALL_KREAD ? "R" : "W",
                want[i].addr, want[i].size);
    fprintf(stderr, "\n  got:     ");
    for (int i = 0; i < recorded_count; i++)
        fprintf(stderr, " %s(%#" PRIx64 ",%" PRIu64 ")",
                recorded[i].kind == SYSCALL_KREAD ? "R" : "W", recorded[i].addr, recorded[i].size);
    fprintf(stderr, "%s\n", overflowed ? " ..." : "");
}

#define EXPECT(...)                                                                        \
    do {                                                                                   \
        const struct effect want_[] = {__VA_ARGS__};                                       \
        expect_effects(__LINE__, want_, (int)(sizeof want_ / sizeof want_[0]));            \
    } while (0)
#define EXPECT_NONE() expect_effects(__LINE__, NULL, 0)

/* ---- Hand-built calls ----------------------------------------------------- */

static void read_write_family(void)
{
    char buf[32];
    CHECK_EQ(RUN(SYS_read, 5, 3, P(buf), sizeof buf), SYSCALL_MODELED);
    EXPECT(KW(buf, 5));
    CHECK_EQ(RUN(SYS_read, -9, 3, P(buf), sizeof buf), SYSCALL_MODELED); /* EBADF */
    EXPECT_NONE();
    RUN(SYS_read, 0, 3, P(buf), sizeof buf); /* end of file */
    EXPECT_NONE();
    RUN(SYS_read, -4095, 3, P(buf), sizeof buf);
    EXPECT_NONE();
    RUN(SYS_pread64, 7, 3, P(buf), sizeof buf, 100);
    EXPECT(KW(buf, 7));

    RUN(SYS_write, 3, 1, P(buf), 10);
    EXPECT(KR(buf, 3));
    RUN(SYS_pwrite64, 10, 1, P(buf), 10, 0);
    EXPECT(KR(buf, 10));

    char a[4], b[10], c[8];
    struct iovec iov[3] = {{a, sizeof a}, {b, sizeof b}, {c, sizeof c}};
    RUN(SYS_readv, 7, 3, P(iov), 3);
    EXPECT(KR(iov, 48), KW(a, 4), KW(b, 3));
    RUN(SYS_readv, 0, 3, P(iov), 3);
    EXPECT(KR(iov, 48));
    RUN(SYS_preadv, 22, 3, P(iov), 3, 0, 0);
    EXPECT(KR(iov, 48), KW(a, 4), KW(b, 10), KW(c, 8));
    RUN(SYS_writev, 5, 1, P(iov), 2);
    EXPECT(KR(iov, 32), KR(a, 4), KR(b, 1));
    /* An empty iovec in the middle is skipped. */
    struct iovec gap[3] = {{a, 2}, {b, 0}, {c, 8}};
    RUN(SYS_pwritev, 6, 1, P(gap), 3, 0, 0);
    EXPECT(KR(gap, 48), KR(a, 2), KR(c, 4));

    char dirents[256];
    RUN(SYS_getdents64, 48, 3, P(dirents), sizeof dirents);
    EXPECT(KW(dirents, 48));
    RUN(SYS_getrandom, 16, P(buf), 16, 0);
    EXPECT(KW(buf, 16));
    RUN(SYS_getrandom, 5, P(buf), 16, 1 /* GRND_NONBLOCK */); /* fewer than asked */
    EXPECT(KW(buf, 5));
    RUN(SYS_getcwd, 6, P(buf), sizeof buf); /* "/tmp/" and its NUL */
    EXPECT(KW(buf, 6));
    off_t off = 0;
    RUN(SYS_sendfile, 100, 4, 3, P(&off), 100);
    EXPECT(KR(&off, 8), KW(&off, 8));
    RUN(SYS_sendfile, 100, 4, 3, 0, 100);
    EXPECT_NONE();
}

static void path_family(void)
{
    static const char path[] = "/etc/hostname";
    struct stat st;
    RUN(SYS_openat, 3, AT_FDCWD, P(path), O_RDONLY);
    EXPECT(KR(path, sizeof path));
    RUN(SYS_open, -2, P(path), O_RDONLY); /* ENOENT */
    EXPECT_NONE();
    RUN(SYS_newfstatat, 0, AT_FDCWD, P(path), P(&st), 0);
    EXPECT(KR(path, sizeof path), KW(&st, 144));
    static const char empty[] = "";
    RUN(SYS_newfstatat, 0, 3, P(empty), P(&st), AT_EMPTY_PATH);
    EXPECT(KR(empty, 1), KW(&st, 144));
    RUN(SYS_fstat, 0, 3, P(&st));
    EXPECT(KW(&st, 144));
    char statx_buf[256];
    RUN(SYS_statx, 0, AT_FDCWD, P(path), 0, 0x7ff, P(statx_buf));
    EXPECT(KR(path, sizeof path), KW(statx_buf, 256));
    char link[64];
    RUN(SYS_readlinkat, 9, AT_FDCWD, P(path), P(link), sizeof link);
    EXPECT(KR(path, sizeof path), KW(link, 9));
    static const char other[] = "/tmp/b";
    RUN(SYS_renameat2, 0, AT_FDCWD, P(path), AT_FDCWD, P(other), 0);
    EXPECT(KR(path, sizeof path), KR(other, sizeof other));
    /* A 100-byte path spans two 64-byte chunks. */
    char long_path[101];
    for (int i = 0; i < 100; i++)
        long_path[i] = 'a';
    long_path[100] = 0;
    RUN(SYS_mkdir, 0, P(long_path), 0755);
    EXPECT(KR(long_path, 101));
}

/* A path that ends at the last byte of a page followed by an inaccessible
 * page: the scan must stop at the NUL without touching the next page. */
static void path_at_page_end(void)
{
    long page = sysconf(_SC_PAGESIZE);
    char *map = mmap(NULL, 2 * (size_t)page, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(map != MAP_FAILED);
    if (map == MAP_FAILED)
        return;
    CHECK(mprotect(map + page, (size_t)page, PROT_NONE) == 0);
    char *path = map + page - 10;
    for (int i = 0; i < 9; i++)
        path[i] = 'x';
    path[9] = 0;
    RUN(SYS_unlink, 0, P(path));
    EXPECT(KR(path, 10));

    /* A callback that refuses reads past a limit inside the page: chunks are
     * retried byte by byte. */
    uint64_t limit = P(map) + 100;
    char *near = map + 80;
    for (int i = 0; i < 19; i++)
        near[i] = 'y';
    near[19] = 0;
    run_with(SYS_access, 0, (const uint64_t[6]){P(near), 0}, &limit);
    EXPECT(KR(near, 20));
    /* Unreadable from the start: no effect. */
    limit = P(map);
    run_with(SYS_access, 0, (const uint64_t[6]){P(near), 0}, &limit);
    EXPECT_NONE();
    munmap(map, 2 * (size_t)page);
}

static void no_effect_calls(void)
{
    CHECK_EQ(RUN(SYS_futex, 0, 0x1000, 0, 1, 0, 0, 0), SYSCALL_MODELED);
    EXPECT_NONE();
    uint64_t none[] = {SYS_getpid, SYS_close, SYS_exit_group, SYS_sched_yield, SYS_mmap,
                       SYS_munmap, SYS_mprotect, SYS_brk, SYS_madvise, SYS_dup3, SYS_lseek,
                       SYS_tgkill, SYS_gettid, SYS_set_tid_address, SYS_set_robust_list,
                       SYS_rseq, SYS_membarrier, SYS_eventfd2, SYS_mremap};
    for (size_t i = 0; i < sizeof none / sizeof none[0]; i++) {
        CHECK_EQ(RUN(none[i], 0, 0x1000, 0x2000, 0x3000, 0x4000, 0x5000, 0x6000), SYSCALL_MODELED);
        EXPECT_NONE();
    }
    CHECK_EQ(RUN(999, 0, 0x1000), SYSCALL_UNKNOWN);
    EXPECT_NONE();
    CHECK_EQ(RUN(999, -1, 0x1000), SYSCALL_UNKNOWN);
    CHECK_EQ(RUN(UINT64_MAX, 0), SYSCALL_UNKNOWN);
    CHECK_EQ(RUN(SYS_kexec_load, 0), SYSCALL_UNKNOWN); /* a real syscall left out */
}

static void polling(void)
{
    struct pollfd fds[3];
    RUN(SYS_poll, 1, P(fds), 3, 100);
    EXPECT(KR(fds, 24), KW(&fds[0].revents, 2), KW(&fds[1].revents, 2),
           KW(&fds[2].revents, 2));
    struct timespec ts;
    uint64_t mask = 0;
    RUN(SYS_ppoll, 0, P(fds), 1, P(&ts), P(&mask), 8);
    EXPECT(KR(&ts, 16), KR(&mask, 8), KR(fds, 8), KW(&fds[0].revents, 2), KW(&ts, 16));

    struct epoll_event events[4];
    RUN(SYS_epoll_wait, 2, 5, P(events), 4, -1);
    EXPECT(KW(events, 24));
    RUN(SYS_epoll_wait, 0, 5, P(events), 4, 0);
    EXPECT_NONE();
    RUN(SYS_epoll_pwait, 1, 5, P(events), 4, -1, P(&mask), 8);
    EXPECT(KR(&mask, 8), KW(events, 12));
    struct epoll_event ev;
    RUN(SYS_epoll_ctl, 0, 5, EPOLL_CTL_ADD, 3, P(&ev));
    EXPECT(KR(&ev, 12));
    CHECK_EQ(RUN(SYS_epoll_ctl, 0, 5, EPOLL_CTL_DEL, 3, P(&ev)), SYSCALL_MODELED);
    EXPECT_NONE();

    fd_set readfds, writefds;
    struct timeval tv;
    RUN(SYS_select, 1, 5, P(&readfds), P(&writefds), 0, P(&tv));
    EXPECT(KR(&tv, 16), KR(&readfds, 8), KR(&writefds, 8), KW(&readfds, 8), KW(&writefds, 8),
           KW(&tv, 16));
    RUN(SYS_select, 0, 65, P(&readfds), 0, 0, 0); /* 65 fds: two longs */
    EXPECT(KR(&readfds, 16), KW(&readfds, 16));
    RUN(SYS_select, 0, 0, 0, 0, 0, P(&tv)); /* a sleep */
    EXPECT(KR(&tv, 16), KW(&tv, 16));
    struct {
        uint64_t set, len;
    } sig = {P(&mask), 8};
    RUN(SYS_pselect6, 1, 64, P(&readfds), 0, 0, P(&ts), P(&sig));
    EXPECT(KR(&ts, 16), KR(&sig, 16), KR(&mask, 8), KR(&readfds, 8), KW(&readfds, 8),
           KW(&ts, 16));
}

static void time_and_process(void)
{
    struct timespec ts;
    RUN(SYS_clock_gettime, 0, CLOCK_MONOTONIC, P(&ts));
    EXPECT(KW(&ts, 16));
    RUN(SYS_clock_getres, 0, CLOCK_MONOTONIC, 0);
    EXPECT_NONE();
    RUN(SYS_clock_nanosleep, 0, CLOCK_MONOTONIC, 0, P(&ts), P(&ts));
    EXPECT(KR(&ts, 16));
    struct timeval tv;
    uint64_t tz;
    RUN(SYS_gettimeofday, 0, P(&tv), P(&tz));
    EXPECT(KW(&tv, 16), KW(&tz, 8));
    RUN(SYS_gettimeofday, 0, P(&tv), 0);
    EXPECT(KW(&tv, 16));
    uint64_t t;
    RUN(SYS_time, 1700000000, P(&t));
    EXPECT(KW(&t, 8));
    RUN(SYS_time, 1700000000, 0);
    EXPECT_NONE();

    uint8_t old_rl[16], new_rl[16];
    RUN(SYS_prlimit64, 0, 0, 7, P(new_rl), P(old_rl));
    EXPECT(KR(new_rl, 16), KW(old_rl, 16));
    RUN(SYS_prlimit64, 0, 0, 7, 0, P(old_rl));
    EXPECT(KW(old_rl, 16));

    int status;
    uint8_t rusage[144];
    RUN(SYS_wait4, 1234, -1, P(&status), 0, P(rusage));
    EXPECT(KW(&status, 4), KW(rusage, 144));
    RUN(SYS_wait4, 0, -1, P(&status), 1 /* WNOHANG */, P(rusage));
    EXPECT_NONE();

    uint8_t info[128];
    for (size_t i = 0; i < sizeof info; i++)
        info[i] = 0;
    info[0] = 17; /* si_signo = SIGCHLD: a child was reaped */
    RUN(SYS_waitid, 0, 0, 0, P(info), 4, P(rusage));
    EXPECT(KW(rusage, 144), KW(info, 12), KW(info + 16, 12));
    info[0] = 0; /* WNOHANG, nothing to reap */
    RUN(SYS_waitid, 0, 0, 0, P(info), 5, P(rusage));
    EXPECT(KW(info, 12), KW(info + 16, 12));

    uint8_t act[32], oldact[32];
    RUN(SYS_rt_sigaction, 0, SIGUSR1, P(act), P(oldact), 8);
    EXPECT(KR(act, 32), KW(oldact, 32));
    RUN(SYS_rt_sigaction, 0, SIGUSR1, 0, P(oldact), 8);
    EXPECT(KW(oldact, 32));
    uint64_t set, oldset;
    RUN(SYS_rt_sigprocmask, 0, SIG_BLOCK, P(&set), P(&oldset), 8);
    EXPECT(KR(&set, 8), KW(&oldset, 8));

    uint8_t uts[390];
    RUN(SYS_uname, 0, P(uts));
    EXPECT(KW(uts, 390));
    int32_t groups[8];
    RUN(SYS_getgroups, 3, 0, P(groups)); /* the count only */
    EXPECT_NONE();
    RUN(SYS_getgroups, 3, 8, P(groups));
    EXPECT(KW(groups, 12));
    uint8_t vec[3];
    RUN(SYS_mincore, 0, 0x10000, 8193, P(vec));
    EXPECT(KW(vec, 3));
    uint8_t mask_bytes[128];
    RUN(SYS_sched_getaffinity, 8, 0, sizeof mask_bytes, P(mask_bytes));
    EXPECT(KW(mask_bytes, 8));

    static char *const argv[] = {"/bin/echo", "hi", NULL};
    static char *const envp[] = {"A=1", NULL};
    static const char prog[] = "/bin/echo";
    RUN(SYS_execve, 0, P(prog), P(argv), P(envp));
    EXPECT(KR(prog, 10), KR(argv, 24), KR(argv[0], 10), KR(argv[1], 3), KR(envp, 16),
           KR(envp[0], 4));

    int parent_tid, child_tid;
    uint64_t flags = 0x100000 /* PARENT_SETTID */ | 0x1000000 /* CHILD_SETTID */;
    RUN(SYS_clone, 4321, flags, 0, P(&parent_tid), P(&child_tid), 0);
    EXPECT(KW(&parent_tid, 4));
    RUN(SYS_clone, 0, flags, 0, P(&parent_tid), P(&child_tid), 0);
    EXPECT(KW(&child_tid, 4));
    uint64_t clone_args[11] = {0x100000, 0, P(&child_tid), P(&parent_tid)};
    RUN(SYS_clone3, 4321, P(clone_args), sizeof clone_args);
    EXPECT(KR(clone_args, 88), KW(&parent_tid, 4));
}

static void commands(void)
{
    uint8_t termios[60];
    CHECK_EQ(RUN(SYS_ioctl, 0, 0, 0x5401 /* TCGETS */, P(termios)), SYSCALL_MODELED);
    EXPECT(KW(termios, 36));
    int avail;
    RUN(SYS_ioctl, 0, 3, 0x541B /* FIONREAD */, P(&avail));
    EXPECT(KW(&avail, 4));
    uint16_t winsize[4];
    RUN(SYS_ioctl, 0, 1, 0x5413 /* TIOCGWINSZ */, P(winsize));
    EXPECT(KW(winsize, 8));
    CHECK_EQ(RUN(SYS_ioctl, 0, 3, 0xC0DE1234, P(termios)), SYSCALL_UNKNOWN);
    EXPECT_NONE();
    CHECK_EQ(RUN(SYS_ioctl, -25, 3, 0xC0DE1234, P(termios)), SYSCALL_UNKNOWN);
    /* Only the low 32 bits of the request count. */
    RUN(SYS_ioctl, 0, 0, 0xFFFFFFFF00005401ull, P(termios));
    EXPECT(KW(termios, 36));

    uint8_t flock[32];
    RUN(SYS_fcntl, 0, 3, F_GETLK, P(flock));
    EXPECT(KR(flock, 32), KW(flock, 32));
    RUN(SYS_fcntl, 0, 3, F_SETLKW, P(flock));
    EXPECT(KR(flock, 32));
    CHECK_EQ(RUN(SYS_fcntl, 0x8002, 3, F_GETFL), SYSCALL_MODELED);
    EXPECT_NONE();
    CHECK_EQ(RUN(SYS_fcntl, 0, 3, 9999), SYSCALL_UNKNOWN);

    static const char long_name[] = "a-thread-name-longer-than-15";
    static const char short_name[] = "worker";
    char name[16];
    RUN(SYS_prctl, 0, 15 /* PR_SET_NAME */, P(short_name));
    EXPECT(KR(short_name, 7));
    RUN(SYS_prctl, 0, 15, P(long_name));
    EXPECT(KR(long_name, 15));
    RUN(SYS_prctl, 0, 16 /* PR_GET_NAME */, P(name));
    EXPECT(KW(name, 16));
    CHECK_EQ(RUN(SYS_prctl, 0, 0x7777), SYSCALL_UNKNOWN);
    uint64_t fs;
    RUN(SYS_arch_prctl, 0, 0x1003 /* ARCH_GET_FS */, P(&fs));
    EXPECT(KW(&fs, 8));
    RUN(SYS_arch_prctl, 0, 0x1002 /* ARCH_SET_FS */, P(&fs));
    EXPECT_NONE();
}

static void sockets(void)
{
    int fds[2];
    RUN(SYS_pipe2, 0, P(fds), O_CLOEXEC);
    EXPECT(KW(fds, 8));
    RUN(SYS_socketpair, 0, AF_UNIX, SOCK_STREAM, 0, P(fds));
    EXPECT(KW(fds, 8));

    /* accept: *addrlen holds the address length after the call. */
    uint8_t addr[128];
    socklen_t addrlen = 16;
    RUN(SYS_accept4, 5, 3, P(addr), P(&addrlen), 0);
    EXPECT(KR(&addrlen, 4), KW(addr, 16), KW(&addrlen, 4));
    RUN(SYS_accept, 5, 3, 0, 0);
    EXPECT_NONE();
    RUN(SYS_connect, 0, 3, P(addr), 16);
    EXPECT(KR(addr, 16));
    /* addrlen is an int: what the register holds above its 32 bits is not
     * part of it. */
    RUN(SYS_connect, 0, 3, P(addr), UINT64_C(0xdeadbeef00000010));
    EXPECT(KR(addr, 16));
    RUN(SYS_getsockname, 0, 3, P(addr), P(&addrlen));
    EXPECT(KR(&addrlen, 4), KW(addr, 16), KW(&addrlen, 4));

    char buf[64];
    RUN(SYS_recvfrom, 10, 3, P(buf), sizeof buf, 0, P(addr), P(&addrlen));
    EXPECT(KR(&addrlen, 4), KW(buf, 10), KW(addr, 16), KW(&addrlen, 4));
    RUN(SYS_recvfrom, 10, 3, P(buf), sizeof buf, 0, 0, 0);
    EXPECT(KW(buf, 10));
    RUN(SYS_sendto, 8, 3, P(buf), sizeof buf, 0, P(addr), 16);
    EXPECT(KR(addr, 16), KR(buf, 8));

    int optval;
    socklen_t optlen = 4;
    RUN(SYS_getsockopt, 0, 3, SOL_SOCKET, SO_ERROR, P(&optval), P(&optlen));
    EXPECT(KR(&optlen, 4), KW(&optval, 4), KW(&optlen, 4));
    RUN(SYS_setsockopt, 0, 3, SOL_SOCKET, SO_REUSEADDR, P(&optval), 4);
    EXPECT(KR(&optval, 4));

    /* recvmsg with an address and control data; the header holds what the
     * kernel stored: namelen 16, controllen 24. */
    char a[4], b[16], control[64];
    struct iovec iov[2] = {{a, sizeof a}, {b, sizeof b}};
    struct msghdr msg = {0};
    msg.msg_name = addr;
    msg.msg_namelen = 16;
    msg.msg_iov = iov;
    msg.msg_iovlen = 2;
    msg.msg_control = control;
    msg.msg_controllen = 24;
    RUN(SYS_recvmsg, 6, 3, P(&msg), 0);
    EXPECT(KR(&msg, 56), KR(iov, 32), KW(a, 4), KW(b, 2), KW(control, 24), KW(addr, 16),
           KW(&msg.msg_namelen, 4), KW(&msg.msg_flags, 4), KW(&msg.msg_controllen, 8));
    /* A connected socket: no address, no control. */
    struct msghdr plain = {0};
    plain.msg_iov = iov;
    plain.msg_iovlen = 1;
    RUN(SYS_recvmsg, 3, 3, P(&plain), 0);
    EXPECT(KR(&plain, 56), KR(iov, 16), KW(a, 3), KW(&plain.msg_flags, 4),
           KW(&plain.msg_controllen, 8));

    msg.msg_namelen = 16;
    RUN(SYS_sendmsg, 10, 3, P(&msg), 0);
    EXPECT(KR(&msg, 56), KR(addr, 16), KR(iov, 32), KR(control, 24), KR(a, 4), KR(b, 6));

    /* recvmmsg: two of three messages arrived, of 3 and 5 bytes. */
    char m0[8], m1[8], m2[8];
    struct iovec miov[3] = {{m0, 8}, {m1, 8}, {m2, 8}};
    struct mmsghdr mm[3];
    for (int i = 0; i < 3; i++) {
        struct msghdr zero = {0};
        mm[i].msg_hdr = zero;
        mm[i].msg_hdr.msg_iov = &miov[i];
        mm[i].msg_hdr.msg_iovlen = 1;
        mm[i].msg_len = 0;
    }
    mm[0].msg_len = 3;
    mm[1].msg_len = 5;
    struct timespec timeout;
    RUN(SYS_recvmmsg, 2, 3, P(mm), 3, 0, P(&timeout));
    EXPECT(KR(&timeout, 16), KR(&mm[0], 56), KR(&miov[0], 16), KR(&mm[1], 56),
           KR(&miov[1], 16), KW(m0, 3), KW(&mm[0].msg_hdr.msg_flags, 4),
           KW(&mm[0].msg_hdr.msg_controllen, 8), KW(&mm[0].msg_len, 4), KW(m1, 5),
           KW(&mm[1].msg_hdr.msg_flags, 4), KW(&mm[1].msg_hdr.msg_controllen, 8),
           KW(&mm[1].msg_len, 4), KW(&timeout, 16));
    RUN(SYS_sendmmsg, 1, 3, P(mm), 3, 0);
    EXPECT(KR(&mm[0], 56), KR(&miov[0], 16), KR(m0, 3), KW(&mm[0].msg_len, 4));
}

/* Totals of a call's effects, for calls too large to list. */
struct totals {
    uint64_t reads, writes, read_bytes, write_bytes;
};

static void count_effect(void *ctx, enum syscall_access kind, uint64_t addr, uint64_t size)
{
    (void)addr;
    struct totals *t = ctx;
    if (kind == SYSCALL_KREAD)
        t->reads++, t->read_bytes += size;
    else
        t->writes++, t->write_bytes += size;
}

/* host_read with every address readable (the context is the totals). */
static int read_any(void *ctx, uint64_t addr, void *buf, uint64_t size)
{
    (void)ctx;
    return host_read(NULL, addr, buf, size);
}

static enum syscall_known count_run(uint64_t nr, int64_t result, const uint64_t args[6],
                                    struct totals *t)
{
    *t = (struct totals){0};
    return syscall_effects(nr, args, result, read_any, count_effect, t);
}

/* Counts past what the kernel accepts (a corrupt record, or a fuzzer's)
 * stop at the kernel's bound, and the call says it was clipped: a poll of
 * 138 M descriptors once took a fuzz run 14 s. */
static void kernel_bounds(void)
{
    enum { POLL_MAX = 1 << 20, ARG_BYTES = 6 << 20 };
    struct totals t;
    uint64_t fds = 0x10000;  /* never read */
    CHECK_EQ(count_run(SYS_poll, 1, (const uint64_t[6]){fds, POLL_MAX, 0}, &t),
             SYSCALL_MODELED);
    CHECK_EQ(t.read_bytes, (uint64_t)POLL_MAX * 8);
    CHECK_EQ(t.writes, (uint64_t)POLL_MAX);
    CHECK_EQ(count_run(SYS_poll, 1, (const uint64_t[6]){fds, 0x8401006, 0}, &t),
             SYSCALL_CLIPPED);
    CHECK_EQ(t.read_bytes, (uint64_t)POLL_MAX * 8);
    CHECK_EQ(t.writes, (uint64_t)POLL_MAX);
    CHECK_EQ(count_run(SYS_ppoll, 1, (const uint64_t[6]){fds, UINT32_MAX, 0, 0}, &t),
             SYSCALL_CLIPPED);
    CHECK_EQ(t.writes, (uint64_t)POLL_MAX);

    /* More messages than vlen, or than UIO_MAXIOV: the first vlen are read. */
    struct mmsghdr mm[2] = {{.msg_len = 0}, {.msg_len = 0}};
    CHECK_EQ(count_run(SYS_sendmmsg, 5, (const uint64_t[6]){3, P(mm), 2}, &t), SYSCALL_CLIPPED);
    CHECK_EQ(t.reads, 2u);
    CHECK_EQ(count_run(SYS_sendmmsg, 2, (const uint64_t[6]){3, P(mm), 2}, &t), SYSCALL_MODELED);
    CHECK_EQ(t.reads, 2u);
    CHECK_EQ(count_run(SYS_recvmmsg, INT64_MAX, (const uint64_t[6]){3, 0, 5000}, &t),
             SYSCALL_CLIPPED);

    /* execve's argv: at most 6 MiB of pointers and strings. 100 strings of
     * 100,000 bytes pass it: the reads stop at exactly 6 MiB. */
    enum { STRINGS = 100, STRING_BYTES = 100000 };
    char *text = malloc(STRING_BYTES);
    char **argv = calloc(STRINGS + 1, sizeof *argv);
    memset(text, 'x', STRING_BYTES - 1);
    text[STRING_BYTES - 1] = '\0';
    for (int i = 0; i < STRINGS; i++)
        argv[i] = text;
    static const char prog[] = "/bin/true";
    CHECK_EQ(count_run(SYS_execve, 0, (const uint64_t[6]){P(prog), P(argv), 0}, &t),
             SYSCALL_CLIPPED);
    CHECK_EQ(t.read_bytes, sizeof prog + (uint64_t)ARG_BYTES);
    argv[60] = NULL;  /* 6,000,000 bytes of strings and 488 of pointers: within */
    CHECK_EQ(count_run(SYS_execve, 0, (const uint64_t[6]){P(prog), P(argv), 0}, &t),
             SYSCALL_MODELED);
    CHECK_EQ(t.read_bytes, sizeof prog + 61 * 8 + 60 * (uint64_t)STRING_BYTES);
    /* A pointer array with no NULL in 6 MiB. */
    uint64_t *pointers = malloc(ARG_BYTES + 64);
    for (size_t i = 0; i < (ARG_BYTES + 64) / 8; i++)
        pointers[i] = P(prog);
    pointers[ARG_BYTES / 8] = 0;  /* one past the bound */
    CHECK_EQ(count_run(SYS_execve, 0, (const uint64_t[6]){P(prog), P(pointers), 0}, &t),
             SYSCALL_CLIPPED);
    CHECK_EQ(t.read_bytes, sizeof prog + (uint64_t)ARG_BYTES);
    pointers[ARG_BYTES / 8 - 1] = 0;  /* the NULL as the last word within */
    CHECK_EQ(count_run(SYS_execve, 0, (const uint64_t[6]){P(prog), P(pointers), 0}, &t),
             SYSCALL_CLIPPED);  /* the pointers fill it: no room for the strings */
    free(pointers);
    free(argv);
    free(text);
}

/* Every row's number and name agree with the C library's SYS_ constants. */
static void names(void)
{
#define N(name) {SYS_##name, #name}
    static const struct {
        uint64_t nr;
        const char *name;
    } rows[] = {
        N(read), N(write), N(pread64), N(pwrite64), N(readv), N(writev), N(preadv), N(pwritev),
        N(preadv2), N(pwritev2), N(getdents), N(getdents64), N(sendfile), N(splice),
        N(copy_file_range), N(tee), N(close), N(close_range), N(lseek), N(dup), N(dup2),
        N(dup3), N(flock), N(fsync), N(fdatasync), N(ftruncate), N(fchmod), N(fchown),
        N(fchdir), N(readahead), N(fadvise64), N(sync_file_range), N(fallocate), N(sync),
        N(syncfs), N(ioctl), N(fcntl), N(open), N(creat), N(openat), N(openat2), N(stat),
        N(fstat), N(lstat), N(newfstatat), N(statx), N(statfs), N(fstatfs), N(access),
        N(faccessat), N(faccessat2), N(readlink), N(readlinkat), N(getcwd), N(chdir),
        N(chroot), N(mkdir), N(mkdirat), N(rmdir), N(unlink), N(unlinkat), N(rename),
        N(renameat), N(renameat2), N(link), N(linkat), N(symlink), N(symlinkat), N(chmod),
        N(fchmodat), N(chown), N(lchown), N(fchownat), N(mknod), N(mknodat), N(truncate),
        N(utime), N(utimes), N(futimesat), N(utimensat), N(umount2), N(pivot_root), N(acct),
        N(setxattr), N(lsetxattr), N(fsetxattr), N(getxattr), N(lgetxattr), N(fgetxattr),
        N(listxattr), N(llistxattr), N(flistxattr), N(removexattr), N(lremovexattr),
        N(fremovexattr), N(inotify_add_watch), N(fanotify_mark), N(memfd_create), N(umask),
        N(inotify_init), N(inotify_init1), N(inotify_rm_watch), N(fanotify_init), N(execve),
        N(execveat), N(clone), N(clone3), N(fork), N(vfork), N(exit), N(exit_group), N(wait4),
        N(waitid), N(getpid), N(getppid), N(gettid), N(getuid), N(geteuid), N(getgid),
        N(getegid), N(setuid), N(setgid), N(setreuid), N(setregid), N(setresuid),
        N(setresgid), N(setfsuid), N(setfsgid), N(getresuid), N(getresgid), N(getgroups),
        N(setgroups), N(setpgid), N(getpgid), N(getpgrp), N(setsid), N(getsid),
        N(getpriority), N(setpriority), N(personality), N(uname), N(sysinfo), N(times),
        N(getrusage), N(getrlimit), N(setrlimit), N(prlimit64), N(sethostname),
        N(setdomainname), N(prctl), N(arch_prctl), N(set_tid_address), N(set_robust_list),
        N(get_robust_list), N(rseq), N(restart_syscall), N(pidfd_open), N(pidfd_getfd),
        N(pidfd_send_signal), N(kcmp), N(mmap), N(mprotect), N(munmap), N(brk), N(mremap),
        N(msync), N(mincore), N(madvise), N(mlock), N(munlock), N(mlockall), N(munlockall),
        N(mlock2), N(pkey_mprotect), N(pkey_alloc), N(pkey_free), N(membarrier),
        N(userfaultfd), N(shmget), N(shmat), N(shmdt), N(semget), N(semop), N(semtimedop),
        N(msgget), N(futex), N(sched_yield), N(sched_setparam), N(sched_getparam),
        N(sched_setscheduler), N(sched_getscheduler), N(sched_get_priority_max),
        N(sched_get_priority_min), N(sched_rr_get_interval), N(sched_setaffinity),
        N(sched_getaffinity), N(getcpu), N(ioprio_set), N(ioprio_get), N(clock_gettime),
        N(clock_getres), N(clock_settime), N(clock_adjtime), N(adjtimex), N(clock_nanosleep),
        N(nanosleep), N(gettimeofday), N(settimeofday), N(time), N(getitimer), N(setitimer),
        N(alarm), N(pause), N(timer_create), N(timer_settime), N(timer_gettime),
        N(timer_getoverrun), N(timer_delete), N(timerfd_create), N(timerfd_settime),
        N(timerfd_gettime), N(rt_sigaction), N(rt_sigprocmask), N(rt_sigreturn),
        N(rt_sigpending), N(rt_sigtimedwait), N(rt_sigqueueinfo), N(rt_tgsigqueueinfo),
        N(rt_sigsuspend), N(sigaltstack), N(kill), N(tkill), N(tgkill), N(signalfd),
        N(signalfd4), N(eventfd), N(eventfd2), N(poll), N(ppoll), N(select), N(pselect6),
        N(epoll_create), N(epoll_create1), N(epoll_ctl), N(epoll_wait), N(epoll_pwait),
        N(epoll_pwait2), N(pipe), N(pipe2), N(socket), N(socketpair), N(connect), N(bind),
        N(listen), N(shutdown), N(accept), N(accept4), N(getsockname), N(getpeername),
        N(sendto), N(recvfrom), N(sendmsg), N(recvmsg), N(sendmmsg), N(recvmmsg),
        N(setsockopt), N(getsockopt), N(getrandom), N(unshare), N(setns), N(iopl), N(ioperm),
        N(vhangup), N(swapon), N(swapoff), N(memfd_secret), N(process_mrelease),
        N(futex_waitv),
    };
#undef N
    size_t count = sizeof rows / sizeof rows[0];
    for (size_t i = 0; i < count; i++)
        CHECK_STR(syscall_name(rows[i].nr), rows[i].name);
    /* No other number has a row. */
    size_t named = 0;
    for (uint64_t nr = 0; nr < 1024; nr++)
        named += syscall_name(nr) != NULL;
    CHECK_EQ(named, count);
    CHECK(syscall_name(999) == NULL);
    CHECK(syscall_name(UINT64_MAX) == NULL);
}

/* ---- Real syscalls --------------------------------------------------------- */

enum { PATTERN = 0xAA, SNAPSHOT_MAX = 1024 };

static uint8_t snapshot[SNAPSHOT_MAX];

/* Fills REGION with the pattern. */
static void fill_pattern(void *region, size_t size)
{
    memset(region, PATTERN, size);
}

/* Remembers REGION's bytes before a real call. */
static void take_snapshot(const void *region, size_t size)
{
    memcpy(snapshot, region, size < SNAPSHOT_MAX ? size : SNAPSHOT_MAX);
}

/* After a real call: every byte of REGION that differs from the snapshot
 * lies inside a recorded write, and every recorded write lies inside
 * REGION. */
static void check_changes_covered(int line, const void *region_ptr, size_t size)
{
    const uint8_t *region = region_ptr;
    CHECK(size <= SNAPSHOT_MAX);
    for (int i = 0; i < recorded_count; i++) {
        if (recorded[i].kind != SYSCALL_KWRITE)
            continue;
        uint64_t end = recorded[i].addr + recorded[i].size;
        if (recorded[i].addr < P(region) || end > P(region) + size) {
            fprintf(stderr, "%s:%d: write %#" PRIx64 "+%" PRIu64 " outside the buffer\n",
                    __FILE__, line, recorded[i].addr, recorded[i].size);
            check_failures++;
        }
    }
    for (size_t j = 0; j < size && j < SNAPSHOT_MAX; j++) {
        if (region[j] == snapshot[j])
            continue;
        int covered = 0;
        for (int i = 0; i < recorded_count && !covered; i++)
            covered = recorded[i].kind == SYSCALL_KWRITE && P(region + j) >= recorded[i].addr &&
                      P(region + j) < recorded[i].addr + recorded[i].size;
        if (!covered) {
            fprintf(stderr, "%s:%d: byte %zu changed by the kernel, not in any write\n",
                    __FILE__, line, j);
            check_failures++;
            return;
        }
    }
}

/* Runs the table on a real call's arguments and result. */
static int64_t real_call(uint64_t nr, const uint64_t args[6])
{
    long result = syscall((long)nr, args[0], args[1], args[2], args[3], args[4], args[5]);
    int64_t raw = result == -1 ? -(int64_t)errno : result;
    run_with(nr, raw, args, NULL);
    return raw;
}

#define REAL(nr, ...) real_call(nr, (const uint64_t[6]){__VA_ARGS__})

static void real_syscalls(void)
{
    uint8_t area[256];
    fill_pattern(area, sizeof area);
    take_snapshot(area, sizeof area);
    int *pipe_fds = (int *)(area + 8);
    CHECK_EQ(REAL(SYS_pipe2, P(pipe_fds), O_CLOEXEC), 0);
    EXPECT(KW(pipe_fds, 8));
    check_changes_covered(__LINE__, area, sizeof area);
    CHECK(area[7] == PATTERN && area[16] == PATTERN);
    int rfd = pipe_fds[0], wfd = pipe_fds[1];

    static const char hello[] = "hello, kernel";
    CHECK_EQ(REAL(SYS_write, wfd, P(hello), 5), 5);
    EXPECT(KR(hello, 5));
    fill_pattern(area, sizeof area);
    take_snapshot(area, sizeof area);
    uint8_t *into = area + 100;
    CHECK_EQ(REAL(SYS_read, rfd, P(into), 64), 5);
    EXPECT(KW(into, 5));
    check_changes_covered(__LINE__, area, sizeof area);
    CHECK(memcmp(into, "hello", 5) == 0 && into[5] == PATTERN && into[-1] == PATTERN);

    /* readv across two iovecs, short read. */
    CHECK_EQ(REAL(SYS_write, wfd, P(hello), 7), 7);
    fill_pattern(area, sizeof area);
    struct iovec iov[2] = {{area + 10, 4}, {area + 50, 16}};
    take_snapshot(area, sizeof area);
    CHECK_EQ(REAL(SYS_readv, rfd, P(iov), 2), 7);
    EXPECT(KR(iov, 32), KW(area + 10, 4), KW(area + 50, 3));
    check_changes_covered(__LINE__, area, sizeof area);
    CHECK(memcmp(area + 10, "hell", 4) == 0 && memcmp(area + 50, "o, ", 3) == 0 &&
          area[53] == PATTERN);

    /* poll writes only revents. */
    CHECK_EQ(REAL(SYS_write, wfd, P(hello), 1), 1);
    fill_pattern(area, sizeof area);
    struct pollfd *pfd = (struct pollfd *)(area + 32);
    pfd[0].fd = rfd;
    pfd[0].events = POLLIN;
    pfd[1].fd = wfd;
    pfd[1].events = POLLOUT;
    take_snapshot(area, sizeof area);
    CHECK_EQ(REAL(SYS_poll, P(pfd), 2, 0), 2);
    EXPECT(KR(pfd, 16), KW(&pfd[0].revents, 2), KW(&pfd[1].revents, 2));
    check_changes_covered(__LINE__, area, sizeof area);
    CHECK(pfd[0].revents == POLLIN && pfd[1].revents == POLLOUT);

    /* select writes the whole long holding the ready bits. */
    fill_pattern(area, sizeof area);
    fd_set *readable = (fd_set *)(area + 64);
    FD_ZERO(readable);
    FD_SET(rfd, readable);
    struct timeval *no_wait = (struct timeval *)(area + 200);
    no_wait->tv_sec = 0;
    no_wait->tv_usec = 0;
    take_snapshot(area, sizeof area);
    CHECK_EQ(REAL(SYS_select, rfd + 1, P(readable), 0, 0, P(no_wait)), 1);
    EXPECT(KR(no_wait, 16), KR(readable, 8), KW(readable, 8), KW(no_wait, 16));
    check_changes_covered(__LINE__, area, sizeof area);

    /* epoll_wait: one ready event, 12 bytes. */
    int ep = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event ev = {.events = EPOLLIN, .data.u64 = 0x1122334455667788ull};
    CHECK_EQ(REAL(SYS_epoll_ctl, ep, EPOLL_CTL_ADD, rfd, P(&ev)), 0);
    EXPECT(KR(&ev, 12));
    fill_pattern(area, sizeof area);
    take_snapshot(area, sizeof area);
    CHECK_EQ(REAL(SYS_epoll_wait, ep, P(area + 40), 4, 0), 1);
    EXPECT(KW(area + 40, 12));
    check_changes_covered(__LINE__, area, sizeof area);
    close(ep);
    close(rfd);
    close(wfd);

    fill_pattern(area, sizeof area);
    take_snapshot(area, sizeof area);
    CHECK_EQ(REAL(SYS_clock_gettime, CLOCK_REALTIME, P(area + 64)), 0);
    EXPECT(KW(area + 64, 16));
    check_changes_covered(__LINE__, area, sizeof area);

    fill_pattern(area, sizeof area);
    take_snapshot(area, sizeof area);
    CHECK_EQ(REAL(SYS_getrandom, P(area + 3), 40, 0), 40);
    EXPECT(KW(area + 3, 40));
    check_changes_covered(__LINE__, area, sizeof area);

    static const char root[] = "/";
    struct {
        uint8_t before[16];
        struct stat st;
        uint8_t after[16];
    } statbox;
    fill_pattern(&statbox, sizeof statbox);
    take_snapshot(&statbox, sizeof statbox);
    CHECK_EQ(REAL(SYS_newfstatat, AT_FDCWD, P(root), P(&statbox.st), 0), 0);
    EXPECT(KR(root, 2), KW(&statbox.st, 144));
    check_changes_covered(__LINE__, &statbox, sizeof statbox);

    uint8_t uts[512];
    fill_pattern(uts, sizeof uts);
    take_snapshot(uts, sizeof uts);
    CHECK_EQ(REAL(SYS_uname, P(uts + 8)), 0);
    EXPECT(KW(uts + 8, 390));
    check_changes_covered(__LINE__, uts, sizeof uts);

    fill_pattern(area, sizeof area);
    take_snapshot(area, sizeof area);
    int64_t cwd_len = REAL(SYS_getcwd, P(area + 4), 200);
    CHECK(cwd_len > 0);
    EXPECT(KW(area + 4, (uint64_t)cwd_len));
    check_changes_covered(__LINE__, area, sizeof area);
    CHECK(cwd_len > 0 && area[4 + cwd_len - 1] == 0 && area[4 + cwd_len] == PATTERN);

    fill_pattern(area, sizeof area);
    take_snapshot(area, sizeof area);
    CHECK_EQ(REAL(SYS_rt_sigaction, SIGUSR2, 0, P(area + 16), 8), 0);
    EXPECT(KW(area + 16, 32));
    check_changes_covered(__LINE__, area, sizeof area);

    /* recvmsg over a datagram socket pair: payload, flags and controllen. */
    int sv[2];
    CHECK(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) == 0);
    CHECK(send(sv[1], "datagram", 8, 0) == 8);
    fill_pattern(area, sizeof area);
    struct iovec riov = {area + 20, 64};
    struct msghdr *msg = (struct msghdr *)(area + 128);
    msg->msg_name = NULL;
    msg->msg_namelen = 0;
    msg->msg_iov = &riov;
    msg->msg_iovlen = 1;
    msg->msg_control = NULL;
    msg->msg_controllen = 0;
    take_snapshot(area, sizeof area);
    CHECK_EQ(REAL(SYS_recvmsg, sv[0], P(msg), 0), 8);
    EXPECT(KR(msg, 56), KR(&riov, 16), KW(area + 20, 8), KW(&msg->msg_flags, 4),
           KW(&msg->msg_controllen, 8));
    check_changes_covered(__LINE__, area, sizeof area);
    CHECK(msg->msg_flags == 0 && memcmp(area + 20, "datagram", 8) == 0);

    /* getsockopt: optval gets the returned length. */
    fill_pattern(area, sizeof area);
    socklen_t *optlen = (socklen_t *)(area + 200);
    *optlen = 64;
    take_snapshot(area, sizeof area);
    CHECK_EQ(REAL(SYS_getsockopt, sv[0], SOL_SOCKET, SO_TYPE, P(area + 8), P(optlen)), 0);
    EXPECT(KR(optlen, 4), KW(area + 8, 4), KW(optlen, 4));
    check_changes_covered(__LINE__, area, sizeof area);

    /* getsockname on an unnamed AF_UNIX socket: the address is the 2-byte
     * family, and *addrlen becomes 2. */
    fill_pattern(area, sizeof area);
    socklen_t *addrlen = (socklen_t *)(area + 160);
    *addrlen = 110;
    take_snapshot(area, sizeof area);
    CHECK_EQ(REAL(SYS_getsockname, sv[0], P(area + 8), P(addrlen)), 0);
    EXPECT(KR(addrlen, 4), KW(area + 8, 2), KW(addrlen, 4));
    check_changes_covered(__LINE__, area, sizeof area);
    close(sv[0]);
    close(sv[1]);

    /* TCGETS writes the kernel's 36-byte termios, not glibc's 60. */
    int pty = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (pty >= 0) {
        fill_pattern(area, sizeof area);
        take_snapshot(area, sizeof area);
        CHECK_EQ(REAL(SYS_ioctl, pty, 0x5401, P(area + 8)), 0);
        EXPECT(KW(area + 8, 36));
        check_changes_covered(__LINE__, area, sizeof area);
        close(pty);
    } else {
        printf("test_syscall_effects: no /dev/ptmx, real TCGETS skipped\n");
    }

    /* A failed call changes nothing and is reported with no effect. */
    fill_pattern(area, sizeof area);
    CHECK_EQ(REAL(SYS_read, 12345, P(area), 16), -EBADF);
    EXPECT_NONE();
}

/* Without the program's memory (the rr adapter's case): what the registers
 * say is still there; paths and iovec contents are skipped, not read. */
static void without_memory(void)
{
    char path[] = "/etc/hostname";
    char buf[8];
    struct iovec iov[1] = {{buf, sizeof buf}};
    recorded_count = 0;
    overflowed = 0;
    CHECK(syscall_effects(257 /* openat */, (const uint64_t[6]){(uint64_t)-100, P(path), 0},
                          3, NULL, record_effect, NULL) == SYSCALL_MODELED);
    EXPECT_NONE();
    recorded_count = 0;
    syscall_effects(0 /* read */, (const uint64_t[6]){3, P(buf), sizeof buf}, 5, NULL,
                    record_effect, NULL);
    EXPECT(KW(buf, 5));
    recorded_count = 0;
    syscall_effects(19 /* readv */, (const uint64_t[6]){3, P(iov), 1}, 5, NULL, record_effect,
                    NULL);
    EXPECT(KR(iov, 16));  /* the array itself is in the registers' reach */
}

int main(void)
{
    without_memory();
    read_write_family();
    path_family();
    path_at_page_end();
    no_effect_calls();
    polling();
    time_and_process();
    commands();
    sockets();
    kernel_bounds();
    names();
    real_syscalls();
    return check_report("test_syscall_effects");
}
