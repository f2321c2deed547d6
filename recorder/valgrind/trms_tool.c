/* The trms Valgrind tool: records what a program does as raw observations
 * (recorder/raw_stream.h) and sends them down a pipe to `trms record`.
 *
 * Kept deliberately dumb and cheap, like lackey without the printing:
 *  - every load and store appends one word to a buffer, inline in the
 *    instrumented code (no helper call per access); each superblock first
 *    makes sure its accesses, and the words of the helpers among them,
 *    fit, so the only call on the hot path is a guarded one that almost
 *    never fires (a full segment, or a request of `trms control`);
 *  - instructions are counted inline and reported as a cost before every
 *    call, return, jump, thread switch and signal;
 *  - calls, returns and the jumps that may be tail calls or PLT exits
 *    append their cost, target and stack pointer inline too; deciding what
 *    is an activation is the recorder's job, shared with the other engines;
 *  - system calls are described by the shared syscall table, falling back
 *    to what Valgrind's own wrappers say for calls the table lacks;
 *  - what orders the threads (creation, start and exit, futex waits and
 *    wakes, blocking system calls, locked read-modify-writes) goes out as
 *    sync words (RAW_SYNC), for the causal model.
 *
 * Threads are serialized by Valgrind; the stream says when they switch. */
#include "pub_tool_basics.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_clientstate.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"
#include "pub_tool_threadstate.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_vki.h"
#include "pub_tool_xarray.h"

#include "recorder/process_socket.h"
#include "recorder/raw_stream.h"
#include "recorder/tsc_clock.h"
#include "trace/sync_event.h"
#include "recorder/syscall_effects.h"

/* Not in the tool headers, but exported by coregrind: moves a descriptor
 * out of the client's reach (a program that closes every fd it does not
 * know must not close our pipe) and marks it close-on-exec. */
extern Int VG_(safe_fd)(Int oldfd);
/* Also exported but not in the tool headers: a shared mapping of a file
 * outside the client's address space, for the ring. */
extern SysRes VG_(am_shared_mmap_file_float_valgrind)(SizeT length, UInt prot, Int fd,
                                                       Off64T offset);
/* Exported too: the raw system call, for connect and recvmsg, which the
 * tool headers do not wrap. */
extern SysRes VG_(do_syscall)(UWord sysno, UWord a1, UWord a2, UWord a3, UWord a4, UWord a5,
                              UWord a6, UWord a7, UWord a8);

extern Int VG_(socket)(Int domain, Int type, Int protocol);
/* --trace-children, which the core reads when it wraps an exec: turned off
 * for one exec of a setuid or setgid program, which the core would
 * otherwise refuse (EACCES) rather than run untraced. */
extern Bool VG_(clo_trace_children);

static void keep_log_across_exec(void);  /* before an exec Valgrind follows */

#define NR_CONNECT 42
#define NR_RECVMSG 47
#define NR_READ 0
#define NR_WRITE 1
#define NR_READV 19
#define NR_WRITEV 20
#define NR_SENDTO 44
#define NR_RECVFROM 45
#define NR_SENDMSG 46

#define NR_RT_SIGACTION 13
#define NR_EXECVE 59
#define NR_EXECVEAT 322
#define NR_EXIT_GROUP 231
#define MAX_SIGNAL 65
#define MAX_PENDING_EFFECTS 32
/* Valgrind's thread limit is an option (--max-threads, default 500). */
#define MAX_THREADS 1024

/* The segment being filled; the instrumented code appends at buffer_next
 * and checks against buffer_end. Before the ring exists, and in forked
 * children, the scratch buffer takes the words and drops them.
 *
 * buffer_end lives where end_at points: in the ring's mark while
 * recording, so that the recorder can set it to 0 to be heard at the next
 * basic block (a window request); in own_end otherwise, so that a forked
 * child, which shares the ring's pages, never touches the parent's. The
 * instrumented code reads it through end_at, which every translation
 * shares. */
static ULong scratch[RAW_SEGMENT_WORDS];
static ULong *ring;
static struct raw_ring_mark *mark;
static ULong segments_done;           /* handed over so far */
static UInt segment;                  /* index of the one being filled */
static UInt free_segments;            /* handed back, not yet filled */
static ULong *buffer = scratch;
static ULong *buffer_next = scratch;
static ULong *own_end = scratch + RAW_SEGMENT_WORDS;
static ULong *volatile *end_at = &own_end;
#define buffer_end (*end_at)
static ULong window_request_seen;     /* the last request answered */
static ULong instructions;            /* executed, all threads, incremented inline */
static ULong instructions_reported;

static Int notify_fd = -1, free_fd = -1;
static Bool recording = True;         /* off in forked children */
static ULong exit_status = RAW_END_KILLED;  /* of exit or exit_group (fini is told 0);
                                               RAW_END_KILLED until one is called */
static Bool untraced_exec;            /* trace_children turned off for this exec */
static ThreadId current_tid = VG_INVALID_THREADID;
static Int lwp_of_tid[MAX_THREADS];
static Addr signal_handler[MAX_SIGNAL + 1];

/* What Valgrind's syscall wrappers say the current syscall of a thread
 * reads and writes; used only when the shared table does not know it. */
struct pending_effect {
    enum raw_control kind;
    Addr addr;
    SizeT size;
};
static struct pending_effect pending_effects[MAX_THREADS][MAX_PENDING_EFFECTS];
static UInt n_pending_effects[MAX_THREADS];
static ULong unrecorded_effects;      /* overflowed the array above */
static ULong clipped_syscalls;        /* SYSCALL_CLIPPED: effects past a kernel bound */

/* ---- the buffer ---- */

static void stop_recording(const HChar *why)
{
    /* `trms record` is gone: keep running the program, stop recording. */
    VG_(umsg)("trms: %s; recording ends here\n", why);
    recording = False;
    end_at = &own_end;
    buffer = buffer_next = scratch;
    buffer_end = scratch + RAW_SEGMENT_WORDS;
}

static void report_cost(void);
static void put_control(enum raw_control what, ULong low);

/* A `trms control` request the recorder left in the mark, answered with a
 * RAW_WINDOW word here. The caller has just set buffer_end to the
 * segment's true end: the fence orders that store before the load of the
 * request, so that a request whose 0 the store overwrote is seen now. The
 * caller also leaves room for two words (the cost so far, and the
 * answer). */
static void answer_window_request(void)
{
    if (end_at == &own_end)
        return;
    __sync_synchronize();
    ULong request = *(volatile ULong *)&mark->window_request;
    if (request == window_request_seen)
        return;
    window_request_seen = request;
    report_cost();
    put_control(RAW_WINDOW, request & 1);
}

/* Hands the segment being filled to the recorder and starts the next one
 * once the recorder has given it back. */
static void flush(void)
{
    ULong bytes = (ULong)((char *)buffer_next - (char *)buffer);
    if (!recording || !ring) {
        buffer_next = buffer;
        return;
    }
    if (bytes == 0)
        return;
    if (VG_(write)(notify_fd, &bytes, sizeof bytes) != sizeof bytes) {
        stop_recording("the recorder stopped reading");
        return;
    }
    while (free_segments == 0) {
        UChar tokens[RAW_RING_SEGMENTS];
        Int n = VG_(read)(free_fd, tokens, sizeof tokens);
        if (n <= 0) {
            stop_recording("the recorder stopped answering");
            return;
        }
        free_segments += (UInt)n;
    }
    free_segments--;
    segments_done++;
    segment = (segment + 1) % RAW_RING_SEGMENTS;
    buffer = buffer_next = ring + (SizeT)segment * RAW_SEGMENT_WORDS;
    buffer_end = buffer + RAW_SEGMENT_WORDS;
    answer_window_request();  /* the new segment has room */
}

/* Called from instrumented code at the start of a superblock that appends
 * WORDS words, when they may not fit, or when the recorder asked (0 in
 * buffer_end). Requests are answered here, between instructions, where
 * the superblock has not yet counted on the room. */
static VG_REGPARM(1) void make_room_from_code(UWord words)
{
    ULong *end = buffer + RAW_SEGMENT_WORDS;
    if (buffer_end != end && end_at != &own_end) {
        buffer_end = end;
        if (buffer_next + 2 > end)
            flush();  /* and answers */
        else
            answer_window_request();
    }
    if (buffer_next + words > buffer_end)
        flush();
}

/* Helpers, between the accesses of a superblock, only make room: a
 * request waits for the next superblock (its words were not counted on). */
static void reserve(UInt words)
{
    if (buffer_next + words > buffer_end &&
        (buffer_next + words > buffer + RAW_SEGMENT_WORDS || end_at == &own_end))
        flush();
}

static inline void put(ULong word)
{
    *buffer_next++ = word;
}

static void put_control(enum raw_control what, ULong low)
{
    put(raw_control_word(what, low));
}

/* The instructions executed since the last report belong to the current
 * thread's current activation: report them before anything changes that. */
static void report_cost(void)
{
    if (instructions != instructions_reported) {
        reserve(1);
        put_control(RAW_COST, instructions - instructions_reported);
        instructions_reported = instructions;
    }
}

/* A sync word of the current thread; its cost so far comes first (the
 * causal model splits the thread's work there). */
static void put_sync(enum sync_kind kind, ULong addr, ULong value)
{
    report_cost();
    reserve(3);
    put_control(RAW_SYNC, kind);
    put(addr);
    put(value);
}

static void switch_to(ThreadId tid)
{
    if (tid == current_tid)
        return;
    report_cost();
    Bool first = lwp_of_tid[tid] == 0;
    if (first)
        lwp_of_tid[tid] = VG_(gettid)();
    reserve(1);
    put_control(RAW_THREAD, (ULong)lwp_of_tid[tid]);
    current_tid = tid;
    if (first)
        put_sync(SYNC_START, 0, 0);
}

/* An access of any size, from a helper (guarded or dirty-helper accesses). */
static void put_access(enum raw_op op, Addr addr, SizeT size)
{
    while (size > 0) {
        SizeT part = size > RAW_MAX_ACCESS ? RAW_MAX_ACCESS : size;
        reserve(1);
        put(raw_access_word(op, part, addr));
        addr += part;
        size -= part;
    }
}

/* The words of a path of LEN bytes in the stream (put_path). */
static UInt path_words(SizeT len)
{
    return (UInt)((len + 8) / 8);
}

/* A path of LEN bytes as the stream carries it: its bytes, NUL-padded to
 * whole words. It ends the record of the words before it, so the caller
 * reserves room for the whole record (path_words): records never span
 * segments. */
static void put_path(const HChar *path, SizeT len)
{
    SizeT words = path_words(len);
    ULong word = 0;
    for (SizeT i = 0; i < words * 8; i++) {
        ULong c = i < len ? (UChar)path[i] : 0;
        word |= c << (8 * (i % 8));
        if (i % 8 == 7) {
            put(word);
            word = 0;
        }
    }
}

static void put_kernel_access(enum raw_control kind, Addr addr, SizeT size)
{
    if (size == 0)
        return;
    reserve(2);
    put_control(kind, addr);
    put(size);
}

/* ---- helpers called from instrumented code ---- */

static VG_REGPARM(3) void on_access(ULong op, Addr addr, ULong size)
{
    put_access((enum raw_op)op, addr, size);
}

/* After a locked read-modify-write (VEX makes every lock-prefixed
 * instruction, and xchg with memory, a CAS) that found OLD and left NEW:
 * what orders an uncontended mutex's lock (0 to non-zero) after the
 * previous unlock (non-zero to 0). Counters that never pass 0 say nothing;
 * they are left out here. */
static VG_REGPARM(3) void on_atomic(Addr addr, ULong old, ULong new)
{
    ULong transition = (old == 0 ? SYNC_ATOMIC_FOUND_ZERO : 0) |
                       (new == 0 ? SYNC_ATOMIC_LEFT_ZERO : 0);
    if (transition == SYNC_ATOMIC_FOUND_ZERO || transition == SYNC_ATOMIC_LEFT_ZERO)
        put_sync(SYNC_ATOMIC, addr, transition);
}

/* Words on_atomic appends: the cost and the sync word with its two. */
#define ATOMIC_HELPER_WORDS 4

/* ---- instrumentation ---- */

/* Words on_access appends for an access of SIZE bytes. */
static UInt helper_access_words(SizeT size)
{
    return (UInt)((size + RAW_MAX_ACCESS - 1) / RAW_MAX_ACCESS);
}

/* Words a flow record takes (add_flow): the cost, the call, return or
 * jump with its stack pointer, and the return address's access. */
#define FLOW_WORDS 4

/* Words IN may append: inline ones, and those of the helpers between
 * them, with END_WORDS for its end. One check at the start of the
 * superblock must cover both: a helper that fills the segment without
 * flushing it would otherwise leave the inline words after it to run past
 * its end. */
static UInt superblock_words(const IRSB *in, UInt end_words)
{
    UInt words = end_words;
    for (Int i = 0; i < in->stmts_used; i++) {
        const IRStmt *st = in->stmts[i];
        switch (st->tag) {
        case Ist_WrTmp:
            words += st->Ist.WrTmp.data->tag == Iex_Load;
            break;
        case Ist_Store:
        case Ist_LLSC:
            words += 1;
            break;
        case Ist_CAS:
            words += 2 + ATOMIC_HELPER_WORDS;
            break;
        case Ist_StoreG:
        case Ist_LoadG:
            words += 1;  /* at most 32 bytes */
            break;
        case Ist_Dirty: {
            const IRDirty *d = st->Ist.Dirty.details;
            if (d->mFx != Ifx_None)
                words += helper_access_words((SizeT)d->mSize) * (d->mFx == Ifx_Modify ? 2 : 1);
            break;
        }
        case Ist_Exit:
            words += FLOW_WORDS;
            break;
        default:
            break;
        }
    }
    return words;
}

/* Builds the instrumented superblock. The buffer pointer is loaded into a
 * temporary once and accesses are stored at fixed offsets from it; the
 * pointer in memory is updated ("committed") at each instruction boundary,
 * so that a faulting instruction loses nothing before it, and before every
 * exit and helper call. */
struct builder {
    IRSB *out;
    IRTemp base;        /* buffer pointer at the last reload */
    UInt words;         /* appended since the reload */
    UInt committed;     /* of which committed */
    UInt instructions;  /* instructions not yet added to the counter */
    Int sp_offset;
    IRExpr *return_address;  /* a ret's load of it, for its flow record; or NULL */
};

static IRTemp assign(struct builder *b, IRType type, IRExpr *e)
{
    IRTemp t = newIRTemp(b->out->tyenv, type);
    addStmtToIRSB(b->out, IRStmt_WrTmp(t, e));
    return t;
}

static IRExpr *word_address(void *p)
{
    return mkIRExpr_HWord((HWord)p);
}

static void reload_base(struct builder *b)
{
    b->base = assign(b, Ity_I64, IRExpr_Load(Iend_LE, Ity_I64, word_address(&buffer_next)));
    b->words = b->committed = 0;
}

static IRExpr *base_plus(struct builder *b, UInt words)
{
    if (words == 0)
        return IRExpr_RdTmp(b->base);
    return IRExpr_RdTmp(assign(b, Ity_I64, IRExpr_Binop(Iop_Add64, IRExpr_RdTmp(b->base),
                                                        mkIRExpr_HWord(8 * (HWord)words))));
}

static void commit(struct builder *b)
{
    if (b->words == b->committed)
        return;
    addStmtToIRSB(b->out, IRStmt_Store(Iend_LE, word_address(&buffer_next),
                                       base_plus(b, b->words)));
    b->committed = b->words;
}

static void count_instructions(struct builder *b)
{
    if (b->instructions == 0)
        return;
    IRTemp old = assign(b, Ity_I64, IRExpr_Load(Iend_LE, Ity_I64, word_address(&instructions)));
    IRTemp sum = assign(b, Ity_I64, IRExpr_Binop(Iop_Add64, IRExpr_RdTmp(old),
                                                 mkIRExpr_HWord(b->instructions)));
    addStmtToIRSB(b->out, IRStmt_Store(Iend_LE, word_address(&instructions), IRExpr_RdTmp(sum)));
    b->instructions = 0;
}

static IRExpr *as_atom(struct builder *b, IRExpr *e)
{
    return isIRAtom(e) ? e : IRExpr_RdTmp(assign(b, Ity_I64, e));
}

/* LOW << RAW_LOW_SHIFT | BITS: the layout of every word with an operand. */
static IRExpr *word_with(struct builder *b, IRExpr *low, ULong bits)
{
    IRTemp shifted = assign(b, Ity_I64, IRExpr_Binop(Iop_Shl64, as_atom(b, low),
                                                     IRExpr_Const(IRConst_U8(RAW_LOW_SHIFT))));
    return IRExpr_RdTmp(assign(b, Ity_I64, IRExpr_Binop(Iop_Or64, IRExpr_RdTmp(shifted),
                                                        mkIRExpr_HWord(bits))));
}

/* Appends an access of at most RAW_MAX_ACCESS bytes, inline. */
static void add_access(struct builder *b, enum raw_op op, IRExpr *addr, Int size)
{
    IRExpr *word = word_with(b, addr, raw_access_word(op, (ULong)size, 0));
    addStmtToIRSB(b->out, IRStmt_Store(Iend_LE, base_plus(b, b->words), word));
    b->words++;
}

/* Calls a helper (under GUARD unless NULL); helpers move the buffer, so the
 * pointer is committed before and reloaded after. */
static void add_call(struct builder *b, const HChar *name, void *fn, Int regparms,
                     IRExpr **args, IRExpr *guard)
{
    commit(b);
    IRDirty *d = unsafeIRDirty_0_N(regparms, name, VG_(fnptr_to_fnentry)(fn), args);
    if (guard)
        d->guard = guard;
    addStmtToIRSB(b->out, IRStmt_Dirty(d));
    reload_base(b);
}

static void add_helper_access(struct builder *b, enum raw_op op, IRExpr *addr, Int size,
                              IRExpr *guard)
{
    add_call(b, "on_access", on_access, 3,
             mkIRExprVec_3(mkIRExpr_HWord(op), as_atom(b, addr), mkIRExpr_HWord((HWord)size)),
             guard);
}

/* A value of TYPE (an integer) as 64 bits. */
static IRExpr *widened(struct builder *b, IRType type, IRExpr *e)
{
    IROp op = type == Ity_I8 ? Iop_8Uto64 : type == Ity_I16 ? Iop_16Uto64
            : type == Ity_I32 ? Iop_32Uto64 : Iop_INVALID;
    return op == Iop_INVALID ? e : IRExpr_RdTmp(assign(b, Ity_I64, IRExpr_Unop(op, e)));
}

/* on_atomic after CAS (its low half): the value it found, and the value it
 * left (the new one if it found the expected one, else the old). */
static void add_atomic(struct builder *b, IRTypeEnv *tyenv, IRCAS *cas, IRExpr *addr)
{
    IRType type = typeOfIRTemp(tyenv, cas->oldLo);
    if (type != Ity_I8 && type != Ity_I16 && type != Ity_I32 && type != Ity_I64)
        return;
    IRExpr *old = widened(b, type, IRExpr_RdTmp(cas->oldLo));
    IRExpr *expected = widened(b, type, as_atom(b, cas->expdLo));
    IRExpr *data = widened(b, type, as_atom(b, cas->dataLo));
    IRTemp found = assign(b, Ity_I1, IRExpr_Binop(Iop_CmpEQ64, old, expected));
    IRTemp left = assign(b, Ity_I64, IRExpr_ITE(IRExpr_RdTmp(found), data, old));
    add_call(b, "on_atomic", on_atomic, 3, mkIRExprVec_3(addr, old, IRExpr_RdTmp(left)), NULL);
}

static IRExpr *stack_pointer(struct builder *b)
{
    return IRExpr_RdTmp(assign(b, Ity_I64, IRExpr_Get(b->sp_offset, Ity_I64)));
}

/* A call, return or jump of KIND to TARGET, inline (a helper call per
 * flow record cost a tenth of the tool's time on call-heavy programs):
 * the cost since the last report, the record with the stack pointer, and
 * ACCESS (an access word, the return address's) unless NULL. Under GUARD,
 * an exit's, the words are written but count only when it is taken (they
 * are then the superblock's last). The instructions so far are already
 * counted (count_instructions). A cost of 0 may go out: the recorder
 * drops it. */
static void add_flow(struct builder *b, enum raw_control kind, IRExpr *target, IRExpr *access,
                     IRExpr *guard)
{
    IRTemp now = assign(b, Ity_I64, IRExpr_Load(Iend_LE, Ity_I64, word_address(&instructions)));
    IRTemp reported = assign(b, Ity_I64, IRExpr_Load(Iend_LE, Ity_I64,
                                                     word_address(&instructions_reported)));
    IRTemp cost = assign(b, Ity_I64, IRExpr_Binop(Iop_Sub64, IRExpr_RdTmp(now),
                                                  IRExpr_RdTmp(reported)));
    IRExpr *words[FLOW_WORDS] = {
        word_with(b, IRExpr_RdTmp(cost), raw_control_word(RAW_COST, 0)),
        word_with(b, target, raw_control_word(kind, 0)),
        stack_pointer(b),
        access,
    };
    UInt n = access ? 4 : 3;
    for (UInt k = 0; k < n; k++)
        addStmtToIRSB(b->out, IRStmt_Store(Iend_LE, base_plus(b, b->words + k), words[k]));
    if (!guard) {
        addStmtToIRSB(b->out, IRStmt_Store(Iend_LE, word_address(&instructions_reported),
                                           IRExpr_RdTmp(now)));
        b->words += n;
        commit(b);
        return;
    }
    addStmtToIRSB(b->out, IRStmt_StoreG(Iend_LE, word_address(&instructions_reported),
                                        IRExpr_RdTmp(now), guard));
    addStmtToIRSB(b->out, IRStmt_StoreG(Iend_LE, word_address(&buffer_next),
                                        base_plus(b, b->words + n), guard));
}

/* A direct jump to TARGET may be a tail call when TARGET is the entry of
 * another function; one from a PLT stub leaves the stub. */
static Bool jump_is_interesting(Addr from, Addr target, Bool from_plt)
{
    DiEpoch ep = VG_(current_DiEpoch)();
    const HChar *to_name, *from_name;
    if (from_plt)
        return True;
    if (!VG_(get_fnname_if_entry)(ep, target, &to_name))
        return False;
    /* A C++ name is demangled into the demangler's one buffer, which the
     * next lookup reuses: keep a copy, or every jump between two C++
     * functions would look like a loop. */
    HChar *to = VG_(strdup)("trms.jump", to_name);
    Bool loop = VG_(get_fnname)(ep, from, &from_name) && VG_(strcmp)(from_name, to) == 0;
    VG_(free)(to);
    return !loop;  /* a loop back to its own entry is not interesting */
}

/* The index of the store that pushes a call's return address (to where
 * the stack pointer ends up), or -1. */
static Int return_address_store(const IRSB *in, Int sp_offset)
{
    if (in->jumpkind != Ijk_Call)
        return -1;
    IRTemp new_sp = IRTemp_INVALID;
    for (Int i = in->stmts_used - 1; i >= 0 && new_sp == IRTemp_INVALID; i--) {
        const IRStmt *st = in->stmts[i];
        if (st->tag == Ist_Put && st->Ist.Put.offset == sp_offset &&
            st->Ist.Put.data->tag == Iex_RdTmp)
            new_sp = st->Ist.Put.data->Iex.RdTmp.tmp;
    }
    for (Int i = in->stmts_used - 1; i >= 0 && new_sp != IRTemp_INVALID; i--) {
        const IRStmt *st = in->stmts[i];
        if (st->tag == Ist_Store && st->Ist.Store.addr->tag == Iex_RdTmp &&
            st->Ist.Store.addr->Iex.RdTmp.tmp == new_sp)
            return i;
    }
    return -1;
}

static Bool accesses_memory(const IRStmt *st)
{
    switch (st->tag) {
    case Ist_WrTmp:
        return st->Ist.WrTmp.data->tag == Iex_Load;
    case Ist_Store:
    case Ist_StoreG:
    case Ist_LoadG:
    case Ist_CAS:
    case Ist_LLSC:
        return True;
    case Ist_Dirty:
        return st->Ist.Dirty.details->mFx != Ifx_None;
    default:
        return False;
    }
}

/* The index of the load of a `ret`'s return address (the address the
 * superblock leaves for), when it is the superblock's last access, or -1. */
static Int return_address_load(const IRSB *in)
{
    if (in->jumpkind != Ijk_Ret || in->next->tag != Iex_RdTmp)
        return -1;
    IRTemp target = in->next->Iex.RdTmp.tmp;
    for (Int i = in->stmts_used - 1; i >= 0; i--) {
        const IRStmt *st = in->stmts[i];
        if (st->tag == Ist_WrTmp && st->Ist.WrTmp.tmp == target)
            return st->Ist.WrTmp.data->tag == Iex_Load &&
                           st->Ist.WrTmp.data->Iex.Load.ty == Ity_I64 ? i : -1;
        if (accesses_memory(st))
            return -1;
    }
    return -1;
}

static void instrument_statement(struct builder *b, IRSB *in, IRStmt *st, Addr sb_addr,
                                 Bool in_plt)
{
    IRTypeEnv *tyenv = in->tyenv;
    switch (st->tag) {
    case Ist_IMark:
        commit(b);
        b->instructions++;
        break;
    case Ist_WrTmp:
        if (st->Ist.WrTmp.data->tag == Iex_Load) {
            IRExpr *load = st->Ist.WrTmp.data;
            add_access(b, RAW_READ, load->Iex.Load.addr, sizeofIRType(load->Iex.Load.ty));
        }
        break;
    case Ist_Store:
        add_access(b, RAW_WRITE, st->Ist.Store.addr,
                   sizeofIRType(typeOfIRExpr(tyenv, st->Ist.Store.data)));
        break;
    case Ist_StoreG: {
        IRStoreG *sg = st->Ist.StoreG.details;
        add_helper_access(b, RAW_WRITE, sg->addr, sizeofIRType(typeOfIRExpr(tyenv, sg->data)),
                          sg->guard);
        break;
    }
    case Ist_LoadG: {
        IRLoadG *lg = st->Ist.LoadG.details;
        IRType wide, narrow;
        typeOfIRLoadGOp(lg->cvt, &wide, &narrow);
        add_helper_access(b, RAW_READ, lg->addr, sizeofIRType(narrow), lg->guard);
        break;
    }
    case Ist_CAS: {
        IRCAS *cas = st->Ist.CAS.details;
        Int size = sizeofIRType(typeOfIRExpr(tyenv, cas->dataLo)) * (cas->dataHi ? 2 : 1);
        IRExpr *addr = as_atom(b, cas->addr);
        add_access(b, RAW_READ, addr, size);
        add_access(b, RAW_WRITE, addr, size);
        /* The helper looks at what the CAS found, so it comes after it. */
        addStmtToIRSB(b->out, st);
        add_atomic(b, tyenv, cas, addr);
        return;
    }
    case Ist_LLSC:
        if (st->Ist.LLSC.storedata)
            add_access(b, RAW_WRITE, st->Ist.LLSC.addr,
                       sizeofIRType(typeOfIRExpr(tyenv, st->Ist.LLSC.storedata)));
        else
            add_access(b, RAW_READ, st->Ist.LLSC.addr,
                       sizeofIRType(typeOfIRTemp(tyenv, st->Ist.LLSC.result)));
        break;
    case Ist_Dirty: {
        IRDirty *d = st->Ist.Dirty.details;
        if (d->mFx == Ifx_Read || d->mFx == Ifx_Modify)
            add_helper_access(b, RAW_READ, d->mAddr, d->mSize, d->guard);
        if (d->mFx == Ifx_Write || d->mFx == Ifx_Modify)
            add_helper_access(b, RAW_WRITE, d->mAddr, d->mSize, d->guard);
        break;
    }
    case Ist_Exit:
        commit(b);
        count_instructions(b);
        if (st->Ist.Exit.jk == Ijk_Boring && st->Ist.Exit.dst->tag == Ico_U64 &&
            jump_is_interesting(sb_addr, (Addr)st->Ist.Exit.dst->Ico.U64, in_plt))
            add_flow(b, RAW_JUMP, mkIRExpr_HWord((HWord)st->Ist.Exit.dst->Ico.U64), NULL,
                     st->Ist.Exit.guard);
        break;
    default:
        break;
    }
    addStmtToIRSB(b->out, st);
}

/* The flow record IN's end makes (RAW_CALL, RAW_RET, RAW_JUMP), or 0. */
static enum raw_control end_flow(const IRSB *in, Addr sb_addr, Bool in_plt)
{
    switch (in->jumpkind) {
    case Ijk_Call:
        return RAW_CALL;
    case Ijk_Ret:
        return RAW_RET;
    case Ijk_Boring:
        return in->next->tag != Iex_Const ||
                       jump_is_interesting(sb_addr, (Addr)in->next->Iex.Const.con->Ico.U64,
                                           in_plt)
                   ? RAW_JUMP
                   : 0;
    default:
        return 0;
    }
}

/* The return address's access that goes with a call's record (the write
 * that pushed it, reported after the call: the callee's own state, so
 * that its `ret` reading it back is not input) or a return's (the ret's
 * read of it, reported after the return: the caller's, which pushed it,
 * so that no routine reads its return address as input however it was
 * reached, a call, a PLT stub or a tail call). NULL for a jump, and for a
 * return whose read was reported inline. */
static IRExpr *flow_access(struct builder *b, enum raw_control flow)
{
    if (flow == RAW_CALL)
        return word_with(b, stack_pointer(b), raw_access_word(RAW_WRITE, sizeof(Addr), 0));
    if (flow == RAW_RET && b->return_address)
        return word_with(b, b->return_address, raw_access_word(RAW_READ, sizeof(Addr), 0));
    return NULL;
}

static void instrument_end(struct builder *b, IRSB *in, enum raw_control flow)
{
    commit(b);
    count_instructions(b);
    if (flow)
        add_flow(b, flow, in->next, flow_access(b, flow), NULL);
}

static IRSB *instrument(VgCallbackClosure *closure, IRSB *in, const VexGuestLayout *layout,
                        const VexGuestExtents *vge, const VexArchInfo *archinfo_host,
                        IRType gWordTy, IRType hWordTy)
{
    (void)vge;
    (void)archinfo_host;
    tl_assert(gWordTy == Ity_I64 && hWordTy == Ity_I64);
    struct builder b = {.out = deepCopyIRSBExceptStmts(in), .sp_offset = layout->offset_SP};
    Addr sb_addr = closure->readdr;
    Bool in_plt = VG_(DebugInfo_sect_kind)(NULL, sb_addr) == Vg_SectPLT;

    Int i = 0;
    for (; i < in->stmts_used && in->stmts[i]->tag != Ist_IMark; i++)
        addStmtToIRSB(b.out, in->stmts[i]);

    enum raw_control flow = end_flow(in, sb_addr, in_plt);
    UInt words = superblock_words(in, flow ? FLOW_WORDS : 0);
    if (words > 0) {
        /* Flush first when buffer_end < buffer_next + words. */
        IRTemp next = assign(&b, Ity_I64,
                             IRExpr_Load(Iend_LE, Ity_I64, word_address(&buffer_next)));
        IRTemp end_slot = assign(&b, Ity_I64,
                                 IRExpr_Load(Iend_LE, Ity_I64, word_address((void *)&end_at)));
        IRTemp end = assign(&b, Ity_I64, IRExpr_Load(Iend_LE, Ity_I64, IRExpr_RdTmp(end_slot)));
        IRTemp after = assign(&b, Ity_I64, IRExpr_Binop(Iop_Add64, IRExpr_RdTmp(next),
                                                        mkIRExpr_HWord(8 * (HWord)words)));
        IRTemp full = assign(&b, Ity_I1, IRExpr_Binop(Iop_CmpLT64U, IRExpr_RdTmp(end),
                                                      IRExpr_RdTmp(after)));
        IRDirty *d = unsafeIRDirty_0_N(1, "make_room",
                                       VG_(fnptr_to_fnentry)(make_room_from_code),
                                       mkIRExprVec_1(mkIRExpr_HWord(words)));
        d->guard = IRExpr_RdTmp(full);
        addStmtToIRSB(b.out, IRStmt_Dirty(d));
    }
    reload_base(&b);

    Int pushed_return = return_address_store(in, b.sp_offset);
    Int popped_return = return_address_load(in);
    for (; i < in->stmts_used; i++) {
        if (i == pushed_return) {
            addStmtToIRSB(b.out, in->stmts[i]);  /* the call's flow record reports it */
        } else if (i == popped_return) {
            addStmtToIRSB(b.out, in->stmts[i]);  /* the return's flow record reports it */
            b.return_address = in->stmts[i]->Ist.WrTmp.data->Iex.Load.addr;
        } else if (in->stmts[i]->tag != Ist_NoOp)
            instrument_statement(&b, in, in->stmts[i], sb_addr, in_plt);
    }
    instrument_end(&b, in, flow);
    return b.out;
}

/* ---- events from the core ---- */

static void lock_taken(void);

static void start_client_code(ThreadId tid, ULong blocks)
{
    (void)blocks;
    lock_taken();
    switch_to(tid);
}

static void new_mapping(Addr a, SizeT len, Bool rr, Bool ww, Bool xx, ULong di_handle)
{
    (void)di_handle;
    NSegment const *seg = VG_(am_find_nsegment)(a);
    if (!seg || seg->kind != SkFileC)
        return;
    const HChar *path = VG_(am_get_filename)(seg);
    if (!path)
        return;
    ULong prot = (rr ? 1 : 0) | (ww ? 2 : 0) | (xx ? 4 : 0);
    SizeT path_length = VG_(strlen)(path);
    reserve(4 + path_words(path_length));
    put_control(RAW_MAP, a);
    put(len);
    put((ULong)seg->offset + (a - seg->start));
    put(prot | (ULong)path_length << 8);
    put_path(path, path_length);
}

static void removed_mapping(Addr a, SizeT len)
{
    reserve(2);
    put_control(RAW_UNMAP, a);
    put(len);
}

/* ---- synchronization, for the causal model ---- */

#define NR_CLONE 56
#define NR_FUTEX 202
#define NR_CLONE3 435
#define CLONE_THREAD_FLAG 0x10000ULL
#define CLONE_CHILD_CLEARTID_FLAG 0x200000ULL

/* The futex operations that wait, and those that wake on their first
 * address (requeues and WAKE_OP wake there too). */
static Bool futex_waits(UWord op)
{
    UWord cmd = op & 0x7f;  /* without FUTEX_PRIVATE_FLAG, FUTEX_CLOCK_REALTIME */
    return cmd == 0 || cmd == 9;  /* WAIT, WAIT_BITSET */
}

static Bool futex_wakes(UWord op)
{
    UWord cmd = op & 0x7f;
    return cmd == 1 || cmd == 3 || cmd == 4 || cmd == 5 || cmd == 10;
}

/* Whether system call NR is one of the N of LIST. */
static Bool syscall_listed(const UShort *list, UInt n, UInt nr)
{
    for (UInt i = 0; i < n; i++)
        if (list[i] == nr)
            return True;
    return False;
}

/* The system calls that may block on something outside the process's
 * threads (x86-64 numbers): their wall time is a fixed delay to the model. */
static Bool may_block(UInt nr)
{
    static const UShort blocking[] = {0,  1,  7,  17, 18, 19,  20,  23,  35,  42,  43, 44,
                                      45, 46, 47, 61, 230, 232, 270, 271, 281, 288};
    return syscall_listed(blocking, sizeof blocking / sizeof *blocking, nr);
}

/* Valgrind runs one thread at a time: a thread back from a system call
 * waits for the others to yield before its post_syscall. Its wall time
 * would count their work as blocking; what counts is the wall time in
 * which no thread ran (idle_ns), measured from a system call's start (the
 * lock given up) to the next thread taking the lock. */
static ULong idle_ns;
static ULong lock_released_at;         /* wall ns; 0 while a thread holds it */
static ULong idle_at_syscall[MAX_THREADS];

static ULong clock_ns(void)
{
    struct vki_timespec ts;
    VG_(clock_gettime)(&ts, VKI_CLOCK_MONOTONIC);
    return (ULong)ts.tv_sec * 1000000000ULL + (ULong)ts.tv_nsec;
}

static ULong read_tsc(void)
{
    UInt lo, hi;
    __asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
    return (ULong)hi << 32 | lo;
}

/* The monotonic clock in ns, from the TSC between real readings
 * (recorder/tsc_clock.h says why and how). */
static struct tsc_clock clock_state;

static ULong now_ns(void)
{
    uint64_t tsc = read_tsc(), ns;
    if (tsc_clock_estimate(&clock_state, tsc, &ns))
        return ns;
    return tsc_clock_real(&clock_state, tsc, clock_ns());
}

static void lock_taken(void)
{
    if (lock_released_at) {
        idle_ns += now_ns() - lock_released_at;
        lock_released_at = 0;
    }
}

static void sync_before_syscall(ThreadId tid, UInt nr, const UWord *args)
{
    if (nr == NR_FUTEX && futex_waits(args[1])) {
        switch_to(tid);
        put_sync(SYNC_FUTEX_WAIT, args[0], 0);
    }
    if (may_block(nr) || nr == NR_FUTEX) {
        idle_at_syscall[tid] = idle_ns;
        lock_released_at = now_ns();
    }
}

/* A thread created: its id, and the address its exit clears and wakes
 * (pthread_join waits there). */
static void sync_clone(UInt nr, const UWord *args, Long child)
{
    ULong flags = 0, clear_tid = 0;
    if (nr == NR_CLONE) {
        flags = args[0];
        clear_tid = args[3];
    } else {
        const ULong *cl = (const ULong *)args[0];
        if (!VG_(am_is_valid_for_client)((Addr)cl, 24, VKI_PROT_READ))
            return;
        flags = cl[0];
        clear_tid = cl[2];
    }
    if (flags & CLONE_THREAD_FLAG)
        put_sync(SYNC_CREATE, flags & CLONE_CHILD_CLEARTID_FLAG ? clear_tid : 0, (ULong)child);
}

static void sync_after_syscall(ThreadId tid, UInt nr, const UWord *args, Bool failed,
                               Long result)
{
    if (nr == NR_FUTEX && futex_waits(args[1]))
        put_sync(SYNC_FUTEX_RESUME, args[0], failed ? (ULong)-result : 0);
    else if (nr == NR_FUTEX && futex_wakes(args[1]) && !failed && result > 0)
        put_sync(SYNC_FUTEX_WAKE, args[0], (ULong)result);
    else if ((nr == NR_CLONE || nr == NR_CLONE3) && !failed && result > 0)
        sync_clone(nr, args, result);
    else if (may_block(nr))
        put_sync(SYNC_BLOCKING, nr, idle_ns - idle_at_syscall[tid]);
}

/* The kernel's PATH_MAX, NUL included: an exec of a longer path fails
 * (ENAMETOOLONG) before anything else. */
#define EXEC_PATH_MAX 4096

/* The length of the client's string at P, when it is readable and shorter
 * than LIMIT; -1 otherwise (its bytes are checked a page at a time). */
static Long client_strnlen(Addr p, SizeT limit)
{
    for (SizeT i = 0; i < limit; i++) {
        if ((i == 0 || ((p + i) & (VKI_PAGE_SIZE - 1)) == 0) &&
            !VG_(am_is_valid_for_client)(p + i, 1, VKI_PROT_READ))
            return -1;
        if (((const HChar *)p)[i] == '\0')
            return (Long)i;
    }
    return -1;
}

/* channel_of's answers by descriptor, so that a loop of reads and writes
 * costs no fstat each (a system call: dd bs=512 spent a sixth of its run
 * in them). An answer holds while fd_generation stays: every system call
 * but those that cannot close or replace a descriptor moves it
 * (fd_keeping_syscall), before the call runs and in any thread. A new
 * descriptor takes a number that was free, so it never meets an answer
 * about an open one. */
#define CHANNEL_CACHE_FDS 1024
static UInt channel_cache[CHANNEL_CACHE_FDS];     /* inode, or 0 */
static ULong channel_cache_generation[CHANNEL_CACHE_FDS];
static ULong fd_generation = 1;                   /* 0: never cached */

/* Whether system call NR (x86-64) leaves every descriptor as it was:
 * reads, writes and seeks, waits, clocks, memory, signal masks, stats.
 * Any other, unknown ones too, forgets every answer. */
static Bool fd_keeping_syscall(UInt nr)
{
    static const UShort keeping[] = {
        0,   1,   2 /* open: a free number */, 4,   5,   6,   7,   8,   9,   10,  11,  12,
        13,  14,  15,  17,  18,  19,  20,  23,  24,  25,  26,  27,  28,
        34,  35,  39,  44,  45,  46,  96,  186, 201, 202, 228, 230, 232, 257 /* openat */,
        262, 270, 271, 281, 295, 296, 318, 332};
    return syscall_listed(keeping, sizeof keeping / sizeof *keeping, nr);
}

/* Before every system call the mark says how far the stream goes: a
 * program that hangs in one and is killed (Valgrind with it, no chance to
 * finish), or that execs, still leaves everything up to that call. */
static void pre_syscall(ThreadId tid, UInt nr, UWord *args, UInt n_args)
{
    (void)n_args;
    n_pending_effects[tid] = 0;
    report_cost();
    if (!fd_keeping_syscall(nr))
        fd_generation++;
    if (nr == NR_EXIT_GROUP)  /* exit ends one thread (pthread_exit) */
        exit_status = args[0] & 0xff;
    sync_before_syscall(tid, nr, args);
    /* Say where the program goes: the next image (Valgrind follows the
     * exec) links to this one, or the recorder names it as not followed. */
    const HChar *exec_path = nr == NR_EXECVE ? (const HChar *)args[0]
                             : nr == NR_EXECVEAT ? (const HChar *)args[1] : NULL;
    /* A path the kernel refuses (too long, unreadable) goes nowhere; one
     * of megabytes would not fit a ring segment. */
    Long path_length = exec_path ? client_strnlen((Addr)exec_path, EXEC_PATH_MAX) : -1;
    if (path_length >= 0) {
        reserve(1 + path_words((SizeT)path_length));
        put_control(RAW_EXEC, (ULong)path_length);
        put_path(exec_path, (SizeT)path_length);
        /* Valgrind cannot run a setuid program: it runs natively, and the
         * recorder names it as left out (its image never asks for a ring). */
        struct vg_stat st;
        if (VG_(clo_trace_children) && !sr_isError(VG_(stat)(exec_path, &st)) &&
            (st.mode & (VKI_S_ISUID | VKI_S_ISGID))) {
            VG_(clo_trace_children) = False;
            untraced_exec = True;
        }
        if (VG_(clo_trace_children))
            keep_log_across_exec();
    }
    if (mark && recording) {
        mark->segments_done = segments_done;
        mark->bytes = (ULong)((char *)buffer_next - (char *)buffer);
    }
}

static void note_effect(ThreadId tid, enum raw_control kind, Addr a, SizeT size)
{
    if (n_pending_effects[tid] == MAX_PENDING_EFFECTS) {
        unrecorded_effects++;
        return;
    }
    pending_effects[tid][n_pending_effects[tid]++] = (struct pending_effect){kind, a, size};
}

static void core_reads(CorePart part, ThreadId tid, const HChar *what, Addr a, SizeT size)
{
    (void)what;
    if (part == Vg_CoreSysCall)
        note_effect(tid, RAW_KREAD, a, size);
}

/* The string may be a bad pointer before the call; its length is taken
 * after a successful call (size 0 marks it until then). */
static void core_reads_string(CorePart part, ThreadId tid, const HChar *what, Addr a)
{
    (void)what;
    if (part == Vg_CoreSysCall)
        note_effect(tid, RAW_KREAD, a, 0);
}

static void core_writes(CorePart part, ThreadId tid, Addr a, SizeT size)
{
    if (part == Vg_CoreSysCall) {
        note_effect(tid, RAW_KWRITE, a, size);
    } else if (part == Vg_CoreSignal) {
        /* The kernel builds the signal frame on the thread's stack. */
        switch_to(tid);
        put_kernel_access(RAW_KWRITE, a, size);
    }
}

static int read_guest(void *ctx, uint64_t addr, void *buf, uint64_t size)
{
    (void)ctx;
    if (!VG_(am_is_valid_for_client)((Addr)addr, (SizeT)size, VKI_PROT_READ))
        return -1;
    VG_(memcpy)(buf, (const void *)(Addr)addr, (SizeT)size);
    return 0;
}

static void emit_effect(void *ctx, enum syscall_access kind, uint64_t addr, uint64_t size)
{
    (void)ctx;
    put_kernel_access(kind == SYSCALL_KREAD ? RAW_KREAD : RAW_KWRITE, addr, size);
}

/* ---- data passed between processes ----
 *
 * A read's bytes that came through a pipe, FIFO or socket are still the
 * kernel's writes, but the report can name the recorded process that
 * wrote them: the tool says which channel (its inode) before the read's
 * kernel writes (RAW_KSOURCE), and which channels the program wrote to
 * (RAW_CHANNEL_WRITE, once each). Pipe and socket inodes come from one
 * 32-bit counter of the kernel, so the inode names the channel. */
#define MAX_WRITTEN_CHANNELS 64

static UInt written_channels[MAX_WRITTEN_CHANNELS];
static UInt n_written_channels;

/* FD's inode when it is a pipe, FIFO or socket; 0 otherwise. */
static UInt channel_of(UWord fd)
{
    Bool cacheable = fd < CHANNEL_CACHE_FDS;
    if (cacheable && channel_cache_generation[fd] == fd_generation)
        return channel_cache[fd];
    struct vg_stat st;
    UInt channel = 0;
    if (VG_(fstat)((Int)fd, &st) == 0) {
        UInt type = st.mode & VKI_S_IFMT;
        if (type == VKI_S_IFIFO || type == VKI_S_IFSOCK)
            channel = (UInt)st.ino;
    } else {
        cacheable = False; /* not open: the next call may open it */
    }
    if (cacheable) {
        channel_cache[fd] = channel;
        channel_cache_generation[fd] = fd_generation;
    }
    return channel;
}

static void note_channel_write(UWord fd)
{
    UInt channel = channel_of(fd);
    if (channel == 0)
        return;
    for (UInt i = 0; i < n_written_channels; i++)
        if (written_channels[i] == channel)
            return;
    /* Beyond the table each write says so again: the recorder keeps a set. */
    if (n_written_channels < MAX_WRITTEN_CHANNELS)
        written_channels[n_written_channels++] = channel;
    reserve(1);
    put_control(RAW_CHANNEL_WRITE, channel);
}

static void note_channel_read(UWord fd)
{
    UInt channel = channel_of(fd);
    if (channel == 0)
        return;
    reserve(1);
    put_control(RAW_KSOURCE, channel);
}

static void post_syscall(ThreadId tid, UInt nr, UWord *args, UInt n_args, SysRes res)
{
    uint64_t a[6] = {0};
    for (UInt i = 0; i < n_args && i < 6; i++)
        a[i] = args[i];
    Bool failed = sr_isError(res);
    int64_t result = failed ? -(int64_t)sr_Err(res) : (int64_t)sr_Res(res);

    switch_to(tid);
    if (nr == NR_EXECVE || nr == NR_EXECVEAT) {  /* only a failed exec returns */
        reserve(1);
        put_control(RAW_EXEC_FAILED, 0);
        if (untraced_exec)
            VG_(clo_trace_children) = True;
        untraced_exec = False;
    }
    if (result > 0 && (nr == NR_READ || nr == NR_READV || nr == NR_RECVFROM || nr == NR_RECVMSG))
        note_channel_read(args[0]);
    else if (result > 0 &&
             (nr == NR_WRITE || nr == NR_WRITEV || nr == NR_SENDTO || nr == NR_SENDMSG))
        note_channel_write(args[0]);
    enum syscall_known known = syscall_effects(nr, a, result, read_guest, emit_effect, NULL);
    if (known == SYSCALL_CLIPPED)
        clipped_syscalls++;
    if (known == SYSCALL_UNKNOWN) {
        reserve(1);
        put_control(RAW_UNMODELED_SYSCALL, nr);
        for (UInt i = 0; !failed && i < n_pending_effects[tid]; i++) {
            struct pending_effect *e = &pending_effects[tid][i];
            SizeT size = e->size ? e->size : VG_(strlen)((const HChar *)e->addr) + 1;
            put_kernel_access(e->kind, e->addr, size);
        }
    }
    n_pending_effects[tid] = 0;

    lock_taken();
    sync_after_syscall(tid, nr, args, failed, result);

    /* Signal handlers are entered without a call; remember them so that a
     * delivery can be reported as an activation of its handler. */
    if (nr == NR_RT_SIGACTION && !failed && a[1] != 0 && a[0] <= MAX_SIGNAL)
        signal_handler[a[0]] = *(const Addr *)(Addr)a[1];
}

static void pre_deliver_signal(ThreadId tid, Int sig, Bool alt_stack)
{
    (void)alt_stack;
    switch_to(tid);
    report_cost();
    Addr handler = sig >= 0 && sig <= MAX_SIGNAL ? signal_handler[sig] : 0;
    reserve(3);
    put_control(RAW_SIGNAL, handler);
    put((ULong)sig);
    put(VG_(get_SP)(tid));
}

static void post_deliver_signal(ThreadId tid, Int sig)
{
    switch_to(tid);
    report_cost();
    reserve(1);
    put_control(RAW_SIGRETURN, (ULong)sig);
}

static void thread_exit(ThreadId tid)
{
    switch_to(tid);
    put_sync(SYNC_EXIT, 0, 0);
    reserve(1);
    put_control(RAW_THREAD_EXIT, (ULong)lwp_of_tid[tid]);
    lwp_of_tid[tid] = 0;
}

/* ---- one ring per process (process_socket.h) ---- */

static const HChar *socket_option;    /* --trms-socket */
static const HChar *log_option;       /* --trms-log: Valgrind's --log-file, "%p" in it */

/* The ring `trms record` handed over: mapped outside the client's reach,
 * its pipes moved out of it. */
static void adopt_ring(Int memfd, Int notify, Int free_pipe)
{
    SysRes mapped = VG_(am_shared_mmap_file_float_valgrind)(
        (SizeT)RAW_RING_BYTES, VKI_PROT_READ | VKI_PROT_WRITE, memfd, 0);
    VG_(close)(memfd);
    notify_fd = notify;
    free_fd = free_pipe;
    if (sr_isError(mapped) || notify_fd < 0 || free_fd < 0) {
        VG_(fmsg)("trms: cannot set up the ring to `trms record`\n");
        VG_(exit)(1);
    }
    ring = (ULong *)sr_Res(mapped);
    mark = (struct raw_ring_mark *)((char *)ring + RAW_RING_MARK_OFFSET);
    segment = 0;
    segments_done = 0;
    free_segments = RAW_RING_SEGMENTS - 1;
    recording = True;
    end_at = (ULong *volatile *)&mark->end;
    buffer = buffer_next = ring;
    buffer_end = ring + RAW_SEGMENT_WORDS;
    put(RAW_MAGIC);
    /* This ring's requests are numbered afresh (a forked child saw its
     * parent's). */
    window_request_seen = 0;
    answer_window_request();  /* one made before the tool was there */
}

static Bool write_all(Int fd, const void *p, SizeT n)
{
    const HChar *c = p;
    while (n > 0) {
        Int w = VG_(write)(fd, c, (Int)n);
        if (w <= 0)
            return False;
        c += w;
        n -= (SizeT)w;
    }
    return True;
}

/* The command line, each argument NUL-ended, cut at RAW_HELLO_MAX_COMMAND. */
static SizeT command_line(HChar *out)
{
    SizeT used = 0;
    Word n = VG_(args_for_client) ? VG_(sizeXA)(VG_(args_for_client)) : 0;
    for (Word i = -1; i < n; i++) {
        const HChar *arg = i < 0 ? VG_(args_the_exename)
                                 : *(HChar **)VG_(indexXA)(VG_(args_for_client), i);
        if (!arg)
            arg = "?";
        SizeT len = VG_(strlen)(arg) + 1;
        if (used + len > RAW_HELLO_MAX_COMMAND)
            break;
        VG_(memcpy)(out + used, arg, len);
        used += len;
    }
    return used;
}

/* Asks for a ring (KIND); True with the connection in *CONN and the
 * ring's descriptors in FDS. False: run unrecorded (the recorder said so,
 * or cannot be reached: said once). With MOVE, the connection and the
 * pipes are moved out of the client's reach, into the few descriptors
 * Valgrind keeps for itself; without, they stay where the kernel put them,
 * for a fork's child to move once it has closed its parent's pipes (no
 * client code runs in between): a forked child holds Valgrind's
 * descriptors and its parent's log as well, and three more of them before
 * the fork overflowed the reserve in a child's own fork (Valgrind's
 * assertion in VG_(safe_fd): `sh -c '( x=$(echo 1) )'`, pyenv's shims). */
static Bool ask_for_ring(enum raw_hello_kind kind, Bool move, Int *conn, Int fds[3])
{
    static HChar command[RAW_HELLO_MAX_COMMAND];
    *conn = -1;
    Int fd = VG_(socket)(VKI_AF_UNIX, VKI_SOCK_STREAM, 0);
    if (fd < 0) {
        VG_(umsg)("trms: cannot reach `trms record` (socket); this process is not recorded\n");
        return False;
    }
    if (move)
        fd = VG_(safe_fd)(fd);
    struct vki_sockaddr_un addr;
    VG_(memset)(&addr, 0, sizeof addr);
    addr.sun_family = VKI_AF_UNIX;
    VG_(strncpy)(addr.sun_path, socket_option, sizeof addr.sun_path - 1);
    SysRes r = VG_(do_syscall)(NR_CONNECT, (UWord)fd, (UWord)&addr, sizeof addr, 0, 0, 0, 0, 0);
    SizeT command_bytes = command_line(command);
    struct raw_hello hello = {.magic = RAW_HELLO_MAGIC, .kind = (uint32_t)kind,
                              .pid = VG_(getpid)(), .ppid = VG_(getppid)(),
                              .command_bytes = (uint32_t)command_bytes};
    if (sr_isError(r) || !write_all(fd, &hello, sizeof hello) ||
        !write_all(fd, command, command_bytes)) {
        VG_(umsg)("trms: cannot reach `trms record` at %s; this process is not recorded\n",
                  socket_option);
        VG_(close)(fd);
        return False;
    }
    UChar answer = RAW_ANSWER_SKIP;
    struct vki_iovec iov = {.iov_base = &answer, .iov_len = 1};
    union {
        struct vki_cmsghdr h;
        HChar space[64];
    } control;
    VG_(memset)(&control, 0, sizeof control);
    struct vki_msghdr msg;
    VG_(memset)(&msg, 0, sizeof msg);
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = &control;
    msg.msg_controllen = sizeof control;
    r = VG_(do_syscall)(NR_RECVMSG, (UWord)fd, (UWord)&msg, 0, 0, 0, 0, 0, 0);
    struct vki_cmsghdr *c = VKI_CMSG_FIRSTHDR(&msg);
    Bool got = !sr_isError(r) && sr_Res(r) == 1 && answer == RAW_ANSWER_RECORD && c &&
               c->cmsg_level == VKI_SOL_SOCKET && c->cmsg_type == VKI_SCM_RIGHTS &&
               c->cmsg_len == VKI_CMSG_ALIGN(sizeof(struct vki_cmsghdr)) + 3 * sizeof(Int);
    if (!got) {
        VG_(close)(fd);
        return False;  /* the recorder counts it */
    }
    const Int *passed = VKI_CMSG_DATA(c);
    fds[0] = passed[0];  /* mapped, then closed: no need to move it */
    fds[1] = move ? VG_(safe_fd)(passed[1]) : passed[1];
    fds[2] = move ? VG_(safe_fd)(passed[2]) : passed[2];
    *conn = fd;
    return True;
}

/* A child's ring, asked for before the fork (process_socket.h). */
static Int child_conn = -1, child_fds[3] = {-1, -1, -1};

static void drop_child_ring(void)
{
    if (child_conn < 0)
        return;
    for (Int i = 0; i < 3; i++)
        VG_(close)(child_fds[i]);
    VG_(close)(child_conn);
    child_conn = -1;
}

static void before_fork(ThreadId tid)
{
    (void)tid;
    if (!socket_option)
        return;
    /* A fork that failed calls neither after-fork hook: its ring's
     * descriptors would stay open in the client's range. */
    drop_child_ring();
    if (!ask_for_ring(RAW_HELLO_FORK, False, &child_conn, child_fds))
        child_conn = -1;
}

static void after_fork_in_parent(ThreadId tid)
{
    (void)tid;
    drop_child_ring();
}

/* The mappings the child inherited, as if just made: its recording needs
 * them to name its code. */
static void replay_mappings(void)
{
    static Addr starts[8192];
    Int n = VG_(am_get_segment_starts)(SkFileC, starts, 8192);
    for (Int i = 0; i < n; i++) {
        NSegment const *seg = VG_(am_find_nsegment)(starts[i]);
        if (seg && seg->kind == SkFileC)
            new_mapping(seg->start, seg->end + 1 - seg->start, seg->hasR, seg->hasW, seg->hasX,
                        0);
    }
    if (n < 0)
        VG_(umsg)("trms: more than 8192 file mappings at fork; the child's recording "
                  "names the code of the first 8192 only\n");
}

/* A forked child leaves the parent's ring (whose pages it shares) and
 * records into its own, from here on. */
static void after_fork_in_child(ThreadId tid)
{
    (void)tid;
    recording = False;
    n_written_channels = 0;  /* the child's recording names its own writes */
    end_at = &own_end;
    buffer = buffer_next = scratch;
    buffer_end = scratch + RAW_SEGMENT_WORDS;
    ring = NULL;
    mark = NULL;
    VG_(close)(notify_fd);
    VG_(close)(free_fd);
    notify_fd = free_fd = -1;
    if (child_conn < 0)
        return;  /* runs unrecorded */
    Int pid = VG_(getpid)();
    Bool told = write_all(child_conn, &pid, sizeof pid);
    VG_(close)(child_conn);
    child_conn = -1;
    if (!told) {
        for (Int i = 0; i < 3; i++)
            VG_(close)(child_fds[i]);
        return;
    }
    /* Its threads are new to this ring: each is named again. */
    for (Int i = 0; i < MAX_THREADS; i++)
        lwp_of_tid[i] = 0;
    current_tid = VG_INVALID_THREADID;
    instructions_reported = instructions;
    /* Out of the client's reach, where the parent's pipes were. */
    child_fds[1] = VG_(safe_fd)(child_fds[1]);
    child_fds[2] = VG_(safe_fd)(child_fds[2]);
    adopt_ring(child_fds[0], child_fds[1], child_fds[2]);
    replay_mappings();
}

/* The Valgrind of the exec'd image opens the pid's log afresh, truncating
 * it: this image's log moves aside first, to PATH.N (the first N free),
 * which `trms record` gives to the N-th image of the pid. An exec that
 * fails leaves this Valgrind writing there, its descriptor unchanged. */
static void keep_log_across_exec(void)
{
    if (!log_option)
        return;
    HChar path[4096], aside[4096 + 16];
    Int n = 0;
    for (const HChar *p = log_option; *p && n < (Int)sizeof path - 16; p++) {
        if (p[0] == '%' && p[1] == 'p') {
            n += VG_(sprintf)(path + n, "%d", VG_(getpid)());
            p++;
        } else {
            path[n++] = *p;
        }
    }
    path[n] = '\0';
    struct vg_stat st;
    if (sr_isError(VG_(stat)(path, &st)))
        return;  /* none yet (Valgrind writes it lazily), or moved already */
    for (Int k = 1; k < 1000; k++) {
        VG_(sprintf)(aside, "%s.%d", path, k);
        if (sr_isError(VG_(stat)(aside, &st))) {
            VG_(rename)(path, aside);
            return;
        }
    }
}

/* ---- set-up ---- */

static Bool process_option(const HChar *arg)
{
    if VG_STR_CLO (arg, "--trms-socket", socket_option) {
    } else if VG_STR_CLO (arg, "--trms-log", log_option) {
    } else
        return False;
    return True;
}

static void print_usage(void)
{
    VG_(printf)("    --trms-socket=PATH   where `trms record` hands out rings (it sets it)\n");
    VG_(printf)("    --trms-log=PATTERN   Valgrind's --log-file, kept across execs (it sets it)\n");
}

static void print_debug_usage(void)
{
}

static void post_clo_init(void)
{
    if (VG_N_THREADS > MAX_THREADS) {
        VG_(fmsg)("trms: at most %d threads (--max-threads)\n", MAX_THREADS);
        VG_(exit)(1);
    }
    if (!socket_option) {
        VG_(fmsg)("trms: this tool is run by `trms record`, which passes --trms-socket\n");
        VG_(exit)(1);
    }
    Int conn, fds[3];
    if (!ask_for_ring(RAW_HELLO_IMAGE, True, &conn, fds)) {
        recording = False;  /* over --max-processes: runs unrecorded */
        return;
    }
    VG_(close)(conn);
    adopt_ring(fds[0], fds[1], fds[2]);
}

static void fini(Int exitcode)
{
    report_cost();
    if (unrecorded_effects)
        VG_(umsg)("trms: %llu syscall effects beyond %d per call were not recorded\n",
                  unrecorded_effects, MAX_PENDING_EFFECTS);
    if (clipped_syscalls)
        VG_(umsg)("trms: %llu syscalls passed the kernel's default bounds (poll's nfds, "
                  "execve's arguments); their effects past the bound were not recorded\n",
                  clipped_syscalls);
    reserve(1);
    (void)exitcode;  /* always 0 from Valgrind's core */
    put_control(RAW_END, exit_status);
    flush();
    if (notify_fd >= 0)
        VG_(close)(notify_fd);
}

static void pre_clo_init(void)
{
    VG_(details_name)("trms");
    VG_(details_version)(NULL);
    VG_(details_description)("the trms recorder");
    VG_(details_copyright_author)("the trms developers");
    VG_(details_bug_reports_to)("the trms issue tracker");
    VG_(details_avg_translation_sizeB)(400);

    VG_(basic_tool_funcs)(post_clo_init, instrument, fini);
    /* Calls and returns must end superblocks to be seen: no chasing into
     * callees. */
    VG_(clo_vex_control).guest_chase = False;
    VG_(needs_command_line_options)(process_option, print_usage, print_debug_usage);
    VG_(needs_syscall_wrapper)(pre_syscall, post_syscall);

    VG_(track_start_client_code)(start_client_code);
    VG_(track_new_mem_startup)(new_mapping);
    VG_(track_new_mem_mmap)(new_mapping);
    VG_(track_die_mem_munmap)(removed_mapping);
    VG_(track_pre_mem_read)(core_reads);
    VG_(track_pre_mem_read_asciiz)(core_reads_string);
    VG_(track_post_mem_write)(core_writes);
    VG_(track_pre_deliver_signal)(pre_deliver_signal);
    VG_(track_post_deliver_signal)(post_deliver_signal);
    VG_(track_pre_thread_ll_exit)(thread_exit);
    VG_(atfork)(before_fork, after_fork_in_parent, after_fork_in_child);
}

VG_DETERMINE_INTERFACE_VERSION(pre_clo_init)
