#!/usr/bin/env bash
# How much of the reuse-distance ranges each schedule finds in the same
# number of runs, as the memory-distance paper's Figures 2 and 3 compare
# them: `trms explore` with PCT at depths 1, 2 and 3, with random quanta
# (mean 10 and 100 instructions), and a single run of the step engine's
# default schedule, on the paper's Table 2 and Table 4 programs (against
# the ranges of all their interleavings, enumerated here) and on a real
# pthread producer-consumer with a bounded queue. Prints the tables of
# bench/README.md ("Exploring interleavings"). Builds first (build/).
#
#   bash bench/explore.sh            (RUNS=50 for the paper's programs,
#                                     QUEUE_RUNS=20 for the queue)
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/build.sh build
work=$(mktemp -d /tmp/trms-explore-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT

python3 - "$work" <<'PY'
import itertools, json, os, subprocess, sys, time
work = sys.argv[1]
trms = os.path.abspath("build/bin/trms")
runs = int(os.environ.get("RUNS", "50"))
queue_runs = int(os.environ.get("QUEUE_RUNS", "20"))
programs = [
    ("Table 2 (2 threads, A B C)", "build/tests/programs/paper_two_threads", ["A", "B", "C"],
     [["A", "B", "C", "A", "C", "C", "B", "A"], ["C", "B", "A", "C", "B", "B", "A", "C"]], runs,
     ["thread1", "thread2"]),
    ("Table 4 (4 threads, A B C D)", "build/tests/programs/paper_four_threads",
     ["A", "B", "C", "D"], [["A", "A"], ["B", "A"], ["C", "A"], ["D", "A"]], runs,
     ["thread2", "thread3", "thread4"]),
    ("bounded queue (2 producers, 2 consumers, 4 slots, 16 items)",
     "build/bench/bench-bounded-queue-static", ["q_*"], None, queue_runs, ["put", "take"]),
]
configs = [("single run", None), ("random q=10", ["--schedule", "random", "--quantum", "10"]),
           ("random q=100", ["--schedule", "random", "--quantum", "100"]),
           ("PCT d=1", ["--depth", "1"]), ("PCT d=2", ["--depth", "2"]),
           ("PCT d=3", ["--depth", "3"])]
count = iter(range(1000000))


def distances(seq):
    out = {}
    for i, x in enumerate(seq):
        for j in range(i - 1, -1, -1):
            if seq[j] == x:
                out.setdefault(x, set()).add(len(set(seq[j + 1:i])))
                break
    return out


def first_thread_input(il):
    """Table 2's thread 1 (it reads; thread 2 writes) in interleaving IL:
    its TRMS (reads that are its first access to a variable or follow a
    write of thread 2 since its last access) and thread-induced input."""
    own, written, trms, induced = {}, {}, 0, 0
    for step, (t, v) in enumerate(il):
        if t == 1:
            written[v] = step
            continue
        other = v in written and (v not in own or written[v] > own[v])
        trms += v not in own or other
        induced += other
        own[v] = step
    return trms, induced


def everything(threads):
    """Per variable: its range over all interleavings, and how many
    interleavings give each distance; and thread 1's (TRMS, induced)."""
    total, seen, inputs = 0, {}, set()
    def go(pos, il):
        nonlocal total
        if all(p == len(t) for p, t in zip(pos, threads)):
            total += 1
            for v, ds in distances([x for _, x in il]).items():
                for d in ds:
                    seen.setdefault(v, {}).setdefault(d, 0)
                    seen[v][d] += 1
            inputs.add(first_thread_input(il))
            return
        for i, t in enumerate(threads):
            if pos[i] < len(t):
                pos[i] += 1
                go(pos, il + [(i, t[pos[i] - 1])])
                pos[i] -= 1
    go([0] * len(threads), [])
    return total, seen, inputs


def explore(program, names, options, n):
    d = os.path.join(work, f"x{next(count)}")
    objs = [x for v in names for x in ("--object", v)]
    start = time.perf_counter()
    if options is None:  # one recording of the step engine's default schedule
        rec = d + ".rec"
        subprocess.run([trms, "record", "--engine", "step", "-o", rec, "--", program],
                       check=True, capture_output=True)
        p = subprocess.run([trms, "explore", rec, "--format", "json", *objs], check=True,
                           capture_output=True, text=True)
        report = json.loads(p.stdout)
    else:
        subprocess.run([trms, "explore", "-n", str(n), *options, *objs, "--directory", d,
                        "--keep", "extremes", "--format", "json", "-o", d + ".json", "--",
                        program], check=True, capture_output=True)
        report = json.load(open(d + ".json"))
    return report, time.perf_counter() - start


print(f"load average at the start: {os.getloadavg()[0]:.1f}")
def routine_range(report, name, low, high):
    """A routine's range over all its RMS values: the least LOW, the most HIGH."""
    points = [p for r in report["routines"] if r["name"] == name for p in r["points"]]
    if not points:
        return "-"
    return (f"[{min(p[low]['value'] for p in points)}, "
            f"{max(p[high]['value'] for p in points)}]")


for title, program, names, threads, n, routines in programs:
    results = [(label, *explore(program, names, options, n)) for label, options in configs]
    objects = [o["name"] for o in results[-1][1]["objects"]]
    print(f"\n### {title}: {n} runs each (the single run: one)\n")
    head = "| object | " + " | ".join(label for label, _, _ in results)
    if threads:
        total, seen, inputs = everything(threads)
        head += f" | all {total} interleavings"
    print(head + " |")
    print("|---" * (len(results) + 1 + (1 if threads else 0)) + "|")
    for name in objects:
        cells = []
        for _, r, _ in results:
            o = [x for x in r["objects"] if x["name"] == name]
            if not o or o[0]["min"] is None:
                cells.append("-")
                continue
            o = o[0]
            cells.append(f"[{o['min']['value']}, {o['max']['value']}] ({len(o['ranges'])} "
                         f"range{'s' if len(o['ranges']) > 1 else ''})")
        row = f"| {name} | " + " | ".join(cells)
        if threads:
            ds = seen.get(name, {})
            row += f" | [{min(ds)}, {max(ds)}]" if ds else " | -"
        print(row + " |")
    if threads and "D" in names:
        a3 = seen["A"].get(3, 0)
        found = []
        for label, r, _ in results:
            a = [x for x in r["objects"] if x["name"] == "A"][0]
            found.append(f"run {a['max']['run']}" if a["max"]["value"] == 3 else "not found")
        print(f"| A = 3 first found at | " + " | ".join(found) +
              f" | {a3} of {total} interleavings |")
    for name in routines:
        for k, (what, low, high) in enumerate((("TRMS", "trms_min", "trms_max"),
                                               ("thread-induced", "thread_induced_min",
                                                "thread_induced_max"))):
            every = ""
            if threads and name == "thread1" and len(threads) == 2:
                every = f"[{min(x[k] for x in inputs)}, {max(x[k] for x in inputs)}]"
            print(f"| {name}: {what} | " +
                  " | ".join(routine_range(r, name, low, high) for _, r, _ in results) +
                  (f" | {every} |" if threads else " |"))
    print("| seconds | " + " | ".join(f"{s:.1f}" for _, _, s in results) +
          (" | |" if threads else " |"))
    pct = results[-1][1]
    print(f"\nPCT: k = {pct['k']} counted events (the first run's), n = {pct['threads']} threads; "
          f"depth 3's bound 1/(n k^2) = 1/{pct['pct_bound_runs']:.0f} per run.")
print(f"\nload average at the end: {os.getloadavg()[0]:.1f}")
PY
