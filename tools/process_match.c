#include "tools/process_match.h"

#include <string.h>

#include "common/oom.h"

/* The key a pass matches by: the command line, or the program's name. */
static const char *key_of(const struct tree_process *p, int by_name, char *buf, size_t size)
{
    return by_name ? process_tree_name(p, buf, size) : p->command;
}

void process_match(const struct process_tree *a, const struct process_tree *b, long **a_to_b,
                   long **b_to_a)
{
    *a_to_b = xmalloc((a->n ? a->n : 1) * sizeof **a_to_b);
    *b_to_a = xmalloc((b->n ? b->n : 1) * sizeof **b_to_a);
    for (size_t i = 0; i < a->n; i++)
        (*a_to_b)[i] = -1;
    for (size_t j = 0; j < b->n; j++)
        (*b_to_a)[j] = -1;
    /* Items are in the order they started (by number): the first
     * unmatched equal key in B is the k-th's partner. */
    for (int by_name = 0; by_name < 2; by_name++)
        for (size_t i = 0; i < a->n; i++) {
            if ((*a_to_b)[i] >= 0)
                continue;
            char ka[256], kb[256];
            const char *key = key_of(&a->items[i], by_name, ka, sizeof ka);
            for (size_t j = 0; j < b->n; j++)
                if ((*b_to_a)[j] < 0 && strcmp(key, key_of(&b->items[j], by_name, kb, sizeof kb)) == 0) {
                    (*a_to_b)[i] = (long)j;
                    (*b_to_a)[j] = (long)i;
                    break;
                }
        }
}
