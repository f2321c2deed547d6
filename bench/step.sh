#!/usr/bin/env bash
# The step engine's speed here: ptrace single-steps (records) per second of
# `trms record --engine step` on the small static programs of its tests,
# side by side in one run with the same programs natively, under
# `valgrind --tool=none` and under `trms record --engine valgrind`.
# Prints the table of bench/README.md. Builds first (build/).
#
#   bash bench/step.sh            (REPEAT=3 runs each; the table shows medians)
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/build.sh build
work=$(mktemp -d /tmp/trms-step-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT

python3 - "$work" <<'PY'
import os, statistics, subprocess, sys, time
work = sys.argv[1]
repeat = int(os.environ.get("REPEAT", "3"))
trms = "build/bin/trms"
programs = [
    ("step_calls (1 thread: calls, rep movs, a signal, longjmp)",
     ["build/tests/programs/step_calls"]),
    ("step_threads 12 (2 threads, mutex + condition variable)",
     ["build/tests/programs/step_threads", "12"]),
]
runs = iter(range(1000000))

def timed(args):
    start = time.perf_counter()
    subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start

def median(make_args):
    return statistics.median(timed(make_args()) for _ in range(repeat))

def rec():
    return os.path.join(work, f"r{next(runs)}.rec")

print(f"REPEAT={repeat}, load average at the start: {os.getloadavg()[0]:.1f}")
print("| program | instructions (records) | native s | valgrind none s | trms record valgrind s"
      " | trms record step s | step: steps/s | step / none |")
print("|---|---|---|---|---|---|---|---|")
for name, args in programs:
    native = median(lambda: args)
    none = median(lambda: ["valgrind", "--tool=none", "-q"] + args)
    grind = median(lambda: [trms, "record", "-e", "valgrind", "-o", rec(), "--"] + args)
    last = {}

    def step_args():
        last["rec"] = rec()
        return [trms, "record", "-e", "step", "-o", last["rec"], "--"] + args
    step = median(step_args)
    with open(os.path.join(last["rec"], "meta")) as f:
        meta = dict(line.rstrip("\n").split(" ", 1) for line in f if " " in line)
    records = int(meta["records"])
    print(f"| {name} | {records} | {native:.3f} | {none:.2f} | {grind:.2f} | {step:.2f} | "
          f"{records / step:,.0f} | {step / none:.1f}x |")
print(f"load average at the end: {os.getloadavg()[0]:.1f}")
PY
