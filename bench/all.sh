#!/usr/bin/env bash
# Every benchmark in one run, its tables written into bench/README.md
# (between the markers of the section "All benchmarks, one run"):
#
#   bash bench/all.sh            (REPEAT=3 runs of each configuration)
#
#  1. bench/record.sh: real programs natively, under Valgrind's none,
#     callgrind, cachegrind and helgrind, and under trms record + analyze
#     with each engine that works here; wall and CPU time, peak memory,
#     analysis-only throughput on the stored recordings;
#  2. bench/run.sh: the analyses alone on synthetic traces, every engine
#     configuration, against the naive reference, and exact reuse distance
#     against a move-to-front array;
#  3. bench/scale.sh: a 100-million-access trace analyzed in bounded memory
#     (fails above its bound);
#  4. store-verify-bench: what checking a result store before LMDB reads it
#     costs, against reading every record through LMDB;
#  5. bench/memory.py: peak RSS of trms analyze over scattered pages, many
#     threads, a huge kernel write and a dense region, per event, cell and
#     page.
set -euo pipefail
cd "$(dirname "$0")/.."
export REPEAT=${REPEAT:-3}
out=$(mktemp /tmp/trms-bench-all.XXXXXX)
trap 'rm -f "$out"' EXIT
{
    echo "Run of $(date -u +%Y-%m-%dT%H:%MZ) by \`bash bench/all.sh\` (REPEAT=$REPEAT), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')."
    echo
    echo "### Peers: real programs"
    echo
    bash bench/record.sh
    echo
    echo "### The analyses alone (synthetic traces)"
    echo
    bash bench/run.sh 20000000 | sed 's/^### /#### /'
    echo
    echo "### Scale: 100 million accesses in bounded memory"
    echo
    bash bench/scale.sh
    echo
    echo "### Checking the result store before LMDB reads it"
    echo
    build/bench/store-verify-bench "$REPEAT"
    echo
    echo "### Memory by shape"
    python3 bench/memory.py build/bin/trms
} | tee "$out"
python3 - "$out" <<'PY'
import sys
body = open(sys.argv[1]).read().rstrip("\n")
path = "bench/README.md"
text = open(path).read()
begin, end = "<!-- bench/all.sh begin -->", "<!-- bench/all.sh end -->"
section = f"{begin}\n{body}\n{end}"
if begin in text:
    text = text[:text.index(begin)] + section + text[text.index(end) + len(end):]
else:
    text = text.rstrip("\n") + "\n\n## All benchmarks, one run\n\n" + section + "\n"
open(path, "w").write(text)
print(f"written into {path}", file=sys.stderr)
PY
