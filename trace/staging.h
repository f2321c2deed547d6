/* staging: the hidden directories recordings are built in, and the ones
 * a crashed trms left behind.
 *
 * recording_stage() creates ".NAME.staging-XXXXXX" beside the final path
 * and locks it (flock) for as long as the process lives: a staging
 * directory nobody holds locked was left by a trms that died before it
 * could rename or remove it (SIGKILL, a power loss). Such leftovers are
 * found by the next `record` and `info` in that folder and removed by
 * `trms gc`. A staging directory also holds a reserve file, a few MiB
 * taken when recording starts and given back before the end is written,
 * so that a recording that fills the disk can still be closed and kept. */
#ifndef TRMS_STAGING_H
#define TRMS_STAGING_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "common/error.h"

/* Holds STAGING locked until staging_unlock (or the process's end). */
int staging_lock(const char *staging, struct trms_error *err);
void staging_unlock(const char *staging);

/* Whether NAME (a file name, no directory) is one a staging directory
 * gets. */
int staging_is_name(const char *name);

struct staging_leftover {
    char *path;
    uint64_t bytes;     /* on disk */
    time_t modified;
};

/* The staging directories in DIR that no live process holds. 0, or -1
 * with ERR when DIR cannot be read. Free with staging_leftovers_free. */
int staging_find_leftovers(const char *dir, struct staging_leftover **out, size_t *n,
                           struct trms_error *err);
void staging_leftovers_free(struct staging_leftover *items, size_t n);

/* Removes PATH and everything under it (symbolic links are removed, not
 * followed). 0, or -1 with errno set. */
int staging_remove_tree(const char *path);

/* Bytes PATH occupies on disk, directories walked. */
uint64_t staging_disk_usage(const char *path);

/* The reserve: BYTES taken in STAGING (posix_fallocate), or given back.
 * NAME: the recording's, for the message. */
#define STAGING_RESERVE_BYTES (4u << 20)
int staging_reserve(const char *staging, uint64_t bytes, const char *name,
                    struct trms_error *err);
void staging_release_reserve(const char *staging);

/* Bytes the recording being made in STAGING has written there so far: its
 * files on disk, the reserve left out. */
uint64_t staging_bytes_written(const char *staging);

/* The directory holding PATH ("." when PATH has none); free() it. */
char *staging_parent_dir(const char *path);

#endif
