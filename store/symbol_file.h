/* symbol_file: a recording's routine names as one plain file, REC/symbols.
 *
 * The names are resolved when the program is recorded, from binaries that
 * may be gone by the time the recording is analyzed, so they cannot be
 * rebuilt: they live apart from the result store (which holds only what
 * the recording's trace rebuilds), in a file of plain records checked as a
 * whole:
 *
 *   "TRMSSYMS"  8 bytes
 *   format      varint (SYMBOL_FILE_FORMAT)
 *   count       varint
 *   count x     address varint, then the entry (symbol_entry_encode)
 *   CRC-32      4 bytes little-endian, of everything before it
 *
 * Entries are sorted by address, each address once. */
#ifndef TRMS_SYMBOL_FILE_H
#define TRMS_SYMBOL_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "common/byte_buffer.h"
#include "common/error.h"
#include "store/symbol_store.h"

#define SYMBOL_FILE_NAME "symbols"
#define SYMBOL_FILE_FORMAT 1

/* The largest symbols file read (a program with a million routines of
 * long C++ names stays far below). */
#define SYMBOL_FILE_MAX_BYTES (UINT64_C(1) << 30)

/* One name's entry: format (SYMBOL_CODEC_VERSION), name, file, line, the
 * offset in the symbol, the module and the address in it. */
void symbol_entry_encode(const struct symbol_name *n, struct byte_buffer *b);

/* Decodes the entry of ADDR at DATA (LEN bytes) into OUT (strings
 * allocated); -1 with ERR (naming WHERE) when it is not one this trms
 * reads. */
int symbol_entry_decode(const char *where, uint64_t addr, const uint8_t *data, size_t len,
                        struct symbol_name *out, struct trms_error *err);

/* The file's bytes for NAMES. */
void symbol_file_encode(const struct symbol_names *names, struct byte_buffer *out);

/* Adds the names of a file's bytes (WHERE names it in messages) to OUT;
 * -1 with ERR when they are not a whole, undamaged symbols file. */
int symbol_file_decode(const char *where, const uint8_t *data, size_t len,
                       struct symbol_names *out, struct trms_error *err);

/* Reads DIR/symbols into OUT: 0, 1 when there is none, -1 with ERR. */
int symbol_file_read(const char *dir, struct symbol_names *out, struct trms_error *err);

/* Writes NAMES as DIR/symbols: beside it first, then renamed over it. */
int symbol_file_write(const char *dir, const struct symbol_names *names, struct trms_error *err);

#endif
