#include "common/huge_pages.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "common/oom.h"

/* The length mapped for a table of BYTES, and its alignment. */
static size_t alignment_of(size_t bytes)
{
    return bytes >= HUGE_PAGES_MIN ? HUGE_PAGES_SIZE : (size_t)sysconf(_SC_PAGESIZE);
}

static size_t mapped_length(size_t bytes)
{
    size_t align = alignment_of(bytes);
    return (bytes + align - 1) / align * align;
}

/* LENGTH bytes mapped from the kernel (zero) at a multiple of ALIGN, the
 * rest of the mapping given back; ADVICE for madvise when not 0 (a hint).
 * NULL when the kernel has no room. */
static char *map_aligned(size_t length, size_t align, int advice)
{
    size_t slack = align > (size_t)sysconf(_SC_PAGESIZE) ? align : 0;
    char *raw = mmap(NULL, length + slack, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (raw == MAP_FAILED)
        return NULL;
    char *base = (char *)(((uintptr_t)raw + align - 1) & ~(uintptr_t)(align - 1));
    if (base > raw)
        munmap(raw, (size_t)(base - raw));
    if (base + length < raw + length + slack)
        munmap(base + length, (size_t)(raw + length + slack - (base + length)));
    if (advice)
        madvise(base, length, advice);
    return base;
}

void *huge_pages_calloc(size_t bytes)
{
    if (bytes < HUGE_PAGES_MAP) {
        void *small = xaligned_alloc(64, bytes ? bytes : 64);
        memset(small, 0, bytes);
        return small;
    }
    size_t align = alignment_of(bytes);
    int advice = 0;
#ifdef MADV_HUGEPAGE
    if (align == HUGE_PAGES_SIZE)
        advice = MADV_HUGEPAGE;
#endif
    char *base = map_aligned(mapped_length(bytes), align, advice);
    if (!base)
        oom_exit("a table of the analysis");
    return base;
}

void huge_pages_free(void *p, size_t bytes)
{
    if (!p)
        return;
    if (bytes < HUGE_PAGES_MAP)
        free(p);
    else
        munmap(p, mapped_length(bytes));
}

/* Seconds to touch HUGE_PAGES_SIZE of fresh memory a small page at a
 * time, in a huge page when HUGE (aligned, as huge_pages_calloc maps). */
static double first_touch_seconds(int huge)
{
    size_t length = HUGE_PAGES_SIZE, page = (size_t)sysconf(_SC_PAGESIZE);
    int advice = 0;
#if defined(MADV_HUGEPAGE) && defined(MADV_NOHUGEPAGE)
    advice = huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE;
#endif
    volatile char *base = map_aligned(length, length, advice);
    if (!base)
        return 0;
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (size_t off = 0; off < length; off += page)
        base[off] = 1;
    clock_gettime(CLOCK_MONOTONIC, &b);
    munmap((char *)base, length);
    return (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) * 1e-9;
}

static int first_touch_pays;

static void probe_first_touch(void)
{
    double small = 0, huge = 0;
    for (int round = 0; round < 2; round++) {
        small += first_touch_seconds(0);
        huge += first_touch_seconds(1);
    }
    first_touch_pays = huge <= 2 * small;
}

int huge_pages_first_touch_pays(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, probe_first_touch);
    return first_touch_pays;
}
