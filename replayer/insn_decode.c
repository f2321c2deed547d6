/* insn_decode: capstone's view of an instruction, corrected by a table of
 * what it gets wrong or does not say (see insn_decode.h). */
#include "replayer/insn_decode.h"

#include <capstone/capstone.h>
#include <stdlib.h>

#include "common/oom.h"

enum size_rule { SIZE_OPERAND, SIZE_FIXED, SIZE_XSAVE };

/* What the decoder knows about an instruction beyond capstone's operands.
 * KIND, when set, is the access kind of the first operand in memory
 * (later ones are always read). */
struct rule {
    uint8_t family;
    uint8_t kind;
    uint8_t size_rule;
    uint8_t no_access;    /* lea, nop, prefetch, cache flushes */
    uint8_t approximate;  /* accesses under a mask the records do not carry */
    uint16_t bytes;       /* SIZE_FIXED */
};

struct id_rule {
    unsigned id;
    struct rule rule;
};

#define FAMILY(id, f) {id, {.family = f}}
#define KIND(id, k) {id, {.kind = k}}
#define SIZED(id, k, n) {id, {.kind = k, .size_rule = SIZE_FIXED, .bytes = n}}
#define XSAVE_AREA(id, k) {id, {.kind = k, .size_rule = SIZE_XSAVE}}
#define NO_ACCESS(id) {id, {.no_access = 1}}
#define MASKED(id, f) {id, {.family = f, .approximate = 1}}

static const struct id_rule rules[] = {
    /* Stack and control flow. */
    FAMILY(X86_INS_PUSH, FAMILY_PUSH), FAMILY(X86_INS_PUSHF, FAMILY_PUSH),
    FAMILY(X86_INS_PUSHFQ, FAMILY_PUSH), FAMILY(X86_INS_POP, FAMILY_POP),
    FAMILY(X86_INS_POPF, FAMILY_POP), FAMILY(X86_INS_POPFQ, FAMILY_POP),
    FAMILY(X86_INS_CALL, FAMILY_CALL), FAMILY(X86_INS_RET, FAMILY_RET),
    FAMILY(X86_INS_ENTER, FAMILY_ENTER), FAMILY(X86_INS_LEAVE, FAMILY_LEAVE),
    FAMILY(X86_INS_JMP, FAMILY_JUMP), FAMILY(X86_INS_SYSCALL, FAMILY_SYSCALL),
    FAMILY(X86_INS_JAE, FAMILY_BRANCH), FAMILY(X86_INS_JA, FAMILY_BRANCH),
    FAMILY(X86_INS_JBE, FAMILY_BRANCH), FAMILY(X86_INS_JB, FAMILY_BRANCH),
    FAMILY(X86_INS_JE, FAMILY_BRANCH), FAMILY(X86_INS_JGE, FAMILY_BRANCH),
    FAMILY(X86_INS_JG, FAMILY_BRANCH), FAMILY(X86_INS_JLE, FAMILY_BRANCH),
    FAMILY(X86_INS_JL, FAMILY_BRANCH), FAMILY(X86_INS_JNE, FAMILY_BRANCH),
    FAMILY(X86_INS_JNO, FAMILY_BRANCH), FAMILY(X86_INS_JNP, FAMILY_BRANCH),
    FAMILY(X86_INS_JNS, FAMILY_BRANCH), FAMILY(X86_INS_JO, FAMILY_BRANCH),
    FAMILY(X86_INS_JP, FAMILY_BRANCH), FAMILY(X86_INS_JS, FAMILY_BRANCH),
    FAMILY(X86_INS_JRCXZ, FAMILY_BRANCH), FAMILY(X86_INS_JECXZ, FAMILY_BRANCH),
    FAMILY(X86_INS_LOOP, FAMILY_BRANCH), FAMILY(X86_INS_LOOPE, FAMILY_BRANCH),
    FAMILY(X86_INS_LOOPNE, FAMILY_BRANCH),
    /* Implicit operands. */
    FAMILY(X86_INS_XLATB, FAMILY_XLAT),
    FAMILY(X86_INS_BT, FAMILY_BIT_STRING), FAMILY(X86_INS_BTS, FAMILY_BIT_STRING),
    FAMILY(X86_INS_BTR, FAMILY_BIT_STRING), FAMILY(X86_INS_BTC, FAMILY_BIT_STRING),
    MASKED(X86_INS_MASKMOVQ, FAMILY_MASKMOV), MASKED(X86_INS_MASKMOVDQU, FAMILY_MASKMOV),
    MASKED(X86_INS_VMASKMOVDQU, FAMILY_MASKMOV),
    MASKED(X86_INS_VMASKMOVPS, FAMILY_PLAIN), MASKED(X86_INS_VMASKMOVPD, FAMILY_PLAIN),
    MASKED(X86_INS_VPMASKMOVD, FAMILY_PLAIN), MASKED(X86_INS_VPMASKMOVQ, FAMILY_PLAIN),
    MASKED(X86_INS_VGATHERDPD, FAMILY_VECTOR_INDEX), MASKED(X86_INS_VGATHERDPS, FAMILY_VECTOR_INDEX),
    MASKED(X86_INS_VGATHERQPD, FAMILY_VECTOR_INDEX), MASKED(X86_INS_VGATHERQPS, FAMILY_VECTOR_INDEX),
    MASKED(X86_INS_VPGATHERDD, FAMILY_VECTOR_INDEX), MASKED(X86_INS_VPGATHERDQ, FAMILY_VECTOR_INDEX),
    MASKED(X86_INS_VPGATHERQD, FAMILY_VECTOR_INDEX), MASKED(X86_INS_VPGATHERQQ, FAMILY_VECTOR_INDEX),
    MASKED(X86_INS_VPSCATTERDD, FAMILY_VECTOR_INDEX), MASKED(X86_INS_VPSCATTERDQ, FAMILY_VECTOR_INDEX),
    MASKED(X86_INS_VPSCATTERQD, FAMILY_VECTOR_INDEX), MASKED(X86_INS_VPSCATTERQQ, FAMILY_VECTOR_INDEX),
    MASKED(X86_INS_VSCATTERDPD, FAMILY_VECTOR_INDEX), MASKED(X86_INS_VSCATTERDPS, FAMILY_VECTOR_INDEX),
    MASKED(X86_INS_VSCATTERQPD, FAMILY_VECTOR_INDEX), MASKED(X86_INS_VSCATTERQPS, FAMILY_VECTOR_INDEX),
    MASKED(X86_INS_VGATHERPF0DPD, FAMILY_VECTOR_INDEX), MASKED(X86_INS_VGATHERPF0DPS, FAMILY_VECTOR_INDEX),
    MASKED(X86_INS_VGATHERPF0QPD, FAMILY_VECTOR_INDEX), MASKED(X86_INS_VGATHERPF0QPS, FAMILY_VECTOR_INDEX),
    MASKED(X86_INS_VGATHERPF1DPD, FAMILY_VECTOR_INDEX), MASKED(X86_INS_VGATHERPF1DPS, FAMILY_VECTOR_INDEX),
    MASKED(X86_INS_VGATHERPF1QPD, FAMILY_VECTOR_INDEX), MASKED(X86_INS_VGATHERPF1QPS, FAMILY_VECTOR_INDEX),
    MASKED(X86_INS_VSCATTERPF0DPD, FAMILY_VECTOR_INDEX), MASKED(X86_INS_VSCATTERPF0DPS, FAMILY_VECTOR_INDEX),
    MASKED(X86_INS_VSCATTERPF0QPD, FAMILY_VECTOR_INDEX), MASKED(X86_INS_VSCATTERPF0QPS, FAMILY_VECTOR_INDEX),
    MASKED(X86_INS_VSCATTERPF1DPD, FAMILY_VECTOR_INDEX), MASKED(X86_INS_VSCATTERPF1DPS, FAMILY_VECTOR_INDEX),
    MASKED(X86_INS_VSCATTERPF1QPD, FAMILY_VECTOR_INDEX), MASKED(X86_INS_VSCATTERPF1QPS, FAMILY_VECTOR_INDEX),
    /* Address computations and hints: an operand in memory, never touched. */
    NO_ACCESS(X86_INS_LEA), NO_ACCESS(X86_INS_NOP), NO_ACCESS(X86_INS_PREFETCH),
    NO_ACCESS(X86_INS_PREFETCHNTA), NO_ACCESS(X86_INS_PREFETCHT0),
    NO_ACCESS(X86_INS_PREFETCHT1), NO_ACCESS(X86_INS_PREFETCHT2),
    NO_ACCESS(X86_INS_PREFETCHW), NO_ACCESS(X86_INS_CLFLUSH), NO_ACCESS(X86_INS_CLFLUSHOPT),
    NO_ACCESS(X86_INS_CLWB),
    /* A memory first operand only read. */
    KIND(X86_INS_CMP, INSN_READ), KIND(X86_INS_TEST, INSN_READ),
    KIND(X86_INS_FLDENV, INSN_READ), KIND(X86_INS_FLDCW, INSN_READ),
    KIND(X86_INS_LDMXCSR, INSN_READ), KIND(X86_INS_VLDMXCSR, INSN_READ),
    /* Stores capstone calls reads. */
    KIND(X86_INS_FST, INSN_WRITE), KIND(X86_INS_FSTP, INSN_WRITE),
    KIND(X86_INS_FSTPNCE, INSN_WRITE), KIND(X86_INS_FIST, INSN_WRITE),
    KIND(X86_INS_FISTP, INSN_WRITE), KIND(X86_INS_FISTTP, INSN_WRITE),
    KIND(X86_INS_FBSTP, INSN_WRITE), KIND(X86_INS_FNSTCW, INSN_WRITE),
    KIND(X86_INS_FNSTENV, INSN_WRITE), KIND(X86_INS_STMXCSR, INSN_WRITE),
    KIND(X86_INS_VSTMXCSR, INSN_WRITE), KIND(X86_INS_SGDT, INSN_WRITE),
    KIND(X86_INS_SIDT, INSN_WRITE), KIND(X86_INS_SLDT, INSN_WRITE),
    KIND(X86_INS_STR, INSN_WRITE), KIND(X86_INS_SMSW, INSN_WRITE),
    /* Read-modify-writes capstone calls reads. */
    KIND(X86_INS_CMPXCHG, INSN_MODIFY), KIND(X86_INS_CMPXCHG8B, INSN_MODIFY),
    KIND(X86_INS_CMPXCHG16B, INSN_MODIFY), KIND(X86_INS_XCHG, INSN_MODIFY),
    KIND(X86_INS_XADD, INSN_MODIFY), KIND(X86_INS_ROL, INSN_MODIFY),
    KIND(X86_INS_ROR, INSN_MODIFY), KIND(X86_INS_RCL, INSN_MODIFY),
    KIND(X86_INS_RCR, INSN_MODIFY), KIND(X86_INS_SHL, INSN_MODIFY),
    KIND(X86_INS_SAL, INSN_MODIFY), KIND(X86_INS_SHR, INSN_MODIFY),
    KIND(X86_INS_SAR, INSN_MODIFY), KIND(X86_INS_SHLD, INSN_MODIFY),
    KIND(X86_INS_SHRD, INSN_MODIFY), KIND(X86_INS_INC, INSN_MODIFY),
    KIND(X86_INS_DEC, INSN_MODIFY), KIND(X86_INS_NEG, INSN_MODIFY),
    KIND(X86_INS_NOT, INSN_MODIFY),
    /* State saves and restores: sizes capstone does not know. */
    SIZED(X86_INS_FNSTSW, INSN_WRITE, 2),
    SIZED(X86_INS_FNSAVE, INSN_WRITE, 108), SIZED(X86_INS_FRSTOR, INSN_READ, 108),
    SIZED(X86_INS_FXSAVE, INSN_WRITE, 512), SIZED(X86_INS_FXSAVE64, INSN_WRITE, 512),
    SIZED(X86_INS_FXRSTOR, INSN_READ, 512), SIZED(X86_INS_FXRSTOR64, INSN_READ, 512),
    XSAVE_AREA(X86_INS_XSAVE, INSN_WRITE), XSAVE_AREA(X86_INS_XSAVE64, INSN_WRITE),
    XSAVE_AREA(X86_INS_XSAVEC, INSN_WRITE), XSAVE_AREA(X86_INS_XSAVEC64, INSN_WRITE),
    XSAVE_AREA(X86_INS_XSAVEOPT, INSN_WRITE), XSAVE_AREA(X86_INS_XSAVEOPT64, INSN_WRITE),
    XSAVE_AREA(X86_INS_XSAVES, INSN_WRITE), XSAVE_AREA(X86_INS_XSAVES64, INSN_WRITE),
    XSAVE_AREA(X86_INS_XRSTOR, INSN_READ), XSAVE_AREA(X86_INS_XRSTOR64, INSN_READ),
    XSAVE_AREA(X86_INS_XRSTORS, INSN_READ), XSAVE_AREA(X86_INS_XRSTORS64, INSN_READ),
};

/* Registers an address can be built from, as record indices. */
static const struct {
    unsigned reg;
    uint8_t index;
} gp_registers[] = {
    {X86_REG_RAX, RERUN_RAX}, {X86_REG_RCX, RERUN_RCX}, {X86_REG_RDX, RERUN_RDX},
    {X86_REG_RBX, RERUN_RBX}, {X86_REG_RSP, RERUN_RSP}, {X86_REG_RBP, RERUN_RBP},
    {X86_REG_RSI, RERUN_RSI}, {X86_REG_RDI, RERUN_RDI}, {X86_REG_R8, RERUN_R8},
    {X86_REG_R9, RERUN_R9}, {X86_REG_R10, RERUN_R10}, {X86_REG_R11, RERUN_R11},
    {X86_REG_R12, RERUN_R12}, {X86_REG_R13, RERUN_R13}, {X86_REG_R14, RERUN_R14},
    {X86_REG_R15, RERUN_R15},
    /* With the 0x67 prefix the address is built from 32-bit registers. */
    {X86_REG_EAX, RERUN_RAX}, {X86_REG_ECX, RERUN_RCX}, {X86_REG_EDX, RERUN_RDX},
    {X86_REG_EBX, RERUN_RBX}, {X86_REG_ESP, RERUN_RSP}, {X86_REG_EBP, RERUN_RBP},
    {X86_REG_ESI, RERUN_RSI}, {X86_REG_EDI, RERUN_RDI}, {X86_REG_R8D, RERUN_R8},
    {X86_REG_R9D, RERUN_R9}, {X86_REG_R10D, RERUN_R10}, {X86_REG_R11D, RERUN_R11},
    {X86_REG_R12D, RERUN_R12}, {X86_REG_R13D, RERUN_R13}, {X86_REG_R14D, RERUN_R14},
    {X86_REG_R15D, RERUN_R15},
    {X86_REG_RIP, INSN_REG_RIP}, {X86_REG_EIP, INSN_REG_RIP},
};

/* Registers that are the stack pointer, whole or in part. */
static const unsigned stack_pointer_registers[] = {X86_REG_RSP, X86_REG_ESP, X86_REG_SP,
                                                   X86_REG_SPL};

struct insn_decoder {
    csh cs;
    cs_insn *scratch;
    uint32_t xsave_bytes;
    struct rule by_id[X86_INS_ENDING];
    uint8_t reg_index[X86_REG_ENDING];  /* INSN_REG_NONE when not a GP register */
    uint8_t is_stack_pointer[X86_REG_ENDING];
};

struct insn_decoder *insn_decoder_new(uint32_t xsave_bytes, struct trms_error *err)
{
    struct insn_decoder *d = xcalloc(1, sizeof *d);
    if (cs_open(CS_ARCH_X86, CS_MODE_64, &d->cs) != CS_ERR_OK) {
        free(d);
        error_set(err, "capstone cannot decode x86-64 here");
        return NULL;
    }
    cs_option(d->cs, CS_OPT_DETAIL, CS_OPT_ON);
    d->scratch = cs_malloc(d->cs);
    d->xsave_bytes = xsave_bytes ? xsave_bytes : INSN_DEFAULT_XSAVE_BYTES;
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
        d->by_id[rules[i].id] = rules[i].rule;
    for (size_t r = 0; r < X86_REG_ENDING; r++)
        d->reg_index[r] = INSN_REG_NONE;
    for (size_t i = 0; i < sizeof gp_registers / sizeof gp_registers[0]; i++)
        d->reg_index[gp_registers[i].reg] = gp_registers[i].index;
    for (size_t i = 0; i < sizeof stack_pointer_registers / sizeof stack_pointer_registers[0]; i++)
        d->is_stack_pointer[stack_pointer_registers[i]] = 1;
    return d;
}

void insn_decoder_free(struct insn_decoder *d)
{
    if (!d)
        return;
    cs_free(d->scratch, 1);
    cs_close(&d->cs);
    free(d);
}

static int is_vector_register(unsigned reg)
{
    return (reg >= X86_REG_XMM0 && reg <= X86_REG_XMM31) ||
           (reg >= X86_REG_YMM0 && reg <= X86_REG_YMM31) ||
           (reg >= X86_REG_ZMM0 && reg <= X86_REG_ZMM31);
}

static uint8_t segment_of_register(unsigned reg)
{
    return reg == X86_REG_FS ? INSN_SEG_FS : reg == X86_REG_GS ? INSN_SEG_GS : INSN_SEG_NONE;
}

/* The segment override prefix, for operands capstone does not list. */
static uint8_t segment_of_prefix(const cs_x86 *x)
{
    return x->prefix[1] == 0x64 ? INSN_SEG_FS : x->prefix[1] == 0x65 ? INSN_SEG_GS : INSN_SEG_NONE;
}

/* An EVEX instruction (AVX-512) whose opmask register is not k0 touches
 * only the elements the mask selects; the records do not carry masks. */
static int evex_masked(const uint8_t *bytes, size_t n)
{
    static const uint8_t legacy_prefixes[] = {0x26, 0x2e, 0x36, 0x3e, 0x64, 0x65,
                                              0x66, 0x67, 0xf0, 0xf2, 0xf3};
    size_t i = 0;
    for (; i < n; i++) {
        int prefix = 0;
        for (size_t p = 0; p < sizeof legacy_prefixes; p++)
            prefix |= bytes[i] == legacy_prefixes[p];
        if (!prefix)
            break;
    }
    return i + 3 < n && bytes[i] == 0x62 && (bytes[i + 3] & 7) != 0;
}

static struct insn_mem template_at(uint8_t base, uint8_t segment, uint32_t size, uint8_t kind,
                                   uint8_t addr32)
{
    return (struct insn_mem){.size = size, .base = base, .index = INSN_REG_NONE, .scale = 1,
                             .segment = segment, .kind = kind, .addr32 = addr32};
}

/* Capstone's memory operand as a template; -1 when its index is a vector
 * register (a gather). */
static int mem_operand(const struct insn_decoder *d, const cs_x86 *x, const cs_x86_op *op,
                       uint8_t kind, uint32_t size, struct insn_mem *out)
{
    if (op->mem.index != X86_REG_INVALID && is_vector_register(op->mem.index))
        return -1;
    *out = template_at(op->mem.base == X86_REG_INVALID ? INSN_REG_NONE : d->reg_index[op->mem.base],
                       segment_of_register(op->mem.segment), size, kind, x->addr_size == 4);
    out->index = op->mem.index == X86_REG_INVALID ? INSN_REG_NONE : d->reg_index[op->mem.index];
    out->scale = (uint8_t)op->mem.scale;
    out->disp = op->mem.disp;
    return 0;
}

/* The access kind of the memory operand at POSITION: later operands are
 * sources; a first operand is a destination unless the table or capstone
 * says otherwise, or it is the only operand (push, fld, call, ...). */
static uint8_t kind_at(const struct rule *r, const cs_x86 *x, int position)
{
    if (position > 0)
        return INSN_READ;
    if (r->kind)
        return r->kind;
    uint8_t access = x->operands[position].access & (CS_AC_READ | CS_AC_WRITE);
    if (access & CS_AC_WRITE)
        return access == (CS_AC_READ | CS_AC_WRITE) ? INSN_MODIFY : INSN_WRITE;
    return x->op_count >= 2 ? INSN_WRITE : INSN_READ;
}

static uint32_t size_of(const struct insn_decoder *d, const struct rule *r, const cs_x86_op *op)
{
    switch (r->size_rule) {
    case SIZE_FIXED:
        return r->bytes;
    case SIZE_XSAVE:
        return d->xsave_bytes;
    default:
        return op->size;
    }
}

/* The explicit memory operands, kinds and sizes corrected. */
static void plain_operands(const struct insn_decoder *d, const struct rule *r, const cs_x86 *x,
                           struct insn *out)
{
    if (r->no_access)
        return;
    for (int i = 0; i < x->op_count && out->n_mem < 2; i++) {
        const cs_x86_op *op = &x->operands[i];
        if (op->type != X86_OP_MEM)
            continue;
        uint32_t size = size_of(d, r, op);
        if (mem_operand(d, x, op, kind_at(r, x, i), size, &out->mem[out->n_mem]) != 0) {
            out->family = FAMILY_VECTOR_INDEX;
            out->flags |= INSN_APPROXIMATE;
            out->n_mem = 0;
            return;
        }
        if (size == 0)
            out->flags |= INSN_APPROXIMATE;  /* capstone gave no size */
        out->n_mem++;
    }
}

/* How the instruction moves rsp, for undoing it (see insn_access.h). */
static void stack_effect(const struct insn_decoder *d, const cs_insn *ci, struct insn *out)
{
    const cs_x86 *x = &ci->detail->x86;
    for (int i = 0; i < x->op_count; i++) {
        const cs_x86_op *op = &x->operands[i];
        if (op->type != X86_OP_REG || !d->is_stack_pointer[op->reg] ||
            !(op->access & CS_AC_WRITE))
            continue;
        int adds = ci->id == X86_INS_ADD, subtracts = ci->id == X86_INS_SUB;
        if (i == 0 && x->op_count == 2 && x->operands[1].type == X86_OP_IMM && (adds || subtracts)) {
            out->rsp_effect = RSP_DELTA;
            out->rsp_delta = (int32_t)(adds ? x->operands[1].imm : -x->operands[1].imm);
        } else {
            out->rsp_effect = RSP_OTHER;
        }
        return;
    }
}

static void set_delta(struct insn *out, int32_t delta)
{
    out->rsp_effect = RSP_DELTA;
    out->rsp_delta = delta;
}

/* Control transfers: a direct target, a register, or a memory operand. */
static void transfer(const struct insn_decoder *d, const cs_x86 *x, struct insn *out)
{
    out->target_reg = INSN_REG_NONE;
    if (x->op_count < 1)
        return;
    const cs_x86_op *op = &x->operands[0];
    if (op->type == X86_OP_IMM)
        out->target = (uint64_t)op->imm;
    else if (op->type == X86_OP_REG)
        out->target_reg = d->reg_index[op->reg];
    else if (op->type == X86_OP_MEM && mem_operand(d, x, op, INSN_READ, op->size, &out->mem[0]) == 0)
        out->n_mem = 1;
}

static void string_operation(const cs_x86 *x, struct insn *out)
{
    static const uint8_t by_opcode[] = {
        [0xa4 - 0xa4] = STRING_MOVS, [0xa5 - 0xa4] = STRING_MOVS, [0xa6 - 0xa4] = STRING_CMPS,
        [0xa7 - 0xa4] = STRING_CMPS, [0xaa - 0xa4] = STRING_STOS, [0xab - 0xa4] = STRING_STOS,
        [0xac - 0xa4] = STRING_LODS, [0xad - 0xa4] = STRING_LODS, [0xae - 0xa4] = STRING_SCAS,
        [0xaf - 0xa4] = STRING_SCAS,
    };
    out->family = FAMILY_STRING;
    out->string_op = by_opcode[x->opcode[0] - 0xa4];
    /* The element size and the source's segment override come from
     * capstone's operands; the destination is always es:rdi (base 0). */
    uint32_t size = 0;
    uint8_t source_segment = INSN_SEG_NONE;
    for (int i = 0; i < x->op_count; i++) {
        const cs_x86_op *op = &x->operands[i];
        if (op->type != X86_OP_MEM)
            continue;
        size = op->size;
        if (op->mem.base == X86_REG_RSI || op->mem.base == X86_REG_ESI)
            source_segment = segment_of_register(op->mem.segment);
    }
    uint8_t addr32 = x->addr_size == 4;
    out->mem[0] = template_at(RERUN_RSI, source_segment, size, INSN_READ, addr32);
    out->mem[1] = template_at(RERUN_RDI, INSN_SEG_NONE, size, INSN_WRITE, addr32);
    out->n_mem = 2;
    if (x->prefix[0] == 0xf2 || x->prefix[0] == 0xf3)
        out->flags |= INSN_REP;
}

static int is_string_opcode(const cs_x86 *x)
{
    /* a4..af, except a8/a9 (test al/eax, imm); one opcode byte only. */
    return x->opcode[1] == 0 && x->opcode[0] >= 0xa4 && x->opcode[0] <= 0xaf &&
           x->opcode[0] != 0xa8 && x->opcode[0] != 0xa9;
}

int insn_decode(struct insn_decoder *d, uint64_t addr, const uint8_t *bytes, size_t n,
                struct insn *out)
{
    *out = (struct insn){.addr = addr, .family = FAMILY_UNDECODABLE,
                         .target_reg = INSN_REG_NONE, .bit_reg = INSN_REG_NONE};
    const uint8_t *code = bytes;
    size_t left = n;
    uint64_t at = addr;
    if (n == 0 || !cs_disasm_iter(d->cs, &code, &left, &at, d->scratch))
        return -1;
    const cs_insn *ci = d->scratch;
    const cs_x86 *x = &ci->detail->x86;
    const struct rule *r = &d->by_id[ci->id < X86_INS_ENDING ? ci->id : X86_INS_INVALID];
    out->length = (uint8_t)ci->size;
    out->family = r->family;
    out->flags = r->approximate ? INSN_APPROXIMATE : 0;
    if (evex_masked(bytes, ci->size))
        out->flags |= INSN_APPROXIMATE;
    out->stack_bytes = x->prefix[2] == 0x66 ? 2 : 8;
    uint8_t addr32 = x->addr_size == 4;

    if (is_string_opcode(x)) {
        string_operation(x, out);
        return 0;
    }
    switch (out->family) {
    case FAMILY_PUSH:
    case FAMILY_POP:
        if (x->op_count > 0 && x->operands[0].type == X86_OP_MEM) {
            uint8_t kind = out->family == FAMILY_PUSH ? INSN_READ : INSN_WRITE;
            if (mem_operand(d, x, &x->operands[0], kind, out->stack_bytes, &out->mem[0]) == 0)
                out->n_mem = 1;
        }
        if (out->family == FAMILY_POP && x->op_count > 0 && x->operands[0].type == X86_OP_REG &&
            d->is_stack_pointer[x->operands[0].reg])
            out->rsp_effect = RSP_OTHER;  /* pop rsp */
        else
            set_delta(out, out->family == FAMILY_PUSH ? -out->stack_bytes : out->stack_bytes);
        return 0;
    case FAMILY_CALL:
        transfer(d, x, out);
        set_delta(out, -8);
        return 0;
    case FAMILY_JUMP:
    case FAMILY_BRANCH:
        transfer(d, x, out);
        return 0;
    case FAMILY_RET:
        out->imm = x->op_count > 0 ? (uint16_t)x->operands[0].imm : 0;
        set_delta(out, 8 + out->imm);
        return 0;
    case FAMILY_ENTER:
        out->imm = (uint16_t)x->operands[0].imm;
        out->level = (uint8_t)(x->operands[1].imm & 31);
        if (out->level)
            out->flags |= INSN_APPROXIMATE;  /* the copied frame pointers are left out */
        out->rsp_effect = RSP_OTHER;
        return 0;
    case FAMILY_LEAVE:
        out->rsp_effect = RSP_OTHER;
        return 0;
    case FAMILY_XLAT:
        out->mem[0] = template_at(RERUN_RBX, segment_of_prefix(x), 1, INSN_READ, addr32);
        out->n_mem = 1;
        return 0;
    case FAMILY_MASKMOV:
        out->mem[0] = template_at(RERUN_RDI, segment_of_prefix(x),
                                  ci->id == X86_INS_MASKMOVQ ? 8 : 16, INSN_WRITE, addr32);
        out->n_mem = 1;
        return 0;
    case FAMILY_BIT_STRING:
        if (x->op_count == 2 && x->operands[0].type == X86_OP_MEM &&
            x->operands[1].type == X86_OP_REG) {
            /* The register's bit offset is signed and may reach outside the
             * operand: one byte, the one holding the bit. */
            uint8_t kind = ci->id == X86_INS_BT ? INSN_READ : INSN_MODIFY;
            mem_operand(d, x, &x->operands[0], kind, 1, &out->mem[0]);
            out->n_mem = 1;
            out->bit_reg = d->reg_index[x->operands[1].reg];
            out->bit_reg_bytes = x->operands[1].size;
            return 0;
        }
        /* An immediate offset stays inside the operand. */
        out->family = FAMILY_PLAIN;
        if (x->op_count > 0 && x->operands[0].type == X86_OP_MEM &&
            mem_operand(d, x, &x->operands[0], ci->id == X86_INS_BT ? INSN_READ : INSN_MODIFY,
                        x->operands[0].size, &out->mem[0]) == 0)
            out->n_mem = 1;
        return 0;
    case FAMILY_VECTOR_INDEX:
    case FAMILY_SYSCALL:
        return 0;
    default:
        plain_operands(d, r, x, out);
        stack_effect(d, ci, out);
        return 0;
    }
}
