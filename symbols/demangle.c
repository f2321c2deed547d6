/* demangle: C++ names through libstdc++'s demangler (see demangle.h).
 *
 * The Itanium C++ ABI's __cxa_demangle is the demangler GCC's own tools
 * use (libiberty's cp-demangle, built into libstdc++), kept up to date
 * with every new mangling; a C declaration of the ABI function is all it
 * takes. */
#include "symbols/demangle.h"

#include <stdlib.h>
#include <string.h>

#include "common/oom.h"

char *__cxa_demangle(const char *mangled, char *buffer, size_t *length, int *status);

char *demangle_symbol(const char *name)
{
    if (!name || strncmp(name, "_Z", 2) != 0)
        return NULL;
    /* A symbol version is the linker's, not the name's. */
    const char *version = strchr(name, '@');
    size_t len = version ? (size_t)(version - name) : strlen(name);
    char *bare = xmalloc(len + 1);
    memcpy(bare, name, len);
    bare[len] = '\0';
    int status = 0;
    char *plain = __cxa_demangle(bare, NULL, NULL, &status);
    free(bare);
    if (status != 0 || !plain)
        return NULL;
    if (!version)
        return plain;
    size_t plain_len = strlen(plain), version_len = strlen(version);
    char *out = xmalloc(plain_len + version_len + 1);
    memcpy(out, plain, plain_len);
    memcpy(out + plain_len, version, version_len + 1);
    free(plain);
    return out;
}
