#!/usr/bin/env bash
# The README's first command: installs what is missing, builds, and runs the
# main job on the bundled example: a word-frequency program's event trace is
# imported as a recording, analyzed, and reported, with the cost of
# str_tolower by input size (it grows quadratically: strlen in its loop).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install-deps.sh
bash tools/build.sh build
rec=build/example/wordfreq.rec
rm -rf "$rec"
mkdir -p build/example
set -x
build/bin/trms import examples/wordfreq.trace -o "$rec"
build/bin/trms analyze "$rec" --cell-size 1 --activations build/example/activations.csv
build/bin/trms report "$rec" --routine str_tolower
