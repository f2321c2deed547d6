#define _GNU_SOURCE  /* F_OFD_SETLK */
#include "store/store_lock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/regular_file.h"
#include "store/store_env.h"
#include "store/store_internal.h"
#include "trace/recording.h"

/* FNV-1a of the key's spelling, folded below 2^62: a byte offset no
 * other key takes in practice. */
static off_t key_offset(const struct result_key *key)
{
    char text[160];
    result_key_string(text, sizeof text, "", key);
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (const char *c = text; *c; c++)
        h = (h ^ (uint8_t)*c) * UINT64_C(0x100000001b3);
    return (off_t)(h & ((UINT64_C(1) << 62) - 1));
}

int store_lock_analysis(const char *rec_path, const struct result_key *key, int *fd,
                        struct trms_error *err)
{
    char *results = recording_file(rec_path, RECORDING_RESULTS);
    const char *why;
    /* Never made through a link planted there (lock_file_open). */
    *fd = lock_file_open(results, STORE_ENV_LOCK_FILE, 1, &why);
    if (*fd < 0) {
        error_set(err, "%s/%s: cannot lock: %s", results, STORE_ENV_LOCK_FILE, why);
        free(results);
        return -1;
    }
    free(results);
    struct flock lock = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = key_offset(key),
                         .l_len = 1};
    if (fcntl(*fd, F_OFD_SETLK, &lock) == 0)
        return 0;
    int e = errno;
    close(*fd);
    *fd = -1;
    if (e == EAGAIN || e == EACCES)
        return STORE_LOCK_BUSY;
    return error_set(err, "%s: cannot lock the result store: %s", rec_path, strerror(e));
}
