/* trace_check: what can be verified of an event trace without reading it:
 * its header, and that it ends with a whole end block, whose totals can
 * then be compared with the meta. A trace that does not end so was cut
 * (a disk that filled, a copy that stopped): the block headers are then
 * walked, not their payloads, to say where its last whole block ends.
 * Reading every block with its checksum is trace_read's (`trms verify`). */
#ifndef TRMS_TRACE_CHECK_H
#define TRMS_TRACE_CHECK_H

#include <stdint.h>

enum trace_check_status {
    TRACE_CHECK_OK,         /* ends with a valid end block: totals below */
    TRACE_CHECK_CUT,        /* no end block: CUT_AT is where the whole blocks end */
    TRACE_CHECK_BAD,        /* not a trace, or damaged where it was looked at: WHY */
    TRACE_CHECK_MISSING,    /* no such file */
};

struct trace_check {
    enum trace_check_status status;
    uint64_t bytes;                     /* the file's size */
    uint64_t events, blocks, routines;  /* the end block's totals (OK) */
    uint64_t cut_at, whole_blocks;      /* CUT */
    char why[160];                      /* BAD */
};

void trace_check_end(const char *path, struct trace_check *c);

#endif
