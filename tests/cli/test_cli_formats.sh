#!/usr/bin/env bash
# Recordings of older trace formats still read, and analyze as a recording
# of the current format does. tests/fixtures/recordings/v2.rec is a
# recording trms wrote in event trace format version 2 (before compressed
# blocks; three 64 KiB blocks of a 4-thread random trace, from
# `trms-random-threads-trace 30000 7`). The text that build exported from it
# had the SHA-256 below (after its first line, a comment naming the
# recording): this build must read the same events, and its
# analysis of the old recording must store what it stores for the same
# events imported anew (format version 3, compressed).
FIXTURE="$(cd "$(dirname "$0")/../fixtures/recordings" && pwd)/v2.rec"
source "$(dirname "$0")/lib.sh"
EXPORT_SHA256=2fc22737d51b7bb98fa2da6c1ab384f2d1dd82cd1e6e50ff2c60d383f35cce5d

cp -r "$FIXTURE" old.rec
[ "$(od -A n -t u4 -j 8 -N 4 old.rec/events.trms | tr -d ' ')" = 2 ] ||
    fail "the fixture is not of format version 2"
run "$TRMS" export old.rec
expect_status 0
[ "$(tail -n +2 "$T/out" | sha256sum | cut -d' ' -f1)" = "$EXPORT_SHA256" ] ||
    fail "the version 2 recording does not read as the build that wrote it read it"
cp "$T/out" old.txt
run "$TRMS" import old.txt -o new.rec
expect_status 0
[ "$(od -A n -t u4 -j 8 -N 4 new.rec/events.trms | tr -d ' ')" = 4 ] ||
    fail "import does not write format version 4"
digest=$(sha256sum old.rec/events.trms)
for options in "" "--cell-size 1 --line-size 32 --contexts"; do
    for rec in old.rec new.rec; do
        # shellcheck disable=SC2086
        run "$TRMS" analyze "$rec" $options
        expect_status 0
        # shellcheck disable=SC2086
        run "$TRMS" report "$rec" --format json $options
        expect_status 0
        sed "s/$rec/REC/g" "$T/out" >"$rec.json"
    done
    cmp -s old.rec.json new.rec.json ||
        fail "options '$options': the version 2 recording analyzes differently"
done
[ "$(sha256sum old.rec/events.trms)" = "$digest" ] || fail "analyze changed the old recording"
# A recording from before process trees (issue 25) is a tree of one.
run "$TRMS" info old.rec
expect_status 0
grep -q '^processes  *1 recorded, 0 left out$' "$T/out" || fail "the old recording is not a tree of one"
run "$TRMS" info old.rec --format json
expect_status 0
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert [p["dir"] for p in d["processes"]] == ["."] and d["left_out"] == []' "$T/out" ||
    fail "info --format json: the old recording's processes"
run "$TRMS" analyze old.rec --process 1
expect_status 1

# tests/fixtures/recordings/v3.rec: trace format version 3 (compressed
# blocks, sync records under header flag 1), imported by the build before
# format 4 from the text tests/fixtures/recordings/mk_v3_text.py prints. It
# must read as that build read it, sync records included, and analyze as
# the same events imported anew (the current format).
V3_EXPORT_SHA256=6052c33ee03a8b05d8d9e0eb265ec4af9c54813f162aacaaead1206ec67d294f
cp -r "$(dirname "$FIXTURE")/v3.rec" old3.rec
[ "$(od -A n -t u4 -j 8 -N 8 old3.rec/events.trms | tr -s ' ')" = " 3 1" ] ||
    fail "the fixture is not of format version 3 with sync records"
run "$TRMS" export old3.rec
expect_status 0
[ "$(tail -n +2 "$T/out" | sha256sum | cut -d' ' -f1)" = "$V3_EXPORT_SHA256" ] ||
    fail "the version 3 recording does not read as the build that wrote it read it"
grep -q '^#@sync ' "$T/out" || fail "the version 3 recording lost its sync records"
cp "$T/out" old3.txt
run "$TRMS" import old3.txt -o new3.rec
expect_status 0
run "$TRMS" export new3.rec
expect_status 0
cmp -s <(tail -n +2 "$T/out") <(tail -n +2 old3.txt) ||
    fail "the version 3 events do not read back the same from the current format"
digest=$(sha256sum old3.rec/events.trms)
for rec in old3.rec new3.rec; do
    run "$TRMS" analyze "$rec"
    expect_status 0
    run "$TRMS" report "$rec" --format json
    expect_status 0
    sed "s/$rec/REC/g" "$T/out" >"$rec.json"
done
cmp -s old3.rec.json new3.rec.json || fail "the version 3 recording analyzes differently"
[ "$(sha256sum old3.rec/events.trms)" = "$digest" ] || fail "analyze changed the old recording"
echo "test_cli_formats: ok"
