#include "common/huge_pages.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
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

void *huge_pages_calloc(size_t bytes)
{
    if (bytes < HUGE_PAGES_MAP) {
        void *small = xaligned_alloc(64, bytes ? bytes : 64);
        memset(small, 0, bytes);
        return small;
    }
    size_t align = alignment_of(bytes), length = mapped_length(bytes);
    size_t slack = align > (size_t)sysconf(_SC_PAGESIZE) ? align : 0;
    char *raw = mmap(NULL, length + slack, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (raw == MAP_FAILED)
        oom_exit("a table of the analysis");
    char *base = (char *)(((uintptr_t)raw + align - 1) & ~(uintptr_t)(align - 1));
    if (base > raw)
        munmap(raw, (size_t)(base - raw));
    if (base + length < raw + length + slack)
        munmap(base + length, (size_t)(raw + length + slack - (base + length)));
#ifdef MADV_HUGEPAGE
    if (slack)
        madvise(base, length, MADV_HUGEPAGE); /* a hint */
#endif
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
