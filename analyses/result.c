#include "analyses/result.h"

#include <stdlib.h>

#include "analyses/activation.h"

void analysis_result_free(struct analysis_result *r)
{
    if (!r)
        return;
    routine_table_free(&r->routines);
    for (size_t i = 0; i < r->n_profiles; i++) {
        free(r->profiles[i].rms_points);
        free(r->profiles[i].trms_points);
    }
    free(r->profiles);
    free(r->contexts);
    free(r->reuse_global.bins);
    for (size_t i = 0; i < r->n_threads; i++)
        free(r->reuse_threads[i].histogram.bins);
    free(r->reuse_threads);
    free(r);
}

const char *analysis_result_routine_label(const struct analysis_result *r, uint32_t id,
                                          char buf[static 19])
{
    if (id == ROUTINE_ROOT)
        return ROUTINE_ROOT_LABEL;
    return routine_table_label(&r->routines, id, buf);
}
