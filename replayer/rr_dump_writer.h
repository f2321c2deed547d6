/* rr_dump_writer: writes the text `rr dump -e -m -p` prints (rr 5.6.0's
 * layout, as rr_dump.h reads it): frames with their registers, task
 * events, mappings and kernel writes. The step engine describes its own
 * runs this way, beside the rerun records it emits, so that tests can
 * serve both through a stand-in `rr` and check that the rr adapter
 * analyzes them as the step engine did. */
#ifndef TRMS_RR_DUMP_WRITER_H
#define TRMS_RR_DUMP_WRITER_H

#include <stdint.h>
#include <stdio.h>

#include "replayer/rerun_record.h"

/* Opens a frame: EVENT as rr names it ("SYSCALL: read", "SCHED"), STATE
 * for syscall frames ("ENTERING_SYSCALL", "EXITING_SYSCALL") or NULL. */
void rr_dump_write_frame(FILE *out, uint64_t time, const char *event, const char *state,
                         uint32_t tid, int64_t ticks);

/* The frame's registers (R's; ORIG_RAX as rr keeps it). */
void rr_dump_write_registers(FILE *out, const struct rerun_record *r, uint64_t orig_rax);

void rr_dump_write_clone(FILE *out, uint32_t tid, uint32_t parent, uint64_t flags);
void rr_dump_write_exec(FILE *out, uint32_t tid, const char *file);
void rr_dump_write_exit(FILE *out, uint32_t tid, int status);

/* A mapping of MAP_FILE at [ADDR, ADDR + LENGTH) whose bytes are in
 * DATA_FILE at DATA_OFFSET; PROT is rr's "rwxp" text. */
void rr_dump_write_mapping(FILE *out, const char *map_file, uint64_t addr, uint64_t length,
                           const char *prot, uint64_t file_offset, const char *data_file,
                           uint64_t data_offset, uint64_t file_size);

/* LENGTH bytes at ADDR written by the kernel for TID. */
void rr_dump_write_memory(FILE *out, uint32_t tid, uint64_t addr, uint64_t length);

void rr_dump_write_frame_end(FILE *out);

#endif
