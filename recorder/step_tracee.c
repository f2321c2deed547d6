/* step_tracee: ptrace and /proc helpers (step_tracee.h). */
#define _GNU_SOURCE
#include "recorder/step_tracee.h"

#include <cpuid.h>
#include <elf.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PTRACE_OPTIONS                                                                         \
    (PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACECLONE | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | \
     PTRACE_O_TRACEEXEC | PTRACE_O_TRACEEXIT | PTRACE_O_EXITKILL)

/* AVX-512's feature bits in cpuid leaf 7: hidden from the program, so
 * that the C library picks code capstone 4 decodes (Debian 12's rejects
 * some EVEX forms), as it does under Valgrind, which has no AVX-512:
 * subleaf 0 ebx F DQ IFMA PF ER CD BW VL, ecx VBMI VBMI2 VNNI BITALG
 * VPOPCNTDQ, edx 4VNNIW 4FMAPS VP2INTERSECT FP16; subleaf 1 eax BF16. */
#define AVX512_LEAF7_EBX 0xdc230000u
#define AVX512_LEAF7_ECX 0x00005842u
#define AVX512_LEAF7_EDX 0x0080010cu
#define AVX512_LEAF7_1_EAX 0x00000020u

/* An auxiliary vector longer than this is not one. */
#define MAX_AUXV_ENTRIES 256
#define MAX_STACK_WORDS (1u << 20)

pid_t tracee_spawn(const char *path, char *const argv[], struct trms_error *err)
{
    pid_t pid = fork();
    if (pid < 0) {
        error_set(err, "fork: %s", strerror(errno));
        return -1;
    }
    if (pid == 0) {
        /* The recorder ignores ^C for the program's sake; the program must not. */
        signal(SIGINT, SIG_DFL);
        signal(SIGQUIT, SIG_DFL);
        /* Addresses must repeat from run to run; a sandbox that forbids
         * personality() only costs that. */
        int persona = personality(0xffffffff);
        if (persona != -1)
            personality((unsigned long)persona | ADDR_NO_RANDOMIZE);
        if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) != 0)
            _exit(126);
        raise(SIGSTOP);
        execv(path, argv);
        _exit(127);
    }
    int status;
    if (waitpid(pid, &status, __WALL) != pid || !WIFSTOPPED(status)) {
        error_set(err, "%s could not be traced (ptrace: is another tracer attached, or does "
                       "the system forbid it?)", path);
        return -1;
    }
    if (ptrace(PTRACE_SETOPTIONS, pid, NULL, (void *)(long)PTRACE_OPTIONS) != 0 ||
        ptrace(PTRACE_CONT, pid, NULL, NULL) != 0) {
        error_set(err, "ptrace: %s", strerror(errno));
        kill(pid, SIGKILL);
        waitpid(pid, &status, __WALL);
        return -1;
    }
    if (waitpid(pid, &status, __WALL) != pid) {
        error_set(err, "waitpid: %s", strerror(errno));
        return -1;
    }
    if (WIFSTOPPED(status) && status >> 8 == (SIGTRAP | PTRACE_EVENT_EXEC << 8))
        return pid;
    if (WIFEXITED(status) && (WEXITSTATUS(status) == 127 || WEXITSTATUS(status) == 126))
        error_set(err, "%s could not be executed", path);
    else
        error_set(err, "%s stopped before its exec (status 0x%x)", path, status);
    if (!WIFEXITED(status) && !WIFSIGNALED(status)) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, __WALL);
    }
    return -1;
}

static int read_word(pid_t pid, uint64_t addr, uint64_t *out)
{
    return tracee_read(pid, addr, out, sizeof *out);
}

int tracee_hide_vdso(pid_t pid, uint64_t sp)
{
    /* argc, argv[argc] and its NULL, envp and its NULL, then the vector */
    uint64_t argc, word;
    if (read_word(pid, sp, &argc) != 0 || argc > MAX_STACK_WORDS)
        return -1;
    uint64_t p = sp + 8 * (argc + 2);
    for (unsigned n = 0;; n++, p += 8) {
        if (n > MAX_STACK_WORDS || read_word(pid, p, &word) != 0)
            return -1;
        if (word == 0)
            break;
    }
    p += 8;
    for (unsigned n = 0; n < MAX_AUXV_ENTRIES; n++, p += 16) {
        if (read_word(pid, p, &word) != 0 || word == AT_NULL)
            return -1;
        if (word == AT_SYSINFO_EHDR)
            return ptrace(PTRACE_POKEDATA, pid, (void *)p, (void *)(long)AT_IGNORE) == 0 ? 0 : -1;
    }
    return -1;
}

int tracee_registers(pid_t tid, struct rerun_record *r, uint64_t *orig_rax)
{
    struct user_regs_struct u;
    if (ptrace(PTRACE_GETREGS, tid, NULL, &u) != 0)
        return -1;
    *r = (struct rerun_record){
        .tid = (uint32_t)tid, .ip = u.rip, .fsbase = u.fs_base, .gsbase = u.gs_base,
        .flags = u.eflags,
        .gp = {u.rax, u.rcx, u.rdx, u.rbx, u.rsp, u.rbp, u.rsi, u.rdi,
               u.r8, u.r9, u.r10, u.r11, u.r12, u.r13, u.r14, u.r15}};
    if (orig_rax)
        *orig_rax = u.orig_rax;
    return 0;
}

int tracee_set_rax(pid_t tid, uint64_t rax)
{
    struct user_regs_struct u;
    if (ptrace(PTRACE_GETREGS, tid, NULL, &u) != 0)
        return -1;
    u.rax = rax;
    return ptrace(PTRACE_SETREGS, tid, NULL, &u) == 0 ? 0 : -1;
}

int tracee_emulate_cpuid(pid_t tid, size_t length)
{
    struct user_regs_struct u;
    if (ptrace(PTRACE_GETREGS, tid, NULL, &u) != 0)
        return -1;
    unsigned a, b, c, d;
    unsigned leaf = (unsigned)u.rax, subleaf = (unsigned)u.rcx;
    __cpuid_count(leaf, subleaf, a, b, c, d);
    if (leaf == 7 && subleaf == 0) {
        b &= ~AVX512_LEAF7_EBX;
        c &= ~AVX512_LEAF7_ECX;
        d &= ~AVX512_LEAF7_EDX;
    } else if (leaf == 7 && subleaf == 1) {
        a &= ~AVX512_LEAF7_1_EAX;
    }
    u.rax = a;
    u.rbx = b;
    u.rcx = c;
    u.rdx = d;
    u.rip += length;
    return ptrace(PTRACE_SETREGS, tid, NULL, &u) == 0 ? 0 : -1;
}

int tracee_read(pid_t pid, uint64_t addr, void *buf, size_t size)
{
    return tracee_read_some(pid, addr, buf, size) == size ? 0 : -1;
}

size_t tracee_read_some(pid_t pid, uint64_t addr, void *buf, size_t size)
{
    struct iovec local = {buf, size}, remote = {(void *)addr, size};
    ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
    if (n >= 0)
        return (size_t)n;
    /* Read-protected pages (execute-only code, guard pages' neighbours):
     * /proc/PID/mem reads what the tracer may see. */
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/mem", (int)pid);
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    size_t got = 0;
    if (fseeko(f, (off_t)addr, SEEK_SET) == 0)
        got = fread(buf, 1, size, f);
    fclose(f);
    return got;
}

/* The value after "KEY:" in /proc/TID/status, parsed in BASE. */
static int status_field(pid_t tid, const char *key, int base, uint64_t *value)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)tid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    int found = -1;
    size_t len = strlen(key);
    while (found != 0 && fgets(line, sizeof line, f))
        if (strncmp(line, key, len) == 0 && line[len] == ':') {
            *value = strtoull(line + len + 1, NULL, base);
            found = 0;
        }
    fclose(f);
    return found;
}

enum signal_disposition tracee_signal_disposition(pid_t tid, int sig)
{
    uint64_t caught = 0, ignored = 0, bit = UINT64_C(1) << (sig - 1);
    if (sig < 1 || sig > 64)
        return SIGNAL_IGNORED;
    if (status_field(tid, "SigCgt", 16, &caught) == 0 && (caught & bit))
        return SIGNAL_CAUGHT;
    if (sig == SIGKILL)
        return SIGNAL_KILLS;
    if (sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU)
        return SIGNAL_STOPS;
    if (status_field(tid, "SigIgn", 16, &ignored) == 0 && (ignored & bit))
        return SIGNAL_IGNORED;
    if (sig == SIGCHLD || sig == SIGURG || sig == SIGWINCH || sig == SIGCONT)
        return SIGNAL_IGNORED;  /* their default action */
    return SIGNAL_KILLS;
}

char tracee_run_state(pid_t tid)
{
    char path[64], line[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)tid);
    FILE *f = fopen(path, "r");
    if (!f)
        return '?';
    char state = '?';
    if (fgets(line, sizeof line, f)) {
        char *end = strrchr(line, ')');  /* the command name may hold anything */
        if (end && end[1] == ' ' && end[2])
            state = end[2];
    }
    fclose(f);
    return state;
}

/* The function thread TID sleeps in, into BUF: 0, or -1. "0" when it
 * does not sleep (or the kernel does not say). */
static int sleeping_in(pid_t tid, char *buf, size_t size)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/wchan", (int)tid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, size - 1, f);
    fclose(f);
    buf[n] = '\0';
    return n ? 0 : -1;
}

int tracee_waits(pid_t tid, int wchan)
{
    char where[128];
    if (wchan && (sleeping_in(tid, where, sizeof where) != 0 || strcmp(where, "0") == 0))
        return 0;
    return tracee_run_state(tid) == 'S';
}

int tracee_names_sleeps(pid_t tid)
{
    char where[128];
    return sleeping_in(tid, where, sizeof where) == 0 && strcmp(where, "0") != 0;
}

int tracee_fd_is_file(pid_t pid, uint64_t fd)
{
    char path[64];
    struct stat st;
    if (fd > INT32_MAX)
        return 1;
    snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)pid, (int)fd);
    if (stat(path, &st) != 0)
        return 1;
    return S_ISREG(st.st_mode) || S_ISDIR(st.st_mode) || S_ISBLK(st.st_mode);
}

pid_t tracee_thread_group(pid_t tid)
{
    uint64_t tgid;
    return status_field(tid, "Tgid", 10, &tgid) == 0 ? (pid_t)tgid : -1;
}

static long elapsed_us(const struct timespec *since)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (now.tv_sec - since->tv_sec) * 1000000L + (now.tv_nsec - since->tv_nsec) / 1000;
}

pid_t tracee_wait_any(int *status, long ms)
{
    if (ms < 0) {
        pid_t r;
        while ((r = waitpid(-1, status, __WALL)) < 0 && errno == EINTR)
            ;
        return r;
    }
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    /* Polls, backing off from 20 us: a thread that leaves the kernel at
     * once is seen at once, one that waits costs little. */
    long pause_us = 20;
    for (;;) {
        pid_t r = waitpid(-1, status, __WALL | WNOHANG);
        if (r != 0)
            return r < 0 && errno == EINTR ? 0 : r;
        long left = ms * 1000 - elapsed_us(&start);
        if (left <= 0)
            return 0;
        struct timespec pause = {0, (pause_us < left ? pause_us : left) * 1000};
        nanosleep(&pause, NULL);
        if (pause_us < 1000)
            pause_us *= 2;
    }
}
