#!/usr/bin/env bash
# Checkpoints: `trms analyze` killed with SIGKILL at random moments, many
# times over one recording, and resumed each time with --resume, ends with
# the result of an uninterrupted run, byte for byte (the JSON report holds
# every stored number); no kill loses or damages a result stored earlier;
# the checkpoint is dropped when the result is stored; an rr recording and
# --activations refuse --resume.
source "$(dirname "$0")/lib.sh"
: "${MAKE_RECORDING:?MAKE_RECORDING must name tests/make_recording}"

now() { python3 -c "import time; print(time.monotonic())"; }

# Events: enough for a few seconds of analysis (fewer under the sanitizers).
"$MAKE_RECORDING" ref.rec "${RESUME_EVENTS:-8000000}" 7
cp -r ref.rec killed.rec

# The uninterrupted run, and how long it takes.
start=$(now)
run "$TRMS" analyze ref.rec --checkpoint-every 0
expect_status 0
duration=$(python3 -c "print($(now) - $start)")
run "$TRMS" report ref.rec --format json
expect_status 0
sed 's/ref\.rec/REC/g' "$T/out" >want.json

# A result with other options, stored before the kills: it must survive
# every one of them unchanged.
run "$TRMS" analyze killed.rec --cell-size 8 --checkpoint-every 0
expect_status 0
run "$TRMS" report killed.rec --cell-size 8 --line-size 64 --format json
cp "$T/out" earlier.json

# Kill at a random moment (within a quarter of the run's length, plus its
# start), resume, and again, a dozen times. A run that gets to its end
# before its kill must have stored the uninterrupted run's result; the next
# starts over. A tiny checkpoint interval makes checkpoints, and so kills
# during one, frequent.
same_as_uninterrupted() {
    run "$TRMS" report killed.rec --format json
    expect_status 0
    sed 's/killed\.rec/REC/g' "$T/out" >got.json
    cmp -s got.json want.json || fail "$1: the result differs from the uninterrupted one"
}
max_delay=$(python3 -c "print(max(0.3, $duration / 4))")
kills=0 resumed=0 last=0 completions=0
for attempt in $(seq 1 80); do
    "$TRMS" analyze killed.rec --resume --checkpoint-every 0.02 >run.out 2>run.err &
    pid=$!
    sleep "$(python3 -c "import random; print(0.05 + random.random() * $max_delay)")"
    if kill -KILL "$pid" 2>/dev/null; then
        wait "$pid" 2>/dev/null || true
        kills=$((kills + 1))
    else
        wait "$pid" || fail "analyze --resume failed on its own: $(cat run.err)"
        same_as_uninterrupted "run $attempt, which ended on its own"
        completions=$((completions + 1))
    fi
    # What the run said it resumed from: never before the previous checkpoint.
    if grep -q "resuming killed.rec from its checkpoint after event" run.err; then
        at=$(sed -n 's/.*after event \([0-9]*\).*/\1/p' run.err)
        [ "$at" -ge "$last" ] || fail "resumed from event $at, before an earlier checkpoint at $last"
        last=$at
        resumed=$((resumed + 1))
    else
        # Started from the beginning (no checkpoint), or killed before it
        # said anything (while loading the checkpoint).
        [ ! -s run.err ] || fail "unexpected stderr: $(cat run.err)"
    fi
    # No checkpoint left after one was taken: the run stored its result
    # (which drops the checkpoint), whether it exited or was killed first.
    run "$TRMS" info killed.rec --format json
    expect_status 0
    if [ "$last" -gt 0 ] && grep -qF '"checkpoints": []' "$T/out"; then
        same_as_uninterrupted "run $attempt, which stored its result"
        last=0
    fi
    # The store is readable after every kill and the earlier result intact.
    run "$TRMS" report killed.rec --cell-size 8 --line-size 64 --format json
    expect_status 0
    cmp -s "$T/out" earlier.json || fail "a kill changed the earlier result"
    [ "$kills" -ge 12 ] && break
done
[ "$kills" -ge 12 ] || fail "only $kills kills happened"
[ "$resumed" -ge 5 ] || fail "only $resumed runs resumed from a checkpoint"
echo "$kills kills, $resumed runs resumed from a checkpoint, $completions completed on their own"

# The last one, to its end.
run "$TRMS" analyze killed.rec --resume --checkpoint-every 0.02
expect_status 0
same_as_uninterrupted "the last run"
run "$TRMS" report killed.rec --cell-size 8 --line-size 64 --format json
cmp -s "$T/out" earlier.json || fail "the earlier result changed"

# Done: the checkpoint went with the result being stored.
run "$TRMS" info killed.rec --format json
expect_status 0
expect_out_contains '"checkpoints": []'
run "$TRMS" analyze killed.rec --resume
expect_status 0
expect_out_contains "no checkpoint to resume from: analyzed from the start"

# A checkpoint of other options, or of a changed recording, is not used.
"$MAKE_RECORDING" changed.rec 2000000 9
{ timeout -s KILL 0.3 "$TRMS" analyze changed.rec --checkpoint-every 0.01 || true; } >/dev/null 2>&1
run "$TRMS" info changed.rec
if grep -q "^checkpoints" "$T/out"; then
    run "$TRMS" analyze changed.rec --resume --cell-size 16 --checkpoint-every 0
    expect_status 0
    expect_out_contains "no checkpoint to resume from"
    echo "# changed" >>changed.rec/meta
    run "$TRMS" analyze changed.rec --resume --checkpoint-every 0
    expect_status 0
    expect_error_line "trms: warning: cannot resume changed.rec: the checkpoint was taken of another recording"
    expect_out_contains "no checkpoint to resume from"
else
    echo "(no checkpoint within 0.3 s: the checks of other options skipped)"
fi

# Refused: --resume of an rr recording, --activations with checkpoints.
write_slides_trace slides.txt
"$TRMS" import slides.txt -o rr.rec >/dev/null
sed -i 's/^engine .*/engine rr/' rr.rec/meta
grep -q "^engine rr" rr.rec/meta || fail "could not make a stand-in rr recording"
run "$TRMS" analyze rr.rec --resume
expect_status 1
expect_error_line "--resume is not supported for rr recordings"
run "$TRMS" analyze ref.rec --resume --activations a.csv
expect_status 2
run "$TRMS" analyze ref.rec --checkpoint-every soon
expect_status 2
grep -qF -- "--checkpoint-every needs seconds" "$T/err" || fail "$(cat "$T/err")"
echo "test_cli_resume: ok"
