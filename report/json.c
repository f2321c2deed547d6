#include "report/json.h"

#include <string.h>

#include "common/visible.h"

void json_string(FILE *out, const char *s)
{
    fputc('"', out);
    size_t left = strlen(s);
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        /* What visible.h would escape, JSON escapes its own way: a C1
         * control, DEL or a byte of no valid UTF-8 sequence as the code
         * point of its value (JSON has no raw bytes). */
        int n = visible_char(p, left);
        if (*p == 0xc2 && left >= 2 && p[1] >= 0x80 && p[1] <= 0x9f) {
            fprintf(out, "\\u%04x", p[1]);  /* a C1 control, whole */
            p += 2;
            left -= 2;
            continue;
        }
        if (*p == '"' || *p == '\\')
            fprintf(out, "\\%c", *p);
        else if (n <= 0 || *p == '\n' || *p == '\t')
            fprintf(out, "\\u%04x", *p);
        else
            fwrite(p, 1, (size_t)n, out);
        size_t step = n > 0 ? (size_t)n : 1;
        p += step;
        left -= step;
    }
    fputc('"', out);
}
