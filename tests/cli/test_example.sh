#!/usr/bin/env bash
# The bundled example, as the README's first command runs it: the
# word-frequency trace's str_tolower is seen with many input sizes and grows
# quadratically; the counting thread's input is thread-induced; the input
# buffer's words are external input.
source "$(dirname "$0")/lib.sh"
example="$(dirname "$0")/../../examples/wordfreq.trace"

run "$TRMS" import "$example" -o wf.rec
expect_status 0
run "$TRMS" analyze wf.rec --cell-size 1
expect_status 0
run "$TRMS" report wf.rec --format json
expect_status 0
python3 - "$T/out" <<'PY' || fail "example analysis is not as expected"
import json, sys
r = json.load(open(sys.argv[1]))
by = {(x["name"], x["thread"]): x for x in r["routines"]}
tl = by[("str_tolower", 1)]
pts = tl["rms_points"]
assert len(pts) >= 15, len(pts)
# quadratic: cost per call over n^2 stays within a narrow band
ratios = [p["max"] / p["n"] ** 2 for p in pts if p["n"] >= 8]
assert max(ratios) / min(ratios) < 2, ratios
count = by[("count_word", 2)]
assert count["induced_thread"] == 160 * 8, count["induced_thread"]   # an 8-byte slot per word
nw = by[("next_word", 1)]
assert nw["induced_external"] > 0 and nw["induced_thread"] == 0
root = by[("<root>", 1)]
assert root["trms_points"][0]["n"] > root["rms_points"][0]["n"]
PY
run "$TRMS" report wf.rec
expect_status 0
expect_out_contains "str_tolower"
echo "test_example: ok"
