/* insn_decode: x86-64 machine code to a struct insn, with capstone.
 *
 * Capstone (4.0.2, detail mode) gives the length, the operands and their
 * effective-address parts; its per-operand access flags are wrong for many
 * stores (SSE/AVX, x87) and read-modify-writes (rotates, cmpxchg), so the
 * read/write kind comes from a table by instruction where it matters and
 * from the operand's position otherwise (Intel order: a memory destination
 * comes first). Sizes capstone does not know (fxsave, xsave, fnsave) come
 * from the same table. */
#ifndef TRMS_INSN_DECODE_H
#define TRMS_INSN_DECODE_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "replayer/insn.h"

/* The XSAVE area the decoder assumes when none is given: x87 + SSE + AVX
 * state in the standard format (XCR0 = 7): 512 legacy + 64 header + 256. */
#define INSN_DEFAULT_XSAVE_BYTES 832u

struct insn_decoder;

/* XSAVE_BYTES is the size of the area xsave/xrstor and their variants
 * touch (0: INSN_DEFAULT_XSAVE_BYTES). NULL with ERR filled when capstone
 * cannot be opened. */
struct insn_decoder *insn_decoder_new(uint32_t xsave_bytes, struct trms_error *err);
void insn_decoder_free(struct insn_decoder *d);

/* Decodes the instruction at ADDR from BYTES[0..N). Returns 0, or -1 when
 * capstone rejects the bytes: OUT is then FAMILY_UNDECODABLE. */
int insn_decode(struct insn_decoder *d, uint64_t addr, const uint8_t *bytes, size_t n,
                struct insn *out);

#endif
