# Helpers of the CLI tests. Each test script sources this file; TRMS names
# the binary under test and every test works in a fresh temporary directory.
set -euo pipefail
: "${TRMS:?TRMS must name the trms binary}"
T=$(mktemp -d /tmp/trms-cli-test.XXXXXX)
trap 'rm -rf "$T"' EXIT
cd "$T"

fail() {
    echo "FAIL (${BASH_SOURCE[1]##*/}:${BASH_LINENO[0]}): $*" >&2
    exit 1
}

# run CMD...: runs CMD, keeping its exit status in $status and its output in
# $T/out and $T/err.
run() {
    set +e
    "$@" >"$T/out" 2>"$T/err"
    status=$?
    set -e
}

expect_status() {
    [ "$status" -eq "$1" ] || fail "expected exit status $1, got $status; stderr: $(cat "$T/err")"
}

# The failure is one line on stderr that contains TEXT (a fixed string).
expect_error_line() {
    [ "$(wc -l <"$T/err")" -eq 1 ] || fail "stderr is not one line: $(cat "$T/err")"
    grep -qF -- "$1" "$T/err" || fail "stderr lacks '$1': $(cat "$T/err")"
}

expect_out_contains() {
    grep -qF -- "$1" "$T/out" || fail "stdout lacks '$1': $(head -c 2000 "$T/out")"
}

# A digest of every file under a directory, to show it was left untouched.
tree_digest() {
    (cd "$1" && find . -type f -print0 | sort -z | xargs -0 sha256sum) | sha256sum
}

# The RMS example of the seed slides, as a text trace.
write_slides_trace() {
    cat >"$1" <<'TRACE'
# f reads x, writes y, calls g (reads x, y, z, writes w), then reads w
thread 1
call f
read 0x100 4
write 0x104 4
cost 3
call g
read 0x100 4
read 0x104 4
read 0x108 4
write 0x10c 4
cost 10
return
read 0x10c 4
cost 2
return
TRACE
}
