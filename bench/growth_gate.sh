#!/usr/bin/env bash
# How much data a growth verdict needs, measured on data: records the corpus
# of tests/programs/growth (routines of known growth, -O2), draws thousands
# of subsets of each routine's input sizes (a window spanning 1.5x to 1024x
# at the large end, 3 to 16 sizes in it) and fits each with almost no gate
# (build/bench/growth-gate); then, for each candidate gate (sizes, size
# classes, span), how many verdicts pass it and how many of those are
# wrong. Prints markdown tables (bench/README.md keeps them).
#
#   bash bench/growth_gate.sh [DRAWS_PER_CELL]     (default 12; 3 runs of the corpus)
set -euo pipefail
cd "$(dirname "$0")/.."
draws=${1:-12}
bash tools/build.sh build
tmp=$(mktemp -d /tmp/trms-growth-gate.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
for run in 1 2 3; do
    build/bin/trms record -o "$tmp/corpus$run.rec" -- build/tests/programs/growth_corpus \
        >/dev/null 2>"$tmp/record.log"
    build/bin/trms analyze "$tmp/corpus$run.rec" >/dev/null
    build/bin/trms report "$tmp/corpus$run.rec" --format json --top 0 >"$tmp/corpus$run.json"
done
python3 bench/growth_gate.py "$tmp" "$draws"
