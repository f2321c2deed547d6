#!/usr/bin/env bash
# trms info: what a recording holds and which analyses are stored, in text
# and JSON; a missing recording and an unreadable store are one line on
# stderr and exit status 1.
source "$(dirname "$0")/lib.sh"

write_slides_trace slides.txt
run "$TRMS" import slides.txt -o s.rec
expect_status 0

run "$TRMS" info s.rec
expect_status 0
expect_out_contains "engine           import"
expect_out_contains "threads          1"
expect_out_contains "events           15"
expect_out_contains "routines         2"
expect_out_contains "analyses         none yet: \`trms analyze s.rec\`"

run "$TRMS" analyze s.rec --cell-size 16
expect_status 0
run "$TRMS" analyze s.rec --cell-size 4 --line-size 32
expect_status 0
run "$TRMS" info s.rec --format json
expect_status 0
python3 - "$T/out" "$T/s.rec" <<'PY' || fail "info JSON is not as expected"
import json, os, sys
info = json.load(open(sys.argv[1]))
rec = sys.argv[2]
assert info["recording"] == "s.rec", info
assert info["meta"]["engine"] == "import" and info["meta"]["events"] == "15", info["meta"]
assert info["meta"]["threads"] == "1", info["meta"]
# The same meta with JSON's types beside it: numbers, booleans, null.
typed = info["meta_typed"]
assert typed.keys() == info["meta"].keys(), typed
assert typed["events"] == 15 and typed["threads"] == 1 and typed["routines"] == 2, typed
assert typed["engine"] == "import", typed
for key, text in info["meta"].items():
    want = {"yes": True, "no": False, "-": None}.get(text, text)
    if text.isdigit() and (text == "0" or text[0] != "0"):
        want = int(text)
    assert typed[key] == want, (key, text, typed[key])
# Options in numeric order (not the keys' byte order, "16" < "4"); the one
# analyzed last is the latest.
got = [(a["cell_size"], a["line_size"], a["latest"]) for a in info["analyses"]]
assert got == [(4, 32, True), (16, 64, False)], got
assert all(len(a["analyzed"]) == 20 and a["analyzed"].endswith("Z") for a in info["analyses"])
# Sizes are what the files occupy on disk.
def usage(p):
    st = os.lstat(p)
    n = st.st_blocks * 512
    if os.path.isdir(p):
        n += sum(usage(os.path.join(p, c)) for c in os.listdir(p))
    return n
assert info["size_bytes"] == usage(rec), (info["size_bytes"], usage(rec))
assert info["events_bytes"] == usage(os.path.join(rec, "events.trms"))
assert info["results_bytes"] == usage(os.path.join(rec, "results")) > 0
PY

run "$TRMS" info s.rec
expect_out_contains "cell size 4, line size 32, stored "
expect_out_contains "(latest: what \`trms report\` shows)"

# A thread line naming the thread already current is no switch: the trace
# keeps no record of it, and the meta counts what the trace holds, so the
# recording is complete and packs (the count once included it).
printf 'thread 7\ncall f\nread 0x10 4\nthread 7\nreturn\n' >again.txt
run "$TRMS" import again.txt -o again.rec
expect_status 0
expect_out_contains "imported 4 events"
run "$TRMS" info again.rec
expect_status 0
expect_out_contains "complete         yes"
expect_out_contains "events           4"
run "$TRMS" pack again.rec -o again.trmspack
expect_status 0

# Not a recording.
run "$TRMS" info nothing.rec
expect_status 1
expect_error_line "nothing.rec"

# A result store LMDB cannot read: the rest is printed, the failure is one
# line on stderr, and the store's data is left as it was.
run "$TRMS" import slides.txt -o bad.rec
mkdir bad.rec/results
head -c 8192 /dev/urandom >bad.rec/results/data.mdb
before=$(sha256sum <bad.rec/results/data.mdb)
run "$TRMS" info bad.rec
expect_status 1
expect_out_contains "events           15"
expect_error_line "bad.rec/results"
# (lock.mdb is LMDB's reader table, rewritten by any open; the data is not.)
[ "$(sha256sum <bad.rec/results/data.mdb)" = "$before" ] || fail "info changed an unreadable store"

run "$TRMS" info s.rec --format yaml
expect_status 2
