#!/usr/bin/env bash
# `cmake --install` into a temporary prefix, then moved elsewhere (nothing
# may point at where it was installed, or at the build tree): the installed
# trms alone records and reports a program, finds its Valgrind tool, renders
# its man pages, whose options are exactly those of `--help`, completes its
# commands, options and their values in bash, and imports the example of
# trms-trace(5).
source "$(dirname "$0")/install_lib.sh"
: "${BUILD:?BUILD must name the build tree}"
cmake --install "$BUILD" --prefix "$T/installed" >/dev/null
mv "$T/installed" "$T/prefix"
P=$T/prefix
check_installed "$P"

# The pages of the commands say exactly the options their --help says.
options() { { grep -o -- '--[a-z][a-z0-9-]*' || true; } | sort -u; }
for page in "$P"/share/man/man1/trms-*.1; do
    name=${page##*/trms-}
    name=${name%.1}
    "$P/bin/trms" "$name" --help | options >"$T/help-options"
    MANWIDTH=1000 man -l "$page" 2>/dev/null | options >"$T/man-options"
    diff "$T/help-options" "$T/man-options" >"$T/diff" ||
        fail "trms-$name(1) and \`trms $name --help\` differ in options: $(cat "$T/diff")"
    [ -s "$T/help-options" ] || [ "$name" = control ] || [ "$name" = verify ] ||
        fail "trms $name --help lists no options"
done
for name in $("$P/bin/trms" --help | sed -n '/^commands:/,/^$/p' | awk 'NR > 1 && NF {print $1}'); do
    [ -f "$P/share/man/man1/trms-$name.1" ] || fail "no man page for trms $name"
done

# Bash completion: commands, options, and an option's values.
complete_words() {
    bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _trms; echo "${COMPREPLY[*]}"' \
        _ "$P/share/bash-completion/completions/trms" "$@"
}
[ "$(complete_words trms rec)" = record ] || fail "trms rec<TAB>: $(complete_words trms rec)"
[ "$(complete_words trms record --eng)" = --engine ] || fail "--eng<TAB>: $(complete_words trms record --eng)"
[ "$(complete_words trms record --engine '')" = "auto rr step valgrind" ] ||
    fail "--engine <TAB>: $(complete_words trms record --engine '')"
[ "$(complete_words trms report x --format h)" = html ] || fail "--format h<TAB>"

# The example of trms-trace(5) is a trace trms imports: f's second read is
# thread 2's input.
MANWIDTH=1000 man -l "$P/share/man/man5/trms-trace.5" 2>/dev/null |
    sed -n '/^EXAMPLE/,/^SEE ALSO/p' | sed -n '/^ *thread 1/,/^ *return/p' >"$T/example.txt"
run "$P/bin/trms" import "$T/example.txt" -o "$T/example.rec"
expect_status 0
run "$P/bin/trms" analyze "$T/example.rec" --activations "$T/act.csv"
expect_status 0
grep -q '^1,f,' "$T/act.csv" || fail "the example's f: $(cat "$T/act.csv")"
