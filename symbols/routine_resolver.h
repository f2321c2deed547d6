/* routine_resolver: names a recording's routines on a thread of its own
 * while the program still runs.
 *
 * Naming needs each routine's symbol and the DWARF of its source line:
 * for a program that calls into libc, loading libc's (compressed) debug
 * information is most of the work. Done once the program has ended, all of
 * it waits; done here, it takes the time the recorder leaves idle on the
 * second core. The thread keeps a symbolizer of its own (libdw handles are
 * not shared between threads), fed every mapping and every new routine in
 * the order the recorder saw them; at the end the caller takes that
 * symbolizer, warm, and names the routines with
 * symbols_resolve_routines_with(), which gives exactly what a fresh
 * symbolizer of all the mappings would. */
#ifndef TRMS_ROUTINE_RESOLVER_H
#define TRMS_ROUTINE_RESOLVER_H

#include <stdint.h>

#include "symbols/memory_maps.h"
#include "symbols/symbolizer.h"

struct routine_resolver;

/* Starts the thread; NULL when no thread can be made (then name the
 * routines at the end, as before). */
struct routine_resolver *routine_resolver_start(void);

/* A file mapping appeared (copied). */
void routine_resolver_map(struct routine_resolver *rr, const struct map_entry *map);

/* A routine with this entry address appeared. */
void routine_resolver_routine(struct routine_resolver *rr, uint64_t addr);

/* Stops the thread after what it is doing now and returns its
 * symbolizer, for the caller to finish with and free; frees RR. What is
 * still queued is left to symbols_resolve_routines_with(). */
struct symbolizer *routine_resolver_finish(struct routine_resolver *rr);

#endif
