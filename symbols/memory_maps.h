/* memory_maps: the file-backed mappings of a recorded process.
 *
 * The recorder keeps this list current as the process maps and unmaps
 * files, and saves it as REC/maps so that code addresses can be named
 * later (symbolizer). Entries are kept sorted by address and never
 * overlap: a new mapping replaces the parts of older ones it covers, as
 * mmap(MAP_FIXED) does. */
#ifndef TRMS_MEMORY_MAPS_H
#define TRMS_MEMORY_MAPS_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

#define MAPS_PROT_R 1u
#define MAPS_PROT_W 2u
#define MAPS_PROT_X 4u

#define MAPS_FILE "maps"

struct map_entry {
    uint64_t start, end;    /* [start, end) in the process */
    uint64_t offset;        /* file offset mapped at start */
    unsigned prot;          /* MAPS_PROT_* bits */
    char *path;
    char build_id[41];      /* hex NT_GNU_BUILD_ID of the file, "" when unknown */
};

struct memory_maps {
    struct map_entry *items;    /* sorted by start, disjoint */
    size_t count;
    size_t capacity;
};

void memory_maps_init(struct memory_maps *maps);
void memory_maps_free(struct memory_maps *maps);

/* Adds a copy of E (its path is copied), first removing or trimming the
 * parts of older entries it overlaps. -1 when E is empty (end <= start)
 * or has no path. */
int memory_maps_add(struct memory_maps *maps, const struct map_entry *e);

/* Forgets [START, END) (munmap): entries are trimmed or split. */
void memory_maps_remove(struct memory_maps *maps, uint64_t start, uint64_t end);

/* The entry containing ADDR, or NULL. The pointer is valid until the next
 * change of the list. */
const struct map_entry *memory_maps_find(const struct memory_maps *maps, uint64_t addr);

/* The text file: one line per entry, "START END OFFSET PROT BUILD_ID PATH"
 * with hex numbers, PROT like "r-x", BUILD_ID "-" when unknown, and the
 * path to the end of the line ('\n' and '\\' escaped as \012 and \134).
 * Lines starting with '#' are comments. Written atomically (a temporary
 * file renamed into place). */
int memory_maps_write(const struct memory_maps *maps, const char *path, struct trms_error *err);

/* Reads PATH into MAPS (initialized, usually empty); a malformed line fails
 * with "PATH:LINE: what is wrong" and leaves MAPS as it was before. */
int memory_maps_read(struct memory_maps *maps, const char *path, struct trms_error *err);

/* Fills the build_id of every entry from its file's NT_GNU_BUILD_ID note,
 * reading each distinct path once. Files that cannot be read or are not
 * ELF keep "" (not an error: fonts, locale archives, deleted files).
 * Returns the number of entries that have a build id afterwards. */
size_t memory_maps_fill_build_ids(struct memory_maps *maps);

#endif
