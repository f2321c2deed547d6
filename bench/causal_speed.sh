#!/usr/bin/env bash
# `trms causal` against `trms analyze` on one recording of a real
# multithreaded program (issue 26: the causal profile, all routines at all
# 21 speedups, must cost under a tenth of the analysis): pigz -p 3 of a
# 3 MB text made with a fixed seed, recorded once with the Valgrind engine
# (--no-analysis), then timed side by side, alternating, ROUNDS rounds
# (default 3): `trms analyze` (which also writes the causal input,
# REC/causal.trms: removed before each round, so every round pays for it),
# `trms causal` (from that input), and `trms causal` of a copy without it
# (the whole trace decoded, as for a recording older than causal.trms).
# Medians of wall and CPU time (user + system of the child), the load
# average at the start and the end. Builds first (build/).
#
#   bash bench/causal_speed.sh        (ROUNDS=3)
#
# Not a test: the figures depend on the machine and its load.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/build.sh build >/dev/null
command -v pigz >/dev/null || { echo "causal_speed: pigz is not installed" >&2; exit 1; }
work=$(mktemp -d /tmp/trms-causal-speed.XXXXXX)
trap 'rm -rf "$work"' EXIT
python3 bench/words_text.py "$work/in"
build/bin/trms record --engine valgrind --no-analysis -o "$work/pigz.rec" -- pigz -p 3 -c "$work/in" >/dev/null
python3 - "$work" <<'PY'
import os, resource, statistics, subprocess, sys, time
work = sys.argv[1]
rounds = int(os.environ.get("ROUNDS", "3"))
trms = "build/bin/trms"
rec = f"{work}/pigz.rec"
old = f"{work}/old.rec"    # the same recording without causal.trms
os.mkdir(old)
for name in os.listdir(rec):
    if name not in ("causal.trms", "results"):
        os.link(f"{rec}/{name}", f"{old}/{name}")
causal_input = f"{rec}/causal.trms"
commands = [("analyze", [trms, "analyze", rec]),
            ("causal", [trms, "causal", rec, "--format", "json"]),
            ("causal, whole trace", [trms, "causal", old, "--format", "json"])]
def load():
    return open("/proc/loadavg").read().split()[0]
def timed(argv):
    if argv[1] == "analyze" and os.path.exists(causal_input):
        os.remove(causal_input)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu
start = load()
times = {name: [] for name, _ in commands}
for _ in range(rounds):
    for name, argv in commands:
        times[name].append(timed(argv))
end = load()
med = {n: (statistics.median(w for w, _ in t), statistics.median(c for _, c in t))
       for n, t in times.items()}
print(f"pigz -p 3 of 3 MB, {rounds} rounds alternating, load average {start} at the start, "
      f"{end} at the end\n")
print("| command | wall (median) | CPU (median) |")
print("|---|---|---|")
for name, argv in commands:
    shown = " ".join(a.replace(work, "$work") for a in argv)
    print(f"| {name}: `{shown}` | {med[name][0]:.2f} s | {med[name][1]:.2f} s |")
for name in ("causal", "causal, whole trace"):
    print(f"\n{name} / analyze: wall {med[name][0] / med['analyze'][0]:.3f}, "
          f"CPU {med[name][1] / med['analyze'][1]:.3f}")
print(f"\ncausal.trms {os.path.getsize(causal_input)} bytes, events.trms "
      f"{os.path.getsize(rec + '/events.trms')} bytes")
PY
