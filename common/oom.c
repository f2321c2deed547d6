#include "common/oom.h"

#include <stdio.h>
#include <stdlib.h>

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
