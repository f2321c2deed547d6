#!/usr/bin/env python3
"""End-to-end tests of `trms explore` and the step engine's PCT schedule on
the memory-distance paper's examples (Li, Chang, Yang, Carr: Tables 2-4),
small static programs without libc (tests/programs/step/tiny_threads.h) so
that hundreds of runs stay cheap, checked against every interleaving
enumerated here; and of rr's chaos mode through the stand-in rr.

    explore_e2e.py CASE      (environment: TRMS, PROGRAMS)

Exit 0 passes, 77 skips (with the reason on stderr), anything else fails."""
import csv
import itertools
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_lib import PROGRAMS, TRMS, Failure, check, ptrace_forbidden, run, run_case  # noqa: E402
from record_e2e import meta  # noqa: E402

# The paper's threads, as the programs make them (tests/programs/step/).
TABLE2 = ["A B C A C C B A".split(), "C B A C B B A C".split()]
TABLE4 = [["A", "A"], ["B", "A"], ["C", "A"], ["D", "A"]]
# Table 3's interleavings (its thread labels aside) and their distances.
TABLE3 = ["C B A C B B A C A B C A C C B A", "C B A C A B C A C C B A C B B A",
          "A B C C B A C A C C B A C B B A", "A C B B C A C A C C B C B A B A",
          "A C B B C A C A C C C B B B A A", "C B A B A C C A B B C C A C B A",
          "C A B B A C A C B B C A C C B A"]


def distances(seq):
    """Each variable's reuse distances over SEQ (the paper's Table 1)."""
    out = {}
    for i, x in enumerate(seq):
        for j in range(i - 1, -1, -1):
            if seq[j] == x:
                out.setdefault(x, []).append(len(set(seq[j + 1:i])))
                break
    return out


def interleavings(threads):
    """Every interleaving of THREADS (lists of accesses), with the thread of
    each access."""
    def go(pos, seq):
        if all(p == len(t) for p, t in zip(pos, threads)):
            yield list(seq)
            return
        for i, t in enumerate(threads):
            if pos[i] < len(t):
                pos[i] += 1
                seq.append((i, t[pos[i] - 1]))
                yield from go(pos, seq)
                seq.pop()
                pos[i] -= 1
    yield from go([0] * len(threads), [])


def exhaustive(threads):
    """Per variable: every distance any interleaving gives, and every range
    (min, max) of one interleaving."""
    seen, ranges = {}, {}
    for il in interleavings(threads):
        for v, ds in distances([x for _, x in il]).items():
            seen.setdefault(v, set()).update(ds)
            ranges.setdefault(v, set()).add((min(ds), max(ds)))
    return seen, ranges


def explore(tmp, program, n, options=(), name="x", env=None):
    """`trms explore` of PROGRAM; its JSON report and stderr."""
    directory = os.path.join(tmp, name)
    out = os.path.join(tmp, name + ".json")
    args = [TRMS, "explore", "-n", str(n), *options, "--directory", directory, "--format", "json",
            "-o", out, "--", os.path.join(PROGRAMS, program)]
    p = subprocess.run(args, capture_output=True, text=True, env=env)
    if p.returncode != 0:
        raise Failure(f"{' '.join(args)}: exit {p.returncode}\n{p.stderr}")
    with open(out) as f:
        report = json.load(f)
    with open(os.path.join(directory, "explore.json")) as f:
        check(json.load(f) == report, "explore.json beside the recordings is the report")
    return report, p.stderr


def reanalyze(recording, objects, env=None):
    """`trms explore REC`: the one recording analyzed again, by object name."""
    args = [TRMS, "explore", recording, "--format", "json"]
    for o in objects:
        args += ["--object", o]
    p = subprocess.run(args, capture_output=True, text=True, env=env)
    if p.returncode != 0:
        raise Failure(f"{' '.join(args)}: exit {p.returncode}\n{p.stderr}")
    return {o["name"]: o for o in json.loads(p.stdout)["objects"]}


def check_objects_reproduce(report, names, env=None):
    """Every object extreme, range and distance names a kept recording, and
    analyzing that recording again gives it."""
    cache = {}

    def again(rec):
        check(os.path.isdir(rec), f"{rec} is named by the report but gone")
        if rec not in cache:
            cache[rec] = reanalyze(rec, names, env)
        return cache[rec]

    for o in report["objects"]:
        if o["min"] is None:
            continue
        mine = again(o["min"]["recording"])[o["name"]]
        check(mine["min"]["value"] == o["min"]["value"],
              f"{o['name']}: min {o['min']} not reproduced: {mine['min']}")
        mine = again(o["max"]["recording"])[o["name"]]
        check(mine["max"]["value"] == o["max"]["value"],
              f"{o['name']}: max {o['max']} not reproduced: {mine['max']}")
        for r in o["ranges"]:
            mine = again(r["recording"])[o["name"]]
            check((mine["min"]["value"], mine["max"]["value"]) == (r["min"], r["max"]),
                  f"{o['name']}: range {r} not reproduced")
        for d in o["distances"]:
            mine = again(d["recording"])[o["name"]]
            check(any(x["distance"] == d["distance"] for x in mine["distances"]),
                  f"{o['name']}: distance {d} not reproduced")


def activations(rec, env=None):
    out = rec + ".act.csv"
    p = subprocess.run([TRMS, "analyze", rec, "--activations", out], capture_output=True,
                       text=True, env=env)
    check(p.returncode == 0, f"analyze {rec}: {p.stderr}")
    with open(out) as f:
        return list(csv.DictReader(f))


def check_routines_reproduce(report, routines, env=None):
    """The TRMS and thread-induced extremes of ROUTINES, each found again by
    `trms analyze` of the recording the report names (an activation of the
    routine with that RMS and that TRMS or thread-induced input), and
    `trms report` of it shows the TRMS."""
    checked = 0
    for r in report["routines"]:
        if r["name"] not in routines:
            continue
        for p in r["points"]:
            for key, column in (("trms_min", "trms"), ("trms_max", "trms"),
                                ("thread_induced_min", "induced_thread"),
                                ("thread_induced_max", "induced_thread")):
                e = p[key]
                rows = [a for a in activations(e["recording"], env)
                        if a["routine"] == r["name"] and int(a["rms"]) == p["rms"]]
                check(any(int(a[column]) == e["value"] for a in rows),
                      f"{r['name']} RMS {p['rms']}: {key} {e} not in {e['recording']}: {rows}")
                checked += 1
            rep = subprocess.run([TRMS, "report", p["trms_max"]["recording"], "--routine",
                                  r["name"], "--format", "json"], capture_output=True, text=True,
                                 env=env)
            check(rep.returncode == 0, rep.stderr)
            ns = [q["n"] for x in json.loads(rep.stdout)["routines"] if x["name"] == r["name"]
                  for q in x["trms_points"]]
            check(p["trms_max"]["value"] in ns,
                  f"trms report {p['trms_max']['recording']}: {r['name']} TRMS points {ns}")
    check(checked >= 4 * len(routines), f"{checked} routine extremes checked")


def trms_of_thread1(il):
    """Thread 1's TRMS and thread-induced input in interleaving IL (thread 1
    reads, thread 2 writes): a read counts when it is thread 1's first access
    to the variable or thread 2 wrote it since; induced when thread 2 wrote it
    since thread 1's last access (or ever, before a first access)."""
    last_own, last_write, trms, induced = {}, {}, 0, 0
    for step, (t, v) in enumerate(il):
        if t == 1:
            last_write[v] = step
            continue
        first = v not in last_own
        other = v in last_write and (first or last_write[v] > last_own[v])
        trms += first or other
        induced += other
        last_own[v] = step
    return trms, induced


# ---- cases ----

def case_two_threads(tmp):
    """Tables 2-3: `explore` (PCT depth 3) finds, for A, B and C, the
    distance range Table 3 shows (0 to 2) and every distance in it, which is
    also the range over all 12,870 interleavings; every range one run gave
    is one some interleaving gives; thread 1's TRMS and thread-induced input
    range over values some interleaving gives, from their least; and each
    extreme is reproduced by analyzing the recording it names."""
    report, err = explore(tmp, "paper_two_threads", 40, ["--object", "A", "--object", "B",
                                                         "--object", "C"])
    seen, ranges = exhaustive(TABLE2)
    table3 = {}
    for row in TABLE3:
        for v, ds in distances(row.split()).items():
            table3.setdefault(v, set()).update(ds)
    objects = {o["name"]: o for o in report["objects"]}
    check(sorted(objects) == ["A", "B", "C"], f"objects {sorted(objects)}")
    for v in "ABC":
        o = objects[v]
        found = {d["distance"] for d in o["distances"]}
        check((o["min"]["value"], o["max"]["value"]) == (min(table3[v]), max(table3[v])) ==
              (min(seen[v]), max(seen[v])),
              f"{v}: explore found [{o['min']['value']}, {o['max']['value']}], Table 3 "
              f"{sorted(table3[v])}, all interleavings {sorted(seen[v])}")
        check(found == table3[v] == seen[v], f"{v}: distances {found}, Table 3 {table3[v]}")
        for r in o["ranges"]:
            check((r["min"], r["max"]) in ranges[v], f"{v}: range {r} no interleaving gives")
        check(o["accesses"] == 41 * sum(t.count(v) for t in TABLE2) and o["runs"] == 41 and
              o["accesses_per_run"] == sum(t.count(v) for t in TABLE2),
              f"{v}: {o['accesses']} accesses in {o['runs']} runs, {o['accesses_per_run']} a run")
    check(len(report["runs"]) == 41 and report["schedule"] == "pct" and report["depth"] == 3,
          "41 runs of PCT depth 3")
    for i, r in enumerate(report["runs"]):
        check(r["seed"] == i and r["stream"] == 16 and r["threads"] == 3, f"run {r}")
        check(f"run {i}/40, seed {i}:" in err or i == 0, f"run {i} said on stderr: {err}")
    check(re.search(r"a run takes [0-9.]+ s .*; 40 more runs: about", err), err)
    # Thread 1 reads A, B and C: RMS 3; TRMS and induced input by interleaving.
    values = {trms_of_thread1(il) for il in interleavings(TABLE2)}
    t1 = [r for r in report["routines"] if r["name"] == "thread1"][0]["points"]
    check(len(t1) == 1 and t1[0]["rms"] == 3 and t1[0]["depends_on_schedule"], f"thread1 {t1}")
    p = t1[0]
    check(p["trms_min"]["value"] == min(t for t, _ in values) and
          p["trms_max"]["value"] <= max(t for t, _ in values) and
          p["trms_max"]["value"] > p["trms_min"]["value"], f"thread1 TRMS {p}, {values}")
    check(p["thread_induced_min"]["value"] == min(i for _, i in values) and
          p["thread_induced_max"]["value"] <= max(i for _, i in values) and
          p["thread_induced_max"]["value"] > p["thread_induced_min"]["value"],
          f"thread1 induced {p}")
    check_objects_reproduce(report, ["A", "B", "C"])
    check_routines_reproduce(report, ["thread1", "thread2"])
    # All memory: the program's variables, and the memory between them
    # (the main thread's stack is <anonymous>): every load and store is in
    # the stream, once per 64-byte location it touches.
    every, _ = explore(tmp, "paper_two_threads", 2, ["--objects", "all"], "all")
    names = {o["name"] for o in every["objects"]}
    check({"A", "B", "C", "arrived", "workers", "<anonymous>"} <= names, f"objects {names}")
    for r in every["runs"]:
        lines = run([TRMS, "export", r["recording"]]).stdout.splitlines()
        accesses = [line.split() for line in lines if line.startswith(("read ", "write "))]
        units = sum(1 + (int(a, 0) + int(n) - 1) // 64 - int(a, 0) // 64 for _, a, n in accesses)
        check(len(accesses) <= r["stream"] <= units, f"stream {r['stream']}, {len(accesses)} "
              f"accesses, {units} lines")


def case_four_threads(tmp):
    """Table 4, the stream restricted to its four globals: PCT depth 3 finds
    A's distance 3 within the number of runs its bound promises, 1/(n k^2)
    with n threads and k counted events (both measured by the first run);
    nothing outside the distances some interleaving gives; the seed repeats
    its run byte for byte, alone as inside explore; --keep extremes keeps
    the recordings the report names and only those."""
    names = ["A", "B", "C", "D"]
    opts = [x for v in names for x in ("--object", v)]
    first, _ = explore(tmp, "paper_four_threads", 1, opts, "probe")
    k, n = first["k"], first["threads"]
    bound = int(first["pct_bound_runs"])
    check(bound == n * k * k and 2 <= k <= 8 and n == 5, f"n {n}, k {k}, bound {bound}")
    report, _ = explore(tmp, "paper_four_threads", bound, opts + ["--keep", "extremes"], "all")
    check(report["k"] == k and report["pct_bound_runs"] == bound, "the same first run")
    seen, ranges = exhaustive(TABLE4)
    a = [o for o in report["objects"] if o["name"] == "A"][0]
    check(a["max"]["value"] == 3 == max(seen["A"]), f"A's distance 3 not found: {a['max']}")
    found_at = a["max"]["run"]
    check(1 <= found_at <= bound, f"found at run {found_at}, bound {bound}")
    check({d["distance"] for d in a["distances"]} <= seen["A"], f"A: {a['distances']}")
    for r in a["ranges"]:
        check((r["min"], r["max"]) in ranges["A"], f"A: range {r} no interleaving gives")
    # Kept: what the report names, and nothing else.
    named = set()
    for o in report["objects"]:
        for e in [o["min"], o["max"]] + o["ranges"] + o["distances"]:
            if e:
                named.add(e["recording"])
    for r in report["routines"]:
        for p in r["points"]:
            for key in ("trms_min", "trms_max", "thread_induced_min", "thread_induced_max"):
                named.add(p[key]["recording"])
    for r in report["runs"]:
        check(os.path.isdir(r["recording"]) == r["kept"] == (r["recording"] in named),
              f"run {r['run']}: kept {r['kept']}, named {r['recording'] in named}")
    check(0 < len(named) < len(report["runs"]), f"{len(named)} of {len(report['runs'])} kept")
    # The seed repeats its run, byte for byte.
    seed = report["runs"][found_at]["seed"]
    kept = a["max"]["recording"]
    traces = [open(os.path.join(kept, "events.trms"), "rb").read()]
    for i in range(2):
        rec = os.path.join(tmp, f"again{i}.rec")
        run([TRMS, "record", "--engine", "step", "--schedule", "pct", "--depth", "3",
             "--pct-events", str(k), "--pct-objects", "A,B,C,D", "--seed", str(seed), "-o", rec,
             "--", os.path.join(PROGRAMS, "paper_four_threads")])
        m = meta(rec)
        check(m["schedule"] == "pct" and m["pct-depth"] == "3" and m["seed"] == str(seed) and
              m["pct-events"] == str(k) and m["pct-objects"] == "A B C D", f"meta {m}")
        traces.append(open(os.path.join(rec, "events.trms"), "rb").read())
    check(traces[0] == traces[1] == traces[2], f"seed {seed}: the runs differ")
    check(reanalyze(kept, names)["A"]["max"]["value"] == 3, "re-analysis of the kept recording")
    check_objects_reproduce(report, names)


def case_rr_chaos(tmp):
    """--engine rr: every run is `rr record -n --chaos` (here the stand-in
    rr, which records with the step engine and a random seed, and replays
    what it captured); the runs are rr recordings, analyzed by replaying
    them, and their extremes reproduce."""
    bindir = os.path.join(tmp, "bin")
    standin = os.path.join(tmp, "standin")
    os.makedirs(bindir)
    os.makedirs(standin)
    os.symlink(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "rr",
                            "standin_rr.sh"), os.path.join(bindir, "rr"))
    env = dict(os.environ, PATH=f"{bindir}:{os.environ['PATH']}", RR_STANDIN=standin,
               TRMS_RR_ASSUME_COUNTERS="1")
    names = ["A", "B", "C"]
    report, err = explore(tmp, "paper_two_threads", 4,
                          ["--engine", "rr"] + [x for v in names for x in ("--object", v)],
                          env=env)
    check(report["schedule"] == "chaos" and len(report["runs"]) == 5, f"{report['runs']}")
    for r in report["runs"]:
        m = meta(r["recording"])
        check(m["engine"] == "rr" and m["chaos"] == "yes", f"{r['recording']}: {m}")
        check(r["stream"] == 16 and r["threads"] == 3, f"run {r}")
    with open(os.path.join(standin, "calls")) as f:
        calls = f.read()
    check(calls.count("record -n --chaos -o") == 5 and calls.count("rerun --singlestep") == 5,
          f"rr asked: {calls}")
    seen, ranges = exhaustive(TABLE2)
    for o in report["objects"]:
        for r in o["ranges"]:
            check((r["min"], r["max"]) in ranges[o["name"]], f"{o['name']}: range {r}")
    check_objects_reproduce(report, names, env)
    # Without the stand-in's assumption, this machine's missing counters
    # stop explore at its first run, in one line.
    p = subprocess.run([TRMS, "explore", "--engine", "rr", "-n", "2", "--directory",
                        os.path.join(tmp, "nocounters"), "--",
                        os.path.join(PROGRAMS, "paper_two_threads")],
                       capture_output=True, text=True)
    lines = p.stderr.strip().splitlines()
    if p.returncode == 0:
        print("note: this machine has the counters rr needs", file=sys.stderr)
    else:
        check(p.returncode == 1 and len(lines) == 1 and "not recorded" in lines[0] and
              "engine rr:" in lines[0], f"one line: {p.stderr}")


def case_html(tmp):
    """The HTML view: self-contained, one range per object reused (a dot per
    distance seen), and the routines' table; in headless Chromium it loads
    without errors and sorts."""
    from report_e2e import browse, chromium
    directory = os.path.join(tmp, "h")
    page = os.path.join(tmp, "explore.html")
    run([TRMS, "explore", "-n", "8", "--object", "A", "--object", "B", "--object", "C",
         "--directory", directory, "--format", "html", "-o", page, "--",
         os.path.join(PROGRAMS, "paper_two_threads")])
    html = open(page).read()
    check(not re.search(r"(src|href)\s*=\s*\"(?!#)|@import|url\(|https?:", html),
          "the page references something outside itself")
    report = json.load(open(os.path.join(directory, "explore.json")))
    rows = re.search(r'<svg class="ranges"[^>]*data-rows="(\d+)"', html)
    check(rows and int(rows.group(1)) == 3, "three ranges drawn")
    dots = len(re.findall(r'<circle class="seen"', html))
    check(dots == sum(len(o["distances"]) for o in report["objects"]), f"{dots} dots")
    points = sum(len(r["points"]) for r in report["routines"])
    check(len(re.findall(r'<tr[^>]*><td class="name" data-v=', html)) == points,
          "a row per routine and RMS")
    try:
        chromium()
    except Failure:
        print("note: no Chromium: the page was not loaded", file=sys.stderr)
        return
    dom, console = browse(tmp, "file://" + page, "--dump-dom")
    check(not console, f"console messages: {console}")
    check('data-ready="1"' in re.search(r"<body[^>]*>", dom).group(0), "the script ran")


def case_misuse(tmp):
    """Mistakes and failures: one line on stderr, the right exit status."""
    prog = os.path.join(PROGRAMS, "paper_two_threads")
    for args, what in ((["-n", "0", "--", prog], "from 1"),
                       (["-n", "2", "--schedule", "rnd", "--", prog], "pct or random"),
                       (["-n", "2", "--schedule", "random", "--depth", "2", "--", prog],
                        "--depth is for --schedule pct"),
                       (["-n", "2", "--quantum", "5", "--", prog], "--quantum is for"),
                       (["-n", "2", "--engine", "rr", "--depth", "2", "--", prog], "chaos"),
                       (["-n", "2", "--unit", "3", "--", prog], "power of two"),
                       (["-n", "2"], "expects the program"),
                       ([], "expects -n N")):
        p = run([TRMS, "explore", *args], 2, cwd=tmp)
        check(what in p.stderr and len(p.stderr.strip().splitlines()) == 1, f"{args}: {p.stderr}")
    # A missing program: as record and a shell say it (127), before any run,
    # and no folder left behind.
    p = run([TRMS, "explore", "-n", "2", "--directory", os.path.join(tmp, "missing"), "--",
             os.path.join(tmp, "nothing")], 127)
    check(len(p.stderr.strip().splitlines()) == 1 and "no such program" in p.stderr, p.stderr)
    check(not os.path.exists(os.path.join(tmp, "missing")), "explore left its folder behind")
    p = run([TRMS, "explore", "-n", "2", "--object", "NOPE", "--directory",
             os.path.join(tmp, "nope"), "--", prog], 1)
    check(p.stderr.strip().splitlines()[-1].count("NOPE") >= 1 and
          "no variable" in p.stderr, p.stderr)
    os.makedirs(os.path.join(tmp, "taken"))
    p = run([TRMS, "explore", "-n", "2", "--directory", os.path.join(tmp, "taken"), "--", prog], 1)
    check("cannot create" in p.stderr, p.stderr)
    p = run([TRMS, "explore", os.path.join(tmp, "not-a-recording")], 1)
    check(len(p.stderr.strip().splitlines()) == 1, p.stderr)
    p = run([TRMS, "record", "--engine", "step", "--schedule", "pct", "--depth", "3", "-o",
             os.path.join(tmp, "r.rec"), "--", prog], 2)
    check("--pct-events" in p.stderr and not os.path.exists(os.path.join(tmp, "r.rec")), p.stderr)
    p = run([TRMS, "record", "--engine", "step", "--chaos", "-o", os.path.join(tmp, "r.rec"),
             "--", prog], 2)
    check("--engine rr" in p.stderr, p.stderr)


def case_interrupt(tmp):
    """^C (SIGINT to the terminal's process group) stops the exploration
    after the run in progress: the runs so far are reported, their
    recordings kept, and the status says it was interrupted."""
    import signal
    import time
    directory = os.path.join(tmp, "i")
    with subprocess.Popen([TRMS, "explore", "-n", "100000", "--object", "A", "--directory",
                           directory, "--format", "json", "--",
                           os.path.join(PROGRAMS, "paper_two_threads")],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          start_new_session=True) as p:
        time.sleep(3)
        os.killpg(p.pid, signal.SIGINT)
        out, err = p.communicate(timeout=120)
    check(p.returncode == 128 + 2, f"exit {p.returncode}: {err[-500:]}")
    check("interrupted after" in err, err[-500:])
    report = json.loads(out)
    check(2 <= len(report["runs"]) < 100001, f"{len(report['runs'])} runs")
    for r in report["runs"]:
        check(os.path.isdir(r["recording"]), f"{r['recording']} kept")
        check(r["exit_status"] == 0, f"run {r['run']}: the program was cut short: {r}")
    check(json.load(open(os.path.join(directory, "explore.json"))) == report, "explore.json")


CASES = {name[5:]: fn for name, fn in globals().items() if name.startswith("case_")}

if __name__ == "__main__":
    run_case(CASES, "explore_e2e.py", "trms-explore.", ptrace_forbidden)
