#include "tests/move_to_front.h"

#include <stdlib.h>
#include <string.h>

#include "common/oom.h"

void mtf_access(struct mtf *m, uint64_t line)
{
    size_t d = 0;
    while (d < m->n && m->lines[d] != line)
        d++;
    if (d == m->n) {
        if (m->n == m->capacity) {
            m->capacity = m->capacity ? 2 * m->capacity : 1024;
            m->lines = xrealloc(m->lines, m->capacity * sizeof *m->lines);
        }
        m->n++;
        m->cold++;
    } else {
        if (d >= m->hist_len) {
            size_t len = m->hist_len ? m->hist_len : 1024;
            while (len <= d)
                len *= 2;
            m->hist = xrealloc(m->hist, len * sizeof *m->hist);
            memset(m->hist + m->hist_len, 0, (len - m->hist_len) * sizeof *m->hist);
            m->hist_len = len;
        }
        m->hist[d]++;
    }
    memmove(m->lines + 1, m->lines, d * sizeof *m->lines);
    m->lines[0] = line;
}

void mtf_free(struct mtf *m)
{
    free(m->lines);
    free(m->hist);
}
