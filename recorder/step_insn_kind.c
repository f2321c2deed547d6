/* step_insn_kind: legacy prefixes, REX, then the opcode (step_insn_kind.h). */
#include "recorder/step_insn_kind.h"

/* At most 14 prefix bytes leave room for an opcode in 15. */
#define MAX_INSN_BYTES 15

static int is_legacy_prefix(uint8_t b)
{
    switch (b) {
    case 0x66: case 0x67: case 0xf0: case 0xf2: case 0xf3:
    case 0x2e: case 0x36: case 0x3e: case 0x26: case 0x64: case 0x65:
        return 1;
    default:
        return 0;
    }
}

/* movs, cmps, stos, lods, scas, ins, outs: the opcodes a rep prefix repeats. */
static int is_string_opcode(uint8_t op)
{
    return (op >= 0xa4 && op <= 0xa7) || (op >= 0xaa && op <= 0xaf) || (op >= 0x6c && op <= 0x6f);
}

enum step_insn_kind step_insn_kind(const uint8_t *bytes, size_t n, size_t *length)
{
    if (n > MAX_INSN_BYTES)
        n = MAX_INSN_BYTES;
    size_t i = 0;
    int rep = 0;
    /* A REX prefix followed by other prefixes is ignored, not an error. */
    for (; i < n && (is_legacy_prefix(bytes[i]) || (bytes[i] & 0xf0) == 0x40); i++)
        rep |= bytes[i] == 0xf2 || bytes[i] == 0xf3;
    if (i >= n)
        return STEP_INSN_OTHER;
    if (bytes[i] == 0x0f && i + 1 < n) {
        *length = i + 2;
        return bytes[i + 1] == 0x05   ? STEP_INSN_SYSCALL
               : bytes[i + 1] == 0xa2 ? STEP_INSN_CPUID
                                      : STEP_INSN_OTHER;
    }
    if (rep && bytes[i] == 0x90 && bytes[i - 1] == 0xf3)
        return STEP_INSN_PAUSE;  /* f3 90, no REX between */
    return rep && is_string_opcode(bytes[i]) ? STEP_INSN_REP_STRING : STEP_INSN_OTHER;
}
