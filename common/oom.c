#include "common/oom.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Noreturn void oom_exit(const char *what)
{
    fprintf(stderr, "trms: out of memory (%s)\n", what);
    exit(2);
}

void *xmalloc(size_t size)
{
    void *p = malloc(size ? size : 1);
    if (!p)
        oom_exit("malloc");
    return p;
}

void *xaligned_alloc(size_t alignment, size_t size)
{
    size = (size + alignment - 1) / alignment * alignment;
    void *p = aligned_alloc(alignment, size ? size : alignment);
    if (!p)
        oom_exit("malloc");
    return p;
}

void *xcalloc(size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p)
        oom_exit("calloc");
    return p;
}

void *xrealloc(void *ptr, size_t size)
{
    void *p = realloc(ptr, size ? size : 1);
    if (!p)
        oom_exit("realloc");
    return p;
}

char *xstrdup(const char *s)
{
    char *p = strdup(s);
    if (!p)
        oom_exit("strdup");
    return p;
}
