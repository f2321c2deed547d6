#!/usr/bin/env bash
# Peers, side by side in one run: each program natively, under Valgrind's
# none, callgrind, cachegrind and helgrind tools, and under `trms record`
# then `trms analyze` with every recording engine this trms accepts that
# works here; wall time (ratio to native), CPU time, peak memory, and the
# analysis-only throughput on the stored recordings. Prints the tables of
# bench/README.md. Builds first (build/), like the README's commands.
#
#   bash bench/record.sh          (REPEAT=3 runs each; the tables show medians)
#
# Engines: those `trms record --help` lists (but auto) that record a tiny
# static program here. Valgrind records the real programs; an engine that
# single-steps (the ptrace step engine, ~70 us per instruction) only the
# tiny static ones, in a table of their own.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/build.sh build
work=$(mktemp -d /tmp/trms-record-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
for _ in 1 2 3 4 5 6 7 8; do cat examples/wordfreq-input.txt; done > "$work/words.txt"
head -c 4000000 /dev/zero | tr '\0' 'x' > "$work/data.bin"

python3 - "$work" <<'PY'
import os, re, resource, shutil, statistics, subprocess, sys, time
work = sys.argv[1]
repeat = int(os.environ.get("REPEAT", "3"))
trms = "build/bin/trms"
gnu_time = "/usr/bin/time" if os.path.exists("/usr/bin/time") else None
programs = [
    ("sorting 12000 (compute, 1 thread)", ["build/bench/bench-sorting", "12000"]),
    ("wordfreq (pipeline: reader and counter threads, read(2))",
     ["build/examples/wordfreq", f"{work}/words.txt", "3"]),
    ("producer_consumer (2 threads, 20000 hand-overs)",
     ["build/tests/programs/producer_consumer", "20000"]),
    ("read_loop (I/O: 4 MB through a 64-byte buffer)",
     ["build/tests/programs/read_loop", f"{work}/data.bin"]),
]
tiny_programs = [
    ("tiny (static, 45 k instructions)", ["build/bench/bench-tiny-static"]),
    ("sorting 40 (static, 66 k instructions)", ["build/bench/bench-sorting-static", "40"]),
]
tools = {
    "none": ["valgrind", "--tool=none", "-q"],
    "callgrind": ["valgrind", "--tool=callgrind", "-q", "--callgrind-out-file=/dev/null"],
    "cachegrind": ["valgrind", "--tool=cachegrind", "-q", "--cachegrind-out-file=/dev/null"],
    "helgrind": ["valgrind", "--tool=helgrind", "-q"],
}

def measure(args):
    """Wall seconds, CPU seconds (every process of the run) and peak RSS in
    MiB (the largest process: GNU time's %M, else getrusage)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    if gnu_time:
        p = subprocess.run([gnu_time, "-f", "trms-bench-rss %M"] + args, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True)
        rss = int(re.findall(r"trms-bench-rss (\d+)", p.stderr)[-1]) / 1024
    else:
        p = subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        sys.exit(f"{' '.join(args)} failed: {p.stderr[-500:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, rss

def median_run(make_args, before=None):
    runs = []
    for _ in range(repeat):
        if before:
            before()
        runs.append(measure(make_args()))
    return tuple(statistics.median(r[i] for r in runs) for i in range(3))

def engines_here():
    usage = subprocess.run([trms, "record", "--help"], capture_output=True, text=True).stdout
    m = re.search(r"--engine ([a-z|]+)\]", usage)
    listed = [e for e in (m.group(1).split("|") if m else ["valgrind"]) if e != "auto"]
    working, refused = [], []
    for e in listed:
        rec = f"{work}/probe-{e}.rec"
        try:
            p = subprocess.run([trms, "record", "--engine", e, "-o", rec, "--",
                                "build/bench/bench-tiny-static"], capture_output=True, text=True,
                               timeout=300)
            ok = p.returncode == 0
            why = p.stderr.strip().splitlines()[-1] if p.stderr.strip() else f"exit {p.returncode}"
        except subprocess.TimeoutExpired:
            ok, why = False, "no recording within 300 s"
        shutil.rmtree(rec, ignore_errors=True)
        (working if ok else refused).append((e, why))
    return [e for e, _ in working], refused

engines, refused = engines_here()
rec = f"{work}/bench.rec"
def clear():
    shutil.rmtree(rec, ignore_errors=True)

def trms_runs(engine, args):
    record = median_run(lambda: [trms, "record", "--engine", engine, "-o", rec, "--"] + args, clear)
    analyze = median_run(lambda: [trms, "analyze", rec])
    meta = dict(l.rstrip("\n").split(" ", 1) for l in open(f"{rec}/meta") if " " in l)
    size = os.path.getsize(f"{rec}/events.trms") / 2**20
    out = subprocess.run([trms, "analyze", rec, "--checkpoint-every", "0"], capture_output=True,
                         text=True, check=True).stdout
    accesses = int(re.search(r"\((\d+) memory accesses\)", out).group(1))
    return record, analyze, int(meta["events"]), accesses, size

load = os.getloadavg()[0]
print(f"Machine: {os.cpu_count()} cores, load average {load:.1f} at the start; median of "
      f"{repeat} runs. Engines that record here: {', '.join(engines)}"
      + "".join(f"; `--engine {e}` not usable here ({why})" for e, why in refused) + ".")
rows = []
for label, args in programs:
    native = median_run(lambda: args)
    peer = {name: median_run(lambda: prefix + args) for name, prefix in tools.items()}
    t = trms_runs("valgrind", args)
    rows.append((label, native, peer, t))

def x(v, base):
    return f"{v:.2f} s ({v / base:.0f}x)" if v / base >= 10 else f"{v:.2f} s ({v / base:.1f}x)"

print()
print("Wall time, and in parentheses the ratio to the native run:")
print()
print("| program | native | valgrind none | callgrind | cachegrind | helgrind | trms record | trms analyze | record + analyze | record + analyze / callgrind | / helgrind |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for label, native, peer, (record, analyze, events, accesses, size) in rows:
    n = native[0]
    both = record[0] + analyze[0]
    print(f"| {label} | {n:.3f} s | {x(peer['none'][0], n)} | {x(peer['callgrind'][0], n)} | "
          f"{x(peer['cachegrind'][0], n)} | {x(peer['helgrind'][0], n)} | {x(record[0], n)} | "
          f"{x(analyze[0], n)} | {x(both, n)} | {both / peer['callgrind'][0]:.2f} | "
          f"{both / peer['helgrind'][0]:.2f} |")
print()
print("CPU seconds (user + system, every process of a run) and peak memory (MiB, the largest "
      "process of a run):")
print()
print("| program | native | none | callgrind | cachegrind | helgrind | trms record | trms analyze |")
print("|---|---|---|---|---|---|---|---|")
for label, native, peer, (record, analyze, events, accesses, size) in rows:
    cells = [native] + [peer[k] for k in ("none", "callgrind", "cachegrind", "helgrind")] + [record, analyze]
    print(f"| {label} | " + " | ".join(f"{c[1]:.2f} s, {c[2]:.0f} MiB" for c in cells) + " |")
print()
print("Analysis alone, on the stored recordings (`trms analyze`: decoding, every pass, "
      "checkpoints every 5 s, the store):")
print()
print("| program | events | memory accesses | trace MiB | analyze s | M events/s | M accesses/s |")
print("|---|---|---|---|---|---|---|")
for label, native, peer, (record, analyze, events, accesses, size) in rows:
    print(f"| {label} | {events} | {accesses} | {size:.0f} | {analyze[0]:.2f} | "
          f"{events / analyze[0] / 1e6:.1f} | {accesses / analyze[0] / 1e6:.1f} |")

slow = [e for e in engines if e != "valgrind"]
print()
print("Tiny static programs, every engine (record + analyze, ratio to native):")
print()
print("| program | native | valgrind none | " + " | ".join(f"trms --engine {e}" for e in ["valgrind"] + slow) + " |")
print("|---|---|---|" + "---|" * (1 + len(slow)))
for label, args in tiny_programs:
    native = median_run(lambda: args)[0]
    none = median_run(lambda: tools["none"] + args)[0]
    cells = []
    for e in ["valgrind"] + slow:
        record, analyze, events, accesses, size = trms_runs(e, args)
        cells.append(f"{x(record[0] + analyze[0], native)}, {events} events")
    print(f"| {label} | {native:.3f} s | {x(none, native)} | " + " | ".join(cells) + " |")
print()
print(f"Load average {os.getloadavg()[0]:.1f} at the end.")
PY
