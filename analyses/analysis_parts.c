#include "analyses/analysis_parts.h"

#include <stdio.h>
#include <string.h>

#include "analyses/analysis.h"

static const struct {
    const char *name;
    const char *words;
    unsigned part;
} parts_table[] = {
    {"rms", "RMS", ANALYSIS_RMS},
    {"trms", "TRMS and induced input", ANALYSIS_TRMS},
    {"reuse", "reuse distances", ANALYSIS_REUSE},
};
#define N_PARTS (sizeof parts_table / sizeof *parts_table)

int analysis_parts_parse(const char *text, unsigned *parts)
{
    if (strcmp(text, "all") == 0) {
        *parts = ANALYSIS_ALL;
        return 0;
    }
    unsigned got = 0;
    for (const char *p = text;;) {
        size_t len = strcspn(p, ",");
        size_t i = 0;
        while (i < N_PARTS && !(strlen(parts_table[i].name) == len &&
                                strncmp(parts_table[i].name, p, len) == 0))
            i++;
        if (i == N_PARTS)
            return -1;
        got |= parts_table[i].part;
        if (p[len] == '\0')
            break;
        p += len + 1;
    }
    *parts = got;
    return 0;
}

const char *analysis_parts_text(unsigned parts, char *buf)
{
    size_t n = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < N_PARTS; i++)
        if (parts & parts_table[i].part)
            n += (size_t)snprintf(buf + n, ANALYSIS_PARTS_TEXT_MAX - n, "%s%s", n ? "," : "",
                                  parts_table[i].name);
    return n ? buf : strcpy(buf, "none");
}

const char *analysis_parts_missing(unsigned parts, char *buf)
{
    size_t n = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < N_PARTS; i++)
        if (!(parts & parts_table[i].part))
            n += (size_t)snprintf(buf + n, ANALYSIS_PARTS_WORDS_MAX - n, "%s%s", n ? ", " : "",
                                  parts_table[i].words);
    return buf;
}

unsigned analysis_parts_passes(unsigned parts)
{
    unsigned passes = 0;
    if (parts & (ANALYSIS_RMS | ANALYSIS_TRMS))
        passes |= PASS_INPUT_SIZE;
    if ((parts & (ANALYSIS_RMS | ANALYSIS_TRMS)) == ANALYSIS_TRMS)
        passes |= PASS_NO_RMS;
    if ((parts & (ANALYSIS_RMS | ANALYSIS_TRMS)) == ANALYSIS_RMS)
        passes |= PASS_NO_TRMS;
    if (parts & ANALYSIS_REUSE)
        passes |= PASS_REUSE;
    return passes;
}

unsigned analysis_passes_parts(unsigned passes)
{
    unsigned parts = 0;
    if (passes & PASS_INPUT_SIZE) {
        if (!(passes & PASS_NO_RMS))
            parts |= ANALYSIS_RMS;
        if (!(passes & PASS_NO_TRMS))
            parts |= ANALYSIS_TRMS;
    }
    if (passes & PASS_REUSE)
        parts |= ANALYSIS_REUSE;
    return parts;
}
