/* rr_dump: reads what `rr dump -e -m -p TRACE_DIR [EVENTS]` prints (rr
 * 5.6.0, src/DumpCommand.cc and src/TraceFrame.cc):
 *
 *   {
 *     real_time:%f global_time:%llu, event:`NAME' [(state:STATE) ]tid:%d, ticks:%lld
 *   rax:0x.. rcx:0x.. ... rip:0x.. eflags:0x.. ... orig_rax:0x.. fs_base:0x.. gs_base:0x..[ st0:.. ymm0:..]
 *     TraceTaskEvent::CLONE tid=%d parent=%d clone_flags=0x%x         (-e)
 *     { map_file:"PATH", addr:%p, length:%p, prot_flags:"rwxp", file_offset:0x%llx,
 *       device:%lld, inode:%lld, data_file:"PATH", data_offset:0x%llx, file_size:0x%llx }  (-p)
 *     { tid:%d, addr:%p, length:%p[, holes:[%p-%p...]] }                 (-m)
 *   }
 *
 * (the register line only for frames that record registers; each mapping is
 * one line). The rr adapter takes from it what the rerun records lack:
 * the memory the kernel wrote at each frame (-m), the files mapped and
 * where their copies are in the trace (-p), and clones, execs and exits
 * (-e). It reads as a stream: a dump can be far larger than memory. */
#ifndef TRMS_RR_DUMP_H
#define TRMS_RR_DUMP_H

#include <stdint.h>
#include <stdio.h>

#include "common/error.h"

struct rr_frame {
    uint64_t time;          /* global_time: the rerun records' `event` */
    uint32_t tid;
    char event[64];         /* "SYSCALL: read", "SCHED", "SIGNAL: SIGSEGV(det)" */
    char state[32];         /* syscall frames: "ENTERING_SYSCALL"...; else "" */
    int64_t ticks;
    int has_regs;           /* the frame recorded registers: */
    uint64_t gp[16];        /* rax, rcx, rdx, rbx, rsp, rbp, rsi, rdi, r8..r15 */
    uint64_t rip, eflags, orig_rax, fs_base, gs_base;
};

/* Memory the kernel wrote for the frame, less its holes (bytes the kernel
 * did not write, as offsets from ADDR). */
struct rr_hole {
    uint64_t offset, size;
};

struct rr_mem_write {
    uint32_t tid;
    uint64_t addr, length;
    const struct rr_hole *holes;
    size_t n_holes;
};

#define RR_PROT_READ 1u
#define RR_PROT_WRITE 2u
#define RR_PROT_EXEC 4u

struct rr_mapping {
    const char *map_file;   /* the mapped file's name at recording; "<ZERO>" */
    uint64_t addr, length;
    unsigned prot;          /* RR_PROT_* */
    int shared;
    uint64_t file_offset;
    int64_t device, inode;
    const char *data_file;  /* where its contents are: a file inside the trace */
    uint64_t data_offset, file_size;
};

enum rr_task_event_kind { RR_TASK_CLONE, RR_TASK_EXEC, RR_TASK_EXIT, RR_TASK_DETACH };

struct rr_task_event {
    enum rr_task_event_kind kind;
    uint32_t tid;
    uint32_t parent;        /* CLONE */
    uint32_t clone_flags;   /* CLONE */
    int exit_status;        /* EXIT */
    const char *file;       /* EXEC */
};

/* Each callback may be NULL; a non-zero return (with ERR filled) stops the
 * parse. FRAME is the frame the item belongs to; `frame` is called once its
 * header and registers are read, before the frame's items, and `frame_end`
 * when its closing brace is. */
struct rr_dump_callbacks {
    int (*frame)(void *ctx, const struct rr_frame *f, struct trms_error *err);
    int (*task_event)(void *ctx, const struct rr_frame *f, const struct rr_task_event *e,
                      struct trms_error *err);
    int (*mapping)(void *ctx, const struct rr_frame *f, const struct rr_mapping *m,
                   struct trms_error *err);
    int (*mem_write)(void *ctx, const struct rr_frame *f, const struct rr_mem_write *w,
                     struct trms_error *err);
    int (*frame_end)(void *ctx, const struct rr_frame *f, struct trms_error *err);
    void *ctx;
};

/* Parses IN to its end. A line that is none of the above, or a dump that
 * stops inside a frame, fails with "NAME:LINE: what is wrong". */
int rr_dump_parse(FILE *in, const char *name, const struct rr_dump_callbacks *cb,
                  struct trms_error *err);

#endif
