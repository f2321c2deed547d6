/* put_symbols: stores routine names in a recording's symbol store, as
 * `trms record` does at the end of a recording, for the CLI tests.
 * usage: put_symbols REC ADDR NAME FILE LINE [ADDR NAME FILE LINE]...
 * (FILE "-" for none). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/parse_number.h"
#include "store/symbol_store.h"

int main(int argc, char **argv)
{
    if (argc < 6 || (argc - 2) % 4 != 0) {
        fprintf(stderr, "usage: put_symbols REC ADDR NAME FILE LINE...\n");
        return 2;
    }
    size_t n = (size_t)(argc - 2) / 4;
    struct symbol_name *names = calloc(n, sizeof *names);
    for (size_t i = 0; i < n; i++) {
        char **a = argv + 2 + 4 * i;
        uint64_t line;
        if (!names || parse_u64_cstr(a[0], &names[i].addr) != PARSE_NUMBER_OK ||
            parse_u64_cstr(a[3], &line) != PARSE_NUMBER_OK) {
            fprintf(stderr, "put_symbols: bad address or line\n");
            return 2;
        }
        names[i].name = a[1];
        names[i].file = strcmp(a[2], "-") ? a[2] : NULL;
        names[i].line = (int)line;
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
