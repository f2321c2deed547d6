#!/usr/bin/env python3
"""Real Debian programs under trms and its peers, side by side (issue 15).

    python3 bench/real_programs.py [peers|analysis|all|aprof]   (or bash bench/real.sh)

aprof: issue 28's table, the one command of bench/README.md: each program
under valgrind --tool=none, aprof --drms=yes, and trms record with every
analysis, with --analyses rms,trms and with --no-analysis, and with
--trace none (no event trace kept, as aprof keeps none), with every
analysis and with --analyses rms,trms; wall and CPU
medians of REPEAT (default 5) alternating rounds, ratios to aprof, the load
of every round (rounds above LOADED flagged).

peers: each program natively, under valgrind --tool=none, callgrind,
helgrind, aprof and aprof --drms=yes (the seeds' own tool), and under trms
(`trms record`, which analyzes as it records when the build does, else
`trms record` then `trms analyze`), in alternation: one run of every
configuration of every program, then the next round (REPEAT rounds). Prints
the medians: wall time with its ratio to the native run, CPU seconds (user +
system, every process), peak memory (the largest process, GNU time's %M),
the recording's size per event, and the analysis alone on the stored
recording (`trms analyze`, default options). trms runs twice: with every
analysis, and with `--analyses rms,trms` (growth only, as aprof).

Every round also measures the machine's load while it ran: the CPU time
the machine spent beyond what the benchmark's own processes took
(/proc/stat against getrusage), as a share of its cores over the round's
wall time. A round where others took more than LOADED (default 0.2) of the
machine is flagged, and the tables say how many of the rounds were; the
medians are of every round, with the load of each listed. The load counts
the host's steal (/proc/stat: CPU time of this virtual machine's cores
given to other guests), which is listed beside it: a round with almost
no load from this machine's processes can still have lost a tenth of
its cores to the host.

analysis: `trms analyze` of stored recordings, made once by the BASE
build (so that both builds read them), by the BASE build and by this one in
alternation: xz -6 of 1 MiB, the 4-thread random trace
(bench/random_threads_trace.c: 30 M random 8-byte accesses over 32 MiB),
and the hostile shape (`trms-bench record --hostile 1`: skewed random
8-byte accesses over 32 MiB, 2% calls, 2% returns, a thread switch every few
hundred events; written by the BASE build's trms-bench when it knows the
shape, else by this build's and carried over by `trms export` and the
base's `trms import`, so that both builds read it), and a wide shape (4
threads, 60 M random accesses over 256 MiB, a shadow memory of 575 MiB:
the first touch of memory, not the accesses, sets its pace).

Options (environment): REPEAT (rounds, default 3), BASE (another build's
directory, holding bin/trms and lib/: its trms runs beside this one; needed
by `analysis`), PROGRAMS (comma-separated names to run: xz,sort,pigz,
sqlite,dd), TOOLS (comma-separated: native,none,callgrind,helgrind,aprof,
aprof-drms,trms,trms-growth,base; and trms-fast, trms-small and
trms-plain, trms at --compression-level -1, 3 and 0, and trms-record,
trms --no-analysis, only when named here, each also as base-fast,
base-record and so on: the base build with those options), APROF_LIB (default /work/aprof-build/lib),
APROF_RUN (default /work/shared/peers/aprof/run-aprof.sh), BUILD (this
build, default build/), PAUSE (seconds to wait before each run of
`analysis`, default 0: on a virtual machine whose host takes back the
memory a guest freed, after a few seconds, a run starts with cold memory,
as a user's run does, not with the pages the run before it left).
"""
import builtins
import os
import random
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.abspath(os.environ.get("BUILD", os.path.join(ROOT, "build")))
BASE = os.environ.get("BASE")
REPEAT = int(os.environ.get("REPEAT", "5" if sys.argv[1:2] == ["aprof"] else "3"))
LOADED = float(os.environ.get("LOADED", "0.2"))
PAUSE = float(os.environ.get("PAUSE", "0"))
APROF_LIB = os.environ.get("APROF_LIB", "/work/aprof-build/lib")
APROF_RUN = os.environ.get("APROF_RUN", "/work/shared/peers/aprof/run-aprof.sh")
GNU_TIME = "/usr/bin/time"


def words_text(path, size, seed, vocabulary=5000):
    """SIZE bytes of lines of words drawn from a skewed vocabulary: text
    that compresses and sorts like prose, the same on every machine."""
    r = random.Random(seed)
    words = ["".join(r.choice("etaoinshrdlucmfwypvbgkjqxz") for _ in range(r.randint(2, 9)))
             for _ in range(vocabulary)]
    out, n = [], 0
    while n < size:
        line = " ".join(r.choice(words[:r.choice((50, 500, vocabulary))])
                        for _ in range(r.randint(5, 15))) + "\n"
        out.append(line)
        n += len(line)
    with open(path, "w") as f:
        f.write("".join(out)[:size])


def sqlite_script(path, rows):
    """ROWS inserts into two tables in one transaction (each statement
    parsed), an index, then joins and a group by."""
    with open(path, "w") as f:
        f.write("CREATE TABLE person(id INTEGER PRIMARY KEY, city INTEGER, name TEXT);\n")
        f.write("CREATE TABLE city(id INTEGER PRIMARY KEY, region INTEGER, label TEXT);\n")
        f.write("BEGIN;\n")
        for i in range(1, rows + 1):
            f.write(f"INSERT INTO person VALUES({i}, {i * 7919 % 1000}, "
                    f"'name{i * 2654435761 % 4294967296:08x}');\n")
        for i in range(1000):
            f.write(f"INSERT INTO city VALUES({i}, {i % 17}, 'city{i:04d}');\n")
        f.write("COMMIT;\n")
        f.write("CREATE INDEX person_city ON person(city);\n")
        f.write("SELECT c.region, count(*), max(p.name) FROM person p JOIN city c ON p.city = c.id "
                "GROUP BY c.region ORDER BY 2 DESC;\n")
        f.write("SELECT count(*) FROM person p JOIN person q ON p.city = q.city WHERE p.id < 2000 "
                "AND q.id < p.id;\n")


def prepare_inputs(work):
    """The inputs of the programs PROGRAMS names (all by default): the
    text takes minutes to make on a busy machine."""
    names = os.environ.get("PROGRAMS")
    def wanted(name):
        return not names or name in names.split(",")
    words_text(f"{work}/text1m", 1 << 20, 15)  # (the analysis part's xz too)
    if wanted("sort"):
        words_text(f"{work}/text5m", 5_000_000, 16)
    if wanted("pigz"):
        words_text(f"{work}/text8m", 8 << 20, 17)
    if wanted("sqlite"):
        sqlite_script(f"{work}/inserts.sql", 20000)
    if wanted("dd"):
        with open(f"{work}/data16m", "wb") as f:
            f.write(random.Random(18).randbytes(16 << 20))


# name, label, argv, stdin file (or None). Run in the work directory.
PROGRAMS = [
    ("xz", "xz -6 of 1 MiB (compute, 1 thread)", ["xz", "-6", "-T1", "-c", "text1m"], None),
    ("sort", "sort 5 MB of text lines (LC_ALL=C)", ["sort", "text5m"], None),
    ("pigz", "pigz -p 2 of 8 MiB (3 threads: 2 compress)", ["pigz", "-p", "2", "-c", "text8m"],
     None),
    ("sqlite", "sqlite3: 21000 inserts, an index, 2 joins", ["sqlite3", ":memory:"],
     "inserts.sql"),
    ("dd", "dd bs=512 of 16 MiB (I/O: 65536 system calls)",
     ["dd", "if=data16m", "of=dd.out", "bs=512", "status=none"], None),
]

VALGRIND = {
    "none": ["valgrind", "--tool=none", "-q"],
    "callgrind": ["valgrind", "--tool=callgrind", "-q", "--callgrind-out-file=/dev/null"],
    "helgrind": ["valgrind", "--tool=helgrind", "-q"],
    "aprof": ["bash", APROF_RUN, "--"],
    "aprof-drms": ["bash", APROF_RUN, "--drms=yes", "--"],
}


# `trms record`'s options by tool (none: "trms" and "base"); each is named
# in the tables by them.
TRMS_OPTIONS = {
    "trms-growth": ("--analyses", "rms,trms"),
    "trms-fast": ("--compression-level", "-1"),
    "trms-small": ("--compression-level", "3"),
    "trms-plain": ("--compression-level", "0"),
    "trms-record": ("--no-analysis",),
}
# The base build with a tool's options: "base-growth" is trms-growth's.
BASE_OPTIONS = {"base-" + t[len("trms-"):]: o for t, o in TRMS_OPTIONS.items()}
# Those that run only when TOOLS names them.
ASKED_ONLY = ("trms-fast", "trms-small", "trms-plain", "trms-record", *BASE_OPTIONS)


def run(args, cwd, stdin=None, env=None):
    """(wall s, CPU s, peak RSS MiB) of ARGS, which must succeed."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    with open(os.path.join(cwd, stdin) if stdin else os.devnull, "rb") as f:
        p = subprocess.run([GNU_TIME, "-f", "bench-rss %M"] + args, cwd=cwd, stdin=f,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        sys.exit(f"{' '.join(args)} failed ({p.returncode}): {p.stderr[-800:]}")
    rss = int(re.findall(r"bench-rss (\d+)", p.stderr)[-1]) / 1024
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, rss


def cpu_seconds(stat="/proc/stat"):
    """(busy, stolen): CPU seconds the whole machine has spent busy (not
    idle nor waiting), and of those the ones its host gave to other guests
    (steal: a virtual machine's cores taken away, which no process here
    shows, and which slows every round it falls in)."""
    with open(stat) as f:
        fields = [int(v) for v in f.readline().split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    steal = fields[7] if len(fields) > 7 else 0
    tick = os.sysconf("SC_CLK_TCK")
    return (sum(fields[:8]) - idle) / tick, steal / tick


class Round:
    """The machine's load during one round: the busy CPU time beyond the
    benchmark's own processes, as a share of all cores over the round; and
    the host's steal within it, as the same share."""

    def __enter__(self):
        self.busy, self.stolen = cpu_seconds()
        self.ours = resource.getrusage(resource.RUSAGE_CHILDREN)
        self.own = resource.getrusage(resource.RUSAGE_SELF)
        self.start = time.perf_counter()
        return self

    def __exit__(self, *exc):
        wall = time.perf_counter() - self.start
        ours = resource.getrusage(resource.RUSAGE_CHILDREN)
        own = resource.getrusage(resource.RUSAGE_SELF)
        mine = sum(getattr(a, f) - getattr(b, f) for a, b in ((ours, self.ours), (own, self.own))
                   for f in ("ru_utime", "ru_stime"))
        busy, stolen = cpu_seconds()
        self.finish(wall, os.cpu_count(), max(0.0, busy - self.busy - mine), stolen - self.stolen)
        return False

    def finish(self, wall, cores, others, stolen):
        """The shares of a round of WALL seconds on CORES, where others
        took OTHERS CPU seconds, STOLEN of them by the host."""
        capacity = wall * cores
        self.load = others / capacity if capacity > 0 else 0.0
        self.steal = stolen / capacity if capacity > 0 else 0.0
        self.flagged = self.load > LOADED
        return self


def describe_rounds(rounds):
    flagged = sum(r.flagged for r in rounds)
    loads = ", ".join(f"{r.load:.2f}{'*' if r.flagged else ''} ({r.steal:.2f} stolen)"
                      for r in rounds)
    return (f"machine load by round (others' share of the {os.cpu_count()} cores, and the "
            f"host's steal within it): {loads}; "
            f"{flagged} of {len(rounds)} round{'s' if len(rounds) != 1 else ''} under load "
            f"(* : above {LOADED})")


def meta_of(rec):
    meta = {}
    with open(os.path.join(rec, "meta")) as f:
        for line in f:
            if " " in line:
                k, v = line.rstrip("\n").split(" ", 1)
                meta[k] = v
    return meta


def stored_results(trms, rec):
    out = subprocess.run([trms, "info", rec], capture_output=True, text=True).stdout
    return re.search(r"^analyses +cell size 4, line size 64", out, re.M) is not None


def trms_run(build, cwd, argv, stdin, env, options=(), analyze_alone=True):
    """One `trms record` (and `trms analyze`, when the record did not
    analyze): their measures, the recording's events and bytes, and the
    analysis alone on the stored recording (unless not ANALYZE_ALONE);
    OPTIONS go to both, but --compression-level (the record's only).
    `--no-analysis` records only."""
    trms = os.path.join(build, "bin", "trms")
    analyze_options, rest = [], iter(options)
    for option in rest:
        if option == "--compression-level":
            next(rest)
        else:
            analyze_options.append(option)
    rec = os.path.join(cwd, "bench.rec")
    shutil.rmtree(rec, ignore_errors=True)
    record = run([trms, "record", *options, "-o", rec, "--"] + argv, cwd, stdin, env)
    record_only = "--no-analysis" in options
    one_pass = record_only or stored_results(trms, rec)
    analyze = (0.0, 0.0, 0.0)
    if analyze_alone and not record_only:
        analyze = run([trms, "analyze", *analyze_options, rec], cwd, None, env)
    elif not one_pass:
        analyze = run([trms, "analyze", *analyze_options, rec], cwd, None, env)
    meta = meta_of(rec)
    trace = sum(os.path.getsize(os.path.join(rec, f)) for f in os.listdir(rec)
                if f.startswith("events"))
    shutil.rmtree(rec, ignore_errors=True)
    total = record if one_pass else (record[0] + analyze[0], record[1] + analyze[1],
                                     max(record[2], analyze[2]))
    return {"record": record, "analyze": analyze, "total": total, "one_pass": bool(one_pass),
            "record_only": record_only,
            "events": int(meta["events"]), "bytes": trace}


def med(runs, i):
    return statistics.median(r[i] for r in runs)


def ratio(v, base):
    r = v / base
    return f"{r:.0f}x" if r >= 10 else f"{r:.1f}x"


def peers(work):
    names = os.environ.get("PROGRAMS")
    programs = [p for p in PROGRAMS if not names or p[0] in names.split(",")]
    tools = ["native", "none", "callgrind", "helgrind", "aprof", "aprof-drms", "trms",
             "trms-growth"]
    if BASE:
        tools.append("base")
    if os.environ.get("TOOLS"):
        tools = [t for t in tools + list(ASKED_ONLY) if t in os.environ["TOOLS"].split(",")]
    env = dict(os.environ, LC_ALL="C", APROF_LIB=APROF_LIB)
    runs = {(p[0], t): [] for p in programs for t in tools}
    load = os.getloadavg()[0]
    rounds = []
    for _ in range(REPEAT):
        with Round() as rnd:
            for name, _, argv, stdin in programs:
                for tool in tools:
                    if tool == "native":
                        runs[name, tool].append(run(argv, work, stdin, env))
                    elif tool in VALGRIND:
                        runs[name, tool].append(run(VALGRIND[tool] + argv, work, stdin, env))
                        for f in os.listdir(work):
                            if f.endswith(".aprof"):
                                os.remove(os.path.join(work, f))
                    else:
                        base = tool == "base" or tool in BASE_OPTIONS
                        runs[name, tool].append(trms_run(
                            BASE if base else BUILD, work, argv, stdin, env,
                            {**TRMS_OPTIONS, **BASE_OPTIONS}.get(tool, ())))
        rounds.append(rnd)
    end_load = os.getloadavg()[0]
    trms_tools = [t for t in ("trms", *TRMS_OPTIONS, "base", *BASE_OPTIONS) if t in tools]
    peer_tools = [t for t in tools if t not in trms_tools]

    def cell(name, tool, what=None):
        rs = runs[name, tool]
        return [r[what] for r in rs] if what else rs

    print(f"Machine: {os.cpu_count()} cores, load average {load:.1f} at the start and "
          f"{end_load:.1f} at the end; median of {REPEAT} rounds, each running every "
          f"configuration of every program once, in turn.")
    print(describe_rounds(rounds) + ".")
    print()
    header = {}
    names = {"trms": "trms", "base": "trms base",
             **{t: " ".join(("trms",) + options) for t, options in TRMS_OPTIONS.items()},
             **{t: " ".join(("trms base",) + options) for t, options in BASE_OPTIONS.items()}}
    for t in trms_tools:
        one = all(r["one_pass"] for p in programs for r in runs[p[0], t])
        only = all(r["record_only"] for p in programs for r in runs[p[0], t])
        header[t] = f"{names[t]} " + ("(record only)" if only else "(record with analysis)"
                                      if one else "(record + analyze)")
    print("Wall time, and its ratio to the native run:")
    print()
    print("| program | " + " | ".join(header.get(t, t.replace("aprof-drms", "aprof --drms=yes"))
                                      for t in tools)
          + "".join(f" | {header[t].split(' (')[0]} / aprof --drms=yes" for t in trms_tools
                    if "aprof-drms" in tools) + " |")
    print("|---" * (1 + len(tools) + (len(trms_tools) if "aprof-drms" in tools else 0)) + "|")
    for name, label, _, _ in programs:
        native = med(cell(name, "native"), 0) if "native" in tools else None
        cells = []
        for t in tools:
            rs = cell(name, t) if t in peer_tools else cell(name, t, "total")
            w = med(rs, 0)
            cells.append(f"{w:.2f} s" + (f" ({ratio(w, native)})" if native and t != "native"
                                         else ""))
        if "aprof-drms" in tools:
            drms = med(cell(name, "aprof-drms"), 0)
            cells += [f"**{med(cell(name, t, 'total'), 0) / drms:.2f}**" for t in trms_tools]
        print(f"| {label} | " + " | ".join(cells) + " |")
    print()
    print("CPU seconds (user + system of every process) and peak memory (MiB, the largest "
          "process):")
    print()
    versus = [t for t in trms_tools if "aprof-drms" in tools]
    print("| program | " + " | ".join(header.get(t, t) for t in tools)
          + "".join(f" | {header[t].split(' (')[0]} CPU / aprof --drms=yes" for t in versus)
          + " |")
    print("|---" * (1 + len(tools) + len(versus)) + "|")
    for name, label, _, _ in programs:
        cells = []
        for t in tools:
            rs = cell(name, t) if t in peer_tools else cell(name, t, "total")
            cells.append(f"{med(rs, 1):.2f} s, {med(rs, 2):.0f} MiB")
        for t in versus:
            cells.append(f"**{med(cell(name, t, 'total'), 1) / med(cell(name, 'aprof-drms'), 1):.2f}**")
        print(f"| {label} | " + " | ".join(cells) + " |")
    for t in trms_tools:
        print()
        print(f"{header[t].split(' (')[0]}: the parts, the recording, and the analysis alone on "
              "the stored recording (`trms analyze`, with the same --analyses):")
        print()
        print("| program | record s | record CPU s | record MiB | analyze s | analyze CPU s | "
              "analyze MiB | events | recording MiB | bytes/event | analysis M events/s |")
        print("|---" * 11 + "|")
        per_event = []
        for name, label, _, _ in programs:
            rs = runs[name, t]
            rec, an = [r["record"] for r in rs], [r["analyze"] for r in rs]
            events, size = rs[-1]["events"], rs[-1]["bytes"]
            per_event.append(size / events)
            print(f"| {label} | {med(rec, 0):.2f} | {med(rec, 1):.2f} | {med(rec, 2):.0f} | "
                  f"{med(an, 0):.2f} | {med(an, 1):.2f} | {med(an, 2):.0f} | {events} | "
                  f"{size / 2**20:.0f} | {size / events:.2f} | "
                  + (f"{events / med(an, 0) / 1e6:.1f} |" if med(an, 0) else "- |"))
        print()
        print(f"Average bytes per event over these programs: "
              f"{statistics.mean(per_event):.2f}.")


# The columns of `versus_aprof`: tool, label, command prefix (None: trms
# with these record options).
VERSUS = [
    ("none", "valgrind --tool=none", VALGRIND["none"], None),
    ("aprof-drms", "aprof --drms=yes", VALGRIND["aprof-drms"], None),
    ("trms", "trms record (every analysis)", None, ()),
    ("trms-growth", "trms record --analyses rms,trms", None, ("--analyses", "rms,trms")),
    ("trms-record", "trms record --no-analysis", None, ("--no-analysis",)),
    # What aprof keeps, nothing but the analysis: no event trace.
    ("trms-none", "trms record --trace none (every analysis)", None, ("--trace", "none")),
    ("trms-none-growth", "trms record --trace none --analyses rms,trms", None,
     ("--trace", "none", "--analyses", "rms,trms")),
]


def versus_aprof(work):
    """Issue 28's table: each program under valgrind --tool=none, aprof
    --drms=yes and trms record (every analysis, growth only, no analysis;
    and without a trace, as aprof keeps none: every analysis, growth only),
    in alternation (one run of each tool of each program a round, the
    tools' order turned by one every round so that none always runs first
    after a pause), REPEAT rounds (default 5): wall and CPU medians, their
    ratios to aprof, and each round's load."""
    names = os.environ.get("PROGRAMS")
    programs = [p for p in PROGRAMS if not names or p[0] in names.split(",")]
    env = dict(os.environ, LC_ALL="C", APROF_LIB=APROF_LIB)
    runs = {(p[0], t[0]): [] for p in programs for t in VERSUS}
    loadavg = os.getloadavg()[0]
    rounds = []
    for k in range(REPEAT):
        with Round() as rnd:
            for name, _, argv, stdin in programs:
                order = VERSUS[k % len(VERSUS):] + VERSUS[:k % len(VERSUS)]
                for tool, _, prefix, options in order:
                    if prefix is not None:
                        runs[name, tool].append(run(prefix + argv, work, stdin, env))
                        for f in os.listdir(work):
                            if f.endswith(".aprof"):
                                os.remove(os.path.join(work, f))
                    else:
                        runs[name, tool].append(trms_run(BUILD, work, argv, stdin, env, options,
                                                         analyze_alone=False)["total"])
        rounds.append(rnd)
        # The table so far, on stderr: a run cut short on a busy machine
        # still says what it measured.
        print(f"(round {k + 1} of {REPEAT}: load {rnd.load:.2f}, {rnd.steal:.2f} stolen)",
              file=sys.stderr)
        versus_table(programs, runs, rounds, loadavg, sys.stderr)
        sys.stderr.flush()
    versus_table(programs, runs, rounds, loadavg, sys.stdout)


def versus_table(programs, runs, rounds, loadavg, out):
    def print(*args):
        builtins.print(*args, file=out)
    end = os.getloadavg()[0]
    print(f"`REPEAT={REPEAT} python3 bench/real_programs.py aprof` "
          f"({time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC): {os.cpu_count()} cores, "
          f"load average {loadavg:.1f} at the start and {end:.1f} at the end; medians of "
          f"{len(rounds)} rounds, each running every tool on every program once, in turn.")
    print(describe_rounds(rounds) + ".")
    print()
    print("| program | " + " | ".join(t[1] for t in VERSUS) + " |")
    print("|---" * (1 + len(VERSUS)) + "|")
    for name, label, _, _ in programs:
        aw = med(runs[name, "aprof-drms"], 0)
        ac = med(runs[name, "aprof-drms"], 1)
        cells = []
        for tool, _, _, _ in VERSUS:
            w, c = med(runs[name, tool], 0), med(runs[name, tool], 1)
            mark = "**" if tool != "aprof-drms" else ""
            cells.append(f"{w:.2f} s, CPU {c:.2f} s" +
                         ("" if tool == "aprof-drms" else
                          f" ({mark}{w / aw:.2f}x{mark} wall, {mark}{c / ac:.2f}x{mark} CPU)"))
        print(f"| {label} | " + " | ".join(cells) + " |")
    print()
    print("Every round's wall seconds (tool: rounds in order):")
    print()
    for name, _, _, _ in programs:
        print(f"- {name}: " + "; ".join(
            f"{t[0]} " + " ".join(f"{r[0]:.1f}" for r in runs[name, t[0]]) for t in VERSUS))


def write_synthetic(base_trms, new_trms, rec, work, shape):
    """A recording of `trms-bench record` with the options SHAPE, in a
    trace format the BASE build reads: written by the BASE build's
    trms-bench when it knows the shape; else by this build's, then carried
    over in the text format (`trms export`, the base's `trms import`), so
    that a base from before the shape (the build issue 28 was filed
    against) still runs beside this one."""
    base_bench = os.path.join(BASE, "bench", "trms-bench")
    if os.path.exists(base_bench) and subprocess.run(
            [base_bench, "record", rec] + shape, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL).returncode == 0:
        return
    shutil.rmtree(rec, ignore_errors=True)
    own = os.path.join(work, "synthetic-own.rec")
    subprocess.run([os.path.join(BUILD, "bench", "trms-bench"), "record", own] + shape,
                   stdout=subprocess.DEVNULL, check=True)
    export = subprocess.Popen([new_trms, "export", own], stdout=subprocess.PIPE)
    subprocess.run([base_trms, "import", "-", "-o", rec], stdin=export.stdout,
                   stdout=subprocess.DEVNULL, check=True)
    export.stdout.close()
    if export.wait() != 0:
        sys.exit("real_programs.py analysis: trms export of a synthetic shape failed")
    shutil.rmtree(own)


def analysis(work):
    if not BASE:
        sys.exit("real_programs.py analysis: set BASE to the build to compare with")
    base_trms = os.path.join(BASE, "bin", "trms")
    new_trms = os.path.join(BUILD, "bin", "trms")
    env = dict(os.environ, LC_ALL="C")
    recs = []
    xz = os.path.join(work, "xz.rec")
    subprocess.run([base_trms, "record", "-o", xz, "--", "xz", "-6", "-T1", "-c", "text1m"],
                   cwd=work, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    recs.append(("xz -6 of 1 MiB (1 thread)", xz))
    rand = os.path.join(work, "random4.rec")
    gen = subprocess.Popen([os.path.join(BUILD, "bench", "trms-random-threads-trace")],
                           stdout=subprocess.PIPE)
    subprocess.run([base_trms, "import", "-", "-o", rand], stdin=gen.stdout,
                   stdout=subprocess.DEVNULL, check=True)
    gen.wait()
    recs.append(("4 threads, random 8-byte accesses over 32 MiB", rand))
    hostile = os.path.join(work, "hostile.rec")
    write_synthetic(base_trms, new_trms, hostile, work,
                    ["--hostile", "1", "--events", "30000000"])
    recs.append(("hostile: 4 threads, skewed random 8-byte accesses over 32 MiB, 2% calls, "
                 "2% returns, a switch every few hundred events", hostile))
    wide = os.path.join(work, "wide.rec")
    write_synthetic(base_trms, new_trms, wide, work,
                    ["--events", "60000000", "--threads", "4", "--working-set", str(256 << 20)])
    recs.append(("4 threads, random accesses over 256 MiB (a shadow memory of 575 MiB)", wide))
    # This build's own recording of xz, in its own trace format (which a
    # base of an older format cannot read): timed for this build only.
    own = os.path.join(work, "xz-own.rec")
    subprocess.run([new_trms, "record", "--no-analysis", "-o", own, "--", "xz", "-6", "-T1",
                    "-c", "text1m"], cwd=work, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=True)
    own_label = "xz -6 of 1 MiB, this build's own recording (its trace format)"
    load = os.getloadavg()[0]
    times = {(rec, b): [] for _, rec in recs + [(own_label, own)] for b in ("base", "new")}
    rounds = []
    for _ in range(REPEAT):
        with Round() as rnd:
            for label, rec in recs:
                for b, trms in (("base", base_trms), ("new", new_trms)):
                    time.sleep(PAUSE)
                    times[rec, b].append(run([trms, "analyze", rec], work, None, env))
            time.sleep(PAUSE)
            times[own, "new"].append(run([new_trms, "analyze", own], work, None, env))
        rounds.append(rnd)
    end_load = os.getloadavg()[0]
    print(f"`trms analyze` (default options) of recordings the base build made (in its trace "
          f"format, which both builds read; the last row this build's own recording), the "
          f"two builds in alternation, {REPEAT} rounds; load average {load:.1f} at the start "
          f"and {end_load:.1f} at the end; {describe_rounds(rounds)}"
          + (f"; a pause of {PAUSE:g} s before each run (memory the previous run freed "
             f"is cold again)" if PAUSE else "") + ".")
    print()
    print("| recording | events | accesses | base s | new s | base M events/s | new M events/s "
          "| new M accesses/s | speed-up | base MiB | new MiB |")
    print("|---" * 11 + "|")
    for label, rec in recs:
        out = subprocess.run([new_trms, "analyze", rec, "--checkpoint-every", "0"],
                             capture_output=True, text=True, check=True).stdout
        events = int(re.search(r": (\d+) events", out).group(1))
        accesses = int(re.search(r"\((\d+) memory accesses\)", out).group(1))
        b, n = times[rec, "base"], times[rec, "new"]
        print(f"| {label} | {events} | {accesses} | {med(b, 0):.2f} | {med(n, 0):.2f} | "
              f"{events / med(b, 0) / 1e6:.1f} | **{events / med(n, 0) / 1e6:.1f}** | "
              f"{accesses / med(n, 0) / 1e6:.1f} | {med(b, 0) / med(n, 0):.2f}x | "
              f"{med(b, 2):.0f} | {med(n, 2):.0f} |")
        print(f"<!-- runs {label}: base {[round(r[0], 2) for r in b]} new "
              f"{[round(r[0], 2) for r in n]} -->")
    out = subprocess.run([new_trms, "analyze", own, "--checkpoint-every", "0"],
                         capture_output=True, text=True, check=True).stdout
    events = int(re.search(r": (\d+) events", out).group(1))
    accesses = int(re.search(r"\((\d+) memory accesses\)", out).group(1))
    n = times[own, "new"]
    print(f"| {own_label} | {events} | {accesses} | - | {med(n, 0):.2f} | - | "
          f"**{events / med(n, 0) / 1e6:.1f}** | {accesses / med(n, 0) / 1e6:.1f} | - | - | "
          f"{med(n, 2):.0f} |")
    print(f"<!-- runs {own_label}: new {[round(r[0], 2) for r in n]} -->")


def main():
    part = sys.argv[1] if len(sys.argv) > 1 else "all"
    if part not in ("peers", "analysis", "all", "aprof"):
        sys.exit(__doc__)
    work = tempfile.mkdtemp(prefix="trms-real.", dir=os.environ.get("TMPDIR", "/tmp"))
    try:
        prepare_inputs(work)
        if part == "aprof":
            versus_aprof(work)
            return
        if part in ("peers", "all"):
            print("### Real programs against the peers")
            print()
            peers(work)
        if part in ("analysis", "all") and BASE:
            print()
            print("### The analysis alone, this build against the base build")
            print()
            analysis(work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
