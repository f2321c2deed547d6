/* report_load: the stored results of the recordings a report or a diff
 * names, with what the reports need beside them (routine names, the
 * program, its mappings), loaded one recording at a time (LMDB allows one
 * open of an environment per process). */
#ifndef TRMS_REPORT_LOAD_H
#define TRMS_REPORT_LOAD_H

#include <stddef.h>

#include "common/error.h"
#include "store/result_store.h"
#include "store/symbol_store.h"
#include "symbols/memory_maps.h"
#include "report/report_model.h"

struct loaded_recording {
    const char *path;
    struct analysis_result *result;
    struct symbol_names symbols;
    char *program;               /* from the meta, NULL when absent */
    char *command;
    char *window;                /* what a recording window left out, or NULL */
    int no_trace;                /* recorded with --trace none */
    struct memory_maps maps;     /* empty when the recording has none */
};

struct loaded_reports {
    struct loaded_recording *items;
    struct report_source *sources;   /* one per item, for report_model_build */
    size_t n;
};

/* Loads the result of each of the N recordings stored under WANT (sizes 0:
 * the latest; contexts: one kept per calling context). Says on stderr when
 * they record different programs. */
int report_load(char *const *paths, size_t n, const struct result_key *want,
                struct loaded_reports *out, struct trms_error *err);
void report_unload(struct loaded_reports *l);

#endif
