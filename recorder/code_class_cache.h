/* code_class_cache: the code classes (call_tracker.h) of recent call and
 * jump targets, by address, direct-mapped. A program calls a few hundred
 * routines millions of times; without it each call asks the symbolizer (a
 * hash lookup) and tests the module's name. An answer depends on the maps
 * only: forget them all when the maps change. */
#ifndef TRMS_CODE_CLASS_CACHE_H
#define TRMS_CODE_CLASS_CACHE_H

#include <stdint.h>
#include <string.h>

#include "recorder/call_tracker.h"

#define CODE_CLASS_CACHE_BITS 10

struct code_class_cache {
    struct code_class_slot {
        uint64_t addr;          /* 0: empty (no code is at 0) */
        struct code_class class;
    } slots[1u << CODE_CLASS_CACHE_BITS];
};

static inline struct code_class_slot *code_class_slot(struct code_class_cache *c,
                                                      uint64_t addr)
{
    /* Entries are 16-byte aligned more often than not: mix higher bits in. */
    uint64_t h = (addr ^ (addr >> CODE_CLASS_CACHE_BITS)) >> 2;
    return &c->slots[h & ((1u << CODE_CLASS_CACHE_BITS) - 1)];
}

/* 1 with *OUT when ADDR's answer is kept. */
static inline int code_class_cache_get(struct code_class_cache *c, uint64_t addr,
                                       struct code_class *out)
{
    const struct code_class_slot *s = code_class_slot(c, addr);
    if (addr == 0 || s->addr != addr)
        return 0;
    *out = s->class;
    return 1;
}

static inline void code_class_cache_put(struct code_class_cache *c, uint64_t addr,
                                        const struct code_class *class)
{
    struct code_class_slot *s = code_class_slot(c, addr);
    s->addr = addr;
    s->class = *class;
}

static inline void code_class_cache_forget(struct code_class_cache *c)
{
    memset(c->slots, 0, sizeof c->slots);
}

#endif
