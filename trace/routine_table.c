#include "trace/routine_table.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/oom.h"

static uint64_t hash_name(const char *name, size_t len)
{
    uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */
    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)name[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

void routine_table_init(struct routine_table *table)
{
    table->items = NULL;
    table->count = 0;
    table->capacity = 0;
    table->addr_tag = 0;
    u64map_init(&table->by_name);
    u64map_init(&table->by_addr);
}

void routine_table_free(struct routine_table *table)
{
    for (size_t i = 0; i < table->count; i++)
        free(table->items[i].name);
    free(table->items);
    u64map_free(&table->by_name);
    u64map_free(&table->by_addr);
    routine_table_init(table);
}

/* The by_name key of NAME: its hash, probed past other names' entries.
 * *found tells whether NAME itself is registered there. */
static uint64_t name_key(const struct routine_table *table, const char *name, size_t len,
                         int *found)
{
    for (uint64_t key = hash_name(name, len);; key++) {
        uint64_t *slot = u64map_find(&table->by_name, key);
        if (!slot) {
            *found = 0;
            return key;
        }
        const char *known = table->items[*slot].name;
        if (strlen(known) == len && memcmp(known, name, len) == 0) {
            *found = 1;
            return key;
        }
    }
}

int routine_table_append(struct routine_table *table, const char *name, size_t len,
                         uint64_t addr, uint32_t *id)
{
    /* UINT32_MAX is ROUTINE_ROOT; ids stay below it. */
    if (table->count >= UINT32_MAX - 1)
        return -1;
    if (table->count == table->capacity) {
        table->capacity = table->capacity ? table->capacity * 2 : 64;
        table->items = xrealloc(table->items, table->capacity * sizeof *table->items);
    }
    char *copy = NULL;
    if (name) {
        copy = xmalloc(len + 1);
        memcpy(copy, name, len);
        copy[len] = '\0';
    }
    table->items[table->count] = (struct routine){.name = copy, .addr = addr};
    *id = (uint32_t)table->count++;
    /* The first routine of a name (or address) is the one lookups find. */
    if (name) {
        int found;
        uint64_t key = name_key(table, name, len, &found);
        if (!found)
            *u64map_upsert(&table->by_name, key, NULL) = *id;
    } else if (!u64map_find(&table->by_addr, addr)) {
        *u64map_upsert(&table->by_addr, addr, NULL) = *id;
    }
    return 0;
}

int routine_table_intern_name(struct routine_table *table, const char *name,
                              size_t len, uint32_t *id)
{
    int found;
    uint64_t key = name_key(table, name, len, &found);
    if (found) {
        *id = (uint32_t)*u64map_find(&table->by_name, key);
        return 0;
    }
    return routine_table_append(table, name, len, 0, id);
}

void routine_table_tag_addresses(struct routine_table *table, uint64_t tag)
{
    table->addr_tag = tag;
}

int routine_table_intern_addr(struct routine_table *table, uint64_t addr, uint32_t *id)
{
    addr |= table->addr_tag;
    uint64_t *slot = u64map_find(&table->by_addr, addr);
    if (slot) {
        *id = (uint32_t)*slot;
        return 0;
    }
    return routine_table_append(table, NULL, 0, addr, id);
}

void routine_table_copy(struct routine_table *dst, const struct routine_table *src)
{
    routine_table_init(dst);
    for (size_t i = 0; i < src->count; i++) {
        const struct routine *r = &src->items[i];
        uint32_t id;
        routine_table_append(dst, r->name, r->name ? strlen(r->name) : 0, r->addr, &id);
    }
}

const char *routine_table_label(const struct routine_table *table, uint32_t id,
                                char buf[static 19])
{
    if (id >= table->count)
        return "?";
    const struct routine *r = &table->items[id];
    if (r->name)
        return r->name;
    snprintf(buf, 19, "0x%" PRIx64, r->addr);
    return buf;
}
