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
# options; with a checkpoint every half second, whose saving takes memory
# too, and without), measuring peak RSS (getrusage, as GNU time does) and
# peak anonymous RSS (polled: what the analysis allocated, without the
# pages of the result store's map, which are page cache), prints a table,
# and FAILS unless, for the long one with and without checkpoints,
#   - peak RSS <= BOUND_MIB (default 256 MiB), and
#   - peak anonymous RSS <= 1.25 x the short one's (without checkpoints)
#     + 32 MiB: memory does not grow with the trace's length.
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
    """Peak RSS (the child's ru_maxrss from wait4, what GNU time reports)
    and peak anonymous RSS (RssAnon polled every 20 ms: the memory the
    analysis allocated, without the pages of the result store's map, which
    are page cache) of a command, in MiB; its output and wall time."""
    start = time.perf_counter()
    with open(os.path.join(work, "out.txt"), "w+") as out:
        p = subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT)
        anon = 0
        while True:
            pid, status, usage = os.wait4(p.pid, os.WNOHANG)
            if pid:
                break
            try:
                for line in open(f"/proc/{p.pid}/status"):
                    if line.startswith("RssAnon:"):
                        anon = max(anon, int(line.split()[1]))
            except OSError:
                pass
            time.sleep(0.02)
        p.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
        out.seek(0)
        text = out.read()
    if p.returncode != 0:
        sys.exit(f"{' '.join(args)} failed: {text}")
    return text, usage.ru_maxrss / 1024, anon / 1024, time.perf_counter() - start

rows = []
for name, n in (("short", accesses // 5), ("long", accesses)):
    rec = record(name + ".rec", n)
    size = os.path.getsize(os.path.join(rec, "events.trms")) / 2**20
    for every in ("0", "0.5"):
        out, rss, anon, wall = peak_rss_mib(["build/bin/trms", "analyze", rec,
                                             "--checkpoint-every", every])
        m = re.search(r"(\d+) events \((\d+) memory accesses\)", out)
        rows.append((name, int(m.group(1)), int(m.group(2)), size, every, wall, rss, anon))
        subprocess.run(["rm", "-rf", os.path.join(rec, "results")], check=True)
    subprocess.run(["rm", "-rf", rec], check=True)

print("| trace | events | accesses | trace file MiB | checkpoints | wall s | peak RSS MiB | peak anonymous MiB |")
print("|---|---|---|---|---|---|---|---|")
for name, events, acc, size, every, wall, rss, anon in rows:
    print(f"| {name} | {events} | {acc} | {size:.0f} | {'every ' + every + ' s' if every != '0' else 'none'} | "
          f"{wall:.1f} | {rss:.0f} | {anon:.0f} |")
short = [r for r in rows if r[0] == "short" and r[4] == "0"][0]
longs = [r for r in rows if r[0] == "long"]
limit_anon = 1.25 * short[7] + 32
long_rss, long_anon = max(r[6] for r in longs), max(r[7] for r in longs)
print()
print(f"Bounds: the {accesses}-access analysis, with and without checkpoints, takes at most "
      f"{bound:.0f} MiB of RSS (measured {long_rss:.0f}), and at most 1.25 x the "
      f"{accesses // 5}-access one's anonymous memory without checkpoints + 32 MiB = "
      f"{limit_anon:.0f} MiB of anonymous memory (measured {long_anon:.0f}).")
if long_rss > bound or long_anon > limit_anon:
    print("FAIL: the analysis took more memory than its bound", file=sys.stderr)
    sys.exit(1)
PY
