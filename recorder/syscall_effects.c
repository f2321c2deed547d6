/* syscall_effects: the user-memory effects of x86-64 Linux system calls,
 * described by one static table indexed by syscall number.
 *
 * Each row names the syscall and lists up to four effect specs: which
 * argument is the pointer, whether the kernel reads or writes there, and how
 * the size follows from the arguments, the result or memory. A few irregular
 * calls (msghdr-based socket calls, select, waitid, clone) have a small
 * handler; calls whose effects depend on a command argument (ioctl, fcntl,
 * prctl, arch_prctl, epoll_ctl) have a sub-table keyed by that command. An
 * unlisted command makes the call SYSCALL_UNKNOWN whatever its result, so
 * the caller's count of unknown calls includes it.
 *
 * Effects come in two passes over a row: every read, then every write (the
 * kernel reads arguments before it writes results).
 *
 * Freestanding: no libc (the Valgrind tool links this file); sizes of
 * kernel structures are literal constants for x86-64.
 *
 * Known approximations (the memory seen after the call cannot tell):
 * - socket addresses returned through an in/out length (accept, recvfrom,
 *   getsockname, recvmsg's msg_name): the kernel writes min(caller's length,
 *   address length) bytes and stores the address length; only the latter
 *   survives the call, so the write is min(stored length, 128).
 * - select/pselect6/ppoll write the remaining timeout back, except when it
 *   was zero on entry; the write is always reported.
 * - select's fd sets: the kernel clamps nfds to its fd table size; the
 *   unclamped nfds is used.
 * - recvmmsg/sendmmsg: only the messages counted in the result; the kernel
 *   may also have read the header of the message that stopped the batch.
 * - sched_setaffinity reads min(len, the kernel's cpumask size); len is used.
 * - futex reads (and for PI operations writes) the futex word, rseq and
 *   rt_sigreturn touch the rseq area and the signal frame, CLONE_CHILD_CLEARTID
 *   writes at thread exit: none of these are reported. */
#include "recorder/syscall_effects.h"

#include <stddef.h>

/* ---- Table vocabulary ---------------------------------------------------- */

enum pass { PASS_READS, PASS_WRITES };

/* How a spec derives its size. */
enum size_rule {
    RULE_END = 0,      /* unused slot */
    RULE_FIXED,        /* n bytes */
    RULE_ARG,          /* args[size_arg] * n bytes (64-bit argument) */
    RULE_ARG32,        /* args[size_arg] * n bytes (int/unsigned argument) */
    RULE_RESULT,       /* result * n bytes, capped at args[size_arg] * n if given */
    RULE_STRING,       /* NUL-terminated string, NUL included, at most n bytes */
    RULE_U32_AT_ARG,   /* the u32 at args[size_arg] after the call, in bytes */
    RULE_PAGES_OF_ARG, /* one byte per page of args[size_arg] bytes (mincore) */
    RULE_IOVEC,        /* iovec array (count args[size_arg]): the array is read,
                          the first `result` bytes of the buffers read or written */
    RULE_SOCKADDR_OUT, /* address out, args[size_arg] is the u32 *len in/out */
    RULE_POLLFD,       /* pollfd array (count args[size_arg]): read whole, revents written */
    RULE_STRING_ARRAY, /* NULL-terminated array of strings (execve argv/envp) */
};

/* Bits of effect_spec.how. */
enum {
    HOW_READ = 1,
    HOW_WRITE = 2,
    HOW_IF_POSITIVE = 4, /* only when the result is > 0 (wait4) */
};

#define NO_ARG 0xff

struct effect_spec {
    uint8_t rule;
    uint8_t how;
    uint8_t ptr_arg;
    uint8_t size_arg;
    uint32_t n;
};

/* One command of a command-keyed syscall (ioctl request, fcntl cmd...). */
struct command_row {
    uint32_t code;
    struct effect_spec effects[2];
};

struct call;
typedef void (*custom_fn)(const struct call *c, enum pass pass);

#define MAX_EFFECTS 4

struct syscall_row {
    const char *name;
    struct effect_spec effects[MAX_EFFECTS];
    custom_fn custom;                   /* irregular effects, after the specs */
    const struct command_row *commands; /* keyed by args[command_arg] (low 32 bits) */
    uint8_t command_count;
    uint8_t command_arg;
};

/* The state of one syscall_effects() call. */
struct call {
    const uint64_t *args;
    int64_t result;
    syscall_read_fn read_mem;
    syscall_effect_fn emit;
    void *ctx;
    int *clipped;    /* set when a count passed what the kernel accepts */
};

/* Spec constructors: P is the pointer argument, K the size argument. */
#define FIXED(how, p, bytes) {RULE_FIXED, how, p, NO_ARG, bytes}
#define R_FIXED(p, bytes) FIXED(HOW_READ, p, bytes)
#define W_FIXED(p, bytes) FIXED(HOW_WRITE, p, bytes)
#define RW_FIXED(p, bytes) FIXED(HOW_READ | HOW_WRITE, p, bytes)
#define R_ARG(p, k) {RULE_ARG, HOW_READ, p, k, 1}
#define W_ARG(p, k) {RULE_ARG, HOW_WRITE, p, k, 1}
#define R_ARG32(p, k, mult) {RULE_ARG32, HOW_READ, p, k, mult}
#define R_RESULT(p) {RULE_RESULT, HOW_READ, p, NO_ARG, 1}
#define W_RESULT(p) {RULE_RESULT, HOW_WRITE, p, NO_ARG, 1}
#define W_RESULT_TIMES(p, mult) {RULE_RESULT, HOW_WRITE, p, NO_ARG, mult}
#define W_RESULT_CAP(p, k, mult) {RULE_RESULT, HOW_WRITE, p, k, mult}
#define R_STRING(p, cap) {RULE_STRING, HOW_READ, p, NO_ARG, cap}
#define R_PATH(p) R_STRING(p, PATH_MAX_BYTES)
#define R_XATTR_NAME(p) R_STRING(p, 256)
#define W_U32_AT(p, k) {RULE_U32_AT_ARG, HOW_WRITE, p, k, 1}
#define R_IOV(p, k) {RULE_IOVEC, HOW_READ, p, k, 1}
#define W_IOV(p, k) {RULE_IOVEC, HOW_WRITE, p, k, 1}
#define SOCKADDR_OUT(p, k) {RULE_SOCKADDR_OUT, HOW_READ | HOW_WRITE, p, k, 1}
#define R_STRING_ARRAY(p) {RULE_STRING_ARRAY, HOW_READ, p, NO_ARG, ARG_STRING_MAX}

/* Row constructors. */
#define NONE(nr, nm) [nr] = {.name = nm}
#define SYS(nr, nm, ...) [nr] = {.name = nm, .effects = {__VA_ARGS__}}
#define CUSTOM(nr, nm, fn) [nr] = {.name = nm, .custom = fn}
#define BY_COMMAND(nr, nm, arg, table)                                                     \
    [nr] = {.name = nm,                                                                    \
            .commands = table,                                                             \
            .command_count = sizeof(table) / sizeof(table[0]),                             \
            .command_arg = arg}

/* Kernel limits and x86-64 structure sizes. */
enum {
    PAGE_BYTES = 4096,
    PATH_MAX_BYTES = 4096,     /* PATH_MAX, NUL included */
    ARG_STRING_MAX = 131072,   /* MAX_ARG_STRLEN: one execve argument */
    ARG_BYTES_MAX = 6 << 20,   /* _STK_LIM / 4 * 3: argv's or envp's pointers and strings */
    IOV_MAX_COUNT = 1024,      /* UIO_MAXIOV: larger counts fail with EINVAL */
    POLL_FDS_MAX = 1 << 20,    /* nr_open's default, RLIMIT_NOFILE's ceiling: poll's nfds */
    SOCKADDR_MAX = 128,        /* sizeof(struct sockaddr_storage) */
    IOVEC_BYTES = 16,          /* {base, len} */
    MSGHDR_BYTES = 56,
    MMSGHDR_BYTES = 64,        /* msghdr + u32 msg_len, padded */
    MSG_NAME = 0, MSG_NAMELEN = 8, MSG_IOV = 16, MSG_IOVLEN = 24,
    MSG_CONTROL = 32, MSG_CONTROLLEN = 40, MSG_FLAGS = 48, MMSG_LEN = 56,
    STAT_BYTES = 144,
    STATX_BYTES = 256,
    STATFS_BYTES = 120,
    TIMESPEC_BYTES = 16,
    TIMEVAL_BYTES = 16,
    TIMEZONE_BYTES = 8,
    ITIMER_BYTES = 32,         /* itimerval and itimerspec */
    RUSAGE_BYTES = 144,
    SYSINFO_BYTES = 112,
    UTSNAME_BYTES = 390,
    RLIMIT_BYTES = 16,
    TMS_BYTES = 32,
    TIMEX_BYTES = 208,
    SIGACTION_BYTES = 32,      /* kernel sigaction: handler, flags, restorer, mask */
    STACK_T_BYTES = 24,
    SIGINFO_BYTES = 128,
    SIGEVENT_BYTES = 64,
    EPOLL_EVENT_BYTES = 12,    /* packed on x86-64 */
    POLLFD_BYTES = 8,
    POLLFD_REVENTS = 6,        /* the short the kernel writes back */
    FLOCK_BYTES = 32,
    TERMIOS_BYTES = 36,        /* the kernel's struct termios (glibc's is 60) */
    TERMIOS2_BYTES = 44,
    WINSIZE_BYTES = 8,
    UTIMBUF_BYTES = 16,
    SEMBUF_BYTES = 6,
};

/* ---- Small helpers --------------------------------------------------------- */

static int is_error_result(int64_t result)
{
    return result < 0 && result >= -4095;
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

static uint64_t load_le(const uint8_t *p, unsigned bytes)
{
    uint64_t v = 0;
    for (unsigned i = bytes; i-- > 0;)
        v = v << 8 | p[i];
    return v;
}

/* Reads a little-endian value of BYTES (<= 8) at ADDR; 0 on success. */
static int read_le(const struct call *c, uint64_t addr, unsigned bytes, uint64_t *out)
{
    uint8_t buf[8];
    if (!addr || c->read_mem(c->ctx, addr, buf, bytes) != 0)
        return -1;
    *out = load_le(buf, bytes);
    return 0;
}

static void emit_range(const struct call *c, enum syscall_access kind, uint64_t addr,
                       uint64_t size)
{
    if (addr && size)
        c->emit(c->ctx, kind, addr, size);
}

/* COUNT, at most MAX; a larger count comes from a corrupt record or a
 * kernel beyond its defaults, and would be millions of effects, so the call
 * is reported clipped. */
static uint64_t clip(const struct call *c, uint64_t count, uint64_t max)
{
    if (count <= max)
        return count;
    *c->clipped = 1;
    return max;
}

/* Length of the NUL-terminated string at ADDR, NUL included, at most CAP;
 * 0 when unreadable. Chunks never cross a page, so a string ending before an
 * unmapped page is found; a refused chunk is retried byte by byte for
 * callbacks that track addressability more finely than pages. */
static uint64_t string_size(const struct call *c, uint64_t addr, uint64_t cap)
{
    uint8_t chunk[64];
    uint64_t chunk_max = sizeof chunk, done = 0;
    while (done < cap) {
        uint64_t at = addr + done;
        uint64_t n = min_u64(chunk_max, PAGE_BYTES - (at & (PAGE_BYTES - 1)));
        n = min_u64(n, cap - done);
        if (c->read_mem(c->ctx, at, chunk, n) != 0) {
            if (n == 1)
                return 0;
            chunk_max = 1;
            continue;
        }
        for (uint64_t i = 0; i < n; i++)
            if (chunk[i] == 0)
                return done + i + 1;
        done += n;
    }
    return cap;
}

/* Emits KIND over the first LIMIT bytes described by COUNT iovecs at IOV. */
static void iovec_data(const struct call *c, enum syscall_access kind, uint64_t iov,
                       uint64_t count, uint64_t limit)
{
    uint8_t entries[16 * IOVEC_BYTES];
    count = min_u64(count, IOV_MAX_COUNT);
    for (uint64_t i = 0; i < count && limit > 0;) {
        uint64_t batch = min_u64(count - i, sizeof entries / IOVEC_BYTES);
        if (c->read_mem(c->ctx, iov + i * IOVEC_BYTES, entries, batch * IOVEC_BYTES) != 0)
            return;
        for (uint64_t j = 0; j < batch && limit > 0; j++) {
            uint64_t base = load_le(entries + j * IOVEC_BYTES, 8);
            uint64_t len = min_u64(load_le(entries + j * IOVEC_BYTES + 8, 8), limit);
            emit_range(c, kind, base, len);
            limit -= len;
        }
        i += batch;
    }
}

static uint64_t positive_result(const struct call *c)
{
    return c->result > 0 ? (uint64_t)c->result : 0;
}

/* Reads the u32 length at LEN_ADDR before writing the address (in/out
 * socklen_t); after the call the kernel has written the address length. */
static void sockaddr_out(const struct call *c, enum pass pass, uint64_t addr,
                         uint64_t len_addr)
{
    if (!addr || !len_addr)
        return;
    if (pass == PASS_READS) {
        emit_range(c, SYSCALL_KREAD, len_addr, 4);
        return;
    }
    uint64_t len;
    if (read_le(c, len_addr, 4, &len) == 0)
        emit_range(c, SYSCALL_KWRITE, addr, min_u64(len, SOCKADDR_MAX));
    emit_range(c, SYSCALL_KWRITE, len_addr, 4);
}

/* execve's argv/envp: the pointer array up to and including its NULL, then
 * every string. The kernel refuses more than ARG_BYTES_MAX of the two
 * together (E2BIG), so more in one of them is a corrupt record. */
static void string_array(const struct call *c, uint64_t array, uint64_t string_cap)
{
    uint64_t count = 0, ptr, pointers_max = ARG_BYTES_MAX / 8 - 1;
    while (count <= pointers_max && read_le(c, array + count * 8, 8, &ptr) == 0 && ptr)
        count++;
    count = clip(c, count, pointers_max);
    uint64_t left = ARG_BYTES_MAX - (count + 1) * 8;
    emit_range(c, SYSCALL_KREAD, array, (count + 1) * 8);
    uint64_t i = 0;
    for (; i < count && left > 0; i++) {
        if (read_le(c, array + i * 8, 8, &ptr) != 0)
            continue;
        uint64_t cap = min_u64(string_cap, left), size = string_size(c, ptr, cap);
        if (size == left && cap < string_cap)
            *c->clipped = 1;
        emit_range(c, SYSCALL_KREAD, ptr, size);
        left -= size;
    }
    if (i < count)  /* strings left, and no room for even their NULs */
        *c->clipped = 1;
}

/* Size of a spec with a plain size rule; 0 when it cannot be known. */
static uint64_t spec_size(const struct call *c, const struct effect_spec *s, uint64_t ptr)
{
    uint64_t value;
    switch (s->rule) {
    case RULE_FIXED:
        return s->n;
    case RULE_ARG:
        return c->args[s->size_arg] * s->n;
    case RULE_ARG32:
        return (uint64_t)(uint32_t)c->args[s->size_arg] * s->n;
    case RULE_RESULT:
        value = positive_result(c) * s->n;
        if (s->size_arg != NO_ARG)
            value = min_u64(value, c->args[s->size_arg] * s->n);
        return value;
    case RULE_STRING:
        return string_size(c, ptr, s->n);
    case RULE_U32_AT_ARG:
        return read_le(c, c->args[s->size_arg], 4, &value) == 0 ? value : 0;
    case RULE_PAGES_OF_ARG:
        return (c->args[s->size_arg] + PAGE_BYTES - 1) / PAGE_BYTES;
    default:
        return 0;
    }
}

static void apply_spec(const struct call *c, const struct effect_spec *s, enum pass pass)
{
    uint64_t ptr = c->args[s->ptr_arg];
    if (!ptr || ((s->how & HOW_IF_POSITIVE) && c->result <= 0))
        return;
    enum syscall_access kind = pass == PASS_READS ? SYSCALL_KREAD : SYSCALL_KWRITE;
    unsigned wanted = pass == PASS_READS ? HOW_READ : HOW_WRITE;
    uint64_t count = s->size_arg == NO_ARG ? 0 : c->args[s->size_arg];
    switch (s->rule) {
    case RULE_IOVEC:
        /* The iovec array is always read; the buffers go the spec's way. */
        if (pass == PASS_READS)
            emit_range(c, SYSCALL_KREAD, ptr, min_u64(count, IOV_MAX_COUNT) * IOVEC_BYTES);
        if (s->how & wanted)
            iovec_data(c, kind, ptr, count, positive_result(c));
        return;
    case RULE_SOCKADDR_OUT:
        sockaddr_out(c, pass, ptr, count);
        return;
    case RULE_POLLFD:
        count = clip(c, (uint32_t)count, POLL_FDS_MAX);
        if (pass == PASS_READS)
            emit_range(c, SYSCALL_KREAD, ptr, count * POLLFD_BYTES);
        else
            for (uint64_t i = 0; i < count; i++)
                emit_range(c, SYSCALL_KWRITE, ptr + i * POLLFD_BYTES + POLLFD_REVENTS, 2);
        return;
    case RULE_STRING_ARRAY:
        if (pass == PASS_READS)
            string_array(c, ptr, s->n);
        return;
    default:
        if (s->how & wanted)
            emit_range(c, kind, ptr, spec_size(c, s, ptr));
        return;
    }
}

static void apply_specs(const struct call *c, const struct effect_spec *specs, size_t count,
                        enum pass pass)
{
    for (size_t i = 0; i < count && specs[i].rule != RULE_END; i++)
        apply_spec(c, &specs[i], pass);
}

/* ---- Irregular syscalls ------------------------------------------------------ */

/* The msghdr fields the kernel uses, read back after the call. */
struct msghdr_view {
    uint64_t name, namelen, iov, iovlen, control, controllen;
};

static int read_msghdr(const struct call *c, uint64_t msg, struct msghdr_view *m)
{
    uint8_t raw[MSGHDR_BYTES];
    if (c->read_mem(c->ctx, msg, raw, MSGHDR_BYTES) != 0)
        return -1;
    m->name = load_le(raw + MSG_NAME, 8);
    m->namelen = load_le(raw + MSG_NAMELEN, 4);
    m->iov = load_le(raw + MSG_IOV, 8);
    m->iovlen = min_u64(load_le(raw + MSG_IOVLEN, 8), IOV_MAX_COUNT);
    m->control = load_le(raw + MSG_CONTROL, 8);
    m->controllen = load_le(raw + MSG_CONTROLLEN, 8);
    return 0;
}

/* One received message: the header and iovec array are read; the payload
 * (PAYLOAD bytes), control data, address, and the namelen, flags and
 * controllen fields are written, in the kernel's order. */
static void received_message(const struct call *c, enum pass pass, uint64_t msg,
                             uint64_t payload)
{
    struct msghdr_view m;
    if (!msg || read_msghdr(c, msg, &m) != 0)
        return;
    if (pass == PASS_READS) {
        emit_range(c, SYSCALL_KREAD, msg, MSGHDR_BYTES);
        emit_range(c, SYSCALL_KREAD, m.iov, m.iovlen * IOVEC_BYTES);
        return;
    }
    iovec_data(c, SYSCALL_KWRITE, m.iov, m.iovlen, payload);
    if (m.control)
        emit_range(c, SYSCALL_KWRITE, m.control, m.controllen);
    if (m.name) {
        emit_range(c, SYSCALL_KWRITE, m.name, min_u64(m.namelen, SOCKADDR_MAX));
        emit_range(c, SYSCALL_KWRITE, msg + MSG_NAMELEN, 4);
    }
    emit_range(c, SYSCALL_KWRITE, msg + MSG_FLAGS, 4);
    emit_range(c, SYSCALL_KWRITE, msg + MSG_CONTROLLEN, 8);
}

/* One sent message: header, address, iovec array, control data, then the
 * PAYLOAD bytes actually sent. */
static void sent_message(const struct call *c, uint64_t msg, uint64_t payload)
{
    struct msghdr_view m;
    if (!msg || read_msghdr(c, msg, &m) != 0)
        return;
    emit_range(c, SYSCALL_KREAD, msg, MSGHDR_BYTES);
    if (m.name)
        emit_range(c, SYSCALL_KREAD, m.name, min_u64(m.namelen, SOCKADDR_MAX));
    emit_range(c, SYSCALL_KREAD, m.iov, m.iovlen * IOVEC_BYTES);
    if (m.control)
        emit_range(c, SYSCALL_KREAD, m.control, m.controllen);
    iovec_data(c, SYSCALL_KREAD, m.iov, m.iovlen, payload);
}

/* recvmsg(fd, msg, flags) */
static void recvmsg_effects(const struct call *c, enum pass pass)
{
    received_message(c, pass, c->args[1], positive_result(c));
}

/* sendmsg(fd, msg, flags) */
static void sendmsg_effects(const struct call *c, enum pass pass)
{
    if (pass == PASS_READS)
        sent_message(c, c->args[1], positive_result(c));
}

/* The messages sendmmsg or recvmmsg(fd, vec, vlen, ...) moved: the result,
 * which the kernel keeps within vlen and UIO_MAXIOV. */
static uint64_t mmsg_count(const struct call *c)
{
    return clip(c, positive_result(c), min_u64((uint32_t)c->args[2], IOV_MAX_COUNT));
}

/* recvmmsg(fd, vec, vlen, flags, timeout): RESULT messages, each with its
 * byte count in msg_len; the timeout is read and the remainder written back. */
static void recvmmsg_effects(const struct call *c, enum pass pass)
{
    uint64_t vec = c->args[1], timeout = c->args[4], count = mmsg_count(c);
    if (pass == PASS_READS)
        emit_range(c, SYSCALL_KREAD, timeout, TIMESPEC_BYTES);
    for (uint64_t i = 0; vec && i < count; i++) {
        uint64_t entry = vec + i * MMSGHDR_BYTES, msg_len = 0;
        if (read_le(c, entry + MMSG_LEN, 4, &msg_len) != 0)
            continue;
        received_message(c, pass, entry, msg_len);
        if (pass == PASS_WRITES)
            emit_range(c, SYSCALL_KWRITE, entry + MMSG_LEN, 4);
    }
    if (pass == PASS_WRITES && count > 0)
        emit_range(c, SYSCALL_KWRITE, timeout, TIMESPEC_BYTES);
}

/* sendmmsg(fd, vec, vlen, flags): RESULT messages sent, msg_len written. */
static void sendmmsg_effects(const struct call *c, enum pass pass)
{
    uint64_t vec = c->args[1], count = mmsg_count(c);
    for (uint64_t i = 0; vec && i < count; i++) {
        uint64_t entry = vec + i * MMSGHDR_BYTES, msg_len = 0;
        if (pass == PASS_WRITES) {
            emit_range(c, SYSCALL_KWRITE, entry + MMSG_LEN, 4);
            continue;
        }
        if (read_le(c, entry + MMSG_LEN, 4, &msg_len) == 0)
            sent_message(c, entry, msg_len);
    }
}

/* The three fd sets of select/pselect6 at args 1..3: read, then written
 * back, each as whole longs: ((nfds + 63) / 64) * 8 bytes. */
static void fd_sets(const struct call *c, enum pass pass)
{
    int32_t nfds = (int32_t)c->args[0];
    uint64_t bytes = nfds > 0 ? ((uint64_t)nfds + 63) / 64 * 8 : 0;
    for (int set = 1; set <= 3; set++)
        emit_range(c, pass == PASS_READS ? SYSCALL_KREAD : SYSCALL_KWRITE, c->args[set], bytes);
}

/* select(nfds, readfds, writefds, exceptfds, timeval *timeout) */
static void select_effects(const struct call *c, enum pass pass)
{
    if (pass == PASS_READS)
        emit_range(c, SYSCALL_KREAD, c->args[4], TIMEVAL_BYTES);
    fd_sets(c, pass);
    if (pass == PASS_WRITES)
        emit_range(c, SYSCALL_KWRITE, c->args[4], TIMEVAL_BYTES);
}

/* pselect6(nfds, readfds, writefds, exceptfds, timespec *timeout,
 * {const sigset_t *ss; size_t ss_len} *sig) */
static void pselect6_effects(const struct call *c, enum pass pass)
{
    uint64_t sig = c->args[5], set = 0, set_len = 0;
    if (pass == PASS_READS) {
        emit_range(c, SYSCALL_KREAD, c->args[4], TIMESPEC_BYTES);
        if (sig && read_le(c, sig, 8, &set) == 0 && read_le(c, sig + 8, 8, &set_len) == 0) {
            emit_range(c, SYSCALL_KREAD, sig, 16);
            emit_range(c, SYSCALL_KREAD, set, set_len);
        }
    }
    fd_sets(c, pass);
    if (pass == PASS_WRITES)
        emit_range(c, SYSCALL_KWRITE, c->args[4], TIMESPEC_BYTES);
}

/* waitid(idtype, id, siginfo *infop, options, rusage *ru): the rusage only
 * when a child was reaped (si_signo == SIGCHLD; reported when infop is NULL
 * since that cannot be told), then six int fields of the siginfo: signo,
 * errno, code at 0..12 and pid, uid, status at 16..28. */
static void waitid_effects(const struct call *c, enum pass pass)
{
    enum { SIGCHLD_NUMBER = 17 };
    uint64_t infop = c->args[2], signo = 0;
    if (pass != PASS_WRITES)
        return;
    if (!infop || (read_le(c, infop, 4, &signo) == 0 && signo == SIGCHLD_NUMBER))
        emit_range(c, SYSCALL_KWRITE, c->args[4], RUSAGE_BYTES);
    emit_range(c, SYSCALL_KWRITE, infop, 12);
    emit_range(c, SYSCALL_KWRITE, infop ? infop + 16 : 0, 12);
}

enum {
    CLONE_PIDFD_FLAG = 0x1000,
    CLONE_PARENT_SETTID_FLAG = 0x100000,
    CLONE_CHILD_SETTID_FLAG = 0x1000000,
};

/* The tid/pidfd stores of clone made before either side runs on: in the
 * parent (result > 0) the parent_tid or pidfd int, in the child (result 0)
 * the child_tid int. CLONE_CHILD_CLEARTID acts at exit, not here. */
static void clone_stores(const struct call *c, uint64_t flags, uint64_t parent_tid,
                         uint64_t pidfd, uint64_t child_tid)
{
    if (c->result > 0) {
        if (flags & CLONE_PIDFD_FLAG)
            emit_range(c, SYSCALL_KWRITE, pidfd, 4);
        if (flags & CLONE_PARENT_SETTID_FLAG)
            emit_range(c, SYSCALL_KWRITE, parent_tid, 4);
    } else if (c->result == 0 && (flags & CLONE_CHILD_SETTID_FLAG)) {
        emit_range(c, SYSCALL_KWRITE, child_tid, 4);
    }
}

/* clone(flags, stack, parent_tid, child_tid, tls): legacy clone stores the
 * pidfd at parent_tid. */
static void clone_effects(const struct call *c, enum pass pass)
{
    if (pass == PASS_WRITES)
        clone_stores(c, c->args[0], c->args[2], c->args[2], c->args[3]);
}

/* clone3(clone_args *args, size): struct clone_args has flags at 0, pidfd
 * at 8, child_tid at 16, parent_tid at 24, set_tid at 64, set_tid_size at 72. */
static void clone3_effects(const struct call *c, enum pass pass)
{
    uint64_t args = c->args[0], size = c->args[1];
    uint64_t flags, pidfd, child_tid, parent_tid, set_tid = 0, set_tid_size = 0;
    if (args && pass == PASS_READS)  /* the registers say that much */
        emit_range(c, SYSCALL_KREAD, args, size);
    if (!args || read_le(c, args, 8, &flags) != 0 || read_le(c, args + 8, 8, &pidfd) != 0 ||
        read_le(c, args + 16, 8, &child_tid) != 0 || read_le(c, args + 24, 8, &parent_tid) != 0)
        return;
    if (pass == PASS_READS) {
        if (size >= 80 && read_le(c, args + 64, 8, &set_tid) == 0 &&
            read_le(c, args + 72, 8, &set_tid_size) == 0)
            emit_range(c, SYSCALL_KREAD, set_tid, set_tid_size * 4);
        return;
    }
    clone_stores(c, flags, parent_tid, pidfd, child_tid);
}

/* ---- Command sub-tables -------------------------------------------------------- */

/* ioctl(fd, request, arg): the common terminal and fd requests. */
static const struct command_row ioctl_commands[] = {
    {0x5401, {W_FIXED(2, TERMIOS_BYTES)}},  /* TCGETS */
    {0x5402, {R_FIXED(2, TERMIOS_BYTES)}},  /* TCSETS */
    {0x5403, {R_FIXED(2, TERMIOS_BYTES)}},  /* TCSETSW */
    {0x5404, {R_FIXED(2, TERMIOS_BYTES)}},  /* TCSETSF */
    {0x5409, {{0}}},                        /* TCSBRK */
    {0x540A, {{0}}},                        /* TCXONC */
    {0x540B, {{0}}},                        /* TCFLSH */
    {0x540E, {{0}}},                        /* TIOCSCTTY */
    {0x540F, {W_FIXED(2, 4)}},              /* TIOCGPGRP */
    {0x5410, {R_FIXED(2, 4)}},              /* TIOCSPGRP */
    {0x5413, {W_FIXED(2, WINSIZE_BYTES)}},  /* TIOCGWINSZ */
    {0x5414, {R_FIXED(2, WINSIZE_BYTES)}},  /* TIOCSWINSZ */
    {0x541B, {W_FIXED(2, 4)}},              /* FIONREAD */
    {0x5421, {R_FIXED(2, 4)}},              /* FIONBIO */
    {0x5422, {{0}}},                        /* TIOCNOTTY */
    {0x5429, {W_FIXED(2, 4)}},              /* TIOCGSID */
    {0x5450, {{0}}},                        /* FIONCLEX */
    {0x5451, {{0}}},                        /* FIOCLEX */
    {0x5452, {R_FIXED(2, 4)}},              /* FIOASYNC */
    {0x802C542A, {W_FIXED(2, TERMIOS2_BYTES)}}, /* TCGETS2 */
    {0x80045430, {W_FIXED(2, 4)}},          /* TIOCGPTN */
    {0x40045431, {R_FIXED(2, 4)}},          /* TIOCSPTLCK */
};

/* fcntl(fd, cmd, arg): integer commands touch no memory; locks and owners do. */
static const struct command_row fcntl_commands[] = {
    {0, {{0}}},                        /* F_DUPFD */
    {1, {{0}}},                        /* F_GETFD */
    {2, {{0}}},                        /* F_SETFD */
    {3, {{0}}},                        /* F_GETFL */
    {4, {{0}}},                        /* F_SETFL */
    {5, {RW_FIXED(2, FLOCK_BYTES)}},   /* F_GETLK */
    {6, {R_FIXED(2, FLOCK_BYTES)}},    /* F_SETLK */
    {7, {R_FIXED(2, FLOCK_BYTES)}},    /* F_SETLKW */
    {8, {{0}}},                        /* F_SETOWN */
    {9, {{0}}},                        /* F_GETOWN */
    {10, {{0}}},                       /* F_SETSIG */
    {11, {{0}}},                       /* F_GETSIG */
    {15, {R_FIXED(2, 8)}},             /* F_SETOWN_EX */
    {16, {W_FIXED(2, 8)}},             /* F_GETOWN_EX */
    {36, {RW_FIXED(2, FLOCK_BYTES)}},  /* F_OFD_GETLK */
    {37, {R_FIXED(2, FLOCK_BYTES)}},   /* F_OFD_SETLK */
    {38, {R_FIXED(2, FLOCK_BYTES)}},   /* F_OFD_SETLKW */
    {1024, {{0}}},                     /* F_SETLEASE */
    {1025, {{0}}},                     /* F_GETLEASE */
    {1026, {{0}}},                     /* F_NOTIFY */
    {1030, {{0}}},                     /* F_DUPFD_CLOEXEC */
    {1031, {{0}}},                     /* F_SETPIPE_SZ */
    {1032, {{0}}},                     /* F_GETPIPE_SZ */
    {1033, {{0}}},                     /* F_ADD_SEALS */
    {1034, {{0}}},                     /* F_GET_SEALS */
    {1035, {W_FIXED(2, 8)}},           /* F_GET_RW_HINT */
    {1036, {R_FIXED(2, 8)}},           /* F_SET_RW_HINT */
};

/* prctl(option, arg2, arg3, arg4, arg5): args[1] is arg2. */
static const struct command_row prctl_commands[] = {
    {1, {{0}}},                  /* PR_SET_PDEATHSIG */
    {2, {W_FIXED(1, 4)}},        /* PR_GET_PDEATHSIG */
    {3, {{0}}},                  /* PR_GET_DUMPABLE */
    {4, {{0}}},                  /* PR_SET_DUMPABLE */
    {7, {{0}}},                  /* PR_GET_KEEPCAPS */
    {8, {{0}}},                  /* PR_SET_KEEPCAPS */
    {15, {R_STRING(1, 15)}},     /* PR_SET_NAME: strncpy_from_user of 15 bytes */
    {16, {W_FIXED(1, 16)}},      /* PR_GET_NAME */
    {23, {{0}}},                 /* PR_CAPBSET_READ */
    {24, {{0}}},                 /* PR_CAPBSET_DROP */
    {29, {{0}}},                 /* PR_SET_TIMERSLACK */
    {30, {{0}}},                 /* PR_GET_TIMERSLACK */
    {33, {{0}}},                 /* PR_MCE_KILL */
    {34, {{0}}},                 /* PR_MCE_KILL_GET */
    {36, {{0}}},                 /* PR_SET_CHILD_SUBREAPER */
    {37, {W_FIXED(1, 4)}},       /* PR_GET_CHILD_SUBREAPER */
    {38, {{0}}},                 /* PR_SET_NO_NEW_PRIVS */
    {39, {{0}}},                 /* PR_GET_NO_NEW_PRIVS */
    {40, {W_FIXED(1, 8)}},       /* PR_GET_TID_ADDRESS */
    {41, {{0}}},                 /* PR_SET_THP_DISABLE */
    {42, {{0}}},                 /* PR_GET_THP_DISABLE */
    {47, {{0}}},                 /* PR_CAP_AMBIENT */
    {52, {{0}}},                 /* PR_GET_SPECULATION_CTRL */
    {53, {{0}}},                 /* PR_SET_SPECULATION_CTRL */
    {0x53564d41, {R_STRING(4, 80)}}, /* PR_SET_VMA (ANON_NAME): the name in arg5 */
    {0x59616d61, {{0}}},         /* PR_SET_PTRACER */
};

/* arch_prctl(code, addr) */
static const struct command_row arch_prctl_commands[] = {
    {0x1001, {{0}}},             /* ARCH_SET_GS */
    {0x1002, {{0}}},             /* ARCH_SET_FS */
    {0x1003, {W_FIXED(1, 8)}},   /* ARCH_GET_FS */
    {0x1004, {W_FIXED(1, 8)}},   /* ARCH_GET_GS */
    {0x1011, {{0}}},             /* ARCH_GET_CPUID */
    {0x1012, {{0}}},             /* ARCH_SET_CPUID */
    {0x1021, {W_FIXED(1, 8)}},   /* ARCH_GET_XCOMP_SUPP */
    {0x1022, {W_FIXED(1, 8)}},   /* ARCH_GET_XCOMP_PERM */
    {0x1023, {{0}}},             /* ARCH_REQ_XCOMP_PERM */
    {0x1024, {W_FIXED(1, 8)}},   /* ARCH_GET_XCOMP_GUEST_PERM */
    {0x1025, {{0}}},             /* ARCH_REQ_XCOMP_GUEST_PERM */
    {0x5001, {{0}}},             /* ARCH_SHSTK_ENABLE */
    {0x5002, {{0}}},             /* ARCH_SHSTK_DISABLE */
    {0x5003, {{0}}},             /* ARCH_SHSTK_LOCK */
    {0x5004, {{0}}},             /* ARCH_SHSTK_UNLOCK */
    {0x5005, {W_FIXED(1, 8)}},   /* ARCH_SHSTK_STATUS */
};

/* epoll_ctl(epfd, op, fd, event): DEL does not look at the event. */
static const struct command_row epoll_ctl_commands[] = {
    {1, {R_FIXED(3, EPOLL_EVENT_BYTES)}}, /* EPOLL_CTL_ADD */
    {2, {{0}}},                           /* EPOLL_CTL_DEL */
    {3, {R_FIXED(3, EPOLL_EVENT_BYTES)}}, /* EPOLL_CTL_MOD */
};

/* ---- The table ------------------------------------------------------------------ */

/* Argument positions in the comments are 0-based, as in args[]. */
static const struct syscall_row syscall_table[] = {
    /* I/O on file descriptors */
    SYS(0, "read", W_RESULT(1)),
    SYS(1, "write", R_RESULT(1)),
    SYS(17, "pread64", W_RESULT(1)),
    SYS(18, "pwrite64", R_RESULT(1)),
    SYS(19, "readv", W_IOV(1, 2)),
    SYS(20, "writev", R_IOV(1, 2)),
    SYS(295, "preadv", W_IOV(1, 2)),
    SYS(296, "pwritev", R_IOV(1, 2)),
    SYS(327, "preadv2", W_IOV(1, 2)),
    SYS(328, "pwritev2", R_IOV(1, 2)),
    SYS(78, "getdents", W_RESULT(1)),
    SYS(217, "getdents64", W_RESULT(1)),
    SYS(40, "sendfile", RW_FIXED(2, 8)),             /* off_t *offset */
    SYS(275, "splice", RW_FIXED(1, 8), RW_FIXED(3, 8)),
    SYS(326, "copy_file_range", RW_FIXED(1, 8), RW_FIXED(3, 8)),
    NONE(276, "tee"),
    NONE(3, "close"),
    NONE(436, "close_range"),
    NONE(8, "lseek"),
    NONE(32, "dup"),
    NONE(33, "dup2"),
    NONE(292, "dup3"),
    NONE(73, "flock"),
    NONE(74, "fsync"),
    NONE(75, "fdatasync"),
    NONE(77, "ftruncate"),
    NONE(91, "fchmod"),
    NONE(93, "fchown"),
    NONE(81, "fchdir"),
    NONE(187, "readahead"),
    NONE(221, "fadvise64"),
    NONE(277, "sync_file_range"),
    NONE(285, "fallocate"),
    NONE(162, "sync"),
    NONE(306, "syncfs"),
    BY_COMMAND(16, "ioctl", 1, ioctl_commands),
    BY_COMMAND(72, "fcntl", 1, fcntl_commands),

    /* Paths and file metadata */
    SYS(2, "open", R_PATH(0)),
    SYS(85, "creat", R_PATH(0)),
    SYS(257, "openat", R_PATH(1)),
    SYS(437, "openat2", R_ARG(2, 3), R_PATH(1)),    /* open_how of args[3] bytes */
    SYS(4, "stat", R_PATH(0), W_FIXED(1, STAT_BYTES)),
    SYS(5, "fstat", W_FIXED(1, STAT_BYTES)),
    SYS(6, "lstat", R_PATH(0), W_FIXED(1, STAT_BYTES)),
    SYS(262, "newfstatat", R_PATH(1), W_FIXED(2, STAT_BYTES)),
    SYS(332, "statx", R_PATH(1), W_FIXED(4, STATX_BYTES)),
    SYS(137, "statfs", R_PATH(0), W_FIXED(1, STATFS_BYTES)),
    SYS(138, "fstatfs", W_FIXED(1, STATFS_BYTES)),
    SYS(21, "access", R_PATH(0)),
    SYS(269, "faccessat", R_PATH(1)),
    SYS(439, "faccessat2", R_PATH(1)),
    SYS(89, "readlink", R_PATH(0), W_RESULT(1)),
    SYS(267, "readlinkat", R_PATH(1), W_RESULT(2)),
    SYS(79, "getcwd", W_RESULT(0)),                 /* result: length with the NUL */
    SYS(80, "chdir", R_PATH(0)),
    SYS(161, "chroot", R_PATH(0)),
    SYS(83, "mkdir", R_PATH(0)),
    SYS(258, "mkdirat", R_PATH(1)),
    SYS(84, "rmdir", R_PATH(0)),
    SYS(87, "unlink", R_PATH(0)),
    SYS(263, "unlinkat", R_PATH(1)),
    SYS(82, "rename", R_PATH(0), R_PATH(1)),
    SYS(264, "renameat", R_PATH(1), R_PATH(3)),
    SYS(316, "renameat2", R_PATH(1), R_PATH(3)),
    SYS(86, "link", R_PATH(0), R_PATH(1)),
    SYS(265, "linkat", R_PATH(1), R_PATH(3)),
    SYS(88, "symlink", R_PATH(0), R_PATH(1)),
    SYS(266, "symlinkat", R_PATH(0), R_PATH(2)),
    SYS(90, "chmod", R_PATH(0)),
    SYS(268, "fchmodat", R_PATH(1)),
    SYS(92, "chown", R_PATH(0)),
    SYS(94, "lchown", R_PATH(0)),
    SYS(260, "fchownat", R_PATH(1)),
    SYS(133, "mknod", R_PATH(0)),
    SYS(259, "mknodat", R_PATH(1)),
    SYS(76, "truncate", R_PATH(0)),
    SYS(132, "utime", R_PATH(0), R_FIXED(1, UTIMBUF_BYTES)),
    SYS(235, "utimes", R_PATH(0), R_FIXED(1, 2 * TIMEVAL_BYTES)),
    SYS(261, "futimesat", R_PATH(1), R_FIXED(2, 2 * TIMEVAL_BYTES)),
    SYS(280, "utimensat", R_PATH(1), R_FIXED(2, 2 * TIMESPEC_BYTES)),
    SYS(166, "umount2", R_PATH(0)),
    SYS(155, "pivot_root", R_PATH(0), R_PATH(1)),
    SYS(163, "acct", R_PATH(0)),
    SYS(188, "setxattr", R_PATH(0), R_XATTR_NAME(1), R_ARG(2, 3)),
    SYS(189, "lsetxattr", R_PATH(0), R_XATTR_NAME(1), R_ARG(2, 3)),
    SYS(190, "fsetxattr", R_XATTR_NAME(1), R_ARG(2, 3)),
    SYS(191, "getxattr", R_PATH(0), R_XATTR_NAME(1), W_RESULT_CAP(2, 3, 1)),
    SYS(192, "lgetxattr", R_PATH(0), R_XATTR_NAME(1), W_RESULT_CAP(2, 3, 1)),
    SYS(193, "fgetxattr", R_XATTR_NAME(1), W_RESULT_CAP(2, 3, 1)),
    SYS(194, "listxattr", R_PATH(0), W_RESULT_CAP(1, 2, 1)),
    SYS(195, "llistxattr", R_PATH(0), W_RESULT_CAP(1, 2, 1)),
    SYS(196, "flistxattr", W_RESULT_CAP(1, 2, 1)),
    SYS(197, "removexattr", R_PATH(0), R_XATTR_NAME(1)),
    SYS(198, "lremovexattr", R_PATH(0), R_XATTR_NAME(1)),
    SYS(199, "fremovexattr", R_XATTR_NAME(1)),
    SYS(254, "inotify_add_watch", R_PATH(1)),
    SYS(301, "fanotify_mark", R_PATH(4)),
    SYS(319, "memfd_create", R_PATH(0)),              /* the name, a short string */
    NONE(95, "umask"),
    NONE(253, "inotify_init"),
    NONE(294, "inotify_init1"),
    NONE(255, "inotify_rm_watch"),
    NONE(300, "fanotify_init"),

    /* Programs and processes */
    SYS(59, "execve", R_PATH(0), R_STRING_ARRAY(1), R_STRING_ARRAY(2)),
    SYS(322, "execveat", R_PATH(1), R_STRING_ARRAY(2), R_STRING_ARRAY(3)),
    CUSTOM(56, "clone", clone_effects),
    CUSTOM(435, "clone3", clone3_effects),
    NONE(57, "fork"),
    NONE(58, "vfork"),
    NONE(60, "exit"),
    NONE(231, "exit_group"),
    SYS(61, "wait4", FIXED(HOW_WRITE | HOW_IF_POSITIVE, 1, 4),
        FIXED(HOW_WRITE | HOW_IF_POSITIVE, 3, RUSAGE_BYTES)),
    CUSTOM(247, "waitid", waitid_effects),
    NONE(39, "getpid"),
    NONE(110, "getppid"),
    NONE(186, "gettid"),
    NONE(102, "getuid"),
    NONE(107, "geteuid"),
    NONE(104, "getgid"),
    NONE(108, "getegid"),
    NONE(105, "setuid"),
    NONE(106, "setgid"),
    NONE(113, "setreuid"),
    NONE(114, "setregid"),
    NONE(117, "setresuid"),
    NONE(119, "setresgid"),
    NONE(122, "setfsuid"),
    NONE(123, "setfsgid"),
    SYS(118, "getresuid", W_FIXED(0, 4), W_FIXED(1, 4), W_FIXED(2, 4)),
    SYS(120, "getresgid", W_FIXED(0, 4), W_FIXED(1, 4), W_FIXED(2, 4)),
    SYS(115, "getgroups", W_RESULT_CAP(1, 0, 4)),   /* getgroups(0, list) writes nothing */
    SYS(116, "setgroups", R_ARG32(1, 0, 4)),
    NONE(109, "setpgid"),
    NONE(121, "getpgid"),
    NONE(111, "getpgrp"),
    NONE(112, "setsid"),
    NONE(124, "getsid"),
    NONE(140, "getpriority"),
    NONE(141, "setpriority"),
    NONE(135, "personality"),
    SYS(63, "uname", W_FIXED(0, UTSNAME_BYTES)),
    SYS(99, "sysinfo", W_FIXED(0, SYSINFO_BYTES)),
    SYS(100, "times", W_FIXED(0, TMS_BYTES)),
    SYS(98, "getrusage", W_FIXED(1, RUSAGE_BYTES)),
    SYS(97, "getrlimit", W_FIXED(1, RLIMIT_BYTES)),
    SYS(160, "setrlimit", R_FIXED(1, RLIMIT_BYTES)),
    SYS(302, "prlimit64", R_FIXED(2, RLIMIT_BYTES), W_FIXED(3, RLIMIT_BYTES)),
    SYS(170, "sethostname", R_ARG32(0, 1, 1)),
    SYS(171, "setdomainname", R_ARG32(0, 1, 1)),
    BY_COMMAND(157, "prctl", 0, prctl_commands),
    BY_COMMAND(158, "arch_prctl", 0, arch_prctl_commands),
    NONE(218, "set_tid_address"),   /* the clear at exit is not a call-time effect */
    NONE(273, "set_robust_list"),
    SYS(274, "get_robust_list", W_FIXED(1, 8), W_FIXED(2, 8)),
    NONE(334, "rseq"),
    NONE(219, "restart_syscall"),
    NONE(434, "pidfd_open"),
    NONE(438, "pidfd_getfd"),
    SYS(424, "pidfd_send_signal", R_FIXED(2, SIGINFO_BYTES)),
    NONE(312, "kcmp"),
    NONE(272, "unshare"),
    NONE(308, "setns"),
    NONE(172, "iopl"),
    NONE(173, "ioperm"),
    NONE(153, "vhangup"),
    SYS(167, "swapon", R_PATH(0)),
    SYS(168, "swapoff", R_PATH(0)),

    /* Memory */
    NONE(9, "mmap"),
    NONE(10, "mprotect"),
    NONE(11, "munmap"),
    NONE(12, "brk"),
    NONE(25, "mremap"),
    NONE(26, "msync"),
    SYS(27, "mincore", {RULE_PAGES_OF_ARG, HOW_WRITE, 2, 1, 1}),
    NONE(28, "madvise"),
    NONE(149, "mlock"),
    NONE(150, "munlock"),
    NONE(151, "mlockall"),
    NONE(152, "munlockall"),
    NONE(325, "mlock2"),
    NONE(329, "pkey_mprotect"),
    NONE(330, "pkey_alloc"),
    NONE(331, "pkey_free"),
    NONE(324, "membarrier"),
    NONE(323, "userfaultfd"),
    NONE(447, "memfd_secret"),
    NONE(448, "process_mrelease"),
    NONE(29, "shmget"),
    NONE(30, "shmat"),
    NONE(67, "shmdt"),
    NONE(64, "semget"),
    SYS(65, "semop", R_ARG32(1, 2, SEMBUF_BYTES)),
    SYS(220, "semtimedop", R_ARG32(1, 2, SEMBUF_BYTES), R_FIXED(3, TIMESPEC_BYTES)),
    NONE(68, "msgget"),

    /* Synchronization, scheduling */
    NONE(202, "futex"),
    /* futex_waitv(waiters, nr, flags, timeout, clockid): 24-byte futex_waitv entries */
    SYS(449, "futex_waitv", R_ARG32(0, 1, 24), R_FIXED(3, TIMESPEC_BYTES)),
    NONE(24, "sched_yield"),
    SYS(142, "sched_setparam", R_FIXED(1, 4)),
    SYS(143, "sched_getparam", W_FIXED(1, 4)),
    SYS(144, "sched_setscheduler", R_FIXED(2, 4)),
    NONE(145, "sched_getscheduler"),
    NONE(146, "sched_get_priority_max"),
    NONE(147, "sched_get_priority_min"),
    SYS(148, "sched_rr_get_interval", W_FIXED(1, TIMESPEC_BYTES)),
    SYS(203, "sched_setaffinity", R_ARG32(2, 1, 1)),
    SYS(204, "sched_getaffinity", W_RESULT(2)),   /* result: bytes of mask copied */
    SYS(309, "getcpu", W_FIXED(0, 4), W_FIXED(1, 4)),
    NONE(251, "ioprio_set"),
    NONE(252, "ioprio_get"),

    /* Time */
    SYS(228, "clock_gettime", W_FIXED(1, TIMESPEC_BYTES)),
    SYS(229, "clock_getres", W_FIXED(1, TIMESPEC_BYTES)),
    SYS(227, "clock_settime", R_FIXED(1, TIMESPEC_BYTES)),
    SYS(305, "clock_adjtime", RW_FIXED(1, TIMEX_BYTES)),
    SYS(159, "adjtimex", RW_FIXED(0, TIMEX_BYTES)),
    /* The remainder is written only on EINTR, a failure. */
    SYS(230, "clock_nanosleep", R_FIXED(2, TIMESPEC_BYTES)),
    SYS(35, "nanosleep", R_FIXED(0, TIMESPEC_BYTES)),
    SYS(96, "gettimeofday", W_FIXED(0, TIMEVAL_BYTES), W_FIXED(1, TIMEZONE_BYTES)),
    SYS(164, "settimeofday", R_FIXED(0, TIMEVAL_BYTES), R_FIXED(1, TIMEZONE_BYTES)),
    SYS(201, "time", W_FIXED(0, 8)),
    SYS(36, "getitimer", W_FIXED(1, ITIMER_BYTES)),
    SYS(38, "setitimer", R_FIXED(1, ITIMER_BYTES), W_FIXED(2, ITIMER_BYTES)),
    NONE(37, "alarm"),
    NONE(34, "pause"),
    SYS(222, "timer_create", R_FIXED(1, SIGEVENT_BYTES), W_FIXED(2, 4)),
    SYS(223, "timer_settime", R_FIXED(2, ITIMER_BYTES), W_FIXED(3, ITIMER_BYTES)),
    SYS(224, "timer_gettime", W_FIXED(1, ITIMER_BYTES)),
    NONE(225, "timer_getoverrun"),
    NONE(226, "timer_delete"),
    NONE(283, "timerfd_create"),
    SYS(286, "timerfd_settime", R_FIXED(2, ITIMER_BYTES), W_FIXED(3, ITIMER_BYTES)),
    SYS(287, "timerfd_gettime", W_FIXED(1, ITIMER_BYTES)),

    /* Signals */
    SYS(13, "rt_sigaction", R_FIXED(1, SIGACTION_BYTES), W_FIXED(2, SIGACTION_BYTES)),
    SYS(14, "rt_sigprocmask", R_ARG(1, 3), W_ARG(2, 3)),
    NONE(15, "rt_sigreturn"),
    SYS(127, "rt_sigpending", W_ARG(0, 1)),
    SYS(128, "rt_sigtimedwait", R_ARG(0, 3), R_FIXED(2, TIMESPEC_BYTES),
        W_FIXED(1, SIGINFO_BYTES)),
    SYS(129, "rt_sigqueueinfo", R_FIXED(2, SIGINFO_BYTES)),
    SYS(297, "rt_tgsigqueueinfo", R_FIXED(3, SIGINFO_BYTES)),
    SYS(130, "rt_sigsuspend", R_ARG(0, 1)),
    SYS(131, "sigaltstack", R_FIXED(0, STACK_T_BYTES), W_FIXED(1, STACK_T_BYTES)),
    NONE(62, "kill"),
    NONE(200, "tkill"),
    NONE(234, "tgkill"),
    SYS(282, "signalfd", R_ARG(1, 2)),
    SYS(289, "signalfd4", R_ARG(1, 2)),
    NONE(284, "eventfd"),
    NONE(290, "eventfd2"),

    /* Polling */
    SYS(7, "poll", {RULE_POLLFD, HOW_READ | HOW_WRITE, 0, 1, 1}),
    SYS(271, "ppoll", R_FIXED(2, TIMESPEC_BYTES), R_ARG(3, 4),
        {RULE_POLLFD, HOW_READ | HOW_WRITE, 0, 1, 1}, W_FIXED(2, TIMESPEC_BYTES)),
    CUSTOM(23, "select", select_effects),
    CUSTOM(270, "pselect6", pselect6_effects),
    NONE(213, "epoll_create"),
    NONE(291, "epoll_create1"),
    BY_COMMAND(233, "epoll_ctl", 1, epoll_ctl_commands),
    SYS(232, "epoll_wait", W_RESULT_TIMES(1, EPOLL_EVENT_BYTES)),
    SYS(281, "epoll_pwait", R_ARG(4, 5), W_RESULT_TIMES(1, EPOLL_EVENT_BYTES)),
    SYS(441, "epoll_pwait2", R_FIXED(3, TIMESPEC_BYTES), R_ARG(4, 5),
        W_RESULT_TIMES(1, EPOLL_EVENT_BYTES)),

    /* Pipes and sockets */
    SYS(22, "pipe", W_FIXED(0, 8)),
    SYS(293, "pipe2", W_FIXED(0, 8)),
    NONE(41, "socket"),
    SYS(53, "socketpair", W_FIXED(3, 8)),
    SYS(42, "connect", R_ARG32(1, 2, 1)),
    SYS(49, "bind", R_ARG32(1, 2, 1)),
    NONE(50, "listen"),
    NONE(48, "shutdown"),
    SYS(43, "accept", SOCKADDR_OUT(1, 2)),
    SYS(288, "accept4", SOCKADDR_OUT(1, 2)),
    SYS(51, "getsockname", SOCKADDR_OUT(1, 2)),
    SYS(52, "getpeername", SOCKADDR_OUT(1, 2)),
    /* The destination address is copied in before the payload. */
    SYS(44, "sendto", R_ARG32(4, 5, 1), R_RESULT(1)),
    SYS(45, "recvfrom", W_RESULT(1), SOCKADDR_OUT(4, 5)),
    CUSTOM(46, "sendmsg", sendmsg_effects),
    CUSTOM(47, "recvmsg", recvmsg_effects),
    CUSTOM(307, "sendmmsg", sendmmsg_effects),
    CUSTOM(299, "recvmmsg", recvmmsg_effects),
    SYS(54, "setsockopt", R_ARG32(3, 4, 1)),
    /* optlen is read, then optval gets the returned *optlen bytes. */
    SYS(55, "getsockopt", R_FIXED(4, 4), W_U32_AT(3, 4), W_FIXED(4, 4)),

    /* Randomness */
    SYS(318, "getrandom", W_RESULT(0)),
};

enum { SYSCALL_TABLE_SIZE = sizeof syscall_table / sizeof syscall_table[0] };

/* ---- Entry points ------------------------------------------------------------------ */

static const struct syscall_row *find_row(uint64_t nr)
{
    if (nr >= SYSCALL_TABLE_SIZE || !syscall_table[nr].name)
        return NULL;
    return &syscall_table[nr];
}

/* The specs that apply: the row's own, or those of its command; NULL when
 * the command is not listed. */
static const struct effect_spec *row_specs(const struct syscall_row *row, const uint64_t args[6],
                                           size_t *count)
{
    if (!row->commands) {
        *count = MAX_EFFECTS;
        return row->effects;
    }
    uint32_t code = (uint32_t)args[row->command_arg];
    for (size_t i = 0; i < row->command_count; i++)
        if (row->commands[i].code == code) {
            *count = sizeof row->commands[i].effects / sizeof row->commands[i].effects[0];
            return row->commands[i].effects;
        }
    return NULL;
}

/* What a caller without the program's memory reads: nothing. */
static int unreadable(void *ctx, uint64_t addr, void *buf, uint64_t size)
{
    (void)ctx;
    (void)addr;
    (void)buf;
    (void)size;
    return -1;
}

enum syscall_known syscall_effects(uint64_t nr, const uint64_t args[6], int64_t result,
                                   syscall_read_fn read_mem, syscall_effect_fn emit,
                                   void *ctx)
{
    const struct syscall_row *row = find_row(nr);
    if (!row)
        return SYSCALL_UNKNOWN;
    size_t count;
    const struct effect_spec *specs = row_specs(row, args, &count);
    if (!specs)
        return SYSCALL_UNKNOWN;
    if (is_error_result(result))
        return SYSCALL_MODELED;
    int clipped = 0;
    struct call c;
    c.args = args;
    c.result = result;
    c.read_mem = read_mem ? read_mem : unreadable;
    c.emit = emit;
    c.ctx = ctx;
    c.clipped = &clipped;
    for (int pass = PASS_READS; pass <= PASS_WRITES; pass++) {
        apply_specs(&c, specs, count, (enum pass)pass);
        if (row->custom)
            row->custom(&c, (enum pass)pass);
    }
    return clipped ? SYSCALL_CLIPPED : SYSCALL_MODELED;
}

const char *syscall_name(uint64_t nr)
{
    const struct syscall_row *row = find_row(nr);
    return row ? row->name : NULL;
}
