/* insn_access: one execution of a decoded instruction, from the registers
 * before it (PRE, the thread's previous record) and after it (POST).
 *
 * Addresses come from PRE: base + index * scale + displacement, the next
 * instruction's address for rip-relative operands, the recorded fs/gs base
 * for %fs:/%gs: operands. A string instruction covers every element it
 * processed as one range per side: PRE's rsi/rdi and direction flag give the
 * start, PRE's and POST's rcx the element count under rep (an interrupted
 * rep leaves rcx short of 0 and ip on itself), one element without. */
#ifndef TRMS_INSN_ACCESS_H
#define TRMS_INSN_ACCESS_H

#include <stdint.h>

#include "replayer/insn.h"
#include "replayer/rerun_record.h"

struct insn_access {
    uint64_t addr;
    uint64_t size;
    uint8_t kind;  /* INSN_READ or INSN_WRITE: a modify comes as both */
};

#define INSN_MAX_ACCESSES 4

/* The accesses in the order the trace reports them: reads of an operand
 * before its writes, a push's operand before the stack slot, a pop's slot
 * before its operand. Not included: the return address a call pushes,
 * which belongs after the call event (insn_return_address_slot). Returns
 * how many were written to OUT. */
int insn_accesses(const struct insn *insn, const struct rerun_record *pre,
                  const struct rerun_record *post, struct insn_access out[INSN_MAX_ACCESSES]);

/* Whether POST is where executing INSN from PRE leads: the fall-through or
 * branch target, a jump register's value; for transfers through memory and
 * `ret`, whose targets the records cannot check, the stack pointer's move.
 * Anything else (a signal handler's ip) means INSN did not complete. */
int insn_follows(const struct insn *insn, const struct rerun_record *pre,
                 const struct rerun_record *post);

/* The effective address of M with the registers REGS of the instruction
 * whose successor is at NEXT_IP. */
uint64_t insn_mem_address(const struct insn_mem *m, const struct rerun_record *regs,
                          uint64_t next_ip);

/* rsp before INSN, from rsp after it: exact for pushes, pops, calls, rets
 * and add/sub of an immediate; other writes of rsp are taken as none. */
uint64_t insn_rsp_before(const struct insn *insn, uint64_t rsp_after);

#endif
