/* build_id: the NT_GNU_BUILD_ID of an ELF file, in hex.
 *
 * Recorded with each map so that a later symbolization can tell whether
 * the file on disk is still the one the process ran. */
#ifndef TRMS_BUILD_ID_H
#define TRMS_BUILD_ID_H

#include <libelf.h>

/* Writes ELF's build id as lowercase hex into OUT; -1 (OUT = "") when it
 * has none or it is longer than 20 bytes. */
int elf_build_id_hex(Elf *elf, char out[static 41]);

/* The same for the file at PATH; -1 too when it cannot be read as ELF. */
int file_build_id(const char *path, char out[static 41]);

#endif
