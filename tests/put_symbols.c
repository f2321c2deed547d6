/* put_symbols: stores routine names in a recording's symbol store, as
 * `trms record` does at the end of a recording, for the CLI tests.
 * usage: put_symbols REC ADDR NAME FILE LINE [ADDR NAME FILE LINE]...
 *        put_symbols REC -m ADDR NAME FILE LINE OFFSET MODULE MODULE_ADDR...
 * (NAME, FILE, MODULE "-" for none). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/parse_number.h"
#include "store/symbol_store.h"

static const char *or_null(const char *s)
{
    return strcmp(s, "-") ? s : NULL;
}

int main(int argc, char **argv)
{
    int modules = argc > 2 && strcmp(argv[2], "-m") == 0;
    int first = 2 + modules, fields = modules ? 7 : 4;
    if (argc < first + fields || (argc - first) % fields != 0) {
        fprintf(stderr, "usage: put_symbols REC [-m] ADDR NAME FILE LINE "
                        "[OFFSET MODULE MODULE_ADDR]...\n");
        return 2;
    }
    size_t n = (size_t)(argc - first) / (size_t)fields;
    struct symbol_name *names = calloc(n, sizeof *names);
    for (size_t i = 0; i < n; i++) {
        char **a = argv + first + (size_t)fields * i;
        uint64_t line;
        if (!names || parse_u64_cstr(a[0], &names[i].addr) != PARSE_NUMBER_OK ||
            parse_u64_cstr(a[3], &line) != PARSE_NUMBER_OK ||
            (modules && (parse_u64_cstr(a[4], &names[i].offset) != PARSE_NUMBER_OK ||
                         parse_u64_cstr(a[6], &names[i].module_addr) != PARSE_NUMBER_OK))) {
            fprintf(stderr, "put_symbols: bad number\n");
            return 2;
        }
        names[i].name = or_null(a[1]);
        names[i].file = or_null(a[2]);
        names[i].line = (int)line;
        if (modules)
            names[i].module = or_null(a[5]);
    }
    struct trms_error err;
    int rc = symbol_store_save(argv[1], names, n, &err);
    free(names);
    if (rc != 0) {
        fprintf(stderr, "put_symbols: %s\n", err.message);
        return 1;
    }
    return 0;
}
