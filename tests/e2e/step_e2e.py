#!/usr/bin/env python3
"""End-to-end tests of the step engine: `trms record --engine step` of
small statically linked programs, checked against the Valgrind engine on
the same programs (cross-engine), against itself (a seed repeats its run),
and against what the programs do.

    step_e2e.py CASE      (environment: TRMS, PROGRAMS)

Exit 0 passes, 77 skips (with the reason on stderr), anything else fails."""
import csv
import json
import os
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_lib import (PROGRAMS, SKIP, TRMS, Failure, check, ptrace_forbidden,  # noqa: E402
                     run, run_case)
from record_e2e import activations, check_tail_calls, ints, meta, of  # noqa: E402

RECORDINGS = iter(range(1, 1000))


def record(tmp, engine, name, args=(), options=(), expect=0):
    rec = os.path.join(tmp, f"{name}.{engine}.{next(RECORDINGS)}.rec")
    p = run([TRMS, "record", "--engine", engine, *options, "-o", rec, "--",
             os.path.join(PROGRAMS, name), *args], expect)
    return rec, p


def by_routine(rows, routines):
    """Each routine's activations in order: (depth, rms, trms, cost)."""
    return {r: [(int(a["depth"]), int(a["rms"]), int(a["trms"]), int(a["cost"]))
                for a in of(rows, r)] for r in routines}


# ---- cases ----

CALLS_ROUTINES = ["walk", "walk_twice", "fib", "square", "now", "copy", "fill", "on_signal",
                  "deep", "main"]


def case_cross_engine(tmp):
    """The same routines, calls, depths and RMS (cell sizes 1 and 4) for
    every activation of the program's own routines under both engines.
    Costs agree too, but for one known difference: a `rep` string
    instruction is one step for the step engine (as in rr's records, one
    record per uninterrupted instruction), while Valgrind runs it as a loop
    that counts one instruction per iteration and one for the test of rcx
    that ends it: copy() and fill(), and main above them, cost n less
    under the step engine for n bytes."""
    step, _ = record(tmp, "step", "step_calls")
    grind, _ = record(tmp, "valgrind", "step_calls")
    for cell in (1, 4):
        a = by_routine(activations(step, cell), CALLS_ROUTINES)
        b = by_routine(activations(grind, cell), CALLS_ROUTINES)
        for r in CALLS_ROUTINES:
            check(len(a[r]) > 0, f"{r} was recorded")
            check([x[:3] for x in a[r]] == [x[:3] for x in b[r]],
                  f"cell {cell}: {r}: step {a[r]} != valgrind {b[r]}")
            if r not in ("copy", "fill", "main"):
                check([x[3] for x in a[r]] == [x[3] for x in b[r]], f"{r} costs differ")
        # rep movsb of 1000 bytes and rep stosb of 600: one instruction
        # here, 1001 and 601 under Valgrind.
        check(b["copy"][0][3] - a["copy"][0][3] == 1000, f"copy: {a['copy']} {b['copy']}")
        check(b["fill"][0][3] - a["fill"][0][3] == 600, f"fill: {a['fill']} {b['fill']}")
        check(b["main"][0][3] - a["main"][0][3] == 1600, f"main: {a['main']} {b['main']}")
    # The arrays: n 4-byte ints are n cells of 4 bytes, 4n of 1 byte.
    walks = ints(of(activations(step, 1), "walk"), "rms")
    check(walks == [4 * n for n in (1, 3, 8, 17, 64, 100, 256, 40, 20)], f"walk RMS {walks}")
    # The vDSO is hidden: clock_gettime is a system call whose timespec (two
    # 8-byte fields, read back) is the kernel's, i.e. external input.
    now = of(activations(step, 4), "now")
    check(ints(now, "induced_external") == [4], f"now(): {now}")
    check(meta(step)["undecodable"] == "0", "every instruction decoded")
    check(meta(step)["signals"] == "1", "one signal delivered to its handler")


HOSTS = ("quiet", "pinned", "hogs")


def record_on(tmp, host, name, args, options):
    """Records NAME with the step engine on a host as it is (quiet), with
    the recorder and the program pinned to one core, or beside two CPU
    hogs; the same environment every time, since it is the program's
    input."""
    pin, hogs = None, []
    if host == "pinned":
        core = min(os.sched_getaffinity(0))
        pin = lambda: os.sched_setaffinity(0, {core})  # noqa: E731
    if host == "hogs":
        hogs = [subprocess.Popen(["sh", "-c", "while :; do :; done"]) for _ in range(2)]
    rec = os.path.join(tmp, f"{name}.{host}.{next(RECORDINGS)}.rec")
    try:
        p = subprocess.run([TRMS, "record", "--engine", "step", *options, "-o", rec, "--",
                            os.path.join(PROGRAMS, name), *args],
                           capture_output=True, text=True, preexec_fn=pin)
    finally:
        for h in hogs:
            h.kill()
            h.wait()
    check(p.returncode == 0, f"{name} on a {host} host: exit {p.returncode}: {p.stderr}")
    return rec


def trace_of(rec):
    with open(os.path.join(rec, "events.trms"), "rb") as f:
        return f.read()


def interleaving(rec):
    """How the threads took turns: (thread, events in the turn) per turn."""
    turns = []
    for line in run([TRMS, "export", rec]).stdout.splitlines():
        if line.startswith("thread "):
            turns.append([line.split()[1], 0])
        elif turns and not line.startswith("#"):
            turns[-1][1] += 1
    return [tuple(t) for t in turns]


def case_determinism(tmp):
    """A seed fixes the interleaving, whatever the host does: the same
    event trace on a quiet host, pinned to one core and beside two CPU
    hogs, with nothing counted as coming from outside the program. The
    program's threads compute between synchronizations (a pipe they block
    on, a 30 ms sleep, a child waited for), so seeds whose turn lengths
    differ give different interleavings. And a program on glibc (a mutex
    and condition variable hand-over, all futexes) repeats its trace on
    every host too."""
    runs = {}
    for host in HOSTS:
        for seed in ("0", "7", "8") if host == "quiet" else ("7",):
            rec = record_on(tmp, host, "step_interleave", [], ["--seed", seed, "--quantum", "50"])
            m = meta(rec)
            check(m["seed"] == seed and m["threads"] == "3", f"meta of seed {seed}: {m}")
            check((m["outside-wakes"], m["clock-decided"], m["late-wakes"]) == ("0", "0", "0"),
                  f"seed {seed} on a {host} host: the schedule depended on the host: {m}")
            # The consumer's reads of the empty pipe, the sleep, the joins
            # and the wait for the child block, whatever the host.
            check(int(m["blocked-syscalls"]) >= 4, f"blocked calls: {m['blocked-syscalls']}")
            runs.setdefault(seed, []).append((host, rec))
    quiet = trace_of(runs["7"][0][1])
    for host, rec in runs["7"][1:]:
        check(trace_of(rec) == quiet, f"seed 7: the event traces on a quiet and a {host} "
                                      "host differ")
    turns = {seed: interleaving(recs[0][1]) for seed, recs in runs.items()}
    check(len(turns["7"]) > 20, f"the threads took turns: {len(turns['7'])} turns")
    for a, b in (("0", "7"), ("7", "8"), ("0", "8")):
        check(turns[a] != turns[b], f"seeds {a} and {b} interleave alike: {turns[a][:10]}...")
    glibc = [record_on(tmp, host, "step_threads", ["12"], ["--seed", "7", "--quantum", "150"])
             for host in HOSTS]
    check(all(trace_of(rec) == trace_of(glibc[0]) for rec in glibc[1:]),
          "step_threads, seed 7: the event traces on the three hosts differ")
    check(meta(glibc[0])["threads"] == "2" and len(interleaving(glibc[0])) > 4,
          "step_threads: two threads took turns")


def case_threads(tmp):
    """A mutex and condition variable hand-over: the consumer's input comes
    from the producer thread, and it grows with n."""
    sizes = [4, 8, 16]
    consumed = []
    for n in sizes:
        rec, _ = record(tmp, "step", "step_threads", [str(n)], ["--quantum", "300"])
        rows = activations(rec)
        check(len({r["thread"] for r in rows}) == 2, "two threads")
        consume = of(rows, "consume")
        check(len(consume) == 1, "one consume()")
        consumed.append(consume[0])
        check(len(of(rows, "put")) == n and len(of(rows, "take")) == n, "n puts and takes")
        check(int(meta(rec)["blocked-syscalls"]) > 0, "someone waited on a futex")
    induced = ints(consumed, "induced_thread")
    trms = ints(consumed, "trms")
    check(all(i >= 2 * n for i, n in zip(induced, sizes)), f"induced {induced} < 2n")
    check(all(a < b for a, b in zip(trms, trms[1:])), f"consume TRMS should grow: {trms}")


def case_processes(tmp):
    """A thread blocked in read(2) does not stall the others; a forked child
    is recorded as a process of its own; an exec is followed into the new
    program, a process of its own too (issue 25)."""
    target = os.path.join(PROGRAMS, "step_exec_target")
    rec, p = record(tmp, "step", "step_processes", [target])
    m = meta(rec)
    check(int(m["blocked-syscalls"]) >= 1, "the reader blocked")
    check(m["other-process-threads"] == "0", f"nothing unrecorded: {m['other-process-threads']}")
    check("3 processes recorded" in p.stderr, p.stderr)
    procs = tree_of(rec, 3)
    check([q["via"] for q in procs] == ["start", "fork", "exec"] and procs[2]["parent"] == 1,
          f"{procs}")

    rows = tree_routines(rec, 1)
    check(rows["receive"]["calls"] == 1 and rows["receive"]["thread"] == 2,
          f"receive: {rows.get('receive')}")
    check(rows["child_work"]["calls"] == 1, "child_work() of the parent")
    check(tree_routines(rec, 2)["child_work"]["calls"] == 1, "child_work() of the child")
    check(tree_routines(rec, 3)["after_exec"]["calls"] == 1, "the exec'd program's routine")


# ---- process trees (issue 25): step_tree, a few thousand steps a process ----

STEP_TREE = os.path.join(PROGRAMS, "step_tree")


def tree_record(tmp, args, options=(), expect=0):
    rec = os.path.join(tmp, f"tree.{next(RECORDINGS)}.rec")
    p = run([TRMS, "record", "--engine", "step", *options, "-o", rec, "--", STEP_TREE, *args],
            expect)
    return rec, p


def tree_info(rec):
    return json.loads(run([TRMS, "info", rec, "--format", "json"]).stdout)


def tree_of(rec, n):
    """The tree of N processes in REC's meta, each recording verified."""
    d = tree_info(rec)
    procs = d["processes"]
    check(len(procs) == n, f"{n} processes: {procs}")
    check([q["number"] for q in procs] == list(range(1, n + 1)), f"numbered: {procs}")
    out = run([TRMS, "verify", rec]).stdout
    check(n == 1 or f"{n} processes, each verified" in out, out)
    return procs


def tree_routines(rec, number):
    """Process #NUMBER's routines in the tree's JSON report: name -> row
    (by number: the images of one process share its pid)."""
    d = json.loads(run([TRMS, "report", rec, "--format", "json", "--top", "0"]).stdout)
    mine = [q for q in d["processes"] if q["number"] == number]
    check(len(mine) == 1, f"process #{number} in {[q['number'] for q in d['processes']]}")
    return {r["name"]: r for r in mine[0]["report"]["routines"]}


def case_tree_workers(tmp):
    """A program that forks 4 workers: 5 processes, each with its own
    profile (worker k's sum_worker_part reads (k + 1) * 100 ints) and its
    exit status; info, verify, analyze, report, diff and pack work on it."""
    rec, p = tree_record(tmp, ["workers", "4"])
    check("5 processes recorded" in p.stderr, p.stderr)
    procs = tree_of(rec, 5)
    root = procs[0]
    check([q["via"] for q in procs] == ["start"] + ["fork"] * 4, f"forks: {procs}")
    check(all(q["parent"] == 1 and q["ppid"] == root["pid"] for q in procs[1:]), f"{procs}")
    check(root["end"] == "exit:0", f"the parent's end: {root}")
    # The schedule runs the workers in creation order: worker k is #k+2.
    check([q["end"] for q in procs[1:]] == ["exit:0", "exit:1", "exit:2", "exit:3"],
          f"exit statuses: {procs}")
    rows = tree_routines(rec, 1)
    check("parent_setup" in rows and "sum_worker_part" not in rows, f"the parent: {sorted(rows)}")
    for k, q in enumerate(procs[1:]):
        rows = tree_routines(rec, q["number"])
        check("sum_worker_part" in rows and "parent_setup" not in rows,
              f"worker {k}'s own profile: {sorted(rows)}")
        n = [pt["n"] for pt in rows["sum_worker_part"]["rms_points"]]
        check(n == [(k + 1) * 100], f"worker {k}: RMS {n}")
        sub = meta(os.path.join(rec, q["dir"]))
        check(sub["engine"] == "step" and sub["pid"] == str(q["pid"]) and sub["via"] == "fork",
              f"worker {k}'s meta: {sub}")
    text = run([TRMS, "info", rec]).stdout
    check("5 recorded, 0 left out; the tree:" in text, text)
    run([TRMS, "analyze", rec, "--cell-size", "8"])
    text = run([TRMS, "report", rec, "--top", "3", "--cell-size", "8", "--line-size", "64"]).stdout
    check("processes by cost" in text and text.count("== process #") == 5, text[:1500])
    d = json.loads(run([TRMS, "diff", rec, rec, "--format", "json"]).stdout)
    check(len(d["processes"]) == 5 and not d["only_in_a"] and not d["only_in_b"],
          f"diff matches the tree with itself: {d['processes']}")
    pack = os.path.join(tmp, "tree.trmspack")
    run([TRMS, "pack", rec, "-o", pack])
    back = os.path.join(tmp, "back.rec")
    run([TRMS, "unpack", pack, "-o", back])
    check("5 processes, each verified" in run([TRMS, "verify", back]).stdout, "unpacked tree")


def case_tree_exec(tmp):
    """fork then exec in the child, and vfork then exec, are both followed:
    the exec'd program is a process of its own, after the image it
    replaced; a dynamically linked program exec'd is named as left out."""
    for mode in ("fork-exec", "vfork-exec"):
        rec, _ = tree_record(tmp, [mode, STEP_TREE, "work", "2"])
        procs = tree_of(rec, 3)
        check([q["via"] for q in procs] == ["start", "fork", "exec"], f"{mode}: {procs}")
        child, image = procs[1], procs[2]
        check(child["end"] == "exec" and image["pid"] == child["pid"] and image["parent"] == 2
              and image["end"] == "exit:0", f"{mode}: the child exec'd: {procs}")
        check(image["command"] == f"{STEP_TREE} work 2", f"{mode}: {image['command']}")
        check(meta(os.path.join(rec, child["dir"]))["exec"] == STEP_TREE, f"{mode}: exec key")
        rows = tree_routines(rec, 3)
        n = [pt["n"] for pt in rows["sum_worker_part"]["rms_points"]]
        check(n == [200], f"{mode}: the exec'd program's profile: {n}")
    true = shutil.which("true")
    if true and subprocess.run(["file", "-L", true], capture_output=True,
                               text=True).stdout.find("dynamically") >= 0:
        rec, p = tree_record(tmp, ["fork-exec", true])
        procs = tree_of(rec, 2)
        left = tree_info(rec)["left_out"]
        check([(q["reason"], q["pid"]) for q in left] == [("dynamic", procs[1]["pid"])],
              f"left out: {left}")
        check("dynamic" in p.stderr and "dynamically linked" in run([TRMS, "info", rec]).stdout,
              p.stderr)
    rec, _ = tree_record(tmp, ["fork-exec", STEP_TREE, "work", "1"],
                         ["--exclude", "step_tree"])
    procs = tree_of(rec, 2)
    check([q["reason"] for q in tree_info(rec)["left_out"]] == ["excluded"], "excluded")


def case_tree_shim(tmp):
    """A program that execs a `#!` script whose interpreter (a static
    program) execs the final program: recorded through to it, the exec
    chain in the tree."""
    script = os.path.join(tmp, "shim.sh")
    with open(script, "w") as f:
        f.write(f"#!{STEP_TREE} shim\n")
    os.chmod(script, 0o755)
    rec, _ = tree_record(tmp, ["exec", script, STEP_TREE, "work", "3"])
    procs = tree_of(rec, 3)
    check([(q["via"], q["parent"], q["end"]) for q in procs]
          == [("start", 0, "exec"), ("exec", 1, "exec"), ("exec", 2, "exit:0")], f"{procs}")
    check(len({q["pid"] for q in procs}) == 1, "one process, three programs")
    check(procs[1]["command"] == f"{STEP_TREE} shim {script} {STEP_TREE} work 3",
          f"the interpreter's command line: {procs[1]['command']}")
    check(procs[2]["command"] == f"{STEP_TREE} work 3", procs[2]["command"])
    rows = tree_routines(rec, 3)
    check("sum_worker_part" in rows, f"the final program: {sorted(rows)}")
    # info shows the chain, each program under the one it replaced.
    lines = run([TRMS, "info", rec]).stdout.splitlines()
    indent = [next(len(x) - len(x.lstrip()) for x in lines if x.lstrip().startswith(f"#{k} pid"))
              for k in (1, 2, 3)]
    check(indent[0] < indent[1] < indent[2], f"the exec chain: {indent}")


def case_tree_bound(tmp):
    """More children than --max-processes: the recording stays within the
    bound and says how many ran unrecorded (stepped all the same)."""
    rec, p = tree_record(tmp, ["children", "6"], ["--max-processes", "3"])
    procs = tree_of(rec, 3)
    check(tree_info(rec)["over_limit"] == 4, f"over the limit: {tree_info(rec)}")
    check("4 more ran unrecorded beyond --max-processes" in p.stderr, p.stderr)
    check(os.listdir(os.path.join(rec, "processes")).__len__() == 2, "two sub-recordings")
    check("4 processes ran unrecorded beyond --max-processes" in run([TRMS, "info", rec]).stdout,
          "info says so")
    check(all(q["end"] == "exit:0" for q in procs), f"{procs}")
    rec, _ = tree_record(tmp, ["children", "2"], ["--max-processes", "1"])
    tree_of(rec, 1)
    check(tree_info(rec)["over_limit"] == 2, "the first process alone")


def tree_signature(rec):
    """What must repeat: each process's place in the tree, its end and its
    events, and its event trace, byte for byte (pids aside)."""
    sig = []
    for q in tree_info(rec)["processes"]:
        with open(os.path.join(rec, q["dir"], "events.trms"), "rb") as f:
            trace = f.read()
        sig.append((q["number"], q["parent"], q["via"], q["end"], q["events"], trace))
    return sig


def case_tree_determinism(tmp):
    """One schedule across every thread of every process: the same seed
    gives the same tree, byte for byte, on a quiet host, pinned to one core
    and beside CPU hogs. Writers share a pipe with their parent, whose reads
    (how many, of how many bytes) are the schedule's choice: other seeds
    give other traces."""
    runs = {}
    for host in HOSTS:
        for seed in ("7", "8") if host == "quiet" else ("7",):
            rec = record_on(tmp, host, "step_tree", ["pipe", "3"],
                            ["--seed", seed, "--quantum", "50"])
            m = meta(rec)
            check((m["outside-wakes"], m["clock-decided"], m["late-wakes"]) == ("0", "0", "0"),
                  f"seed {seed} on a {host} host: the schedule depended on the host: {m}")
            runs.setdefault(seed, []).append((host, tree_signature(rec)))
    first = runs["7"][0][1]
    check(len(first) == 4, f"four processes: {[x[:5] for x in first]}")
    for host, sig in runs["7"][1:]:
        check(sig == first, f"seed 7: the trees on a quiet and a {host} host differ: "
                            f"{[x[:5] for x in first]} {[x[:5] for x in sig]}")
    check(runs["8"][0][1][0][5] != first[0][5], "seeds 7 and 8 read the pipe alike")


def tracee_of(recorder):
    """The pid of the program a running `trms record` steps, once it runs."""
    for _ in range(3000):
        for task in os.listdir(f"/proc/{recorder}/task"):
            try:
                with open(f"/proc/{recorder}/task/{task}/children") as f:
                    children = f.read().split()
            except OSError:
                continue
            if children:
                return int(children[0])
        time.sleep(0.01)
    raise Failure("the recorder started no program")


def sleeping_in(tid):
    """Where thread TID sleeps off the processor (/proc's wchan), or None."""
    try:
        with open(f"/proc/{tid}/wchan") as f:
            where = f.read()
        with open(f"/proc/{tid}/stat") as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return None
    return where if state == "S" and where != "0" else None


def engine_waits_for(recorder, program):
    """Whether the step engine has taken PROGRAM's call for blocked: the
    program sleeps in it while a thread of the recorder sleeps in waitpid
    (do_wait) for whatever comes, which it does only when no thread can
    run (while a call is let in, it polls; while it steps, the program
    does not sleep)."""
    if not sleeping_in(program):
        return False
    waiting = any(sleeping_in(int(task)) == "do_wait"
                  for task in os.listdir(f"/proc/{recorder}/task"))
    return waiting and sleeping_in(program) is not None


def await_engine_waits(recorder, program, what):
    """Until the step engine has taken PROGRAM's call for blocked (see
    engine_waits_for), however long a loaded machine takes to get there;
    WHAT names the call for the failure."""
    for _ in range(30000):
        if engine_waits_for(recorder, program):
            return
        time.sleep(0.01)
    raise Failure(f"the program never waited in {what}")


def case_outside(tmp):
    """What only the outside decides is counted and said: a read of
    standard input that waits until the test writes (once the engine has
    taken it for blocked and waits for its program), and a timed futex
    wait that times out."""
    rec = os.path.join(tmp, "outside.rec")
    with subprocess.Popen([TRMS, "record", "-e", "step", "-o", rec, "--",
                           os.path.join(PROGRAMS, "step_outside")],
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True) as p:
        await_engine_waits(p.pid, tracee_of(p.pid), "its read of standard input")
        p.stdin.write("x")
        p.stdin.close()
        err = p.stderr.read()
        check(p.wait() == 0, f"exit {p.returncode}: {err}")
    m = meta(rec)
    check((m["outside-wakes"], m["clock-decided"], m["late-wakes"]) == ("1", "1", "0"),
          f"counted: {m}")
    check("the schedule depended on the host 2 times (1 wait ended from outside the "
          "program, 1 by the clock, 0 late wakes)" in err, err)


def case_crash(tmp):
    rec, p = record(tmp, "step", "step_calls", ["crash"], expect=128 + 11)
    check("killed by signal 11" in p.stderr, p.stderr)
    check(meta(rec)["outcome"] == "killed by signal 11 (Segmentation fault)", "meta outcome")
    rows = activations(rec)
    check(len(of(rows, "walk")) == 9 and len(of(rows, "deep")) == 3, "recorded up to the crash")
    # ^C (SIGINT to the terminal's process group) ends the program, not the
    # recorder: the recording is kept and says how the program ended.
    rec = os.path.join(tmp, "interrupted.rec")
    with subprocess.Popen([TRMS, "record", "-e", "step", "-o", rec, "--",
                           os.path.join(PROGRAMS, "step_calls"), "pause"],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          start_new_session=True) as p:
        # Once the program waits in pause(), which it calls after its walk:
        # a fixed delay was too short on a loaded machine (2 runs in 12).
        await_engine_waits(p.pid, tracee_of(p.pid), "pause()")
        os.killpg(p.pid, signal.SIGINT)
        _, err = p.communicate(timeout=120)
    check(p.returncode == 128 + 2 and "killed by signal 2" in err, f"{p.returncode}: {err}")
    check(meta(rec)["outcome"].startswith("killed by signal 2"), "meta outcome")
    check(len(of(activations(rec), "walk")) == 9, "recorded up to the interrupt")
    # Misuse: one line, the right status, nothing recorded.
    missing = os.path.join(tmp, "missing.rec")
    p = run([TRMS, "record", "-e", "step", "-o", missing, "--", os.path.join(tmp, "nothing")], 127)
    check("no such program" in p.stderr and not os.path.exists(missing), p.stderr)
    p = run([TRMS, "record", "-e", "valgrind", "--seed", "3", "-o", missing, "--", "true"], 2)
    check("options of --engine step" in p.stderr and not os.path.exists(missing), p.stderr)
    p = run([TRMS, "record", "-e", "step", "--quantum", "0", "-o", missing, "--", "true"], 2)
    check("at least 1" in p.stderr and not os.path.exists(missing), p.stderr)


def standin_rr(tmp, name, args, options):
    """Records NAME with the step engine and a capture of rr's view, and
    makes an rr recording of it served by the stand-in rr: (step recording,
    rr recording, environment with the stand-in on PATH)."""
    capture = os.path.join(tmp, f"capture-{name}")
    step, _ = record(tmp, "step", name, args, options + ["--capture-rr", capture])
    size = os.path.getsize(os.path.join(capture, "rerun.raw"))
    check(size % 181 == 0 and size // 181 == int(meta(step)["records"]),
          f"rerun.raw holds {size} bytes for {meta(step)['records']} records")
    rr_rec = os.path.join(tmp, f"{name}.rr.rec")
    os.makedirs(os.path.join(rr_rec, "rr"))
    with open(os.path.join(rr_rec, "meta"), "w") as f:
        f.write("trms-recording 1\nengine rr\nengine-version 5.6.0\n"
                f"program {os.path.join(PROGRAMS, name)}\n")
    bindir = os.path.join(tmp, "bin")
    if not os.path.exists(bindir):
        os.makedirs(bindir)
        standin = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "rr",
                               "standin_rr.sh")
        os.symlink(os.path.abspath(standin), os.path.join(bindir, "rr"))
    env = dict(os.environ, PATH=f"{bindir}:{os.environ['PATH']}", RR_STANDIN=capture)
    return step, rr_rec, env


# One difference, explained: the rr adapter has no program memory (rr's dump
# shows what the kernel wrote, not what it read), so the path that static
# glibc's start-up passes to readlink(2) (in _dl_get_origin) is a kernel read
# of unknown length there: that routine and those above it read the path's
# cells less. Everything else must be identical.
READLINK_PATH = ["_dl_get_origin", "_dl_non_dynamic_init", "__libc_init_first",
                 "__libc_start_main_impl", "<root>"]


def compare_standin(tmp, step, rr_rec, env, cell, images=("#1",)):
    """IMAGES: the step recording's processes the rr recording's one trace
    holds (the first process, then the programs it exec'd)."""
    want = os.path.join(tmp, f"step{cell}.csv")
    got = os.path.join(tmp, f"rr{cell}.csv")
    with open(want, "w") as out:
        for k, image in enumerate(images):
            part = want + f".{k}"
            run([TRMS, "analyze", step, "--cell-size", str(cell), "--process", image,
                 "--activations", part])
            with open(part) as f:
                lines = f.read().splitlines(keepends=True)
            out.writelines(lines if k == 0 else lines[1:])
    p = subprocess.run([TRMS, "analyze", rr_rec, "--cell-size", str(cell), "--activations", got],
                       capture_output=True, text=True, env=env)
    check(p.returncode == 0, f"analyze through the stand-in: {p.stderr}")
    with open(want) as a, open(got) as b:
        mine, theirs = a.read().splitlines(), b.read().splitlines()
    if len(images) > 1:
        # rr's one trace has one <root> per thread across the exec; the
        # step engine one per thread of each program.
        mine = [x for x in mine if x.split(",")[1] != "<root>"]
        theirs = [x for x in theirs if x.split(",")[1] != "<root>"]
    check(len(mine) > 100 and len(mine) == len(theirs),
          f"{len(mine)} activations from the step engine, {len(theirs)} through rr")
    differ = 0
    for x, y in zip(mine, theirs):
        if x == y:
            continue
        a, b = x.split(","), y.split(",")
        check(a[1] in READLINK_PATH and a[:3] == b[:3] and a[5:] == b[5:],
              f"cell {cell}: step {x} != rr {y}")
        path = int(a[3]) - int(b[3])
        check(path > 0 and int(a[4]) - int(b[4]) == path,
              f"cell {cell}: {x} vs {y}: the readlink path's cells should be the difference")
        differ += 1
    check(differ >= len(READLINK_PATH), f"cell {cell}: the readlink difference is gone?")
    return mine


def case_rr_standin(tmp):
    """The rr adapter on a real program's records: the step engine's capture
    of its run (rerun.raw, as `rr rerun --singlestep=... --raw` prints
    records, and dump.txt, as `rr dump -e -m -p` prints frames) served by a
    stand-in `rr` on PATH; `trms analyze` of that "rr recording" must give
    every activation as the step engine's own recording does (one
    difference, explained at READLINK_PATH). Two programs: two threads
    handing values over (clone3, futexes), and one that forks and execs
    another program (whose routines must be named from its own symbols)."""
    step, rr_rec, env = standin_rr(tmp, "step_threads", ["6"], ["--quantum", "250", "--seed", "3"])
    for cell in (1, 4):
        compare_standin(tmp, step, rr_rec, env, cell)
    with open(os.path.join(env["RR_STANDIN"], "calls")) as f:
        calls = f.read()
    check("rerun --singlestep=tid,event,icount,ip,fsbase,gsbase,flags,gp_x16 --raw" in calls,
          f"rr rerun asked as expected: {calls}")
    # The reports name the routines alike and give their tuples alike.
    report = [TRMS, "report", "--format", "csv", "--cell-size", "4", "--line-size", "64"]
    p = subprocess.run(report[:2] + [rr_rec] + report[2:], capture_output=True, text=True, env=env)
    q = run(report[:2] + [step] + report[2:])
    check(p.returncode == 0, p.stderr)

    def own(csv_text):
        return [line for line in csv_text.splitlines()
                if line.split(",")[0] in ("put", "take", "consume", "producer", "main")]

    check(len(own(q.stdout)) >= 10 and own(p.stdout) == own(q.stdout),
          f"the reports differ:\n{own(p.stdout)}\n{own(q.stdout)}")

    target = os.path.join(PROGRAMS, "step_exec_target")
    step, rr_rec, env = standin_rr(tmp, "step_processes", [target], [])
    # The step engine records the exec'd program as process #3 (#2: the
    # forked child, which the rr adapter leaves out).
    rows = compare_standin(tmp, step, rr_rec, env, 4, images=("#1", "#3"))
    check(sum(",after_exec," in r for r in rows) == 1 and sum(",receive," in r for r in rows) == 1,
          "each program's routines named from its own symbols")


def case_tail_call(tmp):
    """A tail-called routine is its caller's child, with its input and
    cost in the caller, in every engine: the step engine, the Valgrind
    engine on the same static binary (the same activations), and the rr
    decoder (the stand-in rr serving the step engine's capture; there the
    start-up's path arguments, which rr's dump does not show, differ, as
    READLINK_PATH says, so only the program's own routines are compared)."""
    step, rr_rec, env = standin_rr(tmp, "tailcall_static", ["20"], [])
    grind, _ = record(tmp, "valgrind", "tailcall_static", ["20"])
    # main is left out of the comparisons: printf's stack buffers sit at
    # other alignments under the two engines (their stacks start apart), a
    # cell more or less of main's input.
    own = ["dispatch", "target_a", "target_b"]
    for cell in (1, 4):
        rows = activations(step, cell)
        check_tail_calls(rows, 20, cell)
        a = by_routine(rows, own)
        b = by_routine(activations(grind, cell), own)
        check(a == b, f"cell {cell}: step {a} != valgrind {b}")
        out = os.path.join(tmp, f"rr{cell}.csv")
        p = subprocess.run([TRMS, "analyze", rr_rec, "--cell-size", str(cell),
                            "--activations", out], capture_output=True, text=True, env=env)
        check(p.returncode == 0, f"analyze through the stand-in: {p.stderr}")
        with open(out) as f:
            rr_rows = list(csv.DictReader(f))
        check_tail_calls(rr_rows, 20, cell)
        b = by_routine(rr_rows, own)
        check(b == a, f"cell {cell}: rr decoder {b} != step engine {a}")
    check(int(meta(step)["tail-calls"]) >= 20, "tail calls counted")


def case_causal(tmp):
    """Sync records from the step engine (issue 26): step_causal starts a
    worker running a() while main runs b() (half as long), both take a
    mutex (lock cmpxchg, xchg), main joins the worker. The records name
    both threads' start and exit, the create with the tid word the join
    waits on, the join's futex wait and its return, the mutex's locks and
    unlocks; `trms causal` builds a model with 2 threads and the edges
    create -> start, unlock -> lock and exit -> join: speeding b up buys
    nothing (main waits for the worker), speeding a up buys up to the
    point where the worker's path is no longer than main's, then stays
    flat (the model grants the mutex in simulated order: where the worker
    starts to arrive first, main's tail no longer overlaps, a dip the
    program has too). Without the sync records there is no model at all (causal
    fails). Blocking calls are recorded with a duration of 0. The rr
    adapter (the stand-in rr serving the capture of the same run) gives
    the same model and curves."""
    rec, rr_rec, env = standin_rr(tmp, "step_causal", [], [])
    sync = [line.split()[1:] for line in run([TRMS, "export", rec]).stdout.splitlines()
            if line.startswith("#@sync ")]
    kinds = [s[0] for s in sync]
    for kind, count in (("start", 2), ("exit", 2), ("create", 1), ("futex_wait", 1),
                        ("futex_resume", 1)):
        check(kinds.count(kind) == count, f"{count} {kind} records: {sync}")
    create = sync[kinds.index("create")]
    check(create[1] == "2" and create[2] == sync[kinds.index("futex_wait")][1],
          f"the create names thread 2 and the word the join waits on: {sync}")
    atomics = [s[2] for s in sync if s[0] == "atomic"]
    check(atomics == ["1", "2", "1", "2"], f"two locks and unlocks of the mutex: {atomics}")
    check(meta(rec)["sync-records"] == str(len(sync)), f"meta sync-records: {meta(rec)}")
    profile = json.loads(run([TRMS, "causal", rec, "--format", "json"]).stdout)
    check(profile["threads"] == 2 and profile["edges"] >= 3,
          f"model: {profile['threads']} threads, {profile['edges']} edges")
    routines = {r["name"]: r for r in profile["routines"]}
    a, b = routines["a"], routines["b"]
    points = [p["program_speedup"] for p in a["points"]]
    print("a:", [round(x, 4) for x in points])
    print("b:", [round(p["program_speedup"], 4) for p in b["points"]])
    check(abs(b["max_program_speedup"]) < 0.005, f"b buys nothing: {b['max_program_speedup']}")
    bound = (a["instructions"] - b["instructions"]) / profile["predicted_time"]
    check(0.2 < a["max_program_speedup"] <= bound + 0.005,
          f"a buys up to {a['max_program_speedup']:.4f}, at most (a - b) / time = {bound:.4f}")
    # While a stays longer than b, main takes the mutex first and the curve
    # rises. Past that, the worker takes it first and main's tail after its
    # critical section (unlock, the join's set-up) no longer overlaps the
    # worker's: the curve may dip there, as the program would.
    longer = [i for i in range(21) if a["instructions"] * (1 - 0.05 * i) > b["instructions"]]
    check(len(longer) >= 8 and
          all(points[i] < points[i + 1] for i in longer[:-1]) and points[10] > points[5] > 0,
          f"a's curve rises while a is longer than b ({len(longer)} points): {points}")
    check(abs(points[-1] - points[15]) < 1e-6, f"a's curve is flat at the end: {points}")
    # The rr adapter, through the stand-in rr serving the step engine's
    # capture of the same run, reads the same records: the same profile.
    p = subprocess.run([TRMS, "causal", rr_rec, "--format", "json"], capture_output=True,
                       text=True, env=env)
    check(p.returncode == 0, f"causal of the rr recording: {p.stderr}")
    through_rr = json.loads(p.stdout)
    for key in ("threads", "edges", "segments", "instructions", "predicted_time"):
        check(through_rr[key] == profile[key], f"rr: {key} {through_rr[key]} != {profile[key]}")
    rr_routines = {r["name"]: r["points"] for r in through_rr["routines"]}
    check(rr_routines.get("a") == a["points"] and rr_routines.get("b") == b["points"],
          f"rr: the curves of a and b differ: {rr_routines.get('a')}")


def case_real_rr(tmp):
    """With rr and hardware counters: the cross-engine programs recorded by
    rr and analyzed by replaying them give the program's own routines the
    same RMS per activation as the step engine. Without them (these
    machines): `record --engine rr` says why in one line, and the test
    skips, saying so."""
    probe = os.path.join(tmp, "probe.rec")
    p = run([TRMS, "record", "--engine", "rr", "-o", probe, "--", "true"], None)
    if p.returncode != 0:
        lines = p.stderr.strip().splitlines()
        check(len(lines) == 1 and "engine rr:" in lines[0] and not os.path.exists(probe),
              f"one line saying why rr cannot record: {p.stderr}")
        print(f"skipped: needs rr with hardware performance counters ({lines[0]})",
              file=sys.stderr)
        return SKIP
    step, _ = record(tmp, "step", "step_calls")
    rr, _ = record(tmp, "rr", "step_calls")
    # The signal handler is named after rt_sigaction's argument, which the
    # rr adapter cannot read (no program memory): it is left out here.
    routines = [r for r in CALLS_ROUTINES if r not in ("on_signal", "main")]
    for cell in (1, 4):
        a = by_routine(activations(step, cell), routines)
        b = by_routine(activations(rr, cell), routines)
        for r in routines:
            check([x[:2] for x in a[r]] == [x[:2] for x in b[r]] and a[r],
                  f"cell {cell}: {r}: step {a[r]} != rr {b[r]}")


CASES = {name[5:]: fn for name, fn in globals().items() if name.startswith("case_")}

if __name__ == "__main__":
    run_case(CASES, "step_e2e.py", "trms-step.", ptrace_forbidden)
