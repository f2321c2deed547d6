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

/* Whether huge pages pay for memory whose first touch is much of its use
 * (a shadow map grown past its first 64 MiB). That depends on the host
 * more than on the program: on a Xeon VM whose host takes back freed
 * memory, the first touch of 300 MiB took 0.58-1.18 s in huge pages and
 * 0.12-0.16 s in small ones; on an AMD EPYC VM, 0.50-0.73 s against
 * 0.93-1.20 s. So it is measured, once a process, on its first call
 * (thread-safe): 2 MiB touched a page at a time in small pages and 2 MiB
 * in a huge page, twice each, alternating; huge pages pay unless their
 * touch took more than twice as long (they save TLB misses after it).
 * About 10-20 ms; only where the answer is worth it. */
int huge_pages_first_touch_pays(void);

#endif
