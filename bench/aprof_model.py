#!/usr/bin/env python3
"""Rewrites a trms recording's events as aprof would see them, so that
trms's own analysis of the rewritten trace predicts aprof's tuples exactly
wherever the two tools differ only by a documented rule
(docs/aprof-comparison.md):

  1. The return address. In trms it is no routine's input: a call's push
     is written in the callee's activation (after the call event; through
     a PLT stub, whose GOT read runs between, before it, in the caller's),
     and the ret's read of it comes after the returns that ret ends, in the
     caller's. aprof sees the push in the caller and the ret's read in the
     frame the ret ends: 8 bytes (2 cells of 4 bytes) of input to the
     callee. The push moves before the call event, the read before the
     returns.
  2. No pending activation: aprof ignores every access made while a thread
     has no activation (before its first call, between its outermost ones);
     trms's root activation owns them. They are dropped.
  3. Kernel accesses: aprof's RMS mode wraps no system call; its DRMS mode
     only read, readv, pread64, preadv, recvfrom, msgrcv (kernel writes),
     write, writev, pwrite64, pwritev, sendto, msgsnd (kernel reads) and
     mmap. The RMS model drops every kernel access; the DRMS model keeps
     those made inside the C library's wrappers of aprof's calls (found by
     name: every alias of the innermost routine's address).

    trms export REC | aprof_model.py pass1 --routines ROUTINES > CALLS
    trms export REC | aprof_model.py pass2 CALLS NAMES.json --trms TRMS \
        --orig ORIG.rec --rms RMS.rec --drms DRMS.rec --flags FLAGS.json

pass1 writes what it found out about each call (one byte per call, in
trace order) and the routines called; pass2 rewrites the trace into the
two models' recordings (through `trms import`; and imports it unchanged
too, so that every routine address is reported apart: trms's reports
merge same-named routines from one source line, ld.so's and libc's
copies), and writes per routine address what the rewrite
changed in its activations (FLAGS: `tail`, calls not ended by their own
ret: tail calls, frames unwound; `kernel_rms`/`kernel_drms`, kernel
accesses dropped inside it; `sync`, it runs the C library's thread synchronization or runs inside it;
`signal`, a signal handler). NAMES (aprof_compare.py names) gives each
routine address's symbol names, every alias."""
import argparse
import json
import re
import subprocess
import sys

# The C library's wrappers of the calls aprof's DRMS mode models, by base
# name once prefixes (__GI_, __libc_, leading underscores) and suffixes
# (_nocancel) are taken off.
APROF_KERNEL_READS = {"write", "writev", "pwrite64", "pwritev", "pwritev2", "sendto", "send",
                      "msgsnd"}
APROF_KERNEL_WRITES = {"read", "readv", "pread64", "pread", "preadv", "preadv2", "recvfrom",
                       "recv", "msgrcv"}
# The C library's thread synchronization: what a routine that runs one of
# these, or runs inside one, does depends on how Valgrind interleaved the
# threads (whether a lock was free, whether a wait had to block), which
# differs between the two tools.
SYNC = re.compile(r"futex|lll_lock|condvar|pthread_(mutex|cond|rwlock|barrier|spin|join)")


def base_name(name):
    name = name.split("@")[0]
    for prefix in ("__GI_", "__libc_", "__"):
        while name.startswith(prefix):
            name = name[len(prefix):]
    for suffix in ("_nocancel",):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    return name.lstrip("_")


# What pass 1 finds out about each call, one byte per call in trace order.
UNCONFIRMED = 0   # a tail call, or a frame not ended by its own ret
PUSH_AFTER = 1    # ended by a ret; its return address was written after the call
PUSH_BEFORE = 2   # ... before the call (through a PLT stub, which runs in between)


def pass1(out, routines_path):
    """Finds, for each call, whether the ret that ended it read back the
    return address written just after the call event (a direct call) or
    just before it (through a PLT stub: the stub's read of its GOT slot
    comes between). trms puts that read right after the returns the ret
    ended, so the outermost frame of a run of returns is the one whose
    return address the read following the run is."""
    codes = bytearray()
    stacks = {}     # tid -> [[ordinal, written after, written before, first access pending]]
    state = {}      # tid -> [latest 8-byte write or None, accesses since it, run of returns]
    routines = set()
    tid = "1"       # events before the first thread line belong to thread 1
    stack = stacks.setdefault(tid, [])
    st = state.setdefault(tid, [None, 0, []])
    for line in sys.stdin:
        c = line[0]
        if c == "c" and line[1] == "o" or c == "#":
            continue
        if c == "r" and line[2] == "t":  # return
            st[2].append(stack.pop())
            continue
        run = st[2]
        if c in "rwk":  # an access
            parts = line.split()
            eight = parts[2] == "8"
            if run:
                outer = run[-1]
                if c == "r" and eight:
                    if parts[1] == outer[1]:
                        codes[outer[0]] = PUSH_AFTER
                    elif parts[1] == outer[2]:
                        codes[outer[0]] = PUSH_BEFORE
                run.clear()
            if stack and stack[-1][3]:
                stack[-1][3] = False
                if c == "w" and eight:
                    stack[-1][1] = parts[1]
            if c == "w" and eight:
                st[0], st[1] = parts[1], 0
            else:
                st[1] += 1
            continue
        run.clear()
        if c == "c":  # call
            if stack:
                stack[-1][3] = False
            before = st[0] if st[1] <= 1 else None
            stack.append([len(codes), None, before, True])
            codes.append(UNCONFIRMED)
            routines.add(line[5:].strip())
        elif c == "t":
            tid = line.split()[1]
            stack = stacks.setdefault(tid, [])
            st = state.setdefault(tid, [None, 0, []])
    out.write(codes)
    with open(routines_path, "w") as f:
        f.write("".join(f"{r}\n" for r in sorted(routines)))


def pass2(codes, names, outputs, flags_path):
    """Rewrites the trace read on stdin into OUTPUTS (metric -> file), one
    per metric, in one pass."""
    kernel_reads, kernel_writes, sync = set(), set(), set()
    for address, symbol in names.items():
        aliases = symbol["names"]
        bases = {base_name(a) for a in aliases}
        if bases & APROF_KERNEL_READS:
            kernel_reads.add(address)
        if bases & APROF_KERNEL_WRITES:
            kernel_writes.add(address)
        if any(SYNC.search(a) for a in aliases):
            sync.add(address)
    flags = {}       # routine -> {"tail": n, "sync": n, "kernel_rms": n, "kernel_drms": n}

    def flag(routine, what):
        f = flags.setdefault(routine, {})
        f[what] = f.get(what, 0) + 1

    def flag_stack(stack, what):
        for routine in set(stack):
            flag(routine, what)

    orig, rms, drms = outputs["orig"].write, outputs["rms"].write, outputs["drms"].write

    def write(line):
        rms(line)
        drms(line)

    stacks = {}
    held = None      # [call line, lines after it, depth before it] until the push
    returns = []     # return (and cost) lines held until the ret's read
    ended = None     # the code of the outermost frame they ended
    ordinal = 0
    stack = stacks.setdefault("1", [])
    delivered = False  # the line before was a call: a kernel write now is a signal frame
    for line in sys.stdin:
        orig(line)
        c = line[0]
        if delivered:
            delivered = False
            if c == "k" and line[1] == "w":
                flag(stack[-1][0], "signal")
        if returns:
            if c == "r" and line[2] == "t" or c == "c" and line[1] == "o":
                if c == "r":
                    ended = stack.pop()[1]
                returns.append(line)
                continue
            if c == "r" and ended != UNCONFIRMED:
                # The ret's read of the return address, in the frame the
                # ret ends (aprof's view), then the returns.
                write(line)
                write("".join(returns))
                returns = []
                continue
            write("".join(returns))
            returns = []
        if held is not None:
            if c == "w":
                if held[2]:  # a push with no pending activation: aprof ignores it
                    write(line)
                write(held[0])
                write("".join(held[1]))
                held = None
                continue
            if c == "c" and line[1] == "o":
                held[1].append(line)
                continue
            # Not the push after all (cannot happen in a Valgrind trace):
            # the events stay in order.
            write(held[0])
            write("".join(held[1]))
            held = None
        if c == "r":
            if line[2] == "a":  # read
                if stack:
                    write(line)
            else:  # return
                ended = stack.pop()[1]
                returns.append(line)
        elif c == "w":
            if stack:
                write(line)
        elif c == "k":
            if not stack:
                continue
            routines = [r for r, _, _ in stack]
            flag_stack(routines, "kernel_rms")
            if routines[-1] in (kernel_reads if line[1] == "r" else kernel_writes):
                drms(line)
            else:
                flag_stack(routines, "kernel_drms")
        elif c == "c" and line[1] == "a":  # call
            routine = line[5:].strip()
            code = codes[ordinal]
            ordinal += 1
            if code == UNCONFIRMED:
                flag(routine, "tail")
            inside = routine in sync or bool(stack and stack[-1][2])
            if routine in sync:
                flag_stack([r for r, _, _ in stack], "sync")
            if inside:
                flag(routine, "sync")
            if code == PUSH_AFTER:
                # Its push, which follows, goes before it: the caller's.
                held = [line, [], len(stack)]
            else:
                write(line)
            stack.append((routine, code, inside))
            delivered = True
        elif c == "t":
            stack = stacks.setdefault(line.split()[1], [])
            write(line)
        else:
            write(line)
    if held is not None:
        write(held[0])
        write("".join(held[1]))
    write("".join(returns))
    if ordinal != len(codes):
        sys.exit(f"aprof_model: pass 1 saw {len(codes)} calls, pass 2 {ordinal}")
    with open(flags_path, "w") as f:
        json.dump(flags, f)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p1 = sub.add_parser("pass1")
    p1.add_argument("--routines", required=True, help="where to list the routines called")
    p2 = sub.add_parser("pass2")
    p2.add_argument("calls")
    p2.add_argument("names")
    p2.add_argument("--trms", required=True, help="the trms binary, to import the models")
    p2.add_argument("--orig", required=True, help="the trace unchanged: a recording to create")
    p2.add_argument("--rms", required=True, help="the RMS model's recording to create")
    p2.add_argument("--drms", required=True, help="the DRMS model's recording to create")
    p2.add_argument("--flags", required=True)
    args = ap.parse_args()
    if args.cmd == "pass1":
        pass1(sys.stdout.buffer, args.routines)
        return
    with open(args.calls, "rb") as f:
        codes = f.read()
    with open(args.names) as f:
        names = json.load(f)
    imports = {metric: subprocess.Popen([args.trms, "import", "-", "-o", rec],
                                        stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                        text=True, bufsize=1 << 20)
               for metric, rec in (("orig", args.orig), ("rms", args.rms),
                                   ("drms", args.drms))}
    pass2(codes, names, {m: p.stdin for m, p in imports.items()}, args.flags)
    for metric, p in imports.items():
        p.stdin.close()
        if p.wait() != 0:
            sys.exit(f"aprof_model: trms import of the {metric} model failed")


if __name__ == "__main__":
    main()
