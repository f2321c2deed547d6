#include "tools/report.h"

#include <stdlib.h>
#include <string.h>

#include "common/oom.h"

const char *format_u128(unsigned __int128 v, char buf[static 40])
{
    char *p = buf + 39;
    *p = '\0';
    do {
        *--p = (char)('0' + (int)(v % 10));
        v /= 10;
    } while (v);
    return p;
}

static const struct analysis_result *sort_result;

static int by_cost(const void *x, const void *y)
{
    const struct routine_profile *a = *(const struct routine_profile *const *)x;
    const struct routine_profile *b = *(const struct routine_profile *const *)y;
    if (a->cost != b->cost)
        return a->cost < b->cost ? 1 : -1;
    char ba[19], bb[19];
    int c = strcmp(analysis_result_routine_label(sort_result, a->routine, ba),
                   analysis_result_routine_label(sort_result, b->routine, bb));
    if (c)
        return c;
    return (a->tid > b->tid) - (a->tid < b->tid);
}

const struct routine_profile **profiles_by_cost(const struct analysis_result *r)
{
    const struct routine_profile **order = xcalloc(r->n_profiles, sizeof *order);
    for (size_t i = 0; i < r->n_profiles; i++)
        order[i] = &r->profiles[i];
    sort_result = r;
    qsort(order, r->n_profiles, sizeof *order, by_cost);
    return order;
}
