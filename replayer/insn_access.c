/* insn_access: addresses from registers (see insn_access.h). */
#include "replayer/insn_access.h"

#define DF_BIT UINT64_C(0x400)

/* More elements than any real string instruction processes: an rcx that
 * grew is not progress. */
#define MAX_ELEMENTS (UINT64_C(1) << 48)

static uint64_t register_value(const struct rerun_record *regs, uint8_t reg, uint64_t next_ip)
{
    if (reg < RERUN_GP_COUNT)
        return regs->gp[reg];
    return reg == INSN_REG_RIP ? next_ip : 0;
}

static uint64_t segment_base(const struct rerun_record *regs, uint8_t segment)
{
    return segment == INSN_SEG_FS ? regs->fsbase : segment == INSN_SEG_GS ? regs->gsbase : 0;
}

uint64_t insn_mem_address(const struct insn_mem *m, const struct rerun_record *regs,
                          uint64_t next_ip)
{
    uint64_t a = (uint64_t)m->disp;
    if (m->base != INSN_REG_NONE)
        a += register_value(regs, m->base, next_ip);
    if (m->index != INSN_REG_NONE)
        a += register_value(regs, m->index, next_ip) * m->scale;
    if (m->addr32)
        a &= UINT32_MAX;
    return a + segment_base(regs, m->segment);
}

static uint64_t next_ip(const struct insn *insn)
{
    return insn->addr + insn->length;
}

struct out {
    struct insn_access *a;
    int n;
};

static void put(struct out *o, uint8_t kind, uint64_t addr, uint64_t size)
{
    if (size > 0 && o->n < INSN_MAX_ACCESSES)
        o->a[o->n++] = (struct insn_access){.addr = addr, .size = size, .kind = kind};
}

/* An operand of kind KIND at ADDR: a modify is its read, then its write. */
static void put_operand(struct out *o, uint8_t kind, uint64_t addr, uint64_t size)
{
    if (kind & INSN_READ)
        put(o, INSN_READ, addr, size);
    if (kind & INSN_WRITE)
        put(o, INSN_WRITE, addr, size);
}

static void put_mem(struct out *o, const struct insn *insn, const struct insn_mem *m,
                    const struct rerun_record *pre)
{
    put_operand(o, m->kind, insn_mem_address(m, pre, next_ip(insn)), m->size);
}

/* Elements a string instruction processed between PRE and POST. */
static uint64_t string_elements(const struct insn *insn, const struct rerun_record *pre,
                                const struct rerun_record *post)
{
    if (!(insn->flags & INSN_REP))
        return 1;
    uint64_t mask = insn->mem[0].addr32 ? UINT32_MAX : UINT64_MAX;
    uint64_t before = pre->gp[RERUN_RCX] & mask, after = post->gp[RERUN_RCX] & mask;
    return after <= before && before - after <= MAX_ELEMENTS ? before - after : 0;
}

/* The range ELEMENTS elements of SIZE cover from the register value START,
 * downwards when the direction flag is set. */
static void put_string_side(struct out *o, uint8_t kind, const struct insn_mem *m,
                            const struct rerun_record *pre, uint64_t elements)
{
    uint64_t start = pre->gp[m->base];
    if (m->addr32)
        start &= UINT32_MAX;
    uint64_t size = m->size;
    if (pre->flags & DF_BIT)
        start -= (elements - 1) * size;
    put(o, kind, start + segment_base(pre, m->segment), elements * size);
}

static void put_string(struct out *o, const struct insn *insn, const struct rerun_record *pre,
                       const struct rerun_record *post)
{
    uint64_t elements = string_elements(insn, pre, post);
    if (elements == 0)
        return;
    const struct insn_mem *source = &insn->mem[0], *dest = &insn->mem[1];
    switch (insn->string_op) {
    case STRING_MOVS:
        put_string_side(o, INSN_READ, source, pre, elements);
        put_string_side(o, INSN_WRITE, dest, pre, elements);
        break;
    case STRING_CMPS:
        put_string_side(o, INSN_READ, source, pre, elements);
        put_string_side(o, INSN_READ, dest, pre, elements);
        break;
    case STRING_STOS:
        put_string_side(o, INSN_WRITE, dest, pre, elements);
        break;
    case STRING_LODS:
        put_string_side(o, INSN_READ, source, pre, elements);
        break;
    case STRING_SCAS:
        put_string_side(o, INSN_READ, dest, pre, elements);
        break;
    }
}

/* bt/bts/btr/btc mem, reg: the byte holding bit `offset` of the operand,
 * the offset signed at the register's width. */
static void put_bit_string(struct out *o, const struct insn *insn, const struct rerun_record *pre)
{
    uint64_t raw = pre->gp[insn->bit_reg];
    int64_t offset = insn->bit_reg_bytes == 2   ? (int16_t)raw
                     : insn->bit_reg_bytes == 4 ? (int32_t)raw
                                                : (int64_t)raw;
    uint64_t base = insn_mem_address(&insn->mem[0], pre, next_ip(insn));
    /* Arithmetic shift: floor division by 8, negative offsets included. */
    int64_t byte = offset >= 0 ? offset / 8 : -((-(offset + 1)) / 8) - 1;
    put_operand(o, insn->mem[0].kind, base + (uint64_t)byte, 1);
}

int insn_accesses(const struct insn *insn, const struct rerun_record *pre,
                  const struct rerun_record *post, struct insn_access out[INSN_MAX_ACCESSES])
{
    struct out o = {out, 0};
    uint64_t rsp = pre->gp[RERUN_RSP];
    switch (insn->family) {
    case FAMILY_PUSH:
        if (insn->n_mem)
            put_mem(&o, insn, &insn->mem[0], pre);
        put(&o, INSN_WRITE, rsp - insn->stack_bytes, insn->stack_bytes);
        break;
    case FAMILY_POP:
        put(&o, INSN_READ, rsp, insn->stack_bytes);
        if (insn->n_mem) {
            /* An rsp-based destination is addressed after the pop. */
            const struct insn_mem *m = &insn->mem[0];
            uint64_t addr = insn_mem_address(m, pre, next_ip(insn));
            if (m->base == RERUN_RSP)
                addr += insn->stack_bytes;
            put_operand(&o, m->kind, addr, m->size);
        }
        break;
    case FAMILY_RET:
        put(&o, INSN_READ, rsp, 8);
        break;
    case FAMILY_ENTER:
        put(&o, INSN_WRITE, rsp - 8, 8);
        break;
    case FAMILY_LEAVE:
        put(&o, INSN_READ, pre->gp[RERUN_RBP], 8);
        break;
    case FAMILY_STRING:
        put_string(&o, insn, pre, post);
        break;
    case FAMILY_BIT_STRING:
        put_bit_string(&o, insn, pre);
        break;
    case FAMILY_XLAT: {
        const struct insn_mem *m = &insn->mem[0];
        uint64_t a = pre->gp[RERUN_RBX] + (pre->gp[RERUN_RAX] & 0xff);
        if (m->addr32)
            a &= UINT32_MAX;
        put(&o, INSN_READ, a + segment_base(pre, m->segment), 1);
        break;
    }
    case FAMILY_UNDECODABLE:
    case FAMILY_VECTOR_INDEX:
    case FAMILY_SYSCALL:
        break;
    default:  /* plain, calls and jumps through memory, maskmov */
        for (int i = 0; i < insn->n_mem; i++)
            put_mem(&o, insn, &insn->mem[i], pre);
        break;
    }
    return o.n;
}

int insn_follows(const struct insn *insn, const struct rerun_record *pre,
                 const struct rerun_record *post)
{
    uint64_t next = next_ip(insn);
    uint64_t sp_before = pre->gp[RERUN_RSP], sp_after = post->gp[RERUN_RSP];
    switch (insn->family) {
    case FAMILY_UNDECODABLE:
        return 1;  /* nothing to check against */
    case FAMILY_STRING:
        return post->ip == next || ((insn->flags & INSN_REP) && post->ip == insn->addr);
    case FAMILY_BRANCH:
        return post->ip == next || post->ip == insn->target;
    case FAMILY_JUMP:
        if (insn->target)
            return post->ip == insn->target;
        if (insn->target_reg != INSN_REG_NONE)
            return post->ip == pre->gp[insn->target_reg];
        return sp_after == sp_before;
    case FAMILY_CALL:
        if (sp_after != sp_before - 8)
            return 0;
        if (insn->target)
            return post->ip == insn->target;
        if (insn->target_reg != INSN_REG_NONE)
            return post->ip == pre->gp[insn->target_reg];
        return 1;
    case FAMILY_RET:
        return sp_after == sp_before + 8 + insn->imm;
    default:
        return post->ip == next;
    }
}

uint64_t insn_rsp_before(const struct insn *insn, uint64_t rsp_after)
{
    return insn->rsp_effect == RSP_DELTA ? rsp_after - (uint64_t)(int64_t)insn->rsp_delta
                                         : rsp_after;
}
