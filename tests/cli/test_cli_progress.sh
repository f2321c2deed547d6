#!/usr/bin/env bash
# The progress line of `trms analyze`: drawn on stderr when it is a
# terminal (here a pseudo-terminal from script(1)), absent otherwise.
source "$(dirname "$0")/lib.sh"
command -v script >/dev/null || { echo "script(1) is missing (util-linux)"; exit 77; }

# 70001 events: the line is drawn at the first 65536.
python3 -c "
print('thread 1')
for i in range(70000):
    print('read', 4 * i, 4)
" >big.txt
run "$TRMS" import big.txt -o big.rec
expect_status 0

run "$TRMS" analyze big.rec
expect_status 0
[ ! -s "$T/err" ] || fail "progress written where stderr is not a terminal: $(cat "$T/err")"

# script(1) runs the command on a pseudo-terminal; its output is the
# terminal's, stdout and stderr together.
run script -qec "'$TRMS' analyze big.rec --cell-size 8" /dev/null
expect_status 0
python3 - "$T/out" <<'PY' || fail "no progress line on the terminal: $(od -c "$T/out" | head)"
import re, sys
out = open(sys.argv[1], "rb").read().decode()
line = re.search(r"\r\x1b\[Kanalyzing: 65\.5k of 70\.0k events \(94%\), [0-9.]+[kMG]?/s, \d+m\d\ds left", out)
assert line, repr(out)
# The line is erased before the summary.
assert "\r\x1b[Kanalyzed big.rec: 70001 events" in out, repr(out)
PY

# The line of `trms record` counts what the recording wrote, not the 4 MiB
# the recorder holds back for its end (a short sleep writes some kilobytes).
run script -qec "stty rows 24 cols 100; '$TRMS' record --engine valgrind -o sleep.rec -- sleep 1" /dev/null
expect_status 0
python3 - "$T/out" <<'PY' || fail "record's progress line: $(od -c "$T/out" | head -20)"
import re, sys
out = open(sys.argv[1], "rb").read().decode(errors="replace")
sizes = re.findall(r"recording: ([0-9.]+)([kMG]?) bytes written, \d+s", out)
assert sizes, repr(out)
scale = {"": 1, "k": 1e3, "M": 1e6, "G": 1e9}
assert all(float(v) * scale[u] < 4194304 for v, u in sizes), sizes
PY
