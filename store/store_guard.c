#include "store/store_guard.h"

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* LMDB follows lengths it reads from the file (a value's size, an
 * overflow run's page count): a damaged one faults past the map too. */
#define PAST_THE_MAP (UINT64_C(4) << 30)
#define SLOTS 4

struct watched {
    MDB_env *volatile env;
    uintptr_t start, end;   /* the map, and what a damaged length reaches past it */
    int fd;                 /* data.mdb, for its size */
    char path[480];
};

static struct watched slots[SLOTS];
static struct sigaction previous_segv, previous_bus;
static int installed;

/* ---- what the signal handler may call (async-signal-safe) ---- */

/* The line is put together first and written at once: one line, whole. */
struct line {
    char text[768];
    size_t len;
};

static void put(struct line *l, const char *s)
{
    while (*s && l->len + 1 < sizeof l->text)
        l->text[l->len++] = *s++;
}

static void put_number(struct line *l, uint64_t v)
{
    char buf[24];
    size_t i = sizeof buf - 1;
    buf[i] = '\0';
    do
        buf[--i] = (char)('0' + v % 10);
    while ((v /= 10) != 0 && i > 0);
    put(l, buf + i);
}

static void on_fault(int sig, siginfo_t *info, void *context)
{
    (void)context;
    uintptr_t addr = (uintptr_t)info->si_addr;
    for (int i = 0; i < SLOTS; i++) {
        struct watched *w = &slots[i];
        if (!w->env || addr < w->start || addr >= w->end)
            continue;
        uint64_t offset = addr - w->start;
        struct stat st;
        struct line l = {.len = 0};
        put(&l, "trms: ");
        put(&l, w->path);
        put(&l, ": the result store is damaged: ");
        if (fstat(w->fd, &st) == 0 && offset >= (uint64_t)st.st_size) {
            put(&l, "its pages go on past the end of data.mdb (");
            put_number(&l, (uint64_t)st.st_size);
            put(&l, " bytes): the file was cut short");
        } else {
            put(&l, "reading data.mdb faulted at byte ");
            put_number(&l, offset);
        }
        l.text[l.len++] = '\n';
        if (write(STDERR_FILENO, l.text, l.len) < 0)
            _exit(1);
        _exit(1);
    }
    /* Not the store's: the handler from before takes the fault again. */
    sigaction(sig, sig == SIGBUS ? &previous_bus : &previous_segv, NULL);
}

/* ---- watching ---- */

static void on_assert(MDB_env *env, const char *msg)
{
    const char *path = "the result store";
    for (int i = 0; i < SLOTS; i++)
        if (slots[i].env == env)
            path = slots[i].path;
    fprintf(stderr, "trms: %s: the result store is damaged (LMDB: %s)\n", path, msg);
    _exit(1);
}

static void install(void)
{
    if (installed)
        return;
    struct sigaction sa = {.sa_sigaction = on_fault, .sa_flags = SA_SIGINFO | SA_NODEFER};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, &previous_segv);
    sigaction(SIGBUS, &sa, &previous_bus);
    installed = 1;
}

/* The mapping of the file open as FD: LMDB does not say where its map is
 * (mdb_env_info's address is only that of a fixed map). */
static int find_map(int fd, uintptr_t *start, uintptr_t *end)
{
    struct stat st;
    FILE *maps = fstat(fd, &st) == 0 ? fopen("/proc/self/maps", "r") : NULL;
    if (!maps)
        return -1;
    char line[512];
    int found = -1;
    while (found != 0 && fgets(line, sizeof line, maps)) {
        unsigned long long lo, hi, inode;
        unsigned major, minor;
        if (sscanf(line, "%llx-%llx %*s %*s %x:%x %llu", &lo, &hi, &major, &minor, &inode) == 5 &&
            inode == (unsigned long long)st.st_ino &&
            makedev(major, minor) == st.st_dev) {
            *start = (uintptr_t)lo;
            *end = (uintptr_t)hi;
            found = 0;
        }
    }
    fclose(maps);
    return found;
}

void store_guard_watch(MDB_env *env, const char *path)
{
    int fd;
    uintptr_t start, end;
    if (mdb_env_get_fd(env, &fd) != 0 || find_map(fd, &start, &end) != 0)
        return;
    mdb_env_set_assert(env, on_assert);
    for (int i = 0; i < SLOTS; i++) {
        struct watched *w = &slots[i];
        if (w->env)
            continue;
        w->start = start;
        w->end = end + PAST_THE_MAP;
        w->fd = fd;
        snprintf(w->path, sizeof w->path, "%s", path);
        install();
        w->env = env;  /* last: the handler reads a slot whole or not at all */
        return;
    }
}

void store_guard_unwatch(MDB_env *env)
{
    for (int i = 0; i < SLOTS; i++)
        if (slots[i].env == env)
            slots[i].env = NULL;
}

void store_guard_rewatch(MDB_env *env)
{
    int fd;
    uintptr_t start, end;
    for (int i = 0; i < SLOTS; i++) {
        struct watched *w = &slots[i];
        if (w->env != env)
            continue;
        w->env = NULL;  /* while the slot changes, the handler skips it */
        if (mdb_env_get_fd(env, &fd) != 0 || find_map(fd, &start, &end) != 0)
            return;
        w->start = start;
        w->end = end + PAST_THE_MAP;
        w->env = env;
        return;
    }
}
