/* raw_stream: what the Valgrind tool sends to `trms record`.
 *
 * The tool runs inside Valgrind, without libc, and must stay cheap: it
 * writes raw observations as little-endian 64-bit words and leaves all
 * interpretation (calls and returns from control flow, routine identity,
 * the binary trace) to the recorder process on the other core.
 *
 * A word's bits 15..12 are its opcode. Loads and stores take one word
 * each, appended inline by the instrumented code:
 *
 *   RAW_READ / RAW_WRITE   bits 63..16 address, 11..0 size in bytes (1..4095)
 *
 * Everything else is a control word (RAW_CONTROL): bits 11..0 say which,
 * bits 63..16 carry its first operand, and a fixed number of operand words
 * follow; a path follows some, as its bytes NUL-padded to whole words
 * (at least one NUL). Addresses keep their low 48 bits (all of user
 * space): the instrumented code builds a word with one shift and one OR of
 * a 16-bit constant, no 64-bit masks.
 *
 * Header only, freestanding: the tool includes it too. */
#ifndef TRMS_RAW_STREAM_H
#define TRMS_RAW_STREAM_H

#include <stdint.h>

#define RAW_MAGIC UINT64_C(0x334d41525453524d)  /* "MRSTRAM3", the first word */

/* Transport: the words go through a ring of RAW_RING_SEGMENTS segments of
 * RAW_SEGMENT_WORDS words in memory both processes map (a memfd), filled
 * in order, so that nothing is copied through the kernel. When the tool
 * leaves a segment it writes the segment's length in bytes, one 64-bit
 * word, to the notify pipe; the recorder decodes the segment and writes
 * one byte to the free pipe to hand it back. Records never span
 * segments. The notify pipe's end is the stream's end.
 *
 * After the segments, a mark says how far the tool had written when the
 * program last made a system call: a tool that dies without handing over
 * its last segment (the program was killed, or exec'd) still leaves every
 * record up to that call. */
#define RAW_RING_SEGMENTS 8
#define RAW_SEGMENT_WORDS (1u << 17)
#define RAW_RING_MARK_OFFSET ((uint64_t)RAW_RING_SEGMENTS * RAW_SEGMENT_WORDS * 8)
#define RAW_RING_BYTES (RAW_RING_MARK_OFFSET + 4096)

struct raw_ring_mark {
    uint64_t segments_done;  /* segments handed over before the one in the mark */
    uint64_t bytes;          /* written into that one */
    /* Where the segment being filled ends, as the tool's pointer: the
     * instrumented code calls the tool when it would write past it. The
     * recorder asks for a window change (`trms control`) by writing
     * window_request, then 0 here: the tool looks at the request at the
     * start of the next basic block that accesses memory, and answers with
     * a RAW_WINDOW word there, in stream order. */
    uint64_t end;
    uint64_t window_request; /* serial << 1 | on; serial 0: never asked */
};

#define RAW_LOW_SHIFT 16
#define RAW_OP_SHIFT 12
#define RAW_LOW_MASK ((UINT64_C(1) << 48) - 1)  /* the first operand's range */
#define RAW_SUB_MASK UINT64_C(0xfff)
#define RAW_MAX_ACCESS 4095u

enum raw_op {
    RAW_READ = 1,
    RAW_WRITE = 2,
    RAW_CONTROL = 15,
};

/* Control words. The comment gives operand words after the first word. */
enum raw_control {
    RAW_THREAD = 1,         /* low = tid; following events are that thread's */
    RAW_COST = 2,           /* low = instructions the current thread executed
                               (0: none, and no event) */
    RAW_CALL = 3,           /* low = target; + sp after the return address was pushed */
    RAW_RET = 4,            /* low = target; + sp after the return; the ret's
                               read of its return address follows (a READ
                               word), the caller's */
    RAW_JUMP = 5,           /* low = target; + sp: an indirect jump, a jump to a
                               function entry, or a jump out of a PLT stub */
    RAW_KREAD = 6,          /* low = addr; + size */
    RAW_KWRITE = 7,         /* low = addr; + size */
    RAW_SIGNAL = 8,         /* low = handler; + signal number, + sp at delivery */
    RAW_SIGRETURN = 9,      /* low = signal number; the current thread's handler ended */
    RAW_THREAD_EXIT = 10,   /* low = tid */
    RAW_MAP = 11,           /* low = start; + length, + file offset,
                               + prot (bits 0..2: r w x) | path length << 8,
                               then the path (RAW_PATH words) */
    RAW_UNMAP = 12,         /* low = start; + length */
    RAW_UNMODELED_SYSCALL = 13, /* low = syscall number: not in the syscall table;
                               Valgrind's own knowledge of its buffers follows
                               as KREAD/KWRITE words */
    RAW_END = 14,           /* low = the program's exit code: the tool finished;
                               RAW_END_KILLED set: without an exit call (a
                               fatal signal; which one the tool cannot tell) */
    RAW_EXEC = 15,          /* low = path length, then the path (RAW_PATH words):
                               the program is about to exec it, and Valgrind
                               does not follow an exec */
    RAW_EXEC_FAILED = 16,   /* the exec announced last did not happen */
    RAW_WINDOW = 17,        /* low = 1 on, 0 off: `trms control` asked for it
                               just before this point (mark.window_request) */
    RAW_SYNC = 18,          /* low = sync kind (trace/sync_event.h); + addr,
                               + value: of the current thread */
    RAW_KSOURCE = 19,       /* low = inode of a pipe, FIFO or socket: the
                               kernel writes that follow, up to the next other
                               control word, are a read's bytes from it */
    RAW_CHANNEL_WRITE = 20, /* low = inode of a pipe, FIFO or socket the
                               program wrote to (said at least once each) */
};

#define RAW_END_KILLED 0x100u

static inline uint64_t raw_access_word(enum raw_op op, uint64_t size, uint64_t addr)
{
    return addr << RAW_LOW_SHIFT | (uint64_t)op << RAW_OP_SHIFT | size;
}

static inline uint64_t raw_control_word(enum raw_control what, uint64_t low)
{
    return low << RAW_LOW_SHIFT | (uint64_t)RAW_CONTROL << RAW_OP_SHIFT | what;
}

static inline unsigned raw_word_op(uint64_t word)
{
    return (unsigned)(word >> RAW_OP_SHIFT & 0xf);
}

/* An access's size, or which control word. */
static inline unsigned raw_word_sub(uint64_t word)
{
    return (unsigned)(word & RAW_SUB_MASK);
}

/* An access's address, or a control word's first operand. */
static inline uint64_t raw_word_low(uint64_t word)
{
    return word >> RAW_LOW_SHIFT;
}

/* Operand words that follow a control word (RAW_MAP: plus its path words). */
static inline unsigned raw_control_operands(enum raw_control what)
{
    static const unsigned char operands[] = {
        [RAW_THREAD] = 0, [RAW_COST] = 0, [RAW_CALL] = 1, [RAW_RET] = 1,
        [RAW_JUMP] = 1, [RAW_KREAD] = 1, [RAW_KWRITE] = 1, [RAW_SIGNAL] = 2,
        [RAW_SIGRETURN] = 0, [RAW_THREAD_EXIT] = 0, [RAW_MAP] = 3, [RAW_UNMAP] = 1,
        [RAW_UNMODELED_SYSCALL] = 0, [RAW_END] = 0, [RAW_EXEC] = 0,
        [RAW_EXEC_FAILED] = 0, [RAW_WINDOW] = 0, [RAW_SYNC] = 2,
        [RAW_KSOURCE] = 0, [RAW_CHANNEL_WRITE] = 0,
    };
    return (unsigned)what < sizeof operands ? operands[what] : 0;
}

#endif
