/* routine_match: a routine found by any name a report prints (see
 * routine_match.h). */
#include "report/routine_match.h"

#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/oom.h"
#include "report/name_shorten.h"
#include "report/report.h"
#include "report/report_model.h"

struct matcher {
    const struct report_row *row;
    const char *typed;
    char *glob; /* TYPED with each "..." as "*", or NULL when it has none */
    int hit;
};

static void try_form(struct matcher *m, const char *form)
{
    m->hit |= strcmp(form, m->typed) == 0 || fnmatch(m->typed, form, 0) == 0 ||
              (m->glob && fnmatch(m->glob, form, 0) == 0);
}

/* NAME, and NAME with each location the reports print after it. */
static void try_name(struct matcher *m, const char *name)
{
    const struct report_row *r = m->row;
    char form[REPORT_LABEL_MAX];
    try_form(m, name);
    if (r->file) {
        if (r->line > 0)
            snprintf(form, sizeof form, "%s (%s:%d)", name, r->file, r->line);
        else
            snprintf(form, sizeof form, "%s (%s)", name, r->file);
        try_form(m, form);
    }
    if (r->module) {
        snprintf(form, sizeof form, "%s [%s]", name, report_module_name(r->module));
        try_form(m, form);
        snprintf(form, sizeof form, "%s @0x%" PRIx64, name, r->module_address);
        try_form(m, form);
    }
}

static void try_short(const char *form, void *arg)
{
    try_name(arg, form);
}

/* "..." (what a short form leaves out) as "*". */
static char *dots_as_star(const char *typed)
{
    if (!strstr(typed, "..."))
        return NULL;
    char *glob = xstrdup(typed), *p;
    while ((p = strstr(glob, "...")) != NULL) {
        *p = '*';
        memmove(p + 1, p + 3, strlen(p + 3) + 1);
    }
    return glob;
}

int routine_match(const struct report_row *row, const char *typed)
{
    struct matcher m = {row, typed, dots_as_star(typed), 0};
    try_name(&m, row->name);
    if (!m.hit)
        name_short_forms(row->name, try_short, &m);
    char form[64];
    if (!m.hit && row->module) {
        snprintf(form, sizeof form, "0x%" PRIx64, row->module_address);
        try_form(&m, form);
    }
    if (!m.hit && row->address) {
        snprintf(form, sizeof form, "0x%" PRIx64, row->address);
        m.hit = strcmp(form, typed) == 0 ||
                (strncmp(typed, "0x", 2) == 0 && strtoull(typed, NULL, 16) == row->address);
    }
    free(m.glob);
    return m.hit;
}
