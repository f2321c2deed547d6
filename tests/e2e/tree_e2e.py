#!/usr/bin/env python3
"""End-to-end tests of process trees (issue 25): `trms record` under
Valgrind follows every fork and exec into a recording per process, and
`trms info`, `analyze` and `report` show each one.

    tree_e2e.py CASE      (environment: TRMS, PROGRAMS)

Exit 0 passes, 77 skips (with the reason on stderr), anything else fails."""
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_lib import PROGRAMS, SKIP, TRMS, Failure, check, run, run_case  # noqa: E402

TREE = os.path.join(PROGRAMS, "process_tree")


def record(tmp, args, expect=0, options=(), cwd=None, timeout=None):
    rec = os.path.join(tmp, "tree.rec")
    shutil.rmtree(rec, ignore_errors=True)
    p = run([TRMS, "record", "--engine", "valgrind", "-o", rec, *options, "--", *args], expect,
            cwd=cwd, timeout=timeout)
    return rec, p


def info(rec):
    return json.loads(run([TRMS, "info", rec, "--format", "json"]).stdout)


def report(rec, *options):
    """The tree's JSON report: {pid: (process, rows of its report)}."""
    d = json.loads(run([TRMS, "report", rec, "--format", "json", "--top", "0", *options]).stdout)
    return d


def routines(process):
    return {r["name"]: r for r in process["report"]["routines"]}


def name_of(process):
    return os.path.basename(process["command"].split(" ")[0])


def check_tree(rec, expect_n):
    """The tree in the meta, and each process's recording verified."""
    d = info(rec)
    procs = d["processes"]
    check(len(procs) == expect_n, f"{expect_n} processes: {procs}")
    check([p["number"] for p in procs] == list(range(1, expect_n + 1)), f"numbered: {procs}")
    for p in procs:
        check(p["end"] != "failed", f"recorded: {p}")
        path = rec if p["dir"] == "." else os.path.join(rec, p["dir"])
        run([TRMS, "verify", path])
    text = run([TRMS, "info", rec]).stdout
    check(f"{expect_n} recorded" in text, f"info shows the tree:\n{text}")
    return procs


# ---- cases ----

def case_workers(tmp):
    rec, p = record(tmp, [TREE, "workers", "4"])
    check("5 processes recorded" in p.stderr, p.stderr)
    procs = check_tree(rec, 5)
    check([p["via"] for p in procs] == ["start"] + ["fork"] * 4, f"forks: {procs}")
    root = procs[0]
    check(all(p["parent"] == 1 and p["ppid"] == root["pid"] for p in procs[1:]),
          f"the workers' parent: {procs}")
    # Worker k exits with k, and sums (k + 1) * 1000 values in its own routine.
    ends = sorted(p["end"] for p in procs[1:])
    check(ends == ["exit:0", "exit:1", "exit:2", "exit:3"], f"exit statuses: {ends}")
    d = report(rec)
    by_pid = {p["pid"]: p for p in d["processes"]}
    check(len(by_pid) == 5, f"five reports: {list(by_pid)}")
    check("sum_worker_part" not in routines(by_pid[root["pid"]])
          and "parent_setup" in routines(by_pid[root["pid"]]), "the parent's own profile")
    # Worker k's sum_worker_part reads (k + 1) * 1000 ints: its RMS.
    for p in procs[1:]:
        rows = routines(by_pid[p["pid"]])
        check("sum_worker_part" in rows and "parent_setup" not in rows,
              f"worker {p['pid']}'s own profile: {sorted(rows)[:20]}")
        k = int(p["end"][5:])
        n = [pt["n"] for pt in rows["sum_worker_part"]["rms_points"]]
        check(n == [(k + 1) * 1000], f"worker {k}: RMS {n}")
    text = run([TRMS, "report", rec, "--top", "3"]).stdout
    check("processes by cost" in text and text.count("== process #") == 5, text[:2000])
    # --process selects; analyze runs on every process.
    one = report(rec, "--process", str(procs[2]["pid"]))
    check([p["pid"] for p in one["processes"]] == [procs[2]["pid"]], "--process PID")
    run([TRMS, "analyze", rec, "--cell-size", "8"])
    check(len(report(rec, "--cell-size", "8", "--line-size", "64")["processes"]) == 5,
          "analyze analyzed every process")
    csv_text = run([TRMS, "report", rec, "--format", "csv"]).stdout.splitlines()
    check(csv_text[0].startswith("pid,command,routine,"), csv_text[0])
    check({line.split(",")[0] for line in csv_text[1:]} == {str(p["pid"]) for p in procs},
          "csv rows carry every pid")
    run([TRMS, "report", rec, "--process", "no-such-process"], 1)
    # verify checks the tree in the meta against each process's recording.
    out = run([TRMS, "verify", rec]).stdout
    check(out.count(": ok: ") == 5 and "5 processes, each verified" in out, out)
    bad = os.path.join(tmp, "bad.rec")
    shutil.copytree(rec, bad)
    with open(os.path.join(bad, "meta")) as f:
        text = f.read()
    old = f"process-3 pid={procs[2]['pid']} "
    check(old in text, "the meta's tree")
    with open(os.path.join(bad, "meta"), "w") as f:
        f.write(text.replace(old, f"process-3 pid={procs[2]['pid'] + 100000} "))
    p = run([TRMS, "verify", bad], 1)
    check("the tree in" in p.stderr and p.stderr.count("\n") == 1, p.stderr)
    # pack carries every process, with its results; unpack rebuilds the
    # tree, which verify accepts and reports as the original.
    pack = os.path.join(tmp, "tree.trmspack")
    p = run([TRMS, "pack", rec, "-o", pack])
    check("5 processes" in p.stderr, p.stderr)
    back = os.path.join(tmp, "back.rec")
    p = run([TRMS, "unpack", pack, "-o", back])
    check("5 processes" in p.stderr, p.stderr)
    out = run([TRMS, "verify", back]).stdout
    check(out.count(": ok: ") == 5 and "5 processes, each verified" in out, out)
    check([(q["pid"], q["dir"], q["events"]) for q in info(back)["processes"]]
          == [(q["pid"], q["dir"], q["events"]) for q in procs], "the tree unpacked")
    for fmt in ("json", "csv"):
        a = run([TRMS, "report", rec, "--format", fmt, "--cell-size", "8", "--line-size", "64"])
        b = run([TRMS, "report", back, "--format", fmt, "--cell-size", "8", "--line-size", "64"])
        check(a.stdout.replace(rec, "REC") == b.stdout.replace(back, "REC"),
              f"the unpacked tree reports as the original ({fmt})")
    # A tree whose meta names a process it lacks is not packed whole.
    shutil.rmtree(os.path.join(bad, procs[3]["dir"]))
    run([TRMS, "pack", bad, "-o", os.path.join(tmp, "bad.trmspack")], 1)
    check(not os.path.exists(os.path.join(tmp, "bad.trmspack")), "no archive of a broken tree")
    # Each process's recording still packs on its own.
    sub = os.path.join(rec, procs[1]["dir"])
    run([TRMS, "pack", sub, "-o", os.path.join(tmp, "one.trmspack")])
    run([TRMS, "unpack", os.path.join(tmp, "one.trmspack"), "-o", os.path.join(tmp, "one.rec")])
    run([TRMS, "verify", os.path.join(tmp, "one.rec")])


def case_fork_exec(tmp):
    rec, _ = record(tmp, [TREE, "fork-exec", TREE, "workers", "1"])
    procs = check_tree(rec, 4)
    check([p["via"] for p in procs] == ["start", "fork", "exec", "fork"], f"{procs}")
    check(procs[2]["pid"] == procs[1]["pid"] and procs[2]["parent"] == 2
          and procs[1]["end"] == "exec", f"the child exec'd: {procs}")
    check(procs[3]["parent"] == 3, f"the exec'd program's worker: {procs}")
    d = report(rec, "--process", str(procs[3]["pid"]))
    check("sum_worker_part" in routines(d["processes"][-1]), "the grandchild's profile")


def case_logs(tmp):
    # Each process keeps Valgrind's messages: the first's survive its
    # child's exec (each Valgrind restarts its log), and the exec'd child's
    # are in its own recording.
    rec, _ = record(tmp, [TREE, "say", "first-process-log", TREE, "say", "child-log",
                          "/bin/true"])
    procs = check_tree(rec, 5)
    check([p["via"] for p in procs] == ["start", "fork", "exec", "fork", "exec"], f"{procs}")

    def log_of(p):
        path = os.path.join(rec, p["dir"], "valgrind.log")
        return open(path).read() if os.path.exists(path) else ""
    check("first-process-log" in log_of(procs[0]), f"the first's log: {log_of(procs[0])!r}")
    check("child-log" in log_of(procs[2]) and "first-process-log" not in log_of(procs[2]),
          f"the exec'd child's own log: {log_of(procs[2])!r}")
    check(not os.path.exists(os.path.join(rec, "valgrind-logs")), "no log left behind")
    run([TRMS, "verify", rec])
    # Execs within one pid: each image keeps its own log (the tool moves the
    # pid's log aside before the next Valgrind would truncate it).
    rec, _ = record(tmp, [TREE, "say-exec", "image-one", TREE, "say-exec", "image-two",
                          TREE, "say", "image-three", "/bin/true"])
    procs = check_tree(rec, 5)
    check([p["via"] for p in procs] == ["start", "exec", "exec", "fork", "exec"], f"{procs}")
    for k, word in enumerate(["image-one", "image-two", "image-three"]):
        log = log_of(procs[k])
        check(word in log and all(w not in log for w in ["image-one", "image-two",
                                                          "image-three"] if w != word),
              f"image {k + 1}'s own log: {log!r}")
    check(not os.path.exists(os.path.join(rec, "valgrind-logs")), "no log left behind")


def case_trace_none(tmp):
    # A tree recorded with --trace none: every process keeps its analysis
    # and no trace; info, report and verify work, analyze refuses in one line.
    rec, p = record(tmp, [TREE, "workers", "2"], options=["--trace", "none"])
    procs = check_tree(rec, 3)
    for q in procs:
        path = os.path.join(rec, q["dir"])
        check(not os.path.exists(os.path.join(path, "events.trms")), f"no trace: {path}")
    d = report(rec)
    check(len(d["processes"]) == 3, f"three reports: {[q['pid'] for q in d['processes']]}")
    for q in d["processes"][1:]:
        check("sum_worker_part" in routines(q), f"a worker's profile: {q['pid']}")
    text = run([TRMS, "report", rec, "--top", "3"]).stdout
    check(text.count("== process #") == 3, text[:1500])
    out = run([TRMS, "verify", rec]).stdout
    check(out.count(": ok: ") == 3 and "no event trace kept" in out, out)
    p = run([TRMS, "analyze", rec, "--cell-size", "8"], 1)
    check("--trace none" in p.stderr and p.stderr.count("\n") == 1, p.stderr)
    p = run([TRMS, "pack", rec, "-o", os.path.join(tmp, "none.trmspack")], 1)
    check("--trace none" in p.stderr and p.stderr.count("\n") == 1, p.stderr)


def case_diff(tmp):
    # Two trees of the workers program with 2 and 3 workers: matched by
    # command line, then by program (the roots and the first two workers),
    # each pair diffed; the third worker is named as only in B.
    rec_a, _ = record(tmp, [TREE, "workers", "2"])
    a = os.path.join(tmp, "a.rec")
    os.rename(rec_a, a)
    b, _ = record(tmp, [TREE, "workers", "3"])
    pa, pb = info(a)["processes"], info(b)["processes"]
    d = json.loads(run([TRMS, "diff", a, b, "--format", "json"]).stdout)
    check([(m["a"]["pid"], m["b"]["pid"]) for m in d["processes"]]
          == [(pa[i]["pid"], pb[i]["pid"]) for i in range(3)], f"matched: {d['processes']}")
    check(all("routines" in m["diff"] or m["diff"] for m in d["processes"]), "each pair diffed")
    check(d["only_in_a"] == [] and [q["pid"] for q in d["only_in_b"]] == [pb[3]["pid"]],
          f"only in B: {d['only_in_b']}")
    text = run([TRMS, "diff", a, b]).stdout
    check(text.count("== process #") == 3 and f"only in {b}: process #4 (pid {pb[3]['pid']})"
          in text, text[:2000])
    # Processes of one tree only, the other way round.
    d = json.loads(run([TRMS, "diff", b, a, "--format", "json"]).stdout)
    check([q["pid"] for q in d["only_in_a"]] == [pb[3]["pid"]] and d["only_in_b"] == [],
          f"only in A: {d['only_in_a']}")


def case_html(tmp):
    # The HTML report of a tree: every process's section, each holding its
    # own report, and a selector naming every process.
    rec, _ = record(tmp, [TREE, "workers", "3"])
    procs = check_tree(rec, 4)
    page = run([TRMS, "report", rec, "--format", "html"]).stdout
    check(page.count("<section class=\"process\"") == 4, "four sections")
    for q in procs:
        check(f'<section class="process" id="p-{q["number"]}" data-pid="{q["pid"]}">' in page
              and f'<option value="p-{q["number"]}"' in page
              and f'href="#p-{q["number"]}"' in page, f"process {q['pid']} in the page")
    check(page.count("srcdoc=") == 4 and page.count("sum_worker_part") >= 3,
          "each worker's own report")
    check('<select id="process">' in page and page.rstrip().endswith("</html>"), page[-300:])
    one = run([TRMS, "report", rec, "--format", "html", "--process", str(procs[1]["pid"])]).stdout
    check(one.count("<section class=\"process\"") == 1, "--process selects one section")


def case_vfork_exec(tmp):
    rec, _ = record(tmp, [TREE, "vfork-exec", "/bin/echo", "from the child"])
    procs = check_tree(rec, 3)
    check([p["via"] for p in procs] == ["start", "fork", "exec"], f"vfork is a fork: {procs}")
    check(procs[2]["command"].endswith("echo 'from the child'") and procs[2]["end"] == "exit:0",
          f"echo followed: {procs}")


def record_sort_xz(tmp):
    """`sort f | xz -c > out.xz` recorded in TMP, f 3000 numbers (SKIP
    without sort or xz); returns the recording."""
    for tool in ("sort", "xz"):
        if not shutil.which(tool):
            print(f"{tool} is not installed", file=sys.stderr)
            sys.exit(SKIP)
    with open(os.path.join(tmp, "f"), "w") as f:
        for i in range(3000):
            f.write(f"{(i * 7919) % 3001}\n")
    rec, _ = record(tmp, ["sh", "-c", "sort f | xz -c > out.xz"], cwd=tmp)
    return rec


def case_pipeline(tmp):
    rec = record_sort_xz(tmp)
    out = subprocess.run(["xz", "-dc", os.path.join(tmp, "out.xz")], capture_output=True,
                         text=True).stdout
    with open(os.path.join(tmp, "f")) as f:
        check(out == "".join(sorted(f, key=str)), "sort | xz gave the right output")
    procs = check_tree(rec, 5)
    names = [name_of(p) for p in procs if p["via"] != "fork"]
    check(sorted(names[1:]) == ["sort", "xz"], f"sort and xz exec'd: {names}")
    d = report(rec)
    seen = set()
    for p in d["processes"]:
        name = name_of(p)
        if name in ("sort", "xz"):
            seen.add(name)
            modules = {os.path.basename(r.get("module") or "") for r in p["report"]["routines"]}
            own = {"sort": {"sort"}, "xz": {"xz", "liblzma.so.5"}}[name]
            check(any(m.startswith(tuple(own)) for m in modules),
                  f"{name}'s own code in its report: {modules}")
    check(seen == {"sort", "xz"}, f"reports of sort and xz: {seen}")
    text = run([TRMS, "report", rec, "--top", "2"]).stdout
    check("sort" in text and "xz" in text, text[:1500])


def pipe_parts(processes, mode):
    """The processes of pipe_parts run in MODE (produce, consume...)."""
    return [p for p in processes if name_of(p) == "pipe_parts" and f" {mode} " in p["command"]]


def consumer_row(d):
    """The consumer process of a JSON tree report, and its consume_input row."""
    for p in pipe_parts(d["processes"], "consume"):
        return p, routines(p)["consume_input"]
    raise Failure(f"no consumer in {[p['command'] for p in d['processes']]}")


def case_pipe_input(tmp):
    """Item 4: the consumer's input from the producer's pipe is attributed
    to the producer's pid; from a regular file it is external."""
    parts = os.path.join(PROGRAMS, "pipe_parts")
    n = 3000
    rec, _ = record(tmp, ["sh", "-c", f"{parts} produce {n} | {parts} consume {n}"])
    procs = check_tree(rec, 5)
    producer = pipe_parts(procs, "produce")
    check(len(producer) == 1, f"one producer: {procs}")
    d = report(rec)
    consumer, row = consumer_row(d)
    cells = n // consumer["report"]["cell_size"]
    check(row["induced_external"] == cells, f"{cells} cells of kernel input: {row}")
    check(row["induced_process"] == cells, f"all {cells} from the producer: {row}")
    check(row["input_from"] and row["input_from"]["pid"] == producer[0]["pid"],
          f"from the producer's pid {producer[0]['pid']}: {row}")
    # The split sums to the external count; rows without a source have none.
    for p in d["processes"]:
        for r in p["report"]["routines"]:
            check(0 <= r["induced_process"] <= r["induced_external"], f"split within: {r}")
            check((r["input_from"] is None) == (r["induced_process"] == 0), f"named: {r}")
    text = run([TRMS, "report", rec, "--process", str(consumer["pid"])]).stdout
    check(f"{cells} of {cells} from process {producer[0]['pid']}" in text, text[-2500:])
    html = run([TRMS, "report", rec, "--format", "html"]).stdout
    check(f"{cells} of them from process {producer[0]['pid']}, " in html.replace("&quot;", '"'),
          "the HTML names the producer")
    csv = run([TRMS, "report", rec, "--format", "csv"]).stdout.splitlines()
    header = csv[0].split(",")
    check(header[-3:] == ["induced_external", "induced_process", "from_pid"], header)
    lines = [l for l in csv if l.split(",")[2] == "consume_input"]
    check(lines and all(l.endswith(f",{cells},{cells},{producer[0]['pid']}") for l in lines),
          lines[:3])
    # `trms analyze` reads the channels back from the traces: with 1-byte
    # cells, every byte the consumer read.
    run([TRMS, "analyze", rec, "--cell-size", "1"])
    _, row = consumer_row(report(rec, "--cell-size", "1", "--line-size", "64"))
    check(row["induced_external"] == n and row["induced_process"] == n and
          row["input_from"]["pid"] == producer[0]["pid"], f"reanalyzed, byte cells: {row}")
    # The same program reading a regular file: external input, no process.
    data = os.path.join(tmp, "data")
    with open(data, "w") as f:
        f.write("y" * n)
    rec, _ = record(tmp, ["sh", "-c", f"{parts} consume {n} < {data}"])
    _, row = consumer_row(report(rec, "--process", "pipe_parts"))
    check(row["induced_external"] == cells and row["induced_process"] == 0 and
          row["input_from"] is None, f"a file's bytes are external: {row}")
    # Descriptor 0 a regular file first (dup2), then the producer's pipe
    # again: the recorder's answer about descriptor 0 must not outlive the
    # dup2s (it keeps one per descriptor while no call can change them).
    rec, _ = record(tmp, ["sh", "-c",
                          f"{parts} produce {n} | {parts} file-then-consume {n} 3< {data}"])
    d = report(rec)
    producer = pipe_parts(d["processes"], "produce")
    both = pipe_parts(d["processes"], "file-then-consume")
    check(len(producer) == 1 and len(both) == 1,
          f"a producer and a consumer: {[p['command'] for p in d['processes']]}")
    rows = routines(both[0])
    from_file, from_pipe = rows["consume_file"], rows["consume_input"]
    check(from_file["induced_external"] == cells and from_file["induced_process"] == 0 and
          from_file["input_from"] is None, f"the file's bytes are external: {from_file}")
    check(from_pipe["induced_external"] == cells and from_pipe["induced_process"] == cells and
          from_pipe["input_from"]["pid"] == producer[0]["pid"],
          f"then the pipe's, the producer's: {from_pipe}")


def case_pipe_sort_xz(tmp):
    """Item 4 on real programs: xz's input comes from sort."""
    rec = record_sort_xz(tmp)
    procs = check_tree(rec, 5)
    sort_pid = [p["pid"] for p in procs if name_of(p) == "sort"][0]
    d = report(rec)
    xz = [p for p in d["processes"] if name_of(p) == "xz"][0]
    from_sort = [r for r in xz["report"]["routines"]
                 if r["input_from"] and r["input_from"]["pid"] == sort_pid]
    check(from_sort, f"xz's routines with input from sort ({sort_pid}): "
                     f"{[(r['name'], r['induced_process'], r['input_from']) for r in xz['report']['routines'] if r['induced_process']]}")
    root = [r for r in xz["report"]["routines"] if r["name"] == "<root>"]
    check(root and root[0]["induced_process"] > 0, f"xz's root has input from sort: {root}")


def case_shim(tmp):
    # A two-level shim (as pyenv's): a `#!/usr/bin/env sh` script that
    # execs a `#!/bin/sh` script that execs the real program.
    inner = os.path.join(tmp, "inner.sh")
    outer = os.path.join(tmp, "outer.sh")
    with open(inner, "w") as f:
        f.write(f"#!/bin/sh\nexec {TREE} workers 1\n")
    with open(outer, "w") as f:
        f.write(f"#!/usr/bin/env sh\nexec {inner} \"$@\"\n")
    os.chmod(inner, 0o755)
    os.chmod(outer, 0o755)
    rec, _ = record(tmp, [outer])
    procs = check_tree(rec, 5)
    check([p["via"] for p in procs] == ["start", "exec", "exec", "exec", "fork"], f"{procs}")
    # A script's image is named by the script (its interpreter runs it):
    # outer.sh (env), sh outer.sh (what env exec'd), inner.sh (sh).
    check([name_of(p) for p in procs[:3]] == ["outer.sh", "sh", "inner.sh"], f"the chain: {procs}")
    modules = {os.path.basename(r.get("module") or "")
               for r in report(rec, "--process", "outer.sh")["processes"][0]["report"]["routines"]}
    check("env" in modules, f"the first image ran env: {modules}")
    check(procs[3]["command"].startswith(TREE), f"recorded through to the program: {procs}")
    check(all(p["pid"] == procs[0]["pid"] for p in procs[:4]), "one process, four images")
    d = report(rec, "--process", "process_tree")
    check(any("sum_worker_part" in routines(p) for p in d["processes"]), "its profile")


def case_nested_forks(tmp):
    # Forks within forked children, as a shell's command substitutions in a
    # subshell (and pyenv's shims) make: six generations of sh. Each
    # child's own fork asks `trms record` for its ring; the descriptors it
    # held for that filled the few Valgrind keeps for itself, and Valgrind
    # stopped the grandchild on an assertion (the command, and with it
    # `trms record`, then failed).
    script = "( a=$(b=$(c=$(d=$(echo 1); echo $d$d); echo $c); echo $b); echo $a )"
    rec, p = record(tmp, ["/bin/sh", "-c", script])
    check(p.stdout == "11\n", f"the command's output: {p.stdout!r}")
    procs = check_tree(rec, 6)
    check([p["via"] for p in procs] == ["start"] + ["fork"] * 5, f"{procs}")
    check([p["parent"] for p in procs] == [0, 1, 2, 3, 4, 5], f"each the child of the one before: {procs}")
    check(all(p["end"] == "exit:0" for p in procs), f"each exits 0: {procs}")


def case_failed_fork(tmp):
    # A fork the kernel refuses (after Valgrind's before-fork hook asked
    # for the child's ring; no after-fork hook runs), then one that works.
    # The refused fork's ring stayed open in the program's descriptors and
    # `trms record` had not returned after 120 s (before 01664f1); now the
    # next fork closes it first.
    rec, p = record(tmp, [os.path.join(PROGRAMS, "failed_fork")], timeout=120)
    check(p.stdout == "clone: Invalid argument\nfork: child exited 7\ndescriptors: as before\n",
          f"the program's output: {p.stdout!r}")
    procs = check_tree(rec, 2)
    check([(q["via"], q["end"]) for q in procs] == [("start", "exit:0"), ("fork", "exit:7")],
          f"the program and its one child: {procs}")


def case_max_processes(tmp):
    rec, p = record(tmp, [TREE, "children", "6"], options=["--max-processes", "3"])
    check("4 more ran unrecorded beyond --max-processes" in p.stderr, p.stderr)
    check_tree(rec, 3)
    d = info(rec)
    check(d["over_limit"] == 4, f"counted: {d['over_limit']}")
    text = run([TRMS, "info", rec]).stdout
    check("4 processes ran unrecorded beyond --max-processes" in text, text)
    run([TRMS, "record", "-o", os.path.join(tmp, "x.rec"), "--max-processes", "0", "--", TREE,
         "children", "1"], 2)


def case_exclude(tmp):
    rec, p = record(tmp, [TREE, "fork-exec", "/bin/echo", "hi"],
                    options=["--exclude", "*/echo"])
    procs = check_tree(rec, 2)
    d = info(rec)
    check(len(d["left_out"]) == 1 and d["left_out"][0]["reason"] == "excluded"
          and d["left_out"][0]["command"] == "/bin/echo", f"left out: {d['left_out']}")
    check("/bin/echo (pid" in p.stderr and "excluded" in p.stderr, p.stderr)
    text = run([TRMS, "report", rec]).stdout
    check("not recorded: /bin/echo" in text, text[:1500])


def case_setuid(tmp):
    # Valgrind cannot run a setuid program: it runs natively, named as left out.
    su = shutil.which("su")
    if not su or not os.stat(su).st_mode & 0o4000:
        print("no setuid su here", file=sys.stderr)
        sys.exit(SKIP)
    rec, p = record(tmp, [TREE, "fork-exec", su, "--help"])
    check_tree(rec, 2)
    d = info(rec)
    check([(l["reason"], l["command"]) for l in d["left_out"]] == [("setuid", su)],
          f"su left out as setuid: {d['left_out']}")
    check(f"{su} (pid" in p.stderr and "setuid" in p.stderr, p.stderr)
    text = run([TRMS, "info", rec]).stdout
    check("a setuid or setgid program, which Valgrind cannot follow" in text, text)


def case_stop(tmp):
    # SIGTERM to trms reaches every process of the tree, not only the
    # first: two children paused, the parent waiting for them.
    rec = os.path.join(tmp, "stop.rec")
    p = subprocess.Popen([TRMS, "record", "--engine", "valgrind", "-o", rec, "--", TREE,
                          "pause", "2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    ready = [p.stdout.readline() for _ in range(2)]
    check(sorted(ready) == ["ready 0\n", "ready 1\n"], f"children ready: {ready}")
    p.send_signal(15)
    out, err = p.communicate(timeout=120)
    check(p.returncode == 128 + 15, f"exit {p.returncode}: {err}")
    procs = check_tree(rec, 3)
    check(info(rec)["meta"]["complete"] == "no" and "stopped by SIGTERM" in err, err)
    check(all(q["end"] in ("died", "signal:15") for q in procs), f"all stopped: {procs}")


def case_window(tmp):
    # `trms control` turns the window of every process of the tree: a
    # parent, a forked child and a child's exec'd image each run
    # phase_before (collection off from the start), then wait on FIFO1
    # until `trms control on` has returned, run phase_inside, wait on
    # FIFO2 until `trms control off` has returned, and run phase_after.
    rec = os.path.join(tmp, "window.rec")
    fifos = [os.path.join(tmp, f"fifo{k}") for k in (1, 2)]
    for f in fifos:
        os.mkfifo(f)
    p = subprocess.Popen([TRMS, "record", "--engine", "valgrind", "-o", rec,
                          "--collect-at-start=no", "--", TREE, "window", "2", *fifos],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        for word, turn, fifo in (("ready", "on", fifos[0]), ("inside", "off", fifos[1])):
            said = [p.stdout.readline() for _ in range(3)]
            check(said == [word + "\n"] * 3, f"three processes say {word}: {said}")
            run([TRMS, "control", rec, turn])
            with open(fifo, "w") as f:  # the processes hold it open: no wait
                f.write("xxx")
        out, err = p.communicate(timeout=240)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    check(p.returncode == 0, f"exit {p.returncode}: {err}")
    procs = check_tree(rec, 4)
    # (the exec and the second fork race)
    check(sorted(q["via"] for q in procs) == ["exec", "fork", "fork", "start"], f"{procs}")
    phased = [q for q in procs if q["end"] != "exec"]
    check(len(phased) == 3, f"three processes ran the phases: {procs}")
    d = report(rec)
    by_number = {q["number"]: q for q in d["processes"]}
    for q in phased:
        rows = routines(by_number[q["number"]])
        check("phase_inside" in rows, f"process #{q['number']} kept its window: {sorted(rows)}")
        for outside in ("phase_before", "phase_after", "parent_setup"):
            check(outside not in rows,
                  f"process #{q['number']} left out {outside}: {sorted(rows)}")
    # Each process says what it left out.
    for q in procs:
        with open(os.path.join(rec, q["dir"], "meta")) as f:
            meta = f.read()
        check("left-out-events" in meta, f"process #{q['number']}'s meta: {meta}")


def case_make(tmp):
    # make on a two-file project: make, the compiler driver, cc1, as and ld.
    for tool in ("make", "cc"):
        if not shutil.which(tool):
            print(f"{tool} is not installed", file=sys.stderr)
            sys.exit(SKIP)
    with open(os.path.join(tmp, "a.c"), "w") as f:
        f.write("int f(int x);\nint main(void) { return f(2) - 4; }\n")
    with open(os.path.join(tmp, "b.c"), "w") as f:
        f.write("int f(int x) { return x * 2; }\n")
    with open(os.path.join(tmp, "Makefile"), "w") as f:
        f.write("prog: a.o b.o\n\tcc -o prog a.o b.o\n%.o: %.c\n\tcc -c -o $@ $<\n")
    rec, p = record(tmp, ["make"], cwd=tmp)
    run([os.path.join(tmp, "prog")], 0)
    d = info(rec)
    names = [name_of(p) for p in d["processes"]]
    for name in ("make", "cc", "cc1", "as", "ld"):
        check(name in names, f"{name} recorded: {names}")
    check(names.count("cc1") == 2 and names.count("as") == 2, f"one cc1 and as per file: {names}")
    check(d["left_out"] == [] and d["over_limit"] == 0, f"nothing left out: {d['left_out']}")
    # Every image after the first came from a recorded one, in order.
    check(all(0 < p["parent"] < p["number"] for p in d["processes"][1:]), "a tree")
    r = report(rec, "--process", "cc1", "--top", "5")
    check(len(r["processes"]) == 2, "--process NAME selects both cc1")


CASES = {name[5:]: fn for name, fn in globals().items() if name.startswith("case_")}

if __name__ == "__main__":
    run_case(CASES, "tree_e2e.py", "trms-tree.",
             lambda: None if shutil.which("valgrind") else "valgrind is not installed")
