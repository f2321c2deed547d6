#!/usr/bin/env bash
# Address-only routines (as `trms record` stores them) are printed by the
# name resolved when the recording was made: text as "name (file:line)",
# JSON and CSV with the bare name (JSON adds file, line and address);
# --routine finds them by name or by address; the activations CSV names
# them too. Without stored names, the address is printed as before.
source "$(dirname "$0")/lib.sh"
: "${PUT_SYMBOLS:?PUT_SYMBOLS must name the put_symbols helper}"

cat >wf.txt <<'TRACE'
thread 1
call 0x401136
read 0x100 4
read 0x104 4
cost 7
call 0x401000
read 0x100 4
cost 3
return
return
call 0x402000
cost 1
return
TRACE
run "$TRMS" import wf.txt -o wf.rec
expect_status 0
run "$TRMS" analyze wf.rec
expect_status 0
run "$TRMS" report wf.rec
expect_status 0
grep -q "^  0x401136 " "$T/out" || fail "unnamed routine is not printed by address"

# Names come in after the analysis (the store keeps the result).
run "$PUT_SYMBOLS" wf.rec 0x401136 str_tolower wf.c 31 0x401000 strlen - 0
expect_status 0
run "$TRMS" report wf.rec
expect_status 0
grep -q "^  str_tolower (wf.c:31) " "$T/out" || fail "text report lacks 'str_tolower (wf.c:31)'"
grep -q "^  strlen " "$T/out" || fail "text report lacks strlen"
grep -q "^  0x402000 " "$T/out" || fail "a routine without a stored name is not printed by address"

run "$TRMS" report wf.rec --routine str_tolower
expect_status 0
expect_out_contains "str_tolower (wf.c:31) in thread 1: 1 calls"
cp "$T/out" by_name.txt
run "$TRMS" report wf.rec --routine 0x401136
expect_status 0
cmp -s "$T/out" by_name.txt || fail "--routine by address differs from --routine by name"
run "$TRMS" report wf.rec --routine 0x402000
expect_status 0
expect_out_contains "0x402000 in thread 1: 1 calls"
# Every form a report prints names it (issue 24): the label, a pattern.
for typed in "str_tolower (wf.c:31)" "str_tolower*" "str_*(wf.c:31)"; do
    run "$TRMS" report wf.rec --routine "$typed"
    expect_status 0
    cmp -s "$T/out" by_name.txt || fail "--routine '$typed' differs from --routine by name"
done
run "$TRMS" report wf.rec --routine "str_tolower (wf.c:32)"
expect_status 1
expect_error_line "no routine named"

run "$TRMS" report wf.rec --format json
expect_status 0
python3 - "$T/out" <<'PY' || fail "JSON report is not as expected"
import json, sys
r = json.load(open(sys.argv[1]))
by = {x["name"]: x for x in r["routines"]}
s = by["str_tolower"]
assert s["file"] == "wf.c" and s["line"] == 31 and s["address"] == "0x401136", s
assert by["strlen"]["address"] == "0x401000" and "file" not in by["strlen"] and "line" not in by["strlen"], by["strlen"]
assert "file" not in by["0x402000"] and by["0x402000"]["address"] == "0x402000"
PY

run "$TRMS" report wf.rec --format csv
expect_status 0
expect_out_contains 'str_tolower,1,rms,'
expect_out_contains 'strlen,1,rms,'
expect_out_contains '0x402000,1,rms,'

# As perf and callgrind print them: a routine no symbol covers by its
# address in the file mapped there, a symbol's source unknown by its file,
# a routine entered past a symbol's start as symbol+offset.
cat >mod.txt <<'TRACE'
thread 1
call 0x48600e0
cost 5
return
call 0x4871000
cost 4
return
call 0x4872010
cost 3
return
TRACE
run "$TRMS" import mod.txt -o mod.rec
expect_status 0
run "$TRMS" analyze mod.rec
expect_status 0
run "$PUT_SYMBOLS" mod.rec -m 0x48600e0 - - 0 0 /usr/lib/liblzma.so.5.4.1 0x190e0 \
    0x4871000 lzma_code - 0 0 /usr/lib/liblzma.so.5.4.1 0x1a000 \
    0x4872010 lzma_end common.c 12 0x10 /usr/lib/liblzma.so.5.4.1 0x1b010
expect_status 0
run "$TRMS" report mod.rec
expect_status 0
grep -q "^  0x190e0 \[liblzma.so.5.4.1\] " "$T/out" || fail "unnamed routine not as module+offset"
grep -q "^  lzma_code \[liblzma.so.5.4.1\] " "$T/out" || fail "symbol without source not with its module"
grep -q "^  lzma_end+0x10 (common.c:12) " "$T/out" || fail "routine past a symbol's start not as symbol+offset"
run "$TRMS" report mod.rec --routine "0x190e0 [liblzma.so.5.4.1]"
expect_status 0
expect_out_contains "0x190e0 [liblzma.so.5.4.1] in thread 1: 1 calls"
# The module offset alone, symbol [module], symbol+offset [module], patterns.
for typed in "0x190e0" "0x190e*" "lzma_code [liblzma.so.5.4.1]" "lzma_code @0x1a000" \
             "lzma_end+0x10 [liblzma.so.5.4.1]" "lzma_end+0x10 (common.c:12)" "0x1b010"; do
    run "$TRMS" report mod.rec --routine "$typed"
    expect_status 0
    [ "$(grep -c " in thread 1: 1 calls" "$T/out")" = 1 ] || fail "--routine '$typed' names $(grep -c " in thread 1: 1 calls" "$T/out") routines"
done
run "$TRMS" report mod.rec --routine "lzma_*"
expect_status 0
[ "$(grep -c " in thread 1: 1 calls" "$T/out")" = 2 ] || fail "--routine 'lzma_*' should name 2 routines"
run "$TRMS" report mod.rec --format json
expect_status 0
python3 - "$T/out" <<'PY' || fail "JSON report lacks modules"
import json, sys
r = json.load(open(sys.argv[1]))
by = {x["name"]: x for x in r["routines"]}
u = by["0x190e0 [liblzma.so.5.4.1]"]
assert u["module"] == "/usr/lib/liblzma.so.5.4.1" and u["module_address"] == "0x190e0", u
assert u["address"] == "0x48600e0", u
assert by["lzma_code"]["module_address"] == "0x1a000" and "file" not in by["lzma_code"]
assert by["lzma_end+0x10"]["file"] == "common.c" and by["lzma_end+0x10"]["module_address"] == "0x1b010"
PY

run "$TRMS" analyze wf.rec --activations act.csv
expect_status 0
grep -q '^1,str_tolower,1,' act.csv || fail "activations CSV lacks str_tolower: $(cat act.csv)"
grep -q '^1,strlen,2,' act.csv || fail "activations CSV lacks strlen"
grep -q '^1,0x402000,1,' act.csv || fail "activations CSV lacks 0x402000"
# Export then import keeps them: `#@symbol` lines carry the names, source
# lines and modules of the routines known by address (a name holding a tab
# or a backslash too), and the reports of the two recordings are the same.
run "$PUT_SYMBOLS" mod.rec -m 0x4871000 'lzma\code	tab' - 0 0 /usr/lib/liblzma.so.5.4.1 0x1a000
expect_status 0
for rec in wf mod; do
    run "$TRMS" export $rec.rec -o $rec.txt
    expect_status 0
    grep -q '^#@symbol 0x' $rec.txt || fail "$rec: export wrote no #@symbol line"
    run "$TRMS" import $rec.txt -o $rec-again.rec
    expect_status 0
    run "$TRMS" analyze $rec-again.rec
    expect_status 0
    for format in text csv json; do
        "$TRMS" report $rec.rec --format $format | sed "s/$rec\.rec/REC/g" >want
        "$TRMS" report $rec-again.rec --format $format | sed "s/$rec-again\.rec/REC/g" >got
        diff want got >d || fail "$rec, $format: export and import changed the report: $(head d)"
    done
done
grep -qF 'lzma\\code\ttab' mod.txt || fail "the tab and backslash were not escaped: $(grep 0x4871000 mod.txt)"
# A reader that knows no annotations takes them for comments; a malformed
# one stops the import at its line.
printf 'thread 1\n#@symbol 0x10\tname\n' >bad.txt
run "$TRMS" import bad.txt -o bad.rec
expect_status 1
expect_error_line "bad.txt:2: #@symbol:"
printf 'thread 1\n#@future whatever\ncall 0x10\nreturn\n' >future.txt
run "$TRMS" import future.txt -o future.rec
expect_status 0
# Two instantiations of one template (and clones of it) read the same once
# shortened: every format tells them apart, and --routine takes the form
# the text prints, demangled names and patterns over them.
cat >cxx.txt <<'TRACE'
thread 1
call 0x5001000
read 0x100 4
cost 5
return
call 0x5002000
read 0x200 4
cost 6
return
TRACE
run "$TRMS" import cxx.txt -o cxx.rec
expect_status 0
run "$TRMS" analyze cxx.rec
expect_status 0
ints="void std::__introsort_loop<int*, long, __gnu_cxx::__ops::_Iter_less_iter>(int*, int*, long, __gnu_cxx::__ops::_Iter_less_iter) [clone .isra.0]"
strings="void std::__introsort_loop<std::string*, long, __gnu_cxx::__ops::_Iter_less_iter>(std::string*, std::string*, long, __gnu_cxx::__ops::_Iter_less_iter) [clone .isra.0]"
run "$PUT_SYMBOLS" cxx.rec -m 0x5001000 "$ints" stl_algo.h 1908 0 /usr/bin/cxxprog 0x29b0 \
    0x5002000 "$strings" stl_algo.h 1908 0 /usr/bin/cxxprog 0x3c40
expect_status 0
run "$TRMS" report cxx.rec
expect_status 0
expect_out_contains "std::__introsort_loop<...>(...).isra.0 @0x29b0"
expect_out_contains "std::__introsort_loop<...>(...).isra.0 @0x3c40"
run "$TRMS" report cxx.rec --routine "std::__introsort_loop<...>(...).isra.0 @0x3c40"
expect_status 0
expect_out_contains "std::string*"
[ "$(grep -c " in thread 1: 1 calls" "$T/out")" = 1 ] || fail "the short form with its address names one routine"
run "$TRMS" report cxx.rec --routine "std::__introsort_loop<...>(...).isra.0"
expect_status 0
[ "$(grep -c " in thread 1: 1 calls" "$T/out")" = 2 ] || fail "the short form names both instantiations"
run "$TRMS" report cxx.rec --routine "$strings"
expect_status 0
[ "$(grep -c " in thread 1: 1 calls" "$T/out")" = 1 ] || fail "the demangled name names one routine"
run "$TRMS" report cxx.rec --routine "*introsort_loop<int*,*"
expect_status 0
expect_out_contains "(int*, int*, long"
[ "$(grep -c " in thread 1: 1 calls" "$T/out")" = 1 ] || fail "a pattern over the demangled name"
run "$TRMS" report cxx.rec --format html -o cxx.html
expect_status 0
grep -q "isra.0 @0x29b0" cxx.html && grep -q "isra.0 @0x3c40" cxx.html || fail "HTML does not tell the instantiations apart"
run "$TRMS" report cxx.rec --format csv
expect_status 0
expect_out_contains "routine,thread,metric,n,calls,min,max,sum,sumsq,self_min,self_max,self_sum,self_sumsq,real_sum,context,growth,exponent,exponent_low,exponent_high,module,module_address"
python3 - "$T/out" "$ints" <<'PY' || fail "CSV lacks the module and its address"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
ints = [r for r in rows if r["routine"] == sys.argv[2]]
assert ints and all(r["module"] == "/usr/bin/cxxprog" and r["module_address"] == "0x29b0"
                    for r in ints), ints
assert all(r["growth"] == "-" and r["exponent"] == "" for r in rows), rows
PY

echo "test_cli_symbols: ok"
