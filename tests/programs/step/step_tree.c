/* step_tree: a process tree small enough to single-step (issue 25), for
 * the step engine's tree tests (tests/e2e/step_e2e.py, case tree_*).
 * Without libc, like tiny_threads.h: a few thousand instructions each.
 *
 *   step_tree workers N      forks N workers; worker k sums (k + 1) * 100
 *                            ints in sum_worker_part and exits with k; the
 *                            parent (parent_setup) waits for all
 *   step_tree children N     forks N children that exit at once
 *   step_tree fork-exec PROG ARGS...   forks; the child execs PROG
 *   step_tree vfork-exec PROG ARGS...  the same through vfork
 *   step_tree exec PROG ARGS...        execs PROG
 *   step_tree shim SCRIPT PROG ARGS... execs PROG: the interpreter of a
 *                            `#!/path/step_tree shim` script run as
 *                            `SCRIPT PROG ARGS...`
 *   step_tree work K         sums K * 100 ints in sum_worker_part, exits 0
 *   step_tree pipe N         forks N writers into one pipe; writer k writes
 *                            k + 1 bytes four times; the parent reads what
 *                            is there each time (consume): how many reads,
 *                            and of what length, is the schedule's choice
 *
 * The parent's exit status is its child's (fork-exec, vfork-exec), or 0
 * when every child exited as expected. */
#include "tiny_syscall.h"

enum { SYS_READ = 0, SYS_WRITE = 1, SYS_CLOSE = 3, SYS_PIPE = 22, SYS_FORK = 57, SYS_EXECVE = 59,
       SYS_WAIT4 = 61, SYS_EXIT_GROUP = 231 };

__attribute__((noreturn)) static void leave(int status)
{
    tiny_syscall(SYS_EXIT_GROUP, status, 0, 0, 0);
    __builtin_unreachable();
}

/* vfork, then execve in the child on the parent's stack: all in registers,
 * so that the child writes nothing the parent would find changed. */
static long vfork_exec(const char *path, char *const argv[], char *const envp[])
{
    long ret;
    __asm__ volatile("mov $58, %%eax\n\t"
                     "syscall\n\t"
                     "test %%rax, %%rax\n\t"
                     "jnz 1f\n\t"
                     "mov $59, %%eax\n\t"
                     "syscall\n\t"
                     "mov $60, %%eax\n\t"
                     "mov $127, %%edi\n\t"
                     "syscall\n\t"
                     "1:"
                     : "=a"(ret)
                     : "D"(path), "S"(argv), "d"(envp)
                     : "rcx", "r11", "memory");
    return ret;
}

static int same(const char *a, const char *b)
{
    while (*a && *a == *b)
        a++, b++;
    return *a == *b;
}

static int number(const char *s)
{
    int n = 0;
    while (*s >= '0' && *s <= '9')
        n = 10 * n + (*s++ - '0');
    return n;
}

static volatile int values[1000];

/* Each worker's own routine: the tests find it in every worker's profile. */
__attribute__((noinline)) static long sum_worker_part(int n)
{
    long sum = 0;
    for (int i = 0; i < n; i++)
        sum += values[i];
    return sum;
}

__attribute__((noinline)) static void parent_setup(void)
{
    for (int i = 0; i < 1000; i++)
        values[i] = i % 7;
}

/* Waits for N children: 0 when each exited (with its index, WORKERS). */
static int wait_all(int n, int workers)
{
    int bad = 0;
    for (int i = 0; i < n; i++) {
        int status = 0;
        if (tiny_syscall(SYS_WAIT4, -1, (long)&status, 0, 0) < 0 || (status & 0x7f) != 0)
            bad = 1;
        else if (!workers && (status >> 8 & 0xff) != 0)
            bad = 1;
    }
    return bad;
}

/* The parent's routine for what one read of the pipe gave. */
__attribute__((noinline)) static int consume(const char *buf, long n)
{
    int sum = 0;
    for (long i = 0; i < n; i++)
        sum += buf[i];
    return sum;
}

static int pipe_tree(int n)
{
    int fds[2];
    if (tiny_syscall(SYS_PIPE, (long)fds, 0, 0, 0) != 0)
        return 1;
    static const char bytes[16] = "abcdefghijklmnop";
    for (int k = 0; k < n; k++) {
        long pid = tiny_syscall(SYS_FORK, 0, 0, 0, 0);
        if (pid < 0)
            return 1;
        if (pid == 0) {
            for (int j = 0; j < 4; j++) {
                sum_worker_part((k + 1) * 10);
                if (tiny_syscall(SYS_WRITE, fds[1], (long)bytes, k + 1, 0) != k + 1)
                    leave(100);
            }
            leave(k);
        }
    }
    tiny_syscall(SYS_CLOSE, fds[1], 0, 0, 0);
    char buf[64];
    long got, total = 0;
    while ((got = tiny_syscall(SYS_READ, fds[0], (long)buf, sizeof buf, 0)) > 0) {
        consume(buf, got);
        total += got;
    }
    return wait_all(n, 1) || total != 4 * n * (n + 1) / 2;
}

static int run(int argc, char **argv, char **envp)
{
    if (argc < 3)
        return 2;
    const char *mode = argv[1];
    if (same(mode, "work")) {
        parent_setup();
        return sum_worker_part(number(argv[2]) * 100) > 0 ? 0 : 3;
    }
    if (same(mode, "exec"))
        return (int)tiny_syscall(SYS_EXECVE, (long)argv[2], (long)(argv + 2), (long)envp, 0) ? 127 : 0;
    if (same(mode, "shim") && argc > 3)
        return (int)tiny_syscall(SYS_EXECVE, (long)argv[3], (long)(argv + 3), (long)envp, 0) ? 127 : 0;
    if (same(mode, "pipe")) {
        parent_setup();
        return pipe_tree(number(argv[2]));
    }
    if (same(mode, "workers") || same(mode, "children")) {
        int n = number(argv[2]), workers = same(mode, "workers");
        parent_setup();
        for (int k = 0; k < n; k++) {
            long pid = tiny_syscall(SYS_FORK, 0, 0, 0, 0);
            if (pid < 0)
                return 1;
            if (pid == 0)
                leave(workers ? (sum_worker_part((k + 1) * 100) >= 0 ? k : 100) : 0);
        }
        return wait_all(n, workers);
    }
    long pid;
    if (same(mode, "fork-exec")) {
        pid = tiny_syscall(SYS_FORK, 0, 0, 0, 0);
        if (pid == 0) {
            tiny_syscall(SYS_EXECVE, (long)argv[2], (long)(argv + 2), (long)envp, 0);
            leave(127);
        }
    } else if (same(mode, "vfork-exec")) {
        pid = vfork_exec(argv[2], argv + 2, envp);
    } else {
        return 2;
    }
    int status = 0;
    if (pid < 0 || tiny_syscall(SYS_WAIT4, pid, (long)&status, 0, 0) != pid || (status & 0x7f) != 0)
        return 1;
    return status >> 8 & 0xff;
}

/* The process starts here, its arguments on the stack. */
__attribute__((used, noreturn)) static void start(long *sp)
{
    int argc = (int)sp[0];
    char **argv = (char **)(sp + 1);
    leave(run(argc, argv, argv + argc + 1));
}

__asm__(".globl _start\n"
        "_start:\n\t"
        "xor %ebp, %ebp\n\t"
        "mov %rsp, %rdi\n\t"
        "and $-16, %rsp\n\t"
        "call start\n\t"
        "hlt\n");
