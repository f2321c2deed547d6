#!/usr/bin/env bash
# Runs the analysis benchmarks and prints the tables of bench/README.md.
#
#   bash bench/run.sh [EVENTS]      (default 20000000 events per run)
#
# Every configuration runs REPEAT times (default 5); the table gives the
# median and the best accesses/s, since this machine's timings vary from run
# to run. Builds first (build/), like the README's commands.
set -euo pipefail
cd "$(dirname "$0")/.."
events=${1:-20000000}
repeat=${REPEAT:-5}
bash tools/build.sh build
bench=build/bench/trms-bench
trms=build/bin/trms
out=$(mktemp -d /tmp/trms-bench.XXXXXX)
trap 'rm -rf "$out"' EXIT

field() { grep -o "$1=[^ ]*" | head -1 | cut -d= -f2; }

# summary MODE ARGS...: one table row from REPEAT runs of trms-bench.
summary() {
    local mode=$1 ws=$2
    shift 2
    local rates=() line=""
    for _ in $(seq "$repeat"); do
        line=$("$bench" "$mode" --events "$events" --working-set "$ws" "$@")
        rates+=("$(echo "$line" | field accesses_per_s | tr -d M)")
    done
    python3 - "$mode" "$ws" "$line" "$*" "${rates[@]}" <<'PY'
import statistics, sys
mode, ws, line, extra, rates = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], [float(r) for r in sys.argv[5:]]
f = dict(kv.split("=", 1) for kv in line.split())
shadow = []
if mode in ("input-size", "all"):
    shadow.append(f"{f['input_size_mib']} MiB, {f['bytes_per_cell']} B/cell")
if mode in ("reuse", "all"):
    shadow.append(f"{f['reuse_mib']} MiB, {f['bytes_per_line']} B/line")
config = extra.replace("--workers 0", "no workers").replace("--shards 1", "1 shard") or "default"
lines = f["distinct_lines"] if mode != "input-size" else "-"
print(f"| {mode} | {config} | {ws / 1048576:g} MiB | {f['distinct_cells']} | {lines} | "
      f"{statistics.median(rates):.1f} | {max(rates):.1f} | {'; '.join(shadow)} |")
PY
}

echo "Machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); $(date -u +%Y-%m-%d)"
echo
echo "### Analyses alone ($events events per run, $repeat runs, 4 program threads, cell 4 B, line 64 B)"
echo
echo "| passes | engine | heap working set | distinct cells | distinct lines | median M accesses/s | best M accesses/s | analysis memory |"
echo "|---|---|---|---|---|---|---|---|"
for ws in 1048576 8388608 67108864; do
    summary input-size "$ws"
    summary input-size "$ws" --workers 0 --shards 1
    summary reuse "$ws"
    summary reuse "$ws" --workers 0
    summary all "$ws"
done

echo
echo "### Against the naive reference (same prefix, checked equal)"
echo
echo "| events | accesses | trms s | naive s | ratio |"
echo "|---|---|---|---|---|"
for n in 50000 200000; do
    line=$("$bench" naive --events "$n" --working-set 1048576)
    echo "| $n | $(echo "$line" | field accesses) | $(echo "$line" | field fast_seconds) |" \
         "$(echo "$line" | field naive_seconds) | $(echo "$line" | field speedup) |"
done

echo
echo "### Exact reuse distance against the naive one (one stack, the same line accesses, checked equal)"
echo
echo "| heap working set | line accesses | distinct lines | trms M/s | move-to-front M/s | ratio |"
echo "|---|---|---|---|---|---|"
for ws in 1048576 8388608; do
    line=$("$bench" reuse-naive --events 5000000 --working-set "$ws")
    echo "| $((ws / 1048576)) MiB | $(echo "$line" | field line_accesses) |" \
         "$(echo "$line" | field distinct_lines) | $(echo "$line" | field fast_per_s | tr -d M) |" \
         "$(echo "$line" | field naive_per_s | tr -d M) | $(echo "$line" | field speedup) |"
done

echo
echo "### End to end: trms analyze of a recording (decode, every pass, store)"
echo
echo "| events | accesses | file MiB | wall s | M accesses/s | peak RSS MiB |"
echo "|---|---|---|---|---|---|"
"$bench" record "$out/rec" --events "$events" --working-set 8388608
python3 - "$trms" "$out/rec" <<'PY'
import re, resource, subprocess, sys, time, os
start = time.time()
done = subprocess.run([sys.argv[1], "analyze", sys.argv[2]], capture_output=True, text=True, check=True)
wall = time.time() - start
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
m = re.search(r"(\d+) events \((\d+) memory accesses\)", done.stdout)
size = os.path.getsize(os.path.join(sys.argv[2], "events.trms")) / 2**20
print(f"| {m.group(1)} | {m.group(2)} | {size:.0f} | {wall:.2f} | {int(m.group(2)) / wall / 1e6:.1f} | {rss:.0f} |")
PY
