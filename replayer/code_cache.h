/* code_cache: decoded instructions by address, so that each static
 * instruction is decoded once however often it runs.
 *
 * Entries stay valid until the code under them may have changed: the
 * caller drops the ranges a munmap, mprotect, mremap or mmap touched, and
 * everything at an execve. An instruction that could not be decoded is
 * cached too (as FAMILY_UNDECODABLE), until its range is dropped. */
#ifndef TRMS_CODE_CACHE_H
#define TRMS_CODE_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "replayer/insn.h"

struct code_cache {
    struct insn *slots;   /* length 0: empty */
    size_t capacity;      /* power of two */
    size_t count;
    uint64_t lowest, highest;  /* bounds of the cached addresses, for cheap misses */
};

void code_cache_init(struct code_cache *c);
void code_cache_free(struct code_cache *c);

/* Empty slots are all zero; every stored entry has a length or is
 * undecodable. */
static inline int code_cache_slot_empty(const struct insn *s)
{
    return s->length == 0 && s->family != FAMILY_UNDECODABLE;
}

/* The cached instruction at ADDR, or NULL. */
static inline struct insn *code_cache_find(const struct code_cache *c, uint64_t addr)
{
    if (c->count == 0)
        return NULL;
    size_t mask = c->capacity - 1;
    for (size_t i = (size_t)((addr * UINT64_C(0x9e3779b97f4a7c15)) >> 32) & mask;;
         i = (i + 1) & mask) {
        struct insn *s = &c->slots[i];
        if (code_cache_slot_empty(s))
            return NULL;
        if (s->addr == addr)
            return s;
    }
}

/* Stores INSN (by its address), replacing an earlier entry; returns the
 * stored copy, valid until the next put or drop. */
struct insn *code_cache_put(struct code_cache *c, const struct insn *insn);

/* Drops every instruction that starts in [ADDR, ADDR + LENGTH) or runs
 * into it. */
void code_cache_drop(struct code_cache *c, uint64_t addr, uint64_t length);

void code_cache_clear(struct code_cache *c);

#endif
