#!/usr/bin/env bash
# Bad input: a malformed trace, a missing or foreign recording, a corrupt or
# truncated event trace, a result store that cannot be opened. Each gives one
# line on stderr and exit status 1, and leaves earlier results intact.
source "$(dirname "$0")/lib.sh"

# A malformed line: FILE:LINE, nothing created, no staging left behind.
printf 'thread 1\ncall f\nread 0x10 four\nreturn\n' >bad.txt
run "$TRMS" import bad.txt -o bad.rec
expect_status 1
expect_error_line "trms: bad.txt:3: size 'four' is not a number (decimal or 0x hex)"
[ ! -e bad.rec ] || fail "a failed import left bad.rec"
[ -z "$(ls -A | grep staging || true)" ] || fail "a failed import left a staging directory"
printf 'thread 1\nreturn\n' >bad2.txt
run "$TRMS" import bad2.txt -o bad.rec
expect_status 1
expect_error_line "bad2.txt:2: return with no pending call in thread 1"
run "$TRMS" import missing.txt -o m.rec
expect_status 1
expect_error_line "missing.txt: cannot open"
[ ! -e m.rec ] || fail "import of a missing file created m.rec"

# A good recording with a result.
write_slides_trace slides.txt
run "$TRMS" import slides.txt -o good.rec
expect_status 0
run "$TRMS" analyze good.rec
expect_status 0
run "$TRMS" report good.rec --format json
expect_status 0
cp "$T/out" before.json

# Importing over an existing recording is refused and changes nothing.
digest=$(tree_digest good.rec)
run "$TRMS" import slides.txt -o good.rec
expect_status 1
expect_error_line "good.rec already exists"
[ "$(tree_digest good.rec)" = "$digest" ] || fail "import touched an existing recording"

# Missing and foreign recordings.
run "$TRMS" analyze nothing.rec
expect_status 1
expect_error_line "nothing.rec: no such recording"
mkdir foreign.rec
run "$TRMS" analyze foreign.rec
expect_status 1
expect_error_line "foreign.rec: not a trms recording"
run "$TRMS" report slides.txt
expect_status 1
expect_error_line "slides.txt: not a recording directory"

# A corrupt event trace: analyze fails, the earlier result stays.
cp -r good.rec corrupt.rec
size=$(stat -c %s corrupt.rec/events.trms)
printf '\x55' | dd of=corrupt.rec/events.trms bs=1 seek=$((size / 2)) conv=notrunc status=none
run "$TRMS" analyze corrupt.rec
expect_status 1
expect_error_line "corrupt recording"
run "$TRMS" report corrupt.rec --format json
expect_status 0
cmp -s "$T/out" <(sed 's/good.rec/corrupt.rec/' before.json) || fail "the earlier result changed"

# A truncated event trace (a recorder that died): the same.
cp -r good.rec truncated.rec
truncate -s $((size - 5)) truncated.rec/events.trms
run "$TRMS" analyze truncated.rec --cell-size 1
expect_status 1
expect_error_line "truncated"
run "$TRMS" report truncated.rec --format json
expect_status 0
cmp -s "$T/out" <(sed 's/good.rec/truncated.rec/' before.json) || fail "the earlier result changed"

# Recordings that are not what they claim: each refused in one line by
# analyze (resume or not) and export, with the earlier result left as it was.
refused_everywhere() { # REC TEXT
    for cmd in "analyze $1" "analyze $1 --resume" "export $1"; do
        run "$TRMS" $cmd
        expect_status 1
        expect_error_line "$2"
    done
    run "$TRMS" report "$1" --format json
    expect_status 0
    cmp -s "$T/out" <(sed "s/good.rec/$1/" before.json) || fail "the earlier result of $1 changed"
}
cp -r good.rec version.rec
printf '\x09' | dd of=version.rec/events.trms bs=1 seek=8 conv=notrunc status=none
refused_everywhere version.rec "event trace format version 9 is not supported (this trms reads versions 1 to 4)"
cp -r good.rec elf.rec
head -c 4096 "$TRMS" >elf.rec/events.trms
refused_everywhere elf.rec "elf.rec/events.trms: not a trms event trace"
cp -r good.rec empty.rec
: >empty.rec/events.trms
refused_everywhere empty.rec "empty.rec/events.trms: empty file, not a trms recording"
cp -r good.rec header.rec
head -c 10 good.rec/events.trms >header.rec/events.trms
refused_everywhere header.rec "header.rec/events.trms: truncated at byte 10"
cp -r good.rec noevents.rec
rm noevents.rec/events.trms
refused_everywhere noevents.rec "noevents.rec/events.trms: cannot open"
# A recording format from the future, or a meta that is not one: nothing
# reads it, info included.
cp -r good.rec future.rec
sed -i '1s/.*/trms-recording 7/' future.rec/meta
for cmd in analyze report info export; do
    run "$TRMS" $cmd future.rec
    expect_status 1
    expect_error_line "future.rec: recording format 7 is not supported (this trms reads format 1)"
done
mkdir other.rec
printf 'ref: refs/heads/main\n' >other.rec/meta
for cmd in analyze report info; do
    run "$TRMS" $cmd other.rec
    expect_status 1
    expect_error_line "other.rec: not a trms recording (bad meta file)"
done
: >other.rec/meta
run "$TRMS" info other.rec
expect_status 1
expect_error_line "other.rec: not a trms recording (empty meta file"

# A result store LMDB cannot read: report and info name the damage in one
# line; analyze sets it aside, untouched, and analyzes into a new store.
cp -r good.rec badstore.rec
head -c 8192 /dev/urandom >badstore.rec/results/data.mdb
digest=$(sha256sum <badstore.rec/results/data.mdb)
run "$TRMS" report badstore.rec
expect_status 1
expect_error_line "badstore.rec/results: the result store is damaged (meta page 0"
run "$TRMS" info badstore.rec
expect_status 1
expect_error_line "the result store is damaged"
run "$TRMS" analyze badstore.rec
expect_status 0
grep -qF "trms: warning: badstore.rec/results: the result store is damaged (meta page 0" "$T/err" ||
    fail "analyze did not say the store was damaged: $(cat "$T/err")"
grep -qF "set aside as badstore.rec/results.damaged" "$T/err" || fail "no set-aside: $(cat "$T/err")"
[ "$(sha256sum <badstore.rec/results.damaged/data.mdb)" = "$digest" ] ||
    fail "the damaged store was modified"
run "$TRMS" report badstore.rec --format json
expect_status 0
cmp -s "$T/out" <(sed 's/good.rec/badstore.rec/' before.json) || fail "the rebuilt result differs"
cp -r good.rec filestore.rec
rm -rf filestore.rec/results
echo "not a directory" >filestore.rec/results
run "$TRMS" analyze filestore.rec
expect_status 1
expect_error_line "filestore.rec/results"

# A routine the result does not have: nothing printed, no file left.
run "$TRMS" report good.rec --routine nosuch -o r.txt
expect_status 1
expect_error_line "good.rec: no routine named 'nosuch'"
[ ! -e r.txt ] || fail "a failed report left its output file"

# Never analyzed.
run "$TRMS" import slides.txt -o fresh.rec
run "$TRMS" report fresh.rec
expect_status 1
expect_error_line "no analysis stored yet"

# An activations file that cannot be written: nothing is stored.
run "$TRMS" analyze fresh.rec --activations no/such/dir/a.csv
expect_status 1
expect_error_line "no/such/dir/a.csv: cannot create"
run "$TRMS" report fresh.rec
expect_status 1
expect_error_line "no analysis stored yet"
# Pending activations past what the 21-bit timestamps hold
# (docs/limitations.md): 690,000 at once analyze, renumbered again and
# again while 1,500,000 more calls come and go; 720,000 stop the analysis
# with one line, and nothing is stored.
deep_trace() {
    python3 - "$1" >"$2" <<'PY'
import sys
out = sys.stdout
out.write("thread 1\n")
out.write("call f\n" * int(sys.argv[1]))
out.write("call g\nreturn\n" * 1500000)
PY
}
deep_trace 690000 deep.txt
run "$TRMS" import deep.txt -o deep.rec
expect_status 0
run "$TRMS" analyze deep.rec --checkpoint-every 0
expect_status 0
deep_trace 720000 deeper.txt
run "$TRMS" import deeper.txt -o deeper.rec
expect_status 0
run "$TRMS" analyze deeper.rec --checkpoint-every 0
expect_status 2
expect_error_line "trms: too many pending activations for the timestamp range"
run "$TRMS" report deeper.rec
expect_status 1
expect_error_line "no analysis stored yet"
echo "test_cli_bad_input: ok"
