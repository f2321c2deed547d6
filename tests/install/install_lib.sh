# Helpers of the install and package tests: what an installed trms must do
# with nothing of the build or source tree, under the prefix P.
source "$(dirname "${BASH_SOURCE[0]}")/../cli/lib.sh"
: "${SOURCE:?SOURCE must name the source tree}" "${PROGRAMS:?PROGRAMS must name the test programs}"

# check_installed P: P/bin/trms finds its tool under P, records and reports a
# program (a copy, outside the trees) opening no file of the source or build
# tree (strace says which it opens), and every man page renders.
check_installed() {
    local p=$1
    run "$p/bin/trms" --version
    expect_status 0
    expect_out_contains "valgrind tool: $p/lib/trms/valgrind (valgrind-"
    cp "$PROGRAMS/array_walk" "$T/array_walk"
    local trace=()
    command -v strace >/dev/null && trace=(strace -f -qq -e trace=%file -o "$T/opened")
    run "${trace[@]}" "$p/bin/trms" record --engine valgrind -o "$T/walk.rec" -- "$T/array_walk" 100
    expect_status 0
    if [ ${#trace[@]} -gt 0 ]; then
        ! grep -F "$SOURCE" "$T/opened" || fail "the installed trms opened files of $SOURCE"
    fi
    run "$p/bin/trms" report "$T/walk.rec" --format csv
    expect_status 0
    expect_out_contains "walk"
    rm -rf "$T/walk.rec"
    local page
    for page in "$p"/share/man/man1/*.1 "$p"/share/man/man5/*.5; do
        run man --warnings -l "$page"
        expect_status 0
        [ ! -s "$T/err" ] || fail "man -l $page: $(cat "$T/err")"
        grep -q "SYNOPSIS\|DESCRIPTION" "$T/out" || fail "man -l $page rendered nothing"
    done
}
