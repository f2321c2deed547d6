#!/usr/bin/env python3
"""End-to-end tests: `trms record` real programs under Valgrind, then
`trms analyze`, and check the analyses against what the programs do.

    record_e2e.py CASE      (environment: TRMS, PROGRAMS)

Exit 0 passes, 77 skips (with the reason on stderr), anything else fails."""
import csv
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_lib import PROGRAMS, SKIP, TRMS, check, run, run_case  # noqa: E402

RECORDINGS = iter(range(1, 1000))


def record(tmp, name, args, expect=0):
    rec = os.path.join(tmp, f"{name}.{next(RECORDINGS)}.rec")
    p = run([TRMS, "record", "-o", rec, "--", os.path.join(PROGRAMS, name)] + args, expect)
    return rec, p


def activations(rec, cell_size=4):
    out = rec + f".act{cell_size}.csv"
    run([TRMS, "analyze", rec, "--cell-size", str(cell_size), "--activations", out])
    with open(out) as f:
        return list(csv.DictReader(f))


def of(rows, routine):
    return [r for r in rows if r["routine"] == routine]


def ints(rows, field):
    return [int(r[field]) for r in rows]


def meta(rec):
    with open(os.path.join(rec, "meta")) as f:
        return dict(line.rstrip("\n").split(" ", 1) for line in f if " " in line)


def only_depth(rows, routine):
    depths = set(ints(of(rows, routine), "depth"))
    check(len(depths) == 1, f"{routine} at depths {depths}")
    return depths.pop()


# ---- cases ----

def case_array_walk(tmp):
    sizes = [2, 10, 64, 100, 1000]
    rec, _ = record(tmp, "array_walk", [str(n) for n in sizes])
    for cell in (1, 2, 4, 8):
        walks = of(activations(rec, cell), "walk")
        check(ints(walks, "rms") == [n * 4 // cell for n in sizes],
              f"cell {cell}: walk RMS {ints(walks, 'rms')}, expected n*4/{cell} for {sizes}")
        check(ints(walks, "trms") == ints(walks, "rms"), "one thread, no I/O: TRMS == RMS")


def case_producer_consumer(tmp):
    ks = [1, 2, 4, 8, 16, 32]
    rec, _ = record(tmp, "producer_consumer", [str(k) for k in ks])
    rows = activations(rec)
    consume = of(rows, "consume")
    check(len(consume) == len(ks), f"{len(consume)} activations of consume, expected {len(ks)}")
    check(len({r["thread"] for r in rows}) == 2, "two threads")
    # The first call also binds the pthread functions lazily; from the
    # second on, each call reads the same cells.
    steady = consume[1:]
    rms, trms, induced = ints(steady, "rms"), ints(steady, "trms"), ints(steady, "induced_thread")
    check(len(set(rms)) == 1, f"consume RMS should stay constant: {rms}")
    check(all(a < b for a, b in zip(trms, trms[1:])), f"consume TRMS should grow: {trms}")
    # Each value is two new inputs from the producer: the slot and the flag.
    check(all(i >= 2 * k for i, k in zip(induced, ks[1:])), f"induced {induced} < 2 x {ks[1:]}")
    # Induced reads include first reads that RMS counts too.
    check(all(r <= t <= r + i for t, r, i in zip(trms, rms, induced)), "RMS <= TRMS <= RMS + induced")


def case_read_loop(tmp):
    sizes = [1024, 4096, 16384, 65536]
    paths = []
    for n in sizes:
        path = os.path.join(tmp, f"input{n}")
        with open(path, "wb") as f:
            f.write(os.urandom(n))
        paths.append(path)
    rec, _ = record(tmp, "read_loop", [paths[0]] + paths)  # the first call warms up
    m = meta(rec)
    check(m["unmodeled-syscalls"] == "0", f"unmodeled syscalls: {m['unmodeled-syscall-list']}")
    reads = of(activations(rec), "read_file")[1:]
    rms, trms = ints(reads, "rms"), ints(reads, "trms")
    external = ints(reads, "induced_external")
    check(len(set(rms)) == 1, f"read_file RMS should stay constant: {rms}")
    check(all(a < b for a, b in zip(trms, trms[1:])), f"read_file TRMS should grow: {trms}")
    # Every 4-byte cell of the file arrives through the kernel into the
    # buffer and is then read: exactly one external input each.
    check(external == [n // 4 for n in sizes], f"external input {external}, expected n/4")
    check(ints(reads, "induced_thread") == [0] * len(sizes), "no other thread")


def case_names_travel(tmp):
    # Names are resolved when the recording is made: a recording whose
    # program is gone (or carried to another machine) still reports them.
    import shutil
    program = os.path.join(tmp, "walker")
    shutil.copy(os.path.join(PROGRAMS, "array_walk"), program)
    rec = os.path.join(tmp, "travel.rec")
    run([TRMS, "record", "-o", rec, "--", program, "10"])
    os.remove(program)
    moved = os.path.join(tmp, "elsewhere.rec")
    os.rename(rec, moved)
    check(any(r["routine"] == "walk" for r in activations(moved)), "walk named without its binary")
    text = run([TRMS, "report", moved, "--routine", "walk"]).stdout
    check("walk (array_walk.c:" in text, f"the report gives file and line: {text[-400:]}")
    maps = open(os.path.join(moved, "maps")).read()
    check(program in maps, "the maps name the program's file")


def case_module_offsets(tmp):
    # Routines no symbol names print as perf and callgrind print them,
    # `0xOFFSET [module]`, with an address that addr2line and objdump take:
    # array_walk without its symbol table (its DWARF kept) has no name for
    # walk, and addr2line finds walk's source line at the printed offset.
    import shutil
    for tool in ("strip", "addr2line", "nm"):
        if not shutil.which(tool):
            print(f"skipped: no {tool} (binutils)", file=sys.stderr)
            return SKIP
    original = os.path.join(PROGRAMS, "array_walk")
    program = os.path.join(tmp, "walk_nosym")
    run(["strip", "--strip-all", "--keep-section=.debug_*", "-o", program, original])
    rec = os.path.join(tmp, "nosym.rec")
    run([TRMS, "record", "-o", rec, "--", program, "2", "10", "64"])
    run([TRMS, "analyze", rec])
    report = json.loads(run([TRMS, "report", rec, "--format", "json", "--top", "0"]).stdout)
    walks = [r for r in report["routines"] if r.get("module") == program and r["calls"] == 3]
    check(len(walks) == 1, f"one routine of walk_nosym called 3 times: {walks}")
    walk = walks[0]
    offset = walk["module_address"]
    check(walk["name"] == f"{offset} [walk_nosym]", f"unnamed routine named {walk['name']}")
    check(int(offset, 16) != int(walk["address"], 16), "a PIE's offset is not its run-time address")
    text = run([TRMS, "report", rec, "--top", "0"]).stdout
    check(f"  {offset} [walk_nosym] (array_walk.c:" in text, f"text lacks {offset}: {text[:1500]}")
    source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "programs",
                          "array_walk.c")
    # The line of walk's entry: its declaration, or the brace after it.
    decl = next(i for i, line in enumerate(open(source), 1) if "long walk(" in line)
    check(walk.get("file") == "array_walk.c" and decl <= walk.get("line", 0) <= decl + 1,
          f"walk at {walk.get('file')}:{walk.get('line')}, declared at line {decl}")
    where = run(["addr2line", "-e", program, offset]).stdout.strip()
    check(where.endswith(f"array_walk.c:{walk['line']}"),
          f"addr2line -e {program} {offset}: {where}, expected array_walk.c:{walk['line']}")
    named = run(["addr2line", "-f", "-e", original, offset]).stdout.split()[0]
    check(named == "walk", f"addr2line -f on the unstripped program: {named}")
    # A shared library's routines: module addresses are the symbols' values.
    values = {}
    libc = next(r["module"] for r in report["routines"] if "libc.so" in r.get("module", ""))
    for line in run(["nm", "-D", "--defined-only", libc]).stdout.splitlines():
        fields = line.split()
        if len(fields) == 3:
            values.setdefault(fields[2].split("@")[0], set()).add(int(fields[0], 16))
    compared = 0
    for r in report["routines"]:
        bare = r["name"].split("@")[0]
        if r.get("module") == libc and bare in values:
            compared += 1
            check(int(r["module_address"], 16) in values[bare],
                  f"{r['name']} at {r['module_address']} in {libc}, nm -D says {values[bare]}")
    check(compared >= 5, f"only {compared} libc routines compared with nm -D")
    # Valgrind's preload library is the recorder's, not the program's: none
    # of its code is a routine (its initializers ran, called by ld.so).
    maps = open(os.path.join(rec, "maps")).read()
    check("vgpreload_core" in maps, "Valgrind's preload is not among the mappings")
    preload = [r["name"] for r in report["routines"] if "vgpreload" in r.get("module", "")]
    check(not preload, f"routines of Valgrind's preload: {preload}")


def case_longjmp(tmp):
    rec, _ = record(tmp, "jumps", [])
    rows = activations(rec)
    for name in ("jumper", "middle", "leaf", "after_jump"):
        check(len(of(rows, name)) == 3, f"{name}: {len(of(rows, name))} calls, expected 3")
    base = only_depth(rows, "jumper")
    check(only_depth(rows, "middle") == base + 1, "middle is jumper's child")
    check(only_depth(rows, "leaf") == base + 2, "leaf is middle's child")
    # longjmp ended leaf and middle: what jumper calls next is its child.
    check(only_depth(rows, "after_jump") == base + 1, "after_jump is jumper's child")
    check(only_depth(rows, "main") == base - 1, "jumper is main's child")


def case_exception(tmp):
    if not os.path.exists(os.path.join(PROGRAMS, "exceptions")):
        print("skipped: no C++ compiler built the exceptions program", file=sys.stderr)
        return SKIP
    rec, _ = record(tmp, "exceptions", [])
    rows = activations(rec)
    for name in ("catcher", "middle", "thrower", "after_catch"):
        check(len(of(rows, name)) == 4, f"{name}: {len(of(rows, name))} calls, expected 4")
    base = only_depth(rows, "catcher")
    check(only_depth(rows, "middle") == base + 1, "middle is catcher's child")
    check(only_depth(rows, "thrower") == base + 2, "thrower is middle's child")
    check(only_depth(rows, "after_catch") == base + 1, "after_catch is catcher's child")


def case_indirect(tmp):
    rec, _ = record(tmp, "indirect", [])
    rows = activations(rec)
    check(len(of(rows, "twice")) == 5, "twice (through a pointer) is called 5 times")
    check(len(of(rows, "lib_scale")) == 7, "lib_scale (shared library) is called 7 times")
    main = only_depth(rows, "main")
    check(only_depth(rows, "twice") == main + 1, "twice is main's child")
    check(only_depth(rows, "through_plt") == main + 1, "through_plt is main's child")
    check(only_depth(rows, "lib_scale") == main + 2, "lib_scale is through_plt's child")
    children = {r["routine"] for r in rows if int(r["depth"]) == main + 1}
    unnamed = sorted(c for c in children if c.startswith("0x"))
    check(not unnamed, f"main's children without a name (PLT stubs?): {unnamed}")
    report = json.loads(run([TRMS, "report", rec, "--format", "json"]).stdout)
    names = {r["name"] for r in report["routines"]}
    check({"twice", "lib_scale", "through_plt", "main"} <= names, "the report names the routines")
    # A return address is no routine's input, however the routine was
    # reached: twice (a call through a pointer) and lib_scale (through the
    # PLT, whose stub runs between the call's push and lib_scale's entry)
    # read only their own frames (-O0).
    for cell in (1, 4):
        rows = activations(rec, cell)
        for routine in ("twice", "lib_scale"):
            sizes = {(r["rms"], r["trms"]) for r in of(rows, routine)}
            check(sizes == {("0", "0")}, f"cell {cell}: {routine}'s input {sizes}, expected none")


def case_lazy_binding(tmp):
    """indirect is linked for lazy binding: through_plt's first call of
    lib_scale would run the dynamic linker's resolver inside it. trms record
    binds at start-up (LD_BIND_NOW), so the first call looks like the
    others; with --lazy-binding the first one carries the resolver, named
    as its own activation, and lib_scale still nests under through_plt."""
    rec, _ = record(tmp, "indirect", [])
    check(meta(rec)["binding"] == "now", f"meta binding: {meta(rec).get('binding')}")
    for cell in (1, 4):
        rows = activations(rec, cell)
        check(not any(r["routine"].startswith("_dl_runtime_resolve") for r in rows),
              "no lazy binding at all")
        calls = of(rows, "through_plt")
        shapes = {(r["rms"], r["trms"], r["cost"]) for r in calls}
        check(len(calls) == 7 and len(shapes) == 1,
              f"cell {cell}: every call of through_plt alike: {shapes}")
    lazy = os.path.join(tmp, "lazy.rec")
    run([TRMS, "record", "--lazy-binding", "-o", lazy, "--",
         os.path.join(PROGRAMS, "indirect")])
    check(meta(lazy)["binding"] == "lazy", "meta binding lazy")
    rows = activations(lazy)
    calls = of(rows, "through_plt")
    first, rest = calls[0], calls[1:]
    check(len({(r["rms"], r["cost"]) for r in rest}) == 1, f"later calls alike: {rest}")
    check(int(first["rms"]) > 10 * int(rest[0]["rms"]) and
          int(first["cost"]) > 10 * int(rest[0]["cost"]),
          f"lazy binding's first call: {first} vs {rest[0]}")
    depth = only_depth(rows, "through_plt")
    check(only_depth(rows, "lib_scale") == depth + 1, "lib_scale still through_plt's child")
    # Completion order: the resolver, then lib_scale, then the first call.
    i = rows.index(first)
    resolver, scale = rows[i - 2], rows[i - 1]
    check(resolver["routine"].startswith("_dl_runtime_resolve") and
          int(resolver["depth"]) == depth + 1 and scale["routine"] == "lib_scale",
          f"the resolver, then lib_scale, under through_plt's first call: {rows[i - 2:i + 1]}")



def case_signal(tmp):
    rec, _ = record(tmp, "signals", [])
    rows = activations(rec)
    check(len(of(rows, "raiser")) == 5, "raiser is called 5 times")
    check(len(of(rows, "on_signal")) == 5, "the handler runs 5 times, each an activation")
    check(len(of(rows, "in_handler")) == 5, "and calls in_handler each time")
    check(only_depth(rows, "in_handler") == only_depth(rows, "on_signal") + 1,
          "in_handler is the handler's child")
    # Delivered inside raise(): the handler nests under the interrupted raiser.
    check(only_depth(rows, "on_signal") > only_depth(rows, "raiser"), "nested under raiser")
    check(only_depth(rows, "raiser") == only_depth(rows, "main") + 1, "raiser is main's child")


def check_tail_calls(rows, calls, cell, suffix=""):
    """tailcall's dispatch ends in `jmp target_a` or `jmp target_b` (-O2):
    the target runs as dispatch's child, so dispatch's input is exactly its
    target's (it reads no memory itself) and its cost includes it. The
    target's `ret`, which ends both, reads the return address main's call
    pushed: that read is the return's, after both end, so it is input to
    neither. SUFFIX follows each routine's name but main's (the C++
    build's "(long)")."""
    dispatch_, target_a, target_b = (f"{n}{suffix}" for n in ("dispatch", "target_a", "target_b"))
    dispatches = of(rows, dispatch_)
    check(len(dispatches) == calls, f"dispatch is called {calls} times")
    check(len(of(rows, target_a)) == calls // 2 and len(of(rows, target_b)) == calls // 2,
          "each tail-called target half the time")
    depth = only_depth(rows, dispatch_)
    check(only_depth(rows, target_a) == depth + 1 and only_depth(rows, target_b) == depth + 1,
          "a tail-called routine is its caller's child")
    check(depth == only_depth(rows, "main") + 1, "dispatch is main's child")
    # Activations complete child first: each target just before its dispatch.
    order = [r["routine"] for r in rows if r["routine"] in (dispatch_, target_a, target_b)]
    check(order == [t for _ in range(calls // 2)
                    for t in (target_b, dispatch_, target_a, dispatch_)],
          f"completion order {order}")
    targets = [r for r in rows if r["routine"] in (target_a, target_b)]
    for target, dispatch in zip(targets, dispatches):
        check(dispatch["rms"] == target["rms"] and dispatch["trms"] == target["trms"],
              f"dispatch's input {dispatch['rms']} is its target's {target['rms']}")
        check(0 < int(dispatch["cost"]) - int(target["cost"]) < 10,
              f"dispatch's cost {dispatch['cost']} is its target's {target['cost']} and a few")
    sizes = {int(r["rms"]) for r in dispatches}
    check(len(sizes) >= calls // 2, f"dispatch's input sizes follow its targets': {sizes}")


def check_conditional_tail_calls(rows, calls, target_costs):
    """tailcall's cond_dispatch(i) jumps to target_a by `jz` for every i
    but 0: a conditional jump taken is a tail call as an unconditional one
    is, and one not taken (i = 0) is none. TARGET_COSTS: target_a's cost
    by its input size when dispatch's unconditional jump reached it, the
    same whichever jump did."""
    dispatches, targets = of(rows, "cond_dispatch"), of(rows, "target_a")
    check(len(dispatches) == calls, f"cond_dispatch is called {calls} times: {len(dispatches)}")
    check(len(targets) == calls - 1, f"target_a is tail-called {calls - 1} times: {len(targets)}")
    check(only_depth(rows, "target_a") == only_depth(rows, "cond_dispatch") + 1,
          "a routine tail-called by a conditional jump is its caller's child")
    check(dispatches[0]["rms"] == "0" and int(dispatches[0]["cost"]) < 10,
          f"cond_dispatch(0) reads nothing and runs a few instructions: {dispatches[0]}")
    for target in targets:
        check(target_costs.get(target["rms"], target["cost"]) == target["cost"],
              f"target_a {target} costs what it did after an unconditional jump: {target_costs}")
    check(len({t["rms"] for t in targets} & set(target_costs)) >= 5,
          f"target_a's input sizes {[t['rms'] for t in targets]} meet {target_costs}")
    for target, dispatch in zip(targets, dispatches[1:]):
        check(dispatch["rms"] == target["rms"] and 0 < int(dispatch["cost"]) - int(target["cost"]) < 10,
              f"cond_dispatch {dispatch} is its target {target} and a few instructions")


def case_tail_call(tmp):
    rec, _ = record(tmp, "tailcall", ["20"])
    for cell in (1, 4):
        check_tail_calls(activations(rec, cell), 20, cell)
    check(int(meta(rec)["tail-calls"]) >= 20, f"tail calls in the meta: {meta(rec)}")
    target_costs = {r["rms"]: r["cost"] for r in of(activations(rec), "target_a")}
    rec, _ = record(tmp, "tailcall", ["20", "conditional"])
    check_conditional_tail_calls(activations(rec), 20, target_costs)


def case_tail_call_cxx(tmp):
    """The same between C++ functions (mangled names)."""
    if not os.path.exists(os.path.join(PROGRAMS, "tailcall_cxx")):
        print("skipped: no C++ compiler built the tailcall_cxx program", file=sys.stderr)
        return SKIP
    rec, _ = record(tmp, "tailcall_cxx", ["20"])
    for cell in (1, 4):
        check_tail_calls(activations(rec, cell), 20, cell, "(long)")
    check(int(meta(rec)["tail-calls"]) >= 20, f"tail calls in the meta: {meta(rec)}")


def case_thread_exit(tmp):
    rec, _ = record(tmp, "thread_exit", [])
    rows = activations(rec)
    threads = {r["thread"] for r in of(rows, "nested")}
    check(len(of(rows, "nested")) == 4 and len(threads) == 4, "nested once in each worker")
    check(len(of(rows, "deep_exit")) == 4, "deep_exit once in each worker")
    check(all(only_depth([r for r in rows if r["thread"] == t], "deep_exit") ==
              only_depth([r for r in rows if r["thread"] == t], "nested") + 1 for t in threads),
          "deep_exit is nested's child, ended when its thread exits")
    check(len(of(rows, "after_threads")) == 1 and
          only_depth(rows, "after_threads") == only_depth(rows, "main") + 1,
          "the main thread's activations are untouched")


def case_crashes(tmp):
    # A segfault: the recording holds everything up to the crash.
    rec, p = record(tmp, "crash", ["segv"], expect=128 + 11)
    check("killed by signal 11" in p.stderr, f"record says how it ended: {p.stderr}")
    check("working" in p.stdout, "the program's stdout is the user's")
    check(meta(rec)["outcome"] == "killed by signal 11 (Segmentation fault)", "meta outcome")
    rows = activations(rec)
    check(len(of(rows, "work")) >= 1, "work() was recorded before the crash")
    # Killed by signals, with and without a chance to clean up.
    for how, sig in (("abort", 6), ("term", 15), ("kill", 9)):
        rec, p = record(tmp, "crash", [how], expect=128 + sig)
        check(f"killed by signal {sig}" in p.stderr, f"{how}: {p.stderr}")
        check(len(of(activations(rec), "work")) == 1, f"{how}: work() recorded")
    # Valgrind itself killed from outside: the stream stops mid-way.
    rec = os.path.join(tmp, "hang.rec")
    with subprocess.Popen([TRMS, "record", "-o", rec, "--", os.path.join(PROGRAMS, "crash"),
                           "hang"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True) as p:
        check(p.stdout.readline() == "working\n", "the program started")
        with open(f"/proc/{p.pid}/task/{p.pid}/children") as f:
            for child in f.read().split():
                os.kill(int(child), 9)
        _, err = p.communicate(timeout=60)
        check(p.returncode == 128 + 9, f"killed valgrind: exit {p.returncode}")
    check("killed by signal 9" in err and "stops where it died" in err, err)
    check(meta(rec)["complete"] == "no", "an incomplete (but usable) recording")
    check(len(of(activations(rec), "work")) == 1, "hang: work() recorded")
    # An exec is followed (issue 25): the recording says where it went,
    # and the program exec'd has a recording of its own.
    crash = os.path.join(PROGRAMS, "crash")
    rec = os.path.join(tmp, "exec.rec")
    p = run([TRMS, "record", "-o", rec, "--", "/bin/sh", "-c", f"exec {crash} exit 4"], 4)
    check("2 processes recorded" in p.stderr, f"record names the exec: {p.stderr}")
    m = meta(rec)
    check(m["exec"] == crash and m["complete"] == "no", "meta names the exec")
    check(m["processes"] == "2" and m["process-2"].startswith(f"pid={m['process-1'].split()[0][4:]} ")
          and "via=exec" in m["process-2"] and "end=exit:4" in m["process-2"]
          and m["process-2"].endswith(f"command={crash} exit 4"), f"the exec'd image: {m}")
    # Arguments after the program are its own, --help included.
    p = run([TRMS, "record", "-o", os.path.join(tmp, "args.rec"), "/bin/echo", "--help", "-o"])
    check(p.stdout == "--help -o\n", f"the program got its arguments: {p.stdout!r}")
    # An exit status passes through.
    record(tmp, "crash", ["exit", "3"], expect=3)
    # A program that does not exist, or cannot run: no recording at all.
    missing = os.path.join(tmp, "missing.rec")
    p = run([TRMS, "record", "-o", missing, "--", os.path.join(tmp, "no-such-program")], 127)
    check("no such program" in p.stderr and p.stderr.count("\n") == 1, p.stderr)
    check(not os.path.exists(missing), "no recording for a missing program")
    p = run([TRMS, "record", "-o", missing, "--", "no-such-program-in-path"], 127)
    check(not os.path.exists(missing), "no recording for a missing program")
    plain = os.path.join(tmp, "plain-file")
    open(plain, "w").close()
    p = run([TRMS, "record", "-o", missing, "--", plain], 126)
    check("not an executable" in p.stderr and not os.path.exists(missing), p.stderr)
    # An existing recording is never replaced.
    rec, _ = record(tmp, "crash", ["exit", "0"])
    before = open(os.path.join(rec, "events.trms"), "rb").read()
    p = run([TRMS, "record", "-o", rec, "--", os.path.join(PROGRAMS, "crash"), "exit", "0"], 1)
    check(open(os.path.join(rec, "events.trms"), "rb").read() == before, "recording intact")


class Terminal:
    """The few terminal controls trms's progress line uses, enough to see
    what a person would: printable text, CR, LF, ESC 7/8 (save and restore
    the cursor), CSI n A (up), CSI r;c H (move), CSI K (erase to the end of
    the row), CSI t;b r (scroll region; bare CSI r resets it). Rows that
    scroll off the top of the screen are kept in SCROLLBACK."""

    def __init__(self, rows, cols):
        self.rows, self.cols = rows, cols
        self.screen = [[" "] * cols for _ in range(rows)]
        self.scrollback = []
        self.row = self.col = 0
        self.top, self.bottom = 0, rows - 1
        self.saved = (0, 0)

    def line_feed(self):
        if self.row == self.bottom:
            gone = self.screen.pop(self.top)
            if self.top == 0:
                self.scrollback.append("".join(gone).rstrip())
            self.screen.insert(self.bottom, [" "] * self.cols)
        elif self.row < self.rows - 1:
            self.row += 1

    def feed(self, text):
        i = 0
        while i < len(text):
            c = text[i]
            if c == "\x1b" and text[i + 1:i + 2] in ("7", "8"):
                if text[i + 1] == "7":
                    self.saved = (self.row, self.col)
                else:
                    self.row, self.col = self.saved
                i += 2
                continue
            m = re.match(r"\x1b\[([?0-9;]*)([A-Za-z])", text[i:])
            if m:
                args, op = m.group(1), m.group(2)
                nums = [int(x) for x in args.split(";") if x.isdigit()]
                if op == "A":
                    self.row = max(self.top, self.row - (nums[0] if nums else 1))
                elif op == "H":
                    self.row = (nums[0] if nums else 1) - 1
                    self.col = (nums[1] if len(nums) > 1 else 1) - 1
                elif op == "K":
                    self.screen[self.row][self.col:] = [" "] * (self.cols - self.col)
                elif op == "r":
                    self.top = nums[0] - 1 if nums else 0
                    self.bottom = nums[1] - 1 if len(nums) > 1 else self.rows - 1
                    self.row = self.col = 0
                i += len(m.group(0))
                continue
            if c == "\r":
                self.col = 0
            elif c == "\n":
                self.line_feed()
            elif c >= " ":
                if self.col >= self.cols:
                    self.col = 0
                    self.line_feed()
                self.screen[self.row][self.col] = c
                self.col += 1
            i += 1

    def lines(self):
        return self.scrollback + ["".join(r).rstrip() for r in self.screen]


def case_progress(tmp):
    # On a terminal (a pseudo-terminal from script(1), 12 rows), record
    # keeps its progress line on the last row while the program's own
    # output scrolls above it: no row mixes the two, every line the program
    # wrote is whole, and at the end the row is cleared and the summary
    # (with the time taken and the rate) printed.
    import shutil
    if not shutil.which("script"):
        print("skipped: script(1) is missing (util-linux)", file=sys.stderr)
        return SKIP
    rec = os.path.join(tmp, "tty.rec")
    program = ("i=0; while [ $i -lt 15 ]; do echo \"line $i of the program\"; i=$((i+1)); "
               "sleep 0.1; done")
    p = subprocess.run(["script", "-qec", f"stty rows 12 cols 200; '{TRMS}' record -o '{rec}' "
                        f"-- /bin/sh -c '{program}'", "/dev/null"],
                       capture_output=True)  # bytes: \r stays \r
    out = p.stdout.decode(errors="replace")
    check(p.returncode == 0, f"script: exit {p.returncode}: {out!r}")
    check("\x1b[1;11r" in out and "recording: " in out and " bytes written, " in out,
          f"no progress line on the last row: {out!r}")
    term = Terminal(12, 200)
    term.feed(out)
    lines = term.lines()
    for i in range(15):
        check(f"line {i} of the program" in lines, f"line {i} is not whole: {lines}")
    mixed = [l for l in lines if "recording:" in l]
    check(not mixed, f"the progress line is left on the screen or mixed: {mixed}")
    summary = [l for l in lines if l.startswith("trms: /bin/sh exited with status 0; recorded ")]
    check(len(summary) == 1 and re.search(r" in \d+\.\d\d s \([0-9.]+[kMG]? events/s\)$",
                                          summary[0]), f"summary: {lines}")
    check("\x1b[r" in out, "the scroll region is given back")
    # Elsewhere, nothing of the kind, and the summary has the time too.
    _, p = record(tmp, "wordcase", ["slow", "1", "150", "2048"])
    check("\x1b" not in p.stderr and "recording:" not in p.stderr, f"stderr: {p.stderr!r}")
    check(re.search(r"into \S+ in \d+\.\d\d s \(", p.stderr), f"stderr: {p.stderr!r}")


def case_ring_edge(tmp):
    # Every turn of ring_edge's three loops reads 1 + 0 + 2 words and
    # writes 2 + 3 + 2 times (fnstenv's environment once each): recorded
    # whole across the ring segments they fill, whatever the turns.
    events = {}
    for n in (200000, 300000):
        rec, _ = record(tmp, "ring_edge", [str(n)])
        run([TRMS, "analyze", rec])
        events[n] = json.loads(run([TRMS, "report", rec, "--format", "json"]).stdout)["events"]
    turns = 300000 - 200000
    for kind, per_turn in (("read", 3), ("write", 7)):
        got = events[300000][kind] - events[200000][kind]
        check(got == per_turn * turns, f"{kind}s: {got} more for {turns} more turns, expected {per_turn * turns}")


def case_map_edge(tmp):
    # Each mmap of a file is a record that ends with the file's path: with
    # a path of some 250 bytes (33 words) and a few thousand maps, ring
    # segments end inside such records unless each is reserved whole. The
    # recording completes, and the program's output is its own.
    directory = os.path.join(tmp, "d" * 200)
    os.makedirs(directory)
    path = os.path.join(directory, "mapped-file")
    with open(path, "wb") as f:
        f.write(bytes(range(256)) * 16)
    n = 40000
    expected = sum(i % 4096 % 256 for i in range(n))
    rec, p = record(tmp, "map_edge", [path, str(n)])
    check(p.stdout.strip() == str(expected), f"map_edge printed {p.stdout.strip()!r}, expected {expected}")
    info = run([TRMS, "info", rec]).stdout
    check(re.search(r"^complete\s+yes$", info, re.M), f"trms info: {info}")


def case_exec_too_long(tmp):
    # An exec of a 3 MiB path fails in the kernel (ENAMETOOLONG); the
    # program goes on, and so does its recording.
    rec, p = record(tmp, "exec_too_long", [])
    check(p.stdout == "execv: File name too long\n", f"its output: {p.stdout!r}")
    info = run([TRMS, "info", rec]).stdout
    check(re.search(r"^complete\s+yes$", info, re.M), f"trms info: {info}")
    check(re.search(r"^exec\s+-$", info, re.M), f"no exec named: {info}")


def case_one_pass(tmp):
    # `trms record` analyzes as it records and stores what `trms analyze`
    # of the finished recording stores with the same options: the JSON
    # reports are the same bytes. producer_consumer has two threads (the
    # second thread's reuse stack forks from the first's) and fills dozens
    # of trace blocks; the options go through too, calling contexts
    # included.
    program = os.path.join(PROGRAMS, "producer_consumer")
    for options in ([], ["--cell-size", "8", "--line-size", "32", "--contexts"]):
        rec = os.path.join(tmp, f"one-pass{len(options)}.rec")
        p = run([TRMS, "record", "-o", rec] + options + ["--", program, "20000"])
        check("analyzed as it recorded" in p.stderr, f"record said: {p.stderr}")
        report = [TRMS, "report", rec, "--format", "json"] + options
        first = run(report).stdout
        check(json.loads(first)["events"]["read"] > 100000, "too few events to span blocks")
        run([TRMS, "analyze", rec] + options)
        again = run(report).stdout
        check(first == again, f"options {options}: the one-pass report differs from `trms analyze`'s")
    # --no-analysis records only; the recording analyzes later all the same.
    rec = os.path.join(tmp, "later.rec")
    p = run([TRMS, "record", "-o", rec, "--no-analysis", "--", program, "2000"])
    check("analyzed" not in p.stderr, f"record said: {p.stderr}")
    check("none yet" in run([TRMS, "info", rec]).stdout, "a result without analysis")
    run([TRMS, "report", rec], expect=1)
    run([TRMS, "analyze", rec])
    run([TRMS, "report", rec])
    run([TRMS, "record", "--no-analysis", "--contexts", "--", program, "1"], expect=2)


def case_fused_flow(tmp):
    # The recorder puts calls, returns and costs straight into the
    # analysis's batches with the loads and stores (the fused flow path,
    # trace/trace_writer.h), and the causal input takes them from the
    # notes that come with them. Whichever way they go (the fused path,
    # or off: TRMS_RECORD_NO_FUSED_FLOW, as struct events through the
    # tap's run), the one-pass result and causal.trms must be what `trms
    # analyze` of the recording stores, byte for byte. (Two recordings of
    # one program differ: thread ids, and a few reuse distances.)
    # cxx_sorts is call-heavy and single-threaded, coz_ab threaded (once
    # a thread was created, the flow events come with the accesses the
    # causal input looks at) with sync records (a causal.trms).
    def contents(rec, name):
        path = os.path.join(rec, name)
        if not os.path.exists(path):
            return None
        with open(path, "rb") as f:
            return f.read()

    for program in ("cxx_sorts", "coz_ab"):
        for way, env in (("fused", os.environ),
                         ("events", dict(os.environ, TRMS_RECORD_NO_FUSED_FLOW="1"))):
            rec = os.path.join(tmp, f"{program}-{way}.rec")
            p = subprocess.run([TRMS, "record", "--engine", "valgrind", "-o", rec, "--",
                                os.path.join(PROGRAMS, program)], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            check(p.returncode == 0 and "analyzed as it recorded" in p.stderr,
                  f"{program} {way}: record said: {p.stderr}")
            report = [TRMS, "report", rec, "--format", "json"]
            first = run(report).stdout
            causal = contents(rec, "causal.trms")
            check(program != "coz_ab" or causal is not None, f"{program} {way}: no causal.trms")
            if causal is not None:
                os.remove(os.path.join(rec, "causal.trms"))
            run([TRMS, "analyze", rec])
            check(run(report).stdout == first,
                  f"{program} {way}: the one-pass result differs from analyze's")
            check(contents(rec, "causal.trms") == causal,
                  f"{program} {way}: causal.trms differs from the one analyze stores")


def block_kinds(events_path):
    """How many blocks of each kind the trace file holds (1 events, 2 end,
    3 compressed events: trace/event_codec.h)."""
    with open(events_path, "rb") as f:
        data = f.read()
    kinds, p = {}, 16
    while p + 16 <= len(data):
        kind, length = int.from_bytes(data[p:p + 4], "little"), int.from_bytes(data[p + 4:p + 8], "little")
        kinds[kind] = kinds.get(kind, 0) + 1
        p += 16 + length
    check(p == len(data), f"{events_path}: blocks end at {p} of {len(data)} bytes")
    return kinds


def case_compression(tmp):
    # --compression-level: 0 stores the trace's blocks plain, any other
    # level compresses every one (negative levels included), and at each
    # level the trace holds exactly what the one-pass analysis saw: `trms
    # analyze` of it stores the same report, byte for byte. Levels apart
    # by much differ in size as zstd's do (bytes per event: two recordings
    # of one program differ by a few events only).
    program = os.path.join(PROGRAMS, "cxx_sorts")
    per_event = {}
    for level in ("0", "-1", "9"):
        rec = os.path.join(tmp, f"level{level}.rec")
        p = run([TRMS, "record", "--engine", "valgrind", "--compression-level", level,
                 "-o", rec, "--", program])
        check("analyzed as it recorded" in p.stderr, f"level {level}: record said: {p.stderr}")
        events_path = os.path.join(rec, "events.trms")
        kinds = block_kinds(events_path)
        plain, packed = kinds.get(1, 0), kinds.get(3, 0)
        if level == "0":
            check(packed == 0 and plain > 10, f"level 0: blocks {kinds}")
        else:
            check(plain == 0 and packed > 10, f"level {level}: blocks {kinds}")
        report = [TRMS, "report", rec, "--format", "json"]
        first = run(report).stdout
        run([TRMS, "analyze", rec])
        check(run(report).stdout == first,
              f"level {level}: the one-pass report differs from `trms analyze`'s")
        per_event[level] = os.path.getsize(events_path) / int(meta(rec)["events"])
    check(per_event["0"] > 3 * per_event["-1"] and per_event["-1"] > per_event["9"],
          f"bytes per event by level: {per_event}")
    # Bad levels, and levels with no trace of trms's to compress: one line
    # each, exit status 2, nothing recorded.
    for args in (["x"], ["23"], ["-200000"], ["1.5"], [""], ["3", "--trace", "none"],
                 ["3", "--engine", "rr"]):
        rec = os.path.join(tmp, "refused.rec")
        p = run([TRMS, "record", "-o", rec, "--compression-level"] + args + ["--", program],
                expect=2)
        check(len(p.stderr.strip().splitlines()) == 1 and "--compression-level" in p.stderr,
              f"{args}: said {p.stderr!r}")
        check(not os.path.exists(rec), f"{args}: a recording was made")


def profile_rows(rec, routine):
    """RMS and TRMS tuples of ROUTINE, without the thread (ids differ between runs)."""
    rows = run([TRMS, "report", rec, "--format", "csv", "--routine", routine]).stdout.splitlines()[1:]
    return sorted(",".join(r.split(",")[:1] + r.split(",")[2:]) for r in rows)


def case_windows(tmp):
    wordcase = [os.path.join(PROGRAMS, "wordcase"), "slow", "1", "150", "2048"]
    full = os.path.join(tmp, "full.rec")
    run([TRMS, "record", "-o", full, "--"] + wordcase)
    full_events = int(meta(full)["events"])
    # --toggle-collect: str_tolower's activations are kept whole, so its
    # profile (RMS, TRMS, cost) is the full recording's; what runs outside
    # it is left out and counted.
    tog = os.path.join(tmp, "toggle.rec")
    p = run([TRMS, "record", "-o", tog, "--toggle-collect=str_tolower", "--"] + wordcase)
    m = meta(tog)
    check("left out" in p.stderr, f"record said: {p.stderr}")
    check(m["window"].startswith("the events of a thread while it runs a routine matching "
                                 "'str_tolower'"), f"window: {m['window']}")
    check(m["window-opened"] == "300", f"opened {m['window-opened']}, expected 300 calls")
    check(int(m["left-out-events"]) > 100000 and int(m["events"]) < full_events,
          f"meta: {m}")
    check(m["activations-cut-by-window"] == "0", f"cut: {m['activations-cut-by-window']}")
    want = profile_rows(full, "str_tolower")
    check(len(want) > 50 and profile_rows(tog, "str_tolower") == want,
          "str_tolower's profile differs from the full recording's")
    text = run([TRMS, "report", tog]).stdout
    check(f"window of {tog}: kept the events of a thread while it runs a routine matching" in text
          and "cells written before it count as never written" in text, f"report: {text[:600]}")
    check("left out" in json.loads(run([TRMS, "report", tog, "--format", "json"]).stdout)["windows"][0],
          "no window in the JSON report")
    check("windows" not in json.loads(run([TRMS, "report", full, "--format", "json"]).stdout),
          "a window in the JSON report of a whole recording")
    # --max-events: the trace stops at the limit (plus the returns that end
    # the activations it cuts); --start-after: nothing before the limit.
    capped = os.path.join(tmp, "capped.rec")
    run([TRMS, "record", "-o", capped, "--max-events=100000", "--"] + wordcase)
    m = meta(capped)
    check(100000 <= int(m["events"]) <= 100100 and m["window-limit-reached"] == "yes",
          f"meta: {m}")
    check(int(m["activations-cut-by-window"]) > 0, f"meta: {m}")
    check(json.loads(run([TRMS, "report", capped, "--format", "json"]).stdout)["activations"] > 0,
          "nothing analyzed")
    small = os.path.join(tmp, "small.rec")
    run([TRMS, "record", "-o", small, "--max-size=64K", "--"] + wordcase)
    m = meta(small)
    size = os.path.getsize(os.path.join(small, "events.trms"))
    # The writer compresses on its own thread: it stops within the blocks
    # it holds (24 of 256 KiB before compression).
    check(m["window-limit-reached"] == "yes" and 65536 <= size < 8 << 20 and
          int(m["events"]) < full_events, f"meta: {m}, {size} bytes")
    later = os.path.join(tmp, "later.rec")
    run([TRMS, "record", "-o", later, "--start-after=2M", "--"] + wordcase)
    m = meta(later)
    check(m["window"] == "from instruction 2097152 on" and int(m["left-out-events"]) > 0 and
          0 < int(m["events"]) < full_events and int(m["activations-begun-before-window"]) > 0,
          f"meta: {m}")
    # `trms control`: a program that reads a FIFO waits there; collection
    # goes off while it reads the first half and on for the second.
    fifo = os.path.join(tmp, "fifo")
    os.mkfifo(fifo)
    ctl = os.path.join(tmp, "control.rec")
    rec = subprocess.Popen([TRMS, "record", "-o", ctl, "--", os.path.join(PROGRAMS, "read_loop"),
                            fifo], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    with open(fifo, "wb") as f:  # opens once the program does: it started
        run([TRMS, "control", ctl, "off"])
        f.write(b"x" * 2000000)
        f.flush()
        run([TRMS, "control", ctl, "on"])
        f.write(b"y" * 2000000)
    _, err = rec.communicate(timeout=600)
    check(rec.returncode == 0, f"record: {err}")
    m = meta(ctl)
    check("`trms control` turned collection on or off 2 times" in m["window"], f"meta: {m}")
    check(int(m["left-out-accesses"]) > 100000 and int(m["events"]) > 100000, f"meta: {m}")
    check(not any(".staging-" in f for f in os.listdir(tmp)), "a staging directory is left")
    # Mistakes, each one line.
    run([TRMS, "control", ctl, "on"], expect=1)
    run([TRMS, "control", "1", "on"], expect=1)  # not a trms
    run([TRMS, "control", ctl, "maybe"], expect=2)
    run([TRMS, "record", "--engine", "step", "--max-events=5", "--", "true"], expect=2)
    run([TRMS, "record", "--max-events=0", "--", "true"], expect=2)
    run([TRMS, "record", "--collect-at-start=later", "--", "true"], expect=2)


CASES = {name[5:]: fn for name, fn in globals().items() if name.startswith("case_")}

if __name__ == "__main__":
    run_case(CASES, "record_e2e.py", "trms-e2e.")
