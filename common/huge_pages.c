#include "common/huge_pages.h"

#include <string.h>
#include <sys/mman.h>

#include "common/oom.h"

void *huge_pages_calloc(size_t bytes)
{
    if (bytes < HUGE_PAGES_MIN) {
        void *small = xaligned_alloc(64, bytes ? bytes : 64);
        memset(small, 0, bytes);
        return small;
    }
    size_t whole = (bytes + HUGE_PAGES_SIZE - 1) / HUGE_PAGES_SIZE * HUGE_PAGES_SIZE;
    void *p = xaligned_alloc(HUGE_PAGES_SIZE, whole);
#ifdef MADV_HUGEPAGE
    madvise(p, whole, MADV_HUGEPAGE); /* before the first touch; a hint */
#endif
    memset(p, 0, whole);
    return p;
}
