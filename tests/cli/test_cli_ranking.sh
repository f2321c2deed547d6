#!/usr/bin/env bash
# Ranking: by cost with descendants (default) or by self cost (--sort
# self); wrappers (routines called once that spend under 10% of their cost
# in their own code: <root>, a main that calls the work) are folded out of
# the text report's top rows, named on one line, and listed with --top 0;
# the JSON marks them. A routine called once that does its own work is no
# wrapper.
source "$(dirname "$0")/lib.sh"

# main (self 2) calls work 3 times (self 100, 200, 300), big_once once
# (self 500) and helper 5 times (self 10 each).
{
    echo "thread 1"
    echo "call main"
    echo "cost 2"
    for c in 100 200 300; do
        printf 'call work\nread 0x%x 4\ncost %d\nreturn\n' "$c" "$c"
    done
    printf 'call big_once\ncost 500\nreturn\n'
    for i in 1 2 3 4 5; do
        printf 'call helper\nread 0x%x 4\ncost 10\nreturn\n' "$((0x1000 + 4 * i))"
    done
    echo "return"
} >rank.txt
run "$TRMS" import rank.txt -o rank.rec
expect_status 0
run "$TRMS" analyze rank.rec
expect_status 0

rows() { sed -n '/^  routine /,/^  #rms/p' "$T/out" | sed '1d;$d' | awk '{print $1}' | tr '\n' ' '; }

run "$TRMS" report rank.rec
expect_status 0
expect_out_contains "routines by cost (instructions, descendants included):"
[ "$(rows)" = "work big_once helper folded: " ] || fail "default ranking: $(rows)"
expect_out_contains "folded: 2 wrappers (called once, under 10% of the cost in their own code): <root>, main; --top 0 lists them"

run "$TRMS" report rank.rec --top 0
expect_status 0
[ "$(rows)" = "<root> main work big_once helper " ] || fail "--top 0: $(rows)"

run "$TRMS" report rank.rec --top 2
expect_status 0
[ "$(rows)" = "work big_once folded: ... " ] || fail "--top 2: $(rows)"
expect_out_contains "... 1 more (--top 0 shows all)"

run "$TRMS" report rank.rec --sort self
expect_status 0
expect_out_contains "routines by self cost (instructions, in their own code):"
[ "$(rows)" = "work big_once helper folded: " ] || fail "--sort self: $(rows)"
run "$TRMS" report rank.rec --sort self --top 0
expect_status 0
[ "$(rows)" = "work big_once helper main <root> " ] || fail "--sort self --top 0: $(rows)"
run "$TRMS" report rank.rec --sort cum --top 0
expect_status 0
[ "$(rows)" = "<root> main work big_once helper " ] || fail "--sort cum: $(rows)"

# A selected wrapper is shown, with its tuples.
run "$TRMS" report rank.rec --routine main
expect_status 0
expect_out_contains "main in thread 1: 1 calls"

run "$TRMS" report rank.rec --sort self --format json
expect_status 0
python3 - "$T/out" <<'PY' || fail "JSON ranking is not as expected"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["ranked_by"] == "self_cost", r["ranked_by"]
names = [x["name"] for x in r["routines"]]
assert names == ["work", "big_once", "helper", "main", "<root>"], names
wrappers = {x["name"] for x in r["routines"] if x["wrapper"]}
assert wrappers == {"main", "<root>"}, wrappers
PY

# A frame that passes its cost to one callee (outer: 3 of its 3003 its
# own, the rest inner's) is folded into that callee, as wrappers are; the
# JSON says where its chain ends; --top 0 lists it.
{
    echo "thread 1"
    echo "call main"
    echo "cost 2"
    for c in 1 2 3; do
        printf 'call outer\ncost 1\ncall inner\nread 0x%x 4\ncost 1000\nreturn\nreturn\n' "$((0x2000 + 4 * c))"
    done
    printf 'call other\ncost 900\nreturn\n'
    echo "return"
} >chain.txt
run "$TRMS" import chain.txt -o chain.rec
expect_status 0
run "$TRMS" analyze chain.rec
expect_status 0
run "$TRMS" report chain.rec
expect_status 0
[ "$(rows)" = "inner other folded: folded: " ] || fail "chain ranking: $(rows)"
expect_out_contains "folded: 1 frame passing its cost to one callee (under 1% in their own code): outer > inner"
run "$TRMS" report chain.rec --top 0
expect_status 0
[ "$(rows)" = "<root> main outer inner other " ] || fail "chain --top 0: $(rows)"
run "$TRMS" report chain.rec --format json
expect_status 0
python3 - "$T/out" <<'PY' || fail "JSON passes_to is not as expected"
import json, sys
r = json.load(open(sys.argv[1]))
by = {x["name"]: x for x in r["routines"]}
assert by["outer"]["passes_to"] == "inner", by["outer"]
assert all(by[n]["passes_to"] is None for n in ("inner", "other", "main", "<root>")), by
PY

run "$TRMS" report rank.rec --sort calls
expect_status 2
expect_error_line "--sort is cum or self, not 'calls'"
echo "test_cli_ranking: ok"
