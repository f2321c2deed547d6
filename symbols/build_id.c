#include "symbols/build_id.h"

#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <unistd.h>

#include "common/regular_file.h"

int elf_build_id_hex(Elf *elf, char out[static 41])
{
    const void *bits;
    ssize_t len = dwelf_elf_gnu_build_id(elf, &bits);
    out[0] = '\0';
    if (len <= 0 || len > 20)
        return -1;
    static const char hex[] = "0123456789abcdef";
    const unsigned char *b = bits;
    for (ssize_t i = 0; i < len; i++) {
        out[2 * i] = hex[b[i] >> 4];
        out[2 * i + 1] = hex[b[i] & 15];
    }
    out[2 * len] = '\0';
    return 0;
}

int file_build_id(const char *path, char out[static 41])
{
    out[0] = '\0';
    elf_version(EV_CURRENT);
    const char *why;
    int fd = regular_file_open(path, 0, &why);
    if (fd < 0)
        return -1;
    Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
    int rc = elf && elf_kind(elf) == ELF_K_ELF ? elf_build_id_hex(elf, out) : -1;
    elf_end(elf);
    close(fd);
    return rc;
}
