/* insn: what one static x86-64 instruction does to memory and to control
 * flow, decoded once (insn_decode.c) and evaluated on the registers of each
 * execution (insn_access.c).
 *
 * Memory operands keep the parts of their effective address (base, index,
 * scale, displacement, segment) as register numbers, so that an execution
 * costs a few additions. What the operands do not say (the stack slot a
 * push writes, the range a `rep movs` covers) follows from the family. */
#ifndef TRMS_INSN_H
#define TRMS_INSN_H

#include <stdint.h>

#include "replayer/rerun_record.h"

/* Registers an address is built from: RERUN_RAX..RERUN_R15, or these. */
enum {
    INSN_REG_RIP = RERUN_GP_COUNT,  /* the address of the next instruction */
    INSN_REG_NONE = 0xff,
};

enum insn_segment { INSN_SEG_NONE, INSN_SEG_FS, INSN_SEG_GS };

/* Bits: a read-modify-write is both, read first. */
enum insn_access_kind { INSN_READ = 1, INSN_WRITE = 2, INSN_MODIFY = 3 };

struct insn_mem {
    int64_t disp;
    uint32_t size;      /* bytes */
    uint8_t base, index, scale;
    uint8_t segment;    /* enum insn_segment */
    uint8_t kind;       /* enum insn_access_kind */
    uint8_t addr32;     /* 0x67 prefix: the address wraps at 4 GiB */
};

/* Families of what the memory operands alone do not say. */
enum insn_family {
    FAMILY_PLAIN,        /* the memory operands, if any, are the accesses */
    FAMILY_UNDECODABLE,  /* capstone rejected the bytes, or none could be read */
    FAMILY_PUSH,         /* operand read (push mem), then the stack slot written */
    FAMILY_POP,          /* stack slot read, then the operand written (pop mem) */
    FAMILY_CALL,         /* operand read (call mem); the return address is written
                            after the call event */
    FAMILY_RET,          /* return address read; `imm` more bytes popped */
    FAMILY_ENTER,        /* rbp pushed; `imm` bytes of frame, nesting `level` */
    FAMILY_LEAVE,        /* the saved rbp read at the old rbp */
    FAMILY_JUMP,         /* jmp: direct (target), register or memory */
    FAMILY_BRANCH,       /* conditional: jcc, loop, jrcxz (direct target) */
    FAMILY_SYSCALL,
    FAMILY_STRING,       /* movs cmps stos lods scas, rep-aware */
    FAMILY_BIT_STRING,   /* bt/bts/btr/btc mem, reg: the bit offset moves the byte */
    FAMILY_XLAT,         /* reads the byte at rbx + al */
    FAMILY_MASKMOV,      /* maskmovq/maskmovdqu: writes at rdi under a byte mask */
    FAMILY_VECTOR_INDEX, /* gathers, scatters: addresses in vector registers */
};

/* String operations, by what they touch. */
enum insn_string_op { STRING_MOVS, STRING_CMPS, STRING_STOS, STRING_LODS, STRING_SCAS };

enum {
    INSN_REP = 1,          /* rep/repe/repne prefix on a string operation */
    INSN_APPROXIMATE = 2,  /* accesses are a superset or unknown (masks,
                              vector indices, enter with nesting): counted */
};

/* Whether an instruction writes rsp in a way the plan can undo (see
 * insn_rsp_delta). */
enum { RSP_UNCHANGED, RSP_DELTA, RSP_OTHER };

struct insn {
    uint64_t addr;
    uint64_t target;       /* direct jump, branch or call target */
    struct insn_mem mem[2];
    int32_t rsp_delta;     /* rsp after - rsp before, when rsp_effect == RSP_DELTA */
    uint16_t imm;          /* ret: bytes popped after the address; enter: frame size */
    uint8_t length;        /* 0: not decoded */
    uint8_t family;        /* enum insn_family */
    uint8_t n_mem;
    uint8_t flags;
    uint8_t stack_bytes;   /* push/pop/call/ret slot: 8, or 2 with 0x66 */
    uint8_t target_reg;    /* register holding the target of jmp/call reg */
    uint8_t string_op;     /* enum insn_string_op */
    uint8_t bit_reg;       /* FAMILY_BIT_STRING: the register with the bit offset */
    uint8_t bit_reg_bytes; /* and its width, for sign extension */
    uint8_t level;         /* enter's nesting level */
    uint8_t rsp_effect;
    uint8_t jump_reported; /* the decoder's memo for direct jumps: 0 not yet
                              asked, JUMP_REPORTED or JUMP_INTERNAL */
};

enum { JUMP_REPORTED = 1, JUMP_INTERNAL = 2 };

#endif
