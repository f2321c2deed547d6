/* oom: what hot paths do when memory runs out.
 *
 * Shadow memories and stacks grow on every new cell; threading an error
 * code through each access would cost more than it buys. Running out of
 * memory ends the process with one line on stderr before anything is
 * committed to the store, so earlier results survive. */
#ifndef TRMS_OOM_H
#define TRMS_OOM_H

#include <stddef.h>

_Noreturn void oom_exit(const char *what);

/* malloc/calloc/realloc that never return NULL. */
void *xmalloc(size_t size);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *ptr, size_t size);
char *xstrdup(const char *s);
/* C11 aligned_alloc (ALIGNMENT a power of two; SIZE rounded up to a
 * multiple of it); freed with free(). */
void *xaligned_alloc(size_t alignment, size_t size);

#endif
