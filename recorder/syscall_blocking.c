/* syscall_blocking: a table by syscall number, and futex's operations
 * (syscall_blocking.h). */
#include "recorder/syscall_blocking.h"

#include <stddef.h>

#define NR_FUTEX 202
#define NR_VFORK 58

/* futex(2) operations, less the private and clock flags. */
#define FUTEX_CMD_MASK 0x7f
enum {
    FUTEX_WAIT = 0, FUTEX_WAKE = 1, FUTEX_WAKE_OP = 5, FUTEX_LOCK_PI = 6, FUTEX_WAIT_BITSET = 9,
    FUTEX_WAKE_BITSET = 10, FUTEX_WAIT_REQUEUE_PI = 11, FUTEX_LOCK_PI2 = 13,
};

/* Calls that can wait on pipes, sockets, terminals, FIFOs, children,
 * signals, locks, queues or time. Reads and writes of regular files can
 * take long but wait for nobody; they are listed anyway, since only the
 * descriptor says which they are: the engine waits for them a little
 * before it counts them as blocked. */
static const uint16_t may_block[] = {
    0,   /* read */         1,   /* write */        2,   /* open (a FIFO) */
    7,   /* poll */         16,  /* ioctl (terminals) */
    19,  /* readv */        20,  /* writev */       23,  /* select */
    34,  /* pause */        35,  /* nanosleep */    40,  /* sendfile */
    42,  /* connect */      43,  /* accept */       44,  /* sendto */
    45,  /* recvfrom */     46,  /* sendmsg */      47,  /* recvmsg */
    61,  /* wait4 */        65,  /* semop */
    69,  /* msgsnd */       70,  /* msgrcv */       72,  /* fcntl (F_SETLKW) */
    73,  /* flock */        128, /* rt_sigtimedwait */ 130, /* rt_sigsuspend */
    208, /* io_getevents */ 220, /* semtimedop */   230, /* clock_nanosleep */
    232, /* epoll_wait */   242, /* mq_timedsend */ 243, /* mq_timedreceive */
    247, /* waitid */       257, /* openat (a FIFO) */ 270, /* pselect6 */
    271, /* ppoll */        275, /* splice */       276, /* tee */
    278, /* vmsplice */     281, /* epoll_pwait */  288, /* accept4 */
    295, /* preadv */       296, /* pwritev */      299, /* recvmmsg */
    307, /* sendmmsg */     327, /* preadv2 */      328, /* pwritev2 */
    426, /* io_uring_enter */ 437, /* openat2 */    441, /* epoll_pwait2 */
    449, /* futex_waitv */
};

static enum syscall_blocking futex_blocking(uint64_t op)
{
    switch (op & FUTEX_CMD_MASK) {
    case FUTEX_WAIT:
    case FUTEX_WAIT_BITSET:
        return SYSCALL_FUTEX_WAIT;
    case FUTEX_WAKE:
    case FUTEX_WAKE_OP:  /* the waiters woken on both words */
    case FUTEX_WAKE_BITSET:
        return SYSCALL_FUTEX_WAKE;
    case FUTEX_LOCK_PI:
    case FUTEX_LOCK_PI2:
    case FUTEX_WAIT_REQUEUE_PI:
        return SYSCALL_MAY_BLOCK;
    default:  /* requeues (which count the moved with the woken), unlock_pi, trylock_pi, fd */
        return SYSCALL_RETURNS;
    }
}

enum syscall_blocking syscall_blocking(uint64_t nr, const uint64_t args[6])
{
    if (nr == NR_FUTEX)
        return futex_blocking(args[1]);
    if (nr == NR_VFORK)
        return SYSCALL_WAITS_CHILD;
    for (size_t i = 0; i < sizeof may_block / sizeof *may_block; i++)
        if (may_block[i] == nr)
            return SYSCALL_MAY_BLOCK;
    return SYSCALL_RETURNS;
}
