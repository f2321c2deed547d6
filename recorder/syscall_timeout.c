/* syscall_timeout: a table of the x86-64 calls that wait with a limit, and
 * futex's operations (syscall_timeout.h). */
#define _GNU_SOURCE
#include "recorder/syscall_timeout.h"

#include <stddef.h>
#include <time.h>

#define NR_FUTEX 202
#define FUTEX_CMD_MASK 0x7f
#define FUTEX_OP_WAIT 0
#define FUTEX_OP_WAIT_BITSET 9
#define FUTEX_FLAG_CLOCK_REALTIME 256
#define TIMER_ABSTIME_FLAG 1
#define RESULT_ETIMEDOUT (-110)
#define RESULT_EAGAIN (-11)
#define NS_PER_S UINT64_C(1000000000)
/* Longer limits are read as no limit (and keep the sums below in range). */
#define MAX_LIMIT_S (UINT64_C(1) << 32)

enum form { TIMESPEC, TIMEVAL, MILLISECONDS };

/* Where the limit's clock comes from: none (relative), or the clock of an
 * absolute limit. */
enum clock_of {
    RELATIVE,
    ABS_REALTIME,         /* mq_timed*: CLOCK_REALTIME */
    ABS_CLOCK_IN_ARG4,    /* futex_waitv */
    ABS_IF_FLAG_IN_ARG1,  /* clock_nanosleep: TIMER_ABSTIME in flags, clock in args[0] */
};

struct timed_call {
    uint16_t nr;
    uint8_t arg;          /* the argument holding the limit (a pointer, or milliseconds) */
    uint8_t form;
    uint8_t clock;
    uint8_t sleep;
    int16_t expired;
};

static const struct timed_call calls[] = {
    {35, 0, TIMESPEC, RELATIVE, 1, 0},                        /* nanosleep */
    {230, 2, TIMESPEC, ABS_IF_FLAG_IN_ARG1, 1, 0},            /* clock_nanosleep */
    {7, 2, MILLISECONDS, RELATIVE, 0, 0},                     /* poll */
    {271, 2, TIMESPEC, RELATIVE, 0, 0},                       /* ppoll */
    {23, 4, TIMEVAL, RELATIVE, 0, 0},                         /* select */
    {270, 4, TIMESPEC, RELATIVE, 0, 0},                       /* pselect6 */
    {232, 3, MILLISECONDS, RELATIVE, 0, 0},                   /* epoll_wait */
    {281, 3, MILLISECONDS, RELATIVE, 0, 0},                   /* epoll_pwait */
    {441, 3, TIMESPEC, RELATIVE, 0, 0},                       /* epoll_pwait2 */
    {128, 2, TIMESPEC, RELATIVE, 0, RESULT_EAGAIN},           /* rt_sigtimedwait */
    {220, 3, TIMESPEC, RELATIVE, 0, RESULT_EAGAIN},           /* semtimedop */
    {242, 4, TIMESPEC, ABS_REALTIME, 0, RESULT_ETIMEDOUT},    /* mq_timedsend */
    {243, 4, TIMESPEC, ABS_REALTIME, 0, RESULT_ETIMEDOUT},    /* mq_timedreceive */
    {208, 4, TIMESPEC, RELATIVE, 0, 0},                       /* io_getevents */
    {449, 3, TIMESPEC, ABS_CLOCK_IN_ARG4, 0, RESULT_ETIMEDOUT}, /* futex_waitv */
};

/* futex waits with a limit: WAIT's is relative, WAIT_BITSET's a time of
 * CLOCK_MONOTONIC, or of CLOCK_REALTIME with FUTEX_CLOCK_REALTIME. */
static const struct timed_call *futex_call(uint64_t op, struct timed_call *row,
                                           clockid_t *clock)
{
    *row = (struct timed_call){NR_FUTEX, 3, TIMESPEC, RELATIVE, 0, RESULT_ETIMEDOUT};
    if ((op & FUTEX_CMD_MASK) == FUTEX_OP_WAIT)
        return row;
    if ((op & FUTEX_CMD_MASK) != FUTEX_OP_WAIT_BITSET)
        return NULL;
    row->clock = ABS_REALTIME;  /* with the clock below */
    *clock = op & FUTEX_FLAG_CLOCK_REALTIME ? CLOCK_REALTIME : CLOCK_MONOTONIC;
    return row;
}

static const struct timed_call *find_call(uint64_t nr)
{
    for (size_t i = 0; i < sizeof calls / sizeof *calls; i++)
        if (calls[i].nr == nr)
            return &calls[i];
    return NULL;
}

/* The limit at ADDR in FORM, in ns; 0 when it cannot be read or is no
 * limit. */
static int read_limit(const struct timed_call *c, uint64_t value, syscall_memory_reader read,
                      void *ctx, uint64_t *ns)
{
    if (c->form == MILLISECONDS) {
        int32_t ms = (int32_t)value;
        if (ms < 0)
            return 0;
        *ns = (uint64_t)ms * 1000000u;
        return 1;
    }
    int64_t pair[2];  /* seconds, and ns (timespec) or us (timeval) */
    if (value == 0 || read(ctx, value, pair, sizeof pair) != 0 || pair[0] < 0 || pair[1] < 0 ||
        (uint64_t)pair[0] >= MAX_LIMIT_S)
        return 0;
    *ns = (uint64_t)pair[0] * NS_PER_S + (uint64_t)pair[1] * (c->form == TIMEVAL ? 1000u : 1u);
    return 1;
}

static uint64_t clock_now_ns(clockid_t clock)
{
    struct timespec now;
    if (clock_gettime(clock, &now) != 0)
        return 0;
    return (uint64_t)now.tv_sec * NS_PER_S + (uint64_t)now.tv_nsec;
}

struct syscall_timeout syscall_timeout(uint64_t nr, const uint64_t args[6],
                                       syscall_memory_reader read, void *ctx)
{
    struct syscall_timeout t = {0};
    struct timed_call futex_row;
    clockid_t clock = CLOCK_REALTIME;
    const struct timed_call *c =
        nr == NR_FUTEX ? futex_call(args[1], &futex_row, &clock) : find_call(nr);
    if (!c || !read_limit(c, args[c->arg], read, ctx, &t.ns))
        return t;
    t.bounded = 1;
    t.sleep = c->sleep;
    t.expired = c->expired;
    switch (c->clock) {
    case ABS_IF_FLAG_IN_ARG1:
        if (!(args[1] & TIMER_ABSTIME_FLAG))
            return t;
        clock = (clockid_t)args[0];
        break;
    case ABS_CLOCK_IN_ARG4:
        clock = (clockid_t)args[4];
        break;
    case ABS_REALTIME:  /* futex's clock was set above */
        break;
    default:
        return t;
    }
    uint64_t now = clock_now_ns(clock);
    t.absolute = 1;
    t.ns = t.ns > now ? t.ns - now : 0;
    return t;
}
