/* report_fold: pass-through frames folded into the frame that does the
 * work (see report_fold.h). */
#include "report/report_fold.h"

#include <stdlib.h>

#include "common/oom.h"
#include "report/report_model.h"

static const struct report_model *sorting;

/* By thread, then by cost, highest first, then by rank. */
static int by_thread_and_cost(const void *x, const void *y)
{
    const struct report_row *a = &sorting->rows[*(const size_t *)x];
    const struct report_row *b = &sorting->rows[*(const size_t *)y];
    if (a->all_threads != b->all_threads)
        return a->all_threads - b->all_threads;
    if (a->tid != b->tid)
        return a->tid < b->tid ? -1 : 1;
    if (a->cost != b->cost)
        return a->cost > b->cost ? -1 : 1;
    size_t i = *(const size_t *)x, j = *(const size_t *)y;
    return (i > j) - (i < j);
}

static int same_thread(const struct report_row *a, const struct report_row *b)
{
    return a->all_threads == b->all_threads && a->tid == b->tid;
}

void report_fold_chains(struct report_model *m)
{
    size_t n = m->n_rows;
    size_t *order = xcalloc(n ? n : 1, sizeof *order);
    long *next = xcalloc(n ? n : 1, sizeof *next);
    for (size_t i = 0; i < n; i++) {
        order[i] = i;
        next[i] = -1;
        m->rows[i].passes_to = -1;
    }
    sorting = m;
    qsort(order, n, sizeof *order, by_thread_and_cost);
    /* A frame's callee: the costliest row after it in its thread (never
     * itself, never back up the order, so no cycle) whose cost is the
     * frame's cost less its own, within the slack. */
    for (size_t k = 0; k < n; k++) {
        const struct report_row *a = &m->rows[order[k]];
        if (!((double)a->self_cost < REPORT_PASS_SELF_SHARE * (double)a->cost))
            continue;
        double rest = (double)(a->cost - a->self_cost);
        for (size_t j = k + 1; j < n && same_thread(a, &m->rows[order[j]]); j++) {
            const struct report_row *b = &m->rows[order[j]];
            if ((double)b->cost < (1 - REPORT_PASS_SLACK) * rest)
                break;
            if (b->cost > 0) {
                next[order[k]] = (long)order[j];
                break;
            }
        }
    }
    /* Each frame of a chain into its deepest; a wrapper on the way is
     * folded as a wrapper, not as a frame of the chain. */
    for (size_t i = 0; i < n; i++) {
        long end = next[i];
        while (end >= 0 && next[end] >= 0)
            end = next[end];
        m->rows[i].passes_to = m->rows[i].wrapper ? -1 : end;
    }
    free(next);
    free(order);
}
