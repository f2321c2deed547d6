/* result_transfer: stored results as they are, bytes and all, for moving a
 * recording's results elsewhere (`trms pack`, `trms unpack`) without
 * decoding and encoding them again. */
#ifndef TRMS_RESULT_TRANSFER_H
#define TRMS_RESULT_TRANSFER_H

#include <stddef.h>

#include "common/error.h"
#include "store/result_store.h"

/* One stored result: what result_store_list says of it, and its encoded
 * bytes (store/result_codec.h), valid during the call only. */
struct stored_result_bytes {
    struct stored_result_info info;
    const void *value;
    size_t len;
};

/* A key as the store spells it, without prefix: "cell=4/line=64[/events=
 * F-T][/contexts]" (BUF of 128 bytes); and back (-1 when S is not one). */
void result_transfer_key_string(char *buf, size_t len, const struct result_key *k);
int result_transfer_key_parse(const char *s, struct result_key *k);

/* Calls FN for each stored result, in result_store_list's order, in one
 * read transaction; stops at FN's first non-zero answer and returns it. */
int result_store_each_bytes(struct result_store *s,
                            int (*fn)(void *ctx, const struct stored_result_bytes *r), void *ctx,
                            struct trms_error *err);

/* Stores R's bytes under its key with its date, and when R says so makes it
 * the latest, in one transaction. The bytes are the caller's to check. */
int result_store_put_bytes(struct result_store *s, const struct stored_result_bytes *r,
                           struct trms_error *err);

#endif
