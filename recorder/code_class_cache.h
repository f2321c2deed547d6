/* code_class_cache: the code classes (call_tracker.h) of call and jump
 * targets, by address, direct-mapped. A program calls a few hundred
 * routines millions of times, and jumps to a few thousand places between
 * them (sqlite3: 8% of 3.6 M lookups missed a cache of 1024 slots, each
 * miss some 2,900 instructions in the symbolizer); without it each call
 * asks the symbolizer (a hash lookup) and tests the module's name. An
 * answer depends on the maps only: forget them all when the maps change,
 * by a generation, so that a program that maps often pays no clearing. */
#ifndef TRMS_CODE_CLASS_CACHE_H
#define TRMS_CODE_CLASS_CACHE_H

#include <stdint.h>

#include "recorder/call_tracker.h"

#define CODE_CLASS_CACHE_BITS 12   /* sets of two slots */

enum {
    CODE_CLASS_PLT = 1,
    CODE_CLASS_ENTRY = 2,
    CODE_CLASS_RECORDER = 4,
};

struct code_class_cache {
    uint32_t generation;        /* of the current maps; slots of others are empty */
    struct code_class_slot {
        uint64_t addr;
        uint32_t generation;    /* 0: never filled */
        uint32_t bits;          /* CODE_CLASS_* */
    } slots[2u << CODE_CLASS_CACHE_BITS];     /* set k: slots 2k (newer), 2k + 1 */
};

/* The first slot of ADDR's set. */
static inline struct code_class_slot *code_class_slot(struct code_class_cache *c,
                                                      uint64_t addr)
{
    /* Targets are close together: a multiplicative hash spreads them. */
    uint64_t h = (addr * UINT64_C(0x9e3779b97f4a7c15)) >> (64 - CODE_CLASS_CACHE_BITS);
    return &c->slots[2 * h];
}

static inline int code_class_slot_holds(const struct code_class_cache *c,
                                        const struct code_class_slot *s, uint64_t addr)
{
    return s->addr == addr && s->generation == c->generation + 1;
}

/* 1 with *OUT when ADDR's answer is kept. */
static inline int code_class_cache_get(struct code_class_cache *c, uint64_t addr,
                                       struct code_class *out)
{
    const struct code_class_slot *s = code_class_slot(c, addr);
    if (addr == 0)
        return 0;
    if (!code_class_slot_holds(c, s, addr) && !code_class_slot_holds(c, ++s, addr))
        return 0;
    *out = (struct code_class){.is_plt = !!(s->bits & CODE_CLASS_PLT),
                               .is_function_entry = !!(s->bits & CODE_CLASS_ENTRY),
                               .is_recorder = !!(s->bits & CODE_CLASS_RECORDER)};
    return 1;
}

static inline void code_class_cache_put(struct code_class_cache *c, uint64_t addr,
                                        const struct code_class *class)
{
    /* The newer answer of the set goes to the older's slot. */
    struct code_class_slot *s = code_class_slot(c, addr);
    s[1] = s[0];
    s->addr = addr;
    s->generation = c->generation + 1;
    s->bits = (class->is_plt ? CODE_CLASS_PLT : 0) |
              (class->is_function_entry ? CODE_CLASS_ENTRY : 0) |
              (class->is_recorder ? CODE_CLASS_RECORDER : 0);
}

static inline void code_class_cache_forget(struct code_class_cache *c)
{
    /* A slot's generation is its maps' plus one, so that a zeroed cache
     * holds nothing; after 2^32 - 1 changes of the maps, clear for real. */
    if (++c->generation == UINT32_MAX) {
        c->generation = 0;
        for (uint32_t i = 0; i < 2u << CODE_CLASS_CACHE_BITS; i++)
            c->slots[i].generation = 0;
    }
}

#endif
