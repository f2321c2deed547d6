/* rerun_record: one record of rr 5.6.0's
 *
 *   rr rerun --singlestep=tid,event,icount,ip,fsbase,gsbase,flags,gp_x16 --raw
 *
 * the register snapshot rr prints after every completed step of a replay
 * (layout: ../shared/REFERENCE.md, rr's src/RerunCommand.cc). Fields are
 * written in the order asked for, little-endian, unpadded, and each record
 * ends with one '\n' byte: 4 + 6 * 8 + 16 * 8 + 1 = 181 bytes.
 *
 * The step engine writes this layout and the decoder reads it, so that rr's
 * own output and ours go through the same code. */
#ifndef TRMS_RERUN_RECORD_H
#define TRMS_RERUN_RECORD_H

#include <stdint.h>

/* The --singlestep argument whose records this module reads and writes. */
#define RERUN_FIELDS "tid,event,icount,ip,fsbase,gsbase,flags,gp_x16"
#define RERUN_RECORD_BYTES 181

/* gp_x16 order: the x86-64 architectural register numbering. */
enum rerun_gp {
    RERUN_RAX, RERUN_RCX, RERUN_RDX, RERUN_RBX, RERUN_RSP, RERUN_RBP, RERUN_RSI, RERUN_RDI,
    RERUN_R8, RERUN_R9, RERUN_R10, RERUN_R11, RERUN_R12, RERUN_R13, RERUN_R14, RERUN_R15,
    RERUN_GP_COUNT
};

struct rerun_record {
    uint32_t tid;       /* recorded thread id */
    uint64_t event;     /* trace frame time before the step */
    uint64_t icount;    /* instructions into the event */
    uint64_t ip;        /* after the step */
    uint64_t fsbase, gsbase;
    uint64_t flags;     /* rflags; DF (bit 10) sets string direction */
    uint64_t gp[RERUN_GP_COUNT];
};

void rerun_record_encode(const struct rerun_record *r, unsigned char out[RERUN_RECORD_BYTES]);

/* Returns 0, or -1 when the record does not end with '\n' (the stream is
 * corrupt or was produced with other fields). */
int rerun_record_decode(const unsigned char in[RERUN_RECORD_BYTES], struct rerun_record *r);

#endif
