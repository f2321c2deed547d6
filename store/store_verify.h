/* store_verify: checks an LMDB data file before LMDB is let near it.
 *
 * LMDB trusts the structure of its file completely, by design: a damaged
 * page header sends it past the end of a page or of the map (a crash, an
 * assertion, or heap corruption in a writer), and a recording may come from
 * anyone. So before LMDB opens the file, its two meta pages are checked
 * (page size, the last page inside the file, the trees' flags), and before
 * any database is opened, every page of the snapshot a read transaction
 * sees is checked the way LMDB will use it: read with pread into our own
 * buffer (never through LMDB's map), each page number in the file and used
 * once, header flags and bounds, every node inside its page and the nodes
 * tiling the page, keys in order within the bounds their parents set,
 * every tree's depth and page and entry counts as its record says, each
 * overflow run inside the file, and the free-page lists (which a writer
 * merges and reuses) well formed and disjoint from the live pages. A check
 * costs a read of each branch and leaf page; the values on overflow pages
 * (the results themselves) are not read: their own checksums guard them.
 *
 * Pages of the snapshot stay put while the read transaction lives (LMDB
 * reuses a page only once no reader can see it), so a writer committing
 * meanwhile does not disturb the check. What trms commits after the check
 * is trusted: only bytes that came from elsewhere are checked. */
#ifndef TRMS_STORE_VERIFY_H
#define TRMS_STORE_VERIFY_H

#include <lmdb.h>
#include <stddef.h>

/* Checks the files of the store in the directory DIR before anything
 * opens them: data.mdb, lock.mdb and trms's lock file regular files or
 * absent (never a link, a FIFO or a device; LMDB's, for a WRITABLE open,
 * with no other name a write would change too), and data.mdb's meta pages
 * (absent or empty: a new store, fine). 0, or -1 with WHY (LEN bytes)
 * saying what is wrong. */
int store_verify_files(const char *dir, int writable, char *why, size_t len);

/* Checks every page of the latest snapshot of ENV (open): 0, or -1 with
 * WHY saying what is wrong; 1 with WHY when the check itself could not run
 * (a read error, no memory): that is no damage. */
int store_verify_snapshot(MDB_env *env, char *why, size_t len);

#endif
