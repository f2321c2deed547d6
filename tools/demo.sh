#!/usr/bin/env bash
# The README's first command: installs what is missing, builds, and runs the
# main job on the bundled example: examples/wordfreq.c (a reader thread and a
# counter thread) is recorded with the default engine while it counts the
# words of examples/wordfreq-input.txt, analyzed, and reported, with the
# cost of str_tolower by input size (quadratic: strlen in its loop).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install-deps.sh
bash tools/build.sh build
rec=build/example/wordfreq.rec
rm -rf "$rec"
mkdir -p build/example
set -x
build/bin/trms record -o "$rec" -- build/examples/wordfreq examples/wordfreq-input.txt 5
build/bin/trms analyze "$rec" --cell-size 1 --activations build/example/activations.csv
build/bin/trms report "$rec" --top 12 --routine str_tolower
build/bin/trms report "$rec" --format html -o build/example/report.html
