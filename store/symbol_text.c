/* symbol_text: routine names as lines of the text event format
 * (symbol_text.h). */
#include "store/symbol_text.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/oom.h"
#include "common/parse_number.h"

enum { F_ADDR, F_NAME, F_FILE, F_LINE, F_OFFSET, F_MODULE, F_MODULE_ADDR, N_FIELDS };

/* Longer fields are not names (and a trace from elsewhere is untrusted). */
#define FIELD_MAX 4096

static void write_field(FILE *out, const char *s)
{
    for (; s && *s; s++) {
        if (*s == '\t')
            fputs("\\t", out);
        else if (*s == '\n')
            fputs("\\n", out);
        else if (*s == '\\')
            fputs("\\\\", out);
        else
            fputc(*s, out);
    }
}

void symbol_text_write(FILE *out, const struct symbol_name *n)
{
    fprintf(out, "#@" SYMBOL_TEXT_KEYWORD " 0x%" PRIx64 "\t", n->addr);
    write_field(out, n->name);
    fputc('\t', out);
    write_field(out, n->file);
    fprintf(out, "\t%d\t0x%" PRIx64 "\t", n->line, n->offset);
    write_field(out, n->module);
    fprintf(out, "\t0x%" PRIx64 "\n", n->module_addr);
}

/* The field at *CURSOR up to a tab or the end, unescaped into a new
 * string; NULL with ERR when it is malformed. */
static char *read_field(const char **cursor, struct trms_error *err)
{
    const char *s = *cursor;
    size_t len = strcspn(s, "\t");
    if (len > FIELD_MAX) {
        error_set(err, "a field of over %d bytes", FIELD_MAX);
        return NULL;
    }
    char *out = xmalloc(len + 1), *o = out;
    for (size_t i = 0; i < len; i++) {
        if (s[i] != '\\') {
            *o++ = s[i];
            continue;
        }
        char next = i + 1 < len ? s[++i] : '\0';
        if (next != 't' && next != 'n' && next != '\\') {
            free(out);
            error_set(err, "an escape other than \\t, \\n or \\\\");
            return NULL;
        }
        *o++ = next == 't' ? '\t' : next == 'n' ? '\n' : '\\';
    }
    *o = '\0';
    *cursor = s + len + (s[len] == '\t');
    return out;
}

int symbol_text_parse(const char *line, struct symbol_names *names, struct trms_error *err)
{
    char *f[N_FIELDS] = {0};
    const char *cursor = line;
    int rc = 0;
    for (int i = 0; i < N_FIELDS && rc == 0; i++)
        if (!(f[i] = read_field(&cursor, err)))
            rc = -1;
    uint64_t addr = 0, line_no = 0, offset = 0, module_addr = 0;
    if (rc == 0 && *cursor)
        rc = error_set(err, "more than %d fields", N_FIELDS);
    if (rc == 0 && (parse_u64_cstr(f[F_ADDR], &addr) != PARSE_NUMBER_OK ||
                    parse_u64_cstr(f[F_LINE], &line_no) != PARSE_NUMBER_OK ||
                    parse_u64_cstr(f[F_OFFSET], &offset) != PARSE_NUMBER_OK ||
                    parse_u64_cstr(f[F_MODULE_ADDR], &module_addr) != PARSE_NUMBER_OK ||
                    line_no > INT32_MAX))
        rc = error_set(err, "a field that should be a number is not one");
    if (rc == 0) {
        struct symbol_name n = {.addr = addr, .name = *f[F_NAME] ? f[F_NAME] : NULL,
                                .file = *f[F_FILE] ? f[F_FILE] : NULL, .line = (int)line_no,
                                .offset = offset, .module = *f[F_MODULE] ? f[F_MODULE] : NULL,
                                .module_addr = module_addr};
        symbol_names_add(names, &n);
    }
    for (int i = 0; i < N_FIELDS; i++)
        free(f[i]);
    return rc;
}
