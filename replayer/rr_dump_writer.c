/* rr_dump_writer: rr 5.6.0's dump text (rr_dump_writer.h). %p is written
 * as glibc prints it, "(nil)" for zero. */
#include "replayer/rr_dump_writer.h"

#include <inttypes.h>

static void pointer(FILE *out, uint64_t v)
{
    if (v)
        fprintf(out, "0x%" PRIx64, v);
    else
        fputs("(nil)", out);
}

void rr_dump_write_frame(FILE *out, uint64_t time, const char *event, const char *state,
                         uint32_t tid, int64_t ticks)
{
    fprintf(out, "{\n  real_time:0.000000 global_time:%" PRIu64 ", event:`%s' ", time, event);
    if (state)
        fprintf(out, "(state:%s) ", state);
    fprintf(out, "tid:%" PRIu32 ", ticks:%" PRId64 "\n", tid, ticks);
}

void rr_dump_write_registers(FILE *out, const struct rerun_record *r, uint64_t orig_rax)
{
    static const char *const names[RERUN_GP_COUNT] = {
        "rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
        "r8",  "r9",  "r10", "r11", "r12", "r13", "r14", "r15"};
    for (int i = 0; i < RERUN_GP_COUNT; i++)
        fprintf(out, "%s:0x%" PRIx64 " ", names[i], r->gp[i]);
    fprintf(out, "rip:0x%" PRIx64 " eflags:0x%" PRIx64
                 " cs:0x33 ss:0x2b ds:0x0 es:0x0 fs:0x0 gs:0x0 orig_rax:0x%" PRIx64
                 " fs_base:0x%" PRIx64 " gs_base:0x%" PRIx64 "\n",
            r->ip, r->flags, orig_rax, r->fsbase, r->gsbase);
}

void rr_dump_write_clone(FILE *out, uint32_t tid, uint32_t parent, uint64_t flags)
{
    fprintf(out, "  TraceTaskEvent::CLONE tid=%" PRIu32 " parent=%" PRIu32 " clone_flags=0x%" PRIx64
                 "\n", tid, parent, flags & UINT32_MAX);
}

void rr_dump_write_exec(FILE *out, uint32_t tid, const char *file)
{
    fprintf(out, "  TraceTaskEvent::EXEC tid=%" PRIu32 " file=%s\n", tid, file);
}

void rr_dump_write_exit(FILE *out, uint32_t tid, int status)
{
    fprintf(out, "  TraceTaskEvent::EXIT tid=%" PRIu32 " status=%d\n", tid, status);
}

void rr_dump_write_mapping(FILE *out, const char *map_file, uint64_t addr, uint64_t length,
                           const char *prot, uint64_t file_offset, const char *data_file,
                           uint64_t data_offset, uint64_t file_size)
{
    fprintf(out, "  { map_file:\"%s\", addr:", map_file);
    pointer(out, addr);
    fputs(", length:", out);
    pointer(out, length);
    fprintf(out, ", prot_flags:\"%s\", file_offset:0x%" PRIx64 ", device:0, inode:0, data_file:\"%s\""
                 ", data_offset:0x%" PRIx64 ", file_size:0x%" PRIx64 " }\n",
            prot, file_offset, data_file, data_offset, file_size);
}

void rr_dump_write_memory(FILE *out, uint32_t tid, uint64_t addr, uint64_t length)
{
    fprintf(out, "  { tid:%" PRIu32 ", addr:", tid);
    pointer(out, addr);
    fputs(", length:", out);
    pointer(out, length);
    fputs(" }\n", out);
}

void rr_dump_write_frame_end(FILE *out)
{
    fputs("}\n", out);
}
