#!/usr/bin/env bash
# Help texts, and usage mistakes: exit status 2 with one line on stderr.
source "$(dirname "$0")/lib.sh"

run "$TRMS"
expect_status 2
run "$TRMS" --help
expect_status 0
for c in record import analyze report export; do
    expect_out_contains "$c"
done
for c in record import analyze report export; do
    run "$TRMS" "$c" --help
    expect_status 0
    expect_out_contains "usage: trms $c"
    run "$TRMS" help "$c"
    expect_status 0
    expect_out_contains "usage: trms $c"
done
run "$TRMS" --version
expect_status 0
expect_out_contains "trms "

run "$TRMS" frobnicate
expect_status 2
expect_error_line "unknown command 'frobnicate'"
run "$TRMS" import
expect_status 2
expect_error_line "trms import: expects one trace file"
run "$TRMS" import x.txt
expect_status 2
expect_error_line "needs -o REC"
run "$TRMS" analyze
expect_status 2
expect_error_line "trms analyze: expects one recording"
run "$TRMS" analyze rec --cell-size 3
expect_status 2
expect_error_line "--cell-size must be a power of two"
run "$TRMS" analyze rec --line-size 0x
expect_status 2
expect_error_line "--line-size must be a power of two"
run "$TRMS" analyze rec --bogus
expect_status 2
run "$TRMS" report rec --format xml
expect_status 2
expect_error_line "unknown format 'xml'"
run "$TRMS" report rec --cell-size 4
expect_status 2
expect_error_line "--cell-size and --line-size go together"
run "$TRMS" record
expect_status 2
expect_error_line "trms record: expects the program to record"
run "$TRMS" record --engine bogus -- /bin/true
expect_status 2
expect_error_line "unknown engine 'bogus' (auto, valgrind, step or rr)"
run "$TRMS" record --seed 3 -- /bin/true
expect_status 2
expect_error_line "--seed, --quantum, --schedule, --depth, --pct-events and --capture-rr are options of --engine step"
run "$TRMS" record --engine step --schedule pct --quantum 5 -- /bin/true
expect_status 2
expect_error_line "--quantum is for the round-robin schedule"
run "$TRMS" record --engine step --depth 2 -- /bin/true
expect_status 2
expect_error_line "--depth, --pct-events and --pct-objects are options of --schedule pct"
run "$TRMS" record --engine step --schedule pct --depth 0 -- /bin/true
expect_status 2
expect_error_line "--depth must be at least 1"
run "$TRMS" record --engine step --schedule fifo -- /bin/true
expect_status 2
expect_error_line "--schedule is round-robin or pct, not 'fifo'"
run "$TRMS" record --engine step --schedule pct --depth 1 --pct-objects no_such_variable -- /bin/true
expect_status 1
expect_error_line "--pct-objects: no variable of"
run "$TRMS" record --engine step --quantum x -- /bin/true
expect_status 2
expect_error_line "--quantum expects a number up to 4294967295, not 'x'"
run "$TRMS" record --bogus -- /bin/true
expect_status 2
run "$TRMS" record --help
expect_out_contains "usage: trms record"
echo "test_cli_usage: ok"

# A mistyped option is said once, in the command's words, with the option
# meant; a missing value is not an unknown option.
run "$TRMS" record --engien valgrind true
expect_status 2
expect_error_line "trms record: unknown option --engien (did you mean --engine?)"
run "$TRMS" report rec --formt=json
expect_status 2
expect_error_line "trms report: unknown option --formt (did you mean --format?)"
run "$TRMS" report rec --top
expect_status 2
expect_error_line "trms report: --top needs a value"
run "$TRMS" record -o
expect_status 2
expect_error_line "trms record: -o needs a value"
run "$TRMS" gc --frobnicate
expect_status 2
expect_error_line "trms gc: unknown option --frobnicate ("
grep -q "did you mean" "$T/err" && fail "a far-off option got a suggestion: $(cat "$T/err")"
run "$TRMS" record -x true
expect_status 2
expect_error_line "trms record: unknown option -x"
# Every command's option table gives each long option a code of its own
# (cli_getopt refuses a table with a shared one, exit 70, before anything
# is parsed): an unknown option is a usage error in each.
for c in record import analyze report export diff info verify gc pack unpack explore causal; do
    run "$TRMS" "$c" --no-such-option
    expect_status 2
    expect_error_line "trms $c: unknown option --no-such-option"
done

# A command that fails says that alone: not which engine it would have used.
mkdir exists.rec
run "$TRMS" record -o exists.rec -- true
expect_status 1
expect_error_line "exists.rec already exists"
# explore refuses a missing program as record and a shell do, leaving nothing.
run "$TRMS" explore -n 2 -- ./nonexistent
expect_status 127
expect_error_line "trms explore: ./nonexistent: no such program"
[ ! -e nonexistent.explore ] || fail "explore left nonexistent.explore behind"
touch not-executable
run "$TRMS" explore -n 2 -- ./not-executable
expect_status 126
expect_error_line "trms explore: ./not-executable: not an executable file"

# The step engine's speed is said alike in `record --help` and on the README
# (which links the bench that measures it).
readme="$(dirname "$0")/../../README.md"
"$TRMS" record --help | tr -s ' \n' ' ' | grep -q "about 20,000 instructions a second" ||
    fail "record --help does not give the step engine's speed as the README does"
grep -q "~20,000 instructions/s (\[bench\]" "$readme" ||
    fail "the README's engines table lost the step engine's measured speed"
