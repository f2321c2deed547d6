#!/usr/bin/env bash
# What analyze stores and report prints: the activations CSV, the JSON
# report's fields, replacing a result with the same options only, and the
# export/import round trip.
source "$(dirname "$0")/lib.sh"

write_slides_trace slides.txt
run "$TRMS" import slides.txt -o s.rec
expect_status 0
expect_out_contains "imported 15 events (1 thread, 2 routines) into s.rec"
run "$TRMS" analyze s.rec --activations act.csv
expect_status 0
cat >expected.csv <<'CSV'
thread,routine,depth,rms,trms,cost,self_cost,induced_thread,induced_external
1,g,2,3,3,10,10,0,0
1,f,1,2,2,15,5,0,0
1,<root>,0,2,2,15,0,0,0
CSV
diff -u expected.csv act.csv || fail "activations CSV differs"

run "$TRMS" report s.rec --format json
expect_status 0
python3 - "$T/out" <<'PY' || fail "JSON report is not as expected"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["cell_size"] == 4 and r["line_size"] == 64, r
by = {(x["name"], x["thread"]): x for x in r["routines"]}
g, f = by[("g", 1)], by[("f", 1)]
for x in (f, g):
    for key in ("calls", "rms_points", "trms_points", "induced_thread", "induced_external"):
        assert key in x, key
    for p in x["rms_points"] + x["trms_points"]:
        assert set(("n", "calls", "min", "max", "sum", "sumsq")) <= set(p), p
assert g["rms_points"] == [dict(g["rms_points"][0], n=3, calls=1, min=10, max=10, sum=10, sumsq=100)]
assert f["trms_points"][0]["n"] == 2 and f["trms_points"][0]["sumsq"] == 225
glob = r["reuse"]["global"]
assert glob == {"accesses": 7, "cold": 1, "histogram": [[0, 6]]}, glob
assert r["reuse"]["threads"]["1"] == glob
PY

run "$TRMS" report s.rec --format csv
expect_status 0
expect_out_contains "routine,thread,metric,n,calls,min,max,sum,sumsq"
expect_out_contains "g,1,rms,3,1,10,10,10,100"
run "$TRMS" report s.rec
expect_status 0
grep -q "^  g " "$T/out" || fail "text report lacks g"
run "$TRMS" report s.rec --routine g
expect_status 0
expect_out_contains "g in thread 1: 1 calls; cost by input size (cells)"
grep -qE "^ +3 +1 +10 +10 +10.0$" "$T/out" || fail "g's tuple (n 3, 1 call, cost 10) is missing"

# A second analysis with other options is kept beside the first; report
# shows the latest unless asked for the first.
run "$TRMS" analyze s.rec --cell-size 1 --line-size 16
expect_status 0
run "$TRMS" report s.rec --format json
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["cell_size"]==1 and r["line_size"]==16' "$T/out" \
    || fail "latest result is not the cell-size-1 one"
run "$TRMS" report s.rec --format json --cell-size 4 --line-size 64
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["cell_size"]==4' "$T/out" \
    || fail "the cell-size-4 result was lost"
cp "$T/out" first.json
# The same options again replace that result (with the same numbers).
run "$TRMS" analyze s.rec
expect_status 0
run "$TRMS" report s.rec --format json --cell-size 4 --line-size 64
cmp -s "$T/out" first.json || fail "re-analysis changed the result"

# export | import reproduces the recording's analysis exactly.
run "$TRMS" export s.rec -o s.txt
expect_status 0
run "$TRMS" import s.txt -o s2.rec
expect_status 0
run "$TRMS" analyze s2.rec
run "$TRMS" report s2.rec --format json
sed 's/s2.rec/s.rec/' "$T/out" | cmp -s - first.json || fail "export/import changed the analysis"
echo "test_cli_results: ok"
