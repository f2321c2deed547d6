#include "symbols/safe_debuginfo.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* Where the standard search looks for LINK next to FILE_NAME's directory
 * DIR (DIR_LEN bytes): beside it, in .debug/, under /usr/lib/debug. */
static int candidates_are_regular(const char *dir, size_t dir_len, const char *link)
{
    static const char *const forms[] = {"%.*s/%s", "%.*s/.debug/%s", "/usr/lib/debug%.*s/%s"};
    for (size_t i = 0; i < sizeof forms / sizeof *forms; i++) {
        char path[4096];
        snprintf(path, sizeof path, forms[i], (int)dir_len, dir, link);
        struct stat st;
        if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
            return 0;
    }
    return 1;
}

int safe_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
                        Dwarf_Addr base, const char *file_name, const char *debuglink_file,
                        GElf_Word debuglink_crc, char **debuginfo_file_name)
{
    int safe = file_name != NULL;
    if (safe) {
        const char *slash = strrchr(file_name, '/');
        const char *dir = slash ? file_name : ".";
        size_t dir_len = slash ? (size_t)(slash - file_name) : 1;
        char fallback[4096];  /* the standard search's name without a debuglink */
        const char *link = debuglink_file;
        if (!link) {
            snprintf(fallback, sizeof fallback, "%s.debug", slash ? slash + 1 : file_name);
            link = fallback;
        }
        safe = !strchr(link, '/') && strcmp(link, "..") != 0 &&
               candidates_are_regular(dir, dir_len, link);
    }
    if (!safe)
        return dwfl_build_id_find_debuginfo(mod, userdata, modname, base, file_name,
                                            debuglink_file, debuglink_crc, debuginfo_file_name);
    return dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name, debuglink_file,
                                        debuglink_crc, debuginfo_file_name);
}
