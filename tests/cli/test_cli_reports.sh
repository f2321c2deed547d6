#!/usr/bin/env bash
# The reports of a small hand-made trace whose every number is worked out
# in tests/fixtures/aprof/trace.txt: the aprof export field by field, the
# calling contexts (kept apart, or added up by routine), thread selection
# and aggregation, merged recordings, diff, and usage mistakes.
fixtures="$(cd "$(dirname "$0")/../fixtures/aprof" && pwd)"
source "$(dirname "$0")/lib.sh"
version=$("$TRMS" --version | head -1 | cut -d' ' -f2)

run "$TRMS" import "$fixtures/trace.txt" -o s.rec
expect_status 0
run "$TRMS" analyze s.rec
expect_status 0

# aprof: one file per thread and input metric, each as computed by hand.
run "$TRMS" report s.rec --format aprof -o aprof
expect_status 0
[ "$(ls aprof | tr '\n' ' ')" = "trms-t1-drms.aprof trms-t1-rms.aprof trms-t2-drms.aprof trms-t2-rms.aprof " ] \
    || fail "aprof files: $(ls aprof)"
for f in t1-rms t1-drms t2-rms t2-drms; do
    sed "s/VERSION/$version/" "$fixtures/$f.aprof" | diff -u - "aprof/trms-$f.aprof" \
        || fail "aprof/trms-$f.aprof differs from the hand-computed $f.aprof"
done
run "$TRMS" report s.rec --format aprof
expect_status 2
expect_error_line "give the directory with -o DIR"

# Asking for contexts of an analysis without them: one line, status 1.
run "$TRMS" report s.rec --contexts
expect_status 1
expect_error_line "run \`trms analyze --contexts\` first"

# Calling contexts: f called from main, from f, and from g, kept apart.
run "$TRMS" analyze s.rec --contexts
expect_status 0
run "$TRMS" report s.rec --contexts --format aprof -o aprof-contexts
expect_status 0
sed "s/VERSION/$version/" "$fixtures/t1-rms-contexts.aprof" | diff -u - aprof-contexts/trms-t1-rms.aprof \
    || fail "the contexts' aprof report differs from the hand-computed one"
run "$TRMS" info s.rec
expect_out_contains "cell size 4, line size 64, calling contexts, stored"
run "$TRMS" report s.rec --contexts --format json
expect_status 0
python3 - "$T/out" <<'PY' || fail "contexts JSON is not as expected"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["contexts"] is True
f = {tuple(x["context"]): x for x in r["routines"] if x["name"] == "f"}
assert set(f) == {("main", "f"), ("main", "f", "f"), ("main", "g", "f")}, set(f)
assert [p["n"] for p in f[("main", "f")]["rms_points"]] == [3]
assert [p["n"] for p in f[("main", "g", "f")]["rms_points"]] == [2]
inner = f[("main", "f", "f")]
assert inner["cost"] == 0 and inner["rms_points"][0]["real_sum"] == 0, inner  # recursive
assert inner["rms_points"][0]["sum"] == 3
PY
run "$TRMS" report s.rec --contexts
expect_out_contains "calling contexts by cost"
grep -qE "^  main > g > f +1 +1 +2 " "$T/out" || fail "text lacks the context main > g > f"
# The latest result keeps contexts; without --contexts they add up by routine
# to what the analysis without contexts found.
run "$TRMS" report s.rec --format json --routine f
python3 - "$T/out" <<'PY' || fail "contexts did not add up to the routine"
import json, sys
r = json.load(open(sys.argv[1]))
(f,) = r["routines"]
assert "context" not in f and f["calls"] == 3 and f["cost"] == 11 and f["self_cost"] == 11, f
assert [(p["n"], p["sum"], p["real_sum"]) for p in f["rms_points"]] == [(1, 3, 0), (2, 2, 2), (3, 9, 9)]
PY

# Threads: one selected; all added up.
run "$TRMS" report s.rec --format json --thread 2
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert {x["name"] for x in r["routines"]} == {"<root>", "h"}, r["routines"]; assert list(r["reuse"]["threads"]) == ["2"]' "$T/out" \
    || fail "--thread 2 did not select thread 2"
run "$TRMS" report s.rec --format json --aggregate-threads --routine '<root>'
python3 -c 'import json,sys; (x,)=json.load(open(sys.argv[1]))["routines"]; assert x["thread"] is None and x["threads"] == [1, 2] and x["calls"] == 2 and x["cost"] == 21, x' "$T/out" \
    || fail "--aggregate-threads did not add the roots up"
run "$TRMS" report s.rec --thread 3
expect_status 1
expect_error_line "no thread 3"
run "$TRMS" report s.rec --routine 'nosuch*'
expect_status 1
expect_error_line "no routine named 'nosuch*'"
# h's TRMS input: one thread-induced read of its two.
run "$TRMS" report s.rec --routine h
grep -qE "^  h +2 +1 +3 +3 +1 +1 +- +\(1 size\) +50\.0% +0\.0%$" "$T/out" || fail "h's row: $(grep '^  h' "$T/out")"

# Merged: the same recording twice doubles every tuple's calls.
run "$TRMS" report s.rec s.rec --format json --routine g
python3 -c 'import json,sys; (g,)=json.load(open(sys.argv[1]))["routines"]; assert g["calls"] == 2 and g["rms_points"][0]["calls"] == 2 and g["rms_points"][0]["sumsq"] == 72, g' "$T/out" \
    || fail "merging a recording with itself"
run "$TRMS" diff s.rec s.rec
expect_status 0
expect_out_contains "0 routines changed growth, 0 changed cost, 0 only in s.rec, 0 only in s.rec"
run "$TRMS" diff s.rec
expect_status 2

# HTML and CSV of the same.
run "$TRMS" report s.rec --format html -o page.html
expect_status 0
head -c 15 page.html | grep -q "<!DOCTYPE html>" || fail "not an HTML page"
# Thread 1's root (row 0) is a wrapper, not plotted; main (row 1, a sixth of
# its cost its own) is.
grep -q '<section class="routine" id="r-1" data-rms-points="1" data-trms-points="1" data-trms-as-rms="1"><h3 title="main"' \
    page.html || fail "no section for main"
grep -q '<section class="routine" id="r-0"' page.html && fail "the root, a wrapper, is plotted"
run "$TRMS" report s.rec --contexts --format csv
expect_out_contains "routine,thread,metric,n,calls,min,max,sum,sumsq,self_min,self_max,self_sum,self_sumsq,real_sum,context"
expect_out_contains "f,1,rms,1,1,3,3,3,9,3,3,3,9,0,main > f > f"
run "$TRMS" report s.rec --metric size
expect_status 2

# The text table's columns stay put whatever a row holds: a verdict wider
# than the column's title ('n or n log n?'), an exponent with its '±' (two
# bytes, one column), sizes in parentheses. Every row is as wide as the
# header, in characters, and says "1 thread" of one thread.
python3 - >grow.txt <<'PY'
print("thread 1")
print("call main")
for rounds in range(3):
    for n in range(4, 68, 4):                  # 16 sizes, 16x
        print("call square")
        for i in range(n):
            print(f"read {0x10000 + 4 * i:#x} 4")
        print(f"cost {n * n}")
        print("return")
        print("call linear")                    # cost 5n + noise: near n and n log n
        for i in range(n):
            print(f"read {0x20000 + 4 * i:#x} 4")
        print(f"cost {5 * n + (7 * n * rounds) % 11}")
        print("return")
for _ in range(2):
    print("call few")
    print("read 0x30000 4")
    print("cost 3")
    print("return")
print("return")
PY
run "$TRMS" import grow.txt -o grow.rec
expect_status 0
run "$TRMS" analyze grow.rec
expect_status 0
run "$TRMS" report grow.rec --top 0
expect_status 0
expect_out_contains "1 thread, "
python3 - "$T/out" <<'PY' || fail "the routines table's rows are not aligned with its header"
import sys
lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
start = next(i for i, l in enumerate(lines) if l.startswith("routines by cost")) + 1
header, rows = lines[start], []
for line in lines[start + 1:]:
    if not line.startswith("  ") or line.startswith(("  folded", "  ...", "  #rms")):
        break
    rows.append(line)
assert len(rows) >= 4 and any("±" in r for r in rows), rows
for row in rows:
    assert len(row) == len(header), (header, row)
    assert row.index("%") == header.index("thr-in") + 5, (header, row)
PY
echo "test_cli_reports: ok"
