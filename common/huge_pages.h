/* huge_pages: zeroed memory for a large table that is read at random (a
 * reuse stack's bitmap, a distance histogram), cache-line aligned.
 *
 * From HUGE_PAGES_MAP bytes on, the table is mapped from the kernel, so
 * that its pages are zeroed only as they are first touched (a window of
 * marks is used from one end). From HUGE_PAGES_MIN bytes on it is whole
 * 2 MiB pages, asked of the kernel as transparent huge pages: with 4 KiB
 * pages every scattered access would also miss the TLB, and a few such
 * tables exceed its reach. Smaller tables take small pages, so that many
 * small stacks (many threads) do not each round up to 2 MiB; the tables
 * double as they grow, so a large one is whole huge pages anyway. */
#ifndef TRMS_HUGE_PAGES_H
#define TRMS_HUGE_PAGES_H

#include <stddef.h>

#define HUGE_PAGES_SIZE ((size_t)2 << 20)
#define HUGE_PAGES_MIN HUGE_PAGES_SIZE
#define HUGE_PAGES_MAP ((size_t)64 << 10)

/* BYTES of zeroes; give them back with huge_pages_free(P, BYTES). */
void *huge_pages_calloc(size_t bytes);
void huge_pages_free(void *p, size_t bytes);

#endif
