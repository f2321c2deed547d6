#!/usr/bin/env bash
# Scale: `trms analyze` of a 100-million-access trace runs in bounded
# memory, the same as a trace a fifth as long with the same working set
# (memory grows with the distinct cells and lines, not with the length),
# and less than the trace file, which streams from disk.
#
#   bash bench/scale.sh [ACCESSES]     (default 100000000)
#
# Writes two synthetic recordings of the same shape (bench/synthetic_trace.c:
# 4 threads, 8 MiB of heap data, which both touch whole) with trms-bench, of ACCESSES / 5 and of
# ACCESSES memory accesses, analyzes each with `trms analyze` (default
# options, checkpoints every 5 s included) under GNU time (or a getrusage
# wrapper), prints a table, and FAILS unless
#   - peak RSS of the long one <= BOUND_MIB (default 256 MiB), and
#   - peak RSS of the long one <= 1.25 x the short one's + 64 MiB.
set -euo pipefail
cd "$(dirname "$0")/.."
accesses=${1:-100000000}
bound=${BOUND_MIB:-256}
bash tools/build.sh build
work=$(mktemp -d /tmp/trms-scale.XXXXXX)
trap 'rm -rf "$work"' EXIT
python3 - "$work" "$accesses" "$bound" <<'PY'
import os, re, resource, subprocess, sys, time
work, accesses, bound = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
# 8 MiB of heap data: both traces touch all of it (2 M cells, 131 K lines),
# so any difference in memory would come from the length alone.
WORKING_SET = 8 << 20
# The synthetic trace has 0.907 accesses per event.
def record(name, n):
    path = os.path.join(work, name)
    subprocess.run(["build/bench/trms-bench", "record", path, "--events", str(int(n / 0.907) + 1000),
                    "--working-set", str(WORKING_SET)], check=True)
    return path

def peak_rss_mib(args):
    """Peak RSS of a command: GNU time when installed, else getrusage."""
    start = time.perf_counter()
    if os.path.exists("/usr/bin/time"):
        out = subprocess.run(["/usr/bin/time", "-f", "maxrss %M"] + args, capture_output=True,
                             text=True, check=True)
        rss = int(re.search(r"maxrss (\d+)", out.stderr).group(1)) / 1024
    else:
        before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        out = subprocess.run(args, capture_output=True, text=True, check=True)
        rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return out, rss, time.perf_counter() - start

rows = []
for name, n in (("short", accesses // 5), ("long", accesses)):
    rec = record(name + ".rec", n)
    size = os.path.getsize(os.path.join(rec, "events.trms")) / 2**20
    for every in ("5", "0"):
        out, rss, wall = peak_rss_mib(["build/bin/trms", "analyze", rec, "--checkpoint-every", every])
        m = re.search(r"(\d+) events \((\d+) memory accesses\)", out.stdout)
        rows.append((name, int(m.group(1)), int(m.group(2)), size, every, wall, rss))
        subprocess.run(["rm", "-rf", os.path.join(rec, "results")], check=True)
    subprocess.run(["rm", "-rf", rec], check=True)

print(f"| trace | events | accesses | trace file MiB | checkpoints | wall s | peak RSS MiB |")
print("|---|---|---|---|---|---|---|")
for name, events, acc, size, every, wall, rss in rows:
    print(f"| {name} | {events} | {acc} | {size:.0f} | {'every 5 s' if every != '0' else 'none'} | "
          f"{wall:.1f} | {rss:.0f} |")
short = max(r[6] for r in rows if r[0] == "short")
long = max(r[6] for r in rows if r[0] == "long")
limit = min(bound, 1.25 * short + 64)
print()
print(f"Bound: peak RSS of the {accesses}-access analysis <= min({bound:.0f} MiB, 1.25 x "
      f"{short:.0f} + 64 MiB) = {limit:.0f} MiB; measured {long:.0f} MiB.")
if long > limit:
    print("FAIL: the analysis took more memory than its bound", file=sys.stderr)
    sys.exit(1)
PY
