#!/usr/bin/env bash
# The README's screenshot and its text equivalent, reproducibly: records the
# bundled example as tools/demo.sh does (examples/wordfreq.c: a reader
# thread and a counter thread, on examples/wordfreq-input.txt), analyzes it
# with 1-byte cells, writes the HTML report and takes docs/report.png of it
# with headless Chromium at 1200x900; writes the first lines of the text
# report (`--top 8`) to docs/report.txt, which the README quotes beside the
# picture. Builds first (build/), like the README's commands; SKIP_BUILD=1
# uses build/ as it is. Needs chromium (tools/install-deps.sh installs it).
set -euo pipefail
cd "$(dirname "$0")/.."
[ "${SKIP_BUILD:-0}" = 1 ] || bash tools/build.sh build
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  echo "screenshot.sh: chromium is not installed (apt-get install chromium)" >&2
  exit 1
fi
trms=$PWD/build/bin/trms
out=build/screenshot
rm -rf "$out"
mkdir -p "$out"
# In the output folder, so that both reports name the recording as a user's would.
(
  cd "$out"
  "$trms" record -o wordfreq.rec -- ../examples/wordfreq ../../examples/wordfreq-input.txt 5 >/dev/null
  "$trms" analyze wordfreq.rec --cell-size 1
  "$trms" report wordfreq.rec --format html -o report.html
  "$trms" report wordfreq.rec --top 8 > report.txt
)
# The text report down to its global reuse distances (the per-thread ones follow).
awk '{ print } /^  all threads/ { getline; print; exit }' "$out/report.txt" > docs/report.txt
"$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
  --user-data-dir="$PWD/$out/profile" --window-size=1200,900 \
  --screenshot="$PWD/$out/report.png" "file://$PWD/$out/report.html" 2>/dev/null
cp "$out/report.png" docs/report.png
echo "docs/report.png ($(stat -c %s docs/report.png) bytes) and docs/report.txt written" >&2
