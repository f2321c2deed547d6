/* activation: what the analyses know about one completed routine activation.
 *
 * Produced by the RMS/TRMS pass in completion order and consumed by the
 * profiles and by `analyze --activations`. */
#ifndef TRMS_ACTIVATION_H
#define TRMS_ACTIVATION_H

#include <stdint.h>

/* Routine id of each thread's root activation, which owns the accesses made
 * outside any call and completes when the trace ends. */
#define ROUTINE_ROOT UINT32_MAX
#define ROUTINE_ROOT_LABEL "<root>"

/* Context of an activation when calling contexts are not kept. */
#define CONTEXT_NONE UINT32_MAX

struct activation {
    uint32_t tid;
    uint32_t routine;           /* routine table index, or ROUTINE_ROOT */
    uint32_t depth;             /* 0 for the root, 1 for an outermost call */
    uint32_t recursive;         /* 1 when the same routine is pending below */
    uint32_t context;           /* calling context (analysis_result.contexts),
                                   or CONTEXT_NONE when not kept */
    uint64_t rms;               /* cells first accessed by a read (subtree) */
    uint64_t trms;              /* rms + induced first reads (subtree) */
    uint64_t cost;              /* instructions, descendants included */
    uint64_t self_cost;         /* instructions, descendants excluded */
    uint64_t induced_thread;    /* counted reads of other threads' writes */
    uint64_t induced_external;  /* counted reads of kernel writes */
    uint64_t induced_channel;   /* of those, of the bytes a read brought
                                   through a pipe, FIFO or socket */
    uint32_t channel;           /* its inode; CHANNEL_SEVERAL for more than one,
                                   0 when induced_channel is 0 */
};

/* An activation whose channel input came through more than one channel. */
#define CHANNEL_SEVERAL UINT32_MAX

/* The channel of input from channels A and B (0: none). */
static inline uint32_t channel_join(uint32_t a, uint32_t b)
{
    return !a ? b : (!b || a == b) ? a : CHANNEL_SEVERAL;
}

typedef void (*activation_sink)(void *ctx, const struct activation *a);

#endif
