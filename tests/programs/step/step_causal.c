/* Synchronization for the step engine's sync records (issue 26): main
 * starts a worker that runs a() (longer) while main runs b(), then joins
 * it (a futex on the tid word the kernel clears at the worker's exit);
 * both then take a mutex (lock cmpxchg 0 -> 1, unlocked by xchg -> 0, a
 * futex when contended) around a short critical section. Speeding b up
 * buys nothing (main waits for a); speeding a up shortens the run until
 * a is no longer than b. Libc-free and small: every instruction is a
 * ptrace step. */
#include "tiny_threads.h"

static struct tiny_thread worker;
static volatile int mutex;    /* 0 free, 1 held, 2 held with waiters */
static volatile long shared;

__attribute__((noinline)) static long spin(long n)
{
    long x = 0;
    for (long i = 0; i < n; i++)
        x += i ^ (x >> 3);
    return x;
}

__attribute__((noinline)) static void a(void) { shared += spin(400); }
__attribute__((noinline)) static void b(void) { shared += spin(200); }

static void lock(void)
{
    int expected = 0;
    if (__atomic_compare_exchange_n(&mutex, &expected, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
        return;
    while (__atomic_exchange_n(&mutex, 2, __ATOMIC_ACQUIRE) != 0)
        tiny_syscall(SYS_FUTEX, (long)&mutex, FUTEX_WAIT, 2, 0);
}

static void unlock(void)
{
    if (__atomic_exchange_n(&mutex, 0, __ATOMIC_RELEASE) == 2)
        tiny_syscall(SYS_FUTEX, (long)&mutex, FUTEX_WAKE, 1, 0);
}

__attribute__((noinline)) static void critical(void)
{
    lock();
    shared += spin(20);
    unlock();
}

static void work(long arg)
{
    (void)arg;
    a();
    critical();
}

int main(void)
{
    tiny_spawn(&worker, work, 0);
    b();
    critical();
    tiny_join(&worker);
    return 0;
}
