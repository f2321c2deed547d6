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
 * signals, locks, queues or time, and which of their arguments are file
 * descriptors whose kind decides it: a read or write of a regular file can
 * take long but waits for nobody (syscall_fd_args). */
#define FD0 1u
#define FD1 2u
#define FD2 4u
static const struct {
    uint16_t nr;
    uint8_t fd_args;
} may_block[] = {
    {0, FD0} /* read */,          {1, FD0} /* write */,         {2, 0} /* open (a FIFO) */,
    {7, 0} /* poll */,            {16, FD0} /* ioctl (terminals) */,
    {19, FD0} /* readv */,        {20, FD0} /* writev */,       {23, 0} /* select */,
    {34, 0} /* pause */,          {35, 0} /* nanosleep */,      {40, FD0 | FD1} /* sendfile */,
    {42, 0} /* connect */,        {43, 0} /* accept */,         {44, 0} /* sendto */,
    {45, 0} /* recvfrom */,       {46, 0} /* sendmsg */,        {47, 0} /* recvmsg */,
    {61, 0} /* wait4 */,          {65, 0} /* semop */,
    {69, 0} /* msgsnd */,         {70, 0} /* msgrcv */,         {72, 0} /* fcntl (F_SETLKW) */,
    {73, 0} /* flock */,          {128, 0} /* rt_sigtimedwait */, {130, 0} /* rt_sigsuspend */,
    {208, 0} /* io_getevents */,  {220, 0} /* semtimedop */,    {230, 0} /* clock_nanosleep */,
    {232, 0} /* epoll_wait */,    {242, 0} /* mq_timedsend */,  {243, 0} /* mq_timedreceive */,
    {247, 0} /* waitid */,        {257, 0} /* openat (a FIFO) */, {270, 0} /* pselect6 */,
    {271, 0} /* ppoll */,         {275, FD0 | FD2} /* splice */, {276, 0} /* tee */,
    {278, 0} /* vmsplice */,      {281, 0} /* epoll_pwait */,   {288, 0} /* accept4 */,
    {295, FD0} /* preadv */,      {296, FD0} /* pwritev */,     {299, 0} /* recvmmsg */,
    {307, 0} /* sendmmsg */,      {327, FD0} /* preadv2 */,     {328, FD0} /* pwritev2 */,
    {426, 0} /* io_uring_enter */, {437, 0} /* openat2 */,      {441, 0} /* epoll_pwait2 */,
    {449, 0} /* futex_waitv */,
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
        if (may_block[i].nr == nr)
            return SYSCALL_MAY_BLOCK;
    return SYSCALL_RETURNS;
}

unsigned syscall_fd_args(uint64_t nr)
{
    for (size_t i = 0; i < sizeof may_block / sizeof *may_block; i++)
        if (may_block[i].nr == nr)
            return may_block[i].fd_args;
    return 0;
}
