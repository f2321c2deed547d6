#!/usr/bin/env bash
# The recording benchmark: wall time of each program natively, under
# Valgrind's none, callgrind and helgrind tools, and under `trms record`
# then `trms analyze`, side by side in one run; prints the tables of
# bench/README.md. Builds first (build/), like the README's commands.
#
#   bash bench/record.sh          (REPEAT=3 runs each; the tables show medians)
#
# The second table gives CPU seconds (user + system, every process of the
# run), which other work on a shared machine disturbs less than wall time.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/build.sh build
work=$(mktemp -d /tmp/trms-record-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
for _ in 1 2 3 4 5 6 7 8; do cat examples/wordfreq-input.txt; done > "$work/words.txt"
head -c 4000000 /dev/zero | tr '\0' 'x' > "$work/data.bin"

python3 - "$work" <<'PY'
import os, re, resource, statistics, subprocess, sys, time
work = sys.argv[1]
repeat = int(os.environ.get("REPEAT", "3"))
trms = "build/bin/trms"
programs = [
    ("sorting 12000 (insertion + merge sort, 1 thread)", ["build/bench/bench-sorting", "12000"]),
    ("wordfreq (2 threads, read(2) loop)", ["build/examples/wordfreq", f"{work}/words.txt", "3"]),
    ("producer_consumer (2 threads, 20000 hand-overs)",
     ["build/tests/programs/producer_consumer", "20000"]),
    ("read_loop (4 MB through a 64-byte buffer)", ["build/tests/programs/read_loop", f"{work}/data.bin"]),
]
tools = {
    "none": ["valgrind", "--tool=none", "-q"],
    "callgrind": ["valgrind", "--tool=callgrind", "-q", "--callgrind-out-file=/dev/null"],
    "helgrind": ["valgrind", "--tool=helgrind", "-q"],
}

def cpu_of_children():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime

def timed(args):
    """Wall and CPU seconds of one run (CPU: the program's processes, all waited for)."""
    cpu = cpu_of_children()
    start = time.perf_counter()
    subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=True)
    return time.perf_counter() - start, cpu_of_children() - cpu

cpu_medians = {}

def median_of(make_args, before=None, key=None):
    walls, cpus = [], []
    for _ in range(repeat):
        if before:
            before()
        wall, cpu = timed(make_args())
        walls.append(wall)
        cpus.append(cpu)
    if key:
        cpu_medians[key] = statistics.median(cpus)
    return statistics.median(walls)

rec = f"{work}/bench.rec"
print(f"Machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the start; "
      f"median of {repeat} runs, wall seconds; ratios against `valgrind --tool=none`.")
print()
print("| program | native s | none s | callgrind | helgrind | trms record | trms analyze | record + analyze | events | trace MiB |")
print("|---|---|---|---|---|---|---|---|---|---|")
rows = []
for label, args in programs:
    native = median_of(lambda: args, key=(label, "native"))
    t = {name: median_of(lambda: prefix + args, key=(label, name)) for name, prefix in tools.items()}
    record = median_of(lambda: [trms, "record", "-o", rec, "--"] + args,
                       before=lambda: subprocess.run(["rm", "-rf", rec], check=True),
                       key=(label, "record"))
    analyze = median_of(lambda: [trms, "analyze", rec], key=(label, "analyze"))
    rows.append(label)
    meta = dict(l.rstrip("\n").split(" ", 1) for l in open(f"{rec}/meta") if " " in l)
    size = os.path.getsize(f"{rec}/events.trms") / 2**20
    none = t["none"]
    ratio = lambda x: f"{x:.2f} s ({x / none:.1f}x)"
    print(f"| {label} | {native:.2f} | {none:.2f} | {ratio(t['callgrind'])} | {ratio(t['helgrind'])} | "
          f"{ratio(record)} | {ratio(analyze)} | {ratio(record + analyze)} | {meta['events']} | {size:.0f} |")

print()
print(f"Load average {os.getloadavg()[0]:.1f} at the end. CPU seconds (user + system of every "
      f"process of a run), medians:")
print()
print("| program | native | none | callgrind | helgrind | trms record | trms analyze | trms record / helgrind |")
print("|---|---|---|---|---|---|---|---|")
for label in rows:
    c = lambda name: cpu_medians[(label, name)]
    print(f"| {label} | {c('native'):.2f} | {c('none'):.2f} | {c('callgrind'):.2f} | {c('helgrind'):.2f} | "
          f"{c('record'):.2f} | {c('analyze'):.2f} | {c('record') / c('helgrind'):.2f} |")
PY
