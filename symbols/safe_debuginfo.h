/* safe_debuginfo: libdw's search for a file's separate debuginfo, without
 * opening what is not a regular file.
 *
 * The standard search opens the name a binary's .gnu_debuglink gives,
 * beside the binary, in its .debug/ directory and under /usr/lib/debug.
 * For a binary inside a recording from elsewhere (an rr trace keeps copies
 * of the mapped files) that name is the recording's to choose: a FIFO
 * there would hang the analysis, a device would be opened. So the
 * candidates are looked at first; when one exists and is not a regular
 * file, or the name is a path rather than a name, only the build-id
 * search (under the system's debug directories) is made. */
#ifndef TRMS_SAFE_DEBUGINFO_H
#define TRMS_SAFE_DEBUGINFO_H

#include <elfutils/libdwfl.h>

/* A Dwfl_Callbacks find_debuginfo. */
int safe_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
                        Dwarf_Addr base, const char *file_name, const char *debuglink_file,
                        GElf_Word debuglink_crc, char **debuginfo_file_name);

#endif
