/* code_cache: open addressing with linear probing, keyed by address (see
 * code_cache.h). Dropping a range rebuilds the table without it: ranges
 * change at mmap-family system calls, rarely next to the decoding work. */
#include "replayer/code_cache.h"

#include <stdlib.h>
#include <string.h>

#include "common/oom.h"

/* Bytes an undecodable entry may depend on: the longest instruction. */
#define MAX_INSN_BYTES 15

void code_cache_init(struct code_cache *c)
{
    *c = (struct code_cache){0};
}

void code_cache_free(struct code_cache *c)
{
    free(c->slots);
    *c = (struct code_cache){0};
}

static struct insn *slot_for(struct code_cache *c, uint64_t addr)
{
    size_t mask = c->capacity - 1;
    for (size_t i = (size_t)((addr * UINT64_C(0x9e3779b97f4a7c15)) >> 32) & mask;;
         i = (i + 1) & mask) {
        struct insn *s = &c->slots[i];
        if (code_cache_slot_empty(s) || s->addr == addr)
            return s;
    }
}

static void grow(struct code_cache *c)
{
    struct insn *old = c->slots;
    size_t old_capacity = c->capacity;
    c->capacity = old_capacity ? 2 * old_capacity : 1024;
    c->slots = xcalloc(c->capacity, sizeof *c->slots);
    for (size_t i = 0; i < old_capacity; i++)
        if (!code_cache_slot_empty(&old[i]))
            *slot_for(c, old[i].addr) = old[i];
    free(old);
}

struct insn *code_cache_put(struct code_cache *c, const struct insn *insn)
{
    if (2 * (c->count + 1) > c->capacity)
        grow(c);
    struct insn *s = slot_for(c, insn->addr);
    if (code_cache_slot_empty(s)) {
        c->count++;
        if (c->count == 1 || insn->addr < c->lowest)
            c->lowest = insn->addr;
        if (c->count == 1 || insn->addr > c->highest)
            c->highest = insn->addr;
    }
    *s = *insn;
    return s;
}

static uint64_t span(const struct insn *s)
{
    return s->family == FAMILY_UNDECODABLE ? MAX_INSN_BYTES : s->length;
}

void code_cache_drop(struct code_cache *c, uint64_t addr, uint64_t length)
{
    if (c->count == 0 || length == 0)
        return;
    uint64_t end = addr + length < addr ? UINT64_MAX : addr + length;
    if (end <= c->lowest || (addr > c->highest && addr - c->highest >= MAX_INSN_BYTES))
        return;  /* no entry starts before END, none runs into ADDR */
    struct insn *old = c->slots;
    size_t old_capacity = c->capacity;
    c->slots = xcalloc(c->capacity, sizeof *c->slots);
    c->count = 0;
    for (size_t i = 0; i < old_capacity; i++) {
        const struct insn *s = &old[i];
        if (code_cache_slot_empty(s) || (s->addr < end && s->addr + span(s) > addr))
            continue;
        code_cache_put(c, s);
    }
    free(old);
}

void code_cache_clear(struct code_cache *c)
{
    if (c->slots)
        memset(c->slots, 0, c->capacity * sizeof *c->slots);
    c->count = 0;
}
