/* step_insn_kind: what the step engine must know about the instruction a
 * thread is about to run, from its bytes alone, before choosing how to
 * resume it: a `syscall` enters the kernel (and may block there), a
 * rep-prefixed string instruction traps once per iteration under ptrace
 * but is one step in rr's records; `cpuid` is emulated, because a
 * hypervisor that emulates it (every VM) can run the next instruction
 * before the single-step trap; `pause` is a spin-wait's hint, which PCT
 * takes as a yield; anything else is one single-step. */
#ifndef TRMS_STEP_INSN_KIND_H
#define TRMS_STEP_INSN_KIND_H

#include <stddef.h>
#include <stdint.h>

enum step_insn_kind {
    STEP_INSN_OTHER, STEP_INSN_SYSCALL, STEP_INSN_REP_STRING, STEP_INSN_CPUID, STEP_INSN_PAUSE,
};

/* The kind of the instruction starting at BYTES[0..N), and for CPUID its
 * *LENGTH. Bytes that are not a whole instruction are OTHER:
 * single-stepping is always safe. */
enum step_insn_kind step_insn_kind(const uint8_t *bytes, size_t n, size_t *length);

#endif
