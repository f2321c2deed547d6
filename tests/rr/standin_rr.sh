#!/usr/bin/env bash
# A stand-in for rr, for tests only (put on PATH by the test that uses it):
# `rr dump ...` prints $RR_STANDIN/dump.txt, `rr rerun ...` writes
# $RR_STANDIN/rerun.raw (or the trace directory's own, when the trace was
# made by the stand-in's `rr record`), and each logs its arguments to
# $RR_STANDIN/calls. `rr record -n [--chaos] -o DIR -- PROG ARGS` records
# the program with trms's step engine (trms at $TRMS) capturing rr's view
# of the run into DIR, with a random seed for --chaos, and exits as the
# program did.
# RR_STANDIN_FAIL=rerun|dump makes that command fail as rr would, after
# printing RR_STANDIN_RECORDS records (default 0) for rerun;
# RR_STANDIN_FAIL=fields makes rerun refuse the fields, as an rr older
# than 5.6 does.
set -euo pipefail
: "${RR_STANDIN:?}"
echo "$*" >>"$RR_STANDIN/calls"
# The data of the trace directory (the last argument), if the stand-in
# recorded it.
data="$RR_STANDIN"
last="${*: -1}"
if [ -f "$last/dump.txt" ]; then data="$last"; fi
case "${1:-}" in
record)
    shift
    seed=0 out=
    while [ $# -gt 0 ]; do
        case "$1" in
        -n) shift ;;
        --chaos) seed=$((RANDOM * 32768 + RANDOM + 1)); shift ;;
        -o) out=$2; shift 2 ;;
        --) shift; break ;;
        *) echo "rr stand-in: unexpected record option: $1" >&2; exit 2 ;;
        esac
    done
    mkdir -p "$out"
    status=0
    "${TRMS:?}" record --engine step --seed "$seed" --quantum 50 --capture-rr "$out" \
        -o "$out/step.rec" -- "$@" || status=$?
    [ -f "$out/dump.txt" ] || exit 1
    echo "$seed" >"$out/chaos-seed"
    echo 85 >"$out/version"
    exit "$status" ;;
--version) echo "rr version 5.6.0" ;;
dump)
    if [ "${RR_STANDIN_FAIL:-}" = dump ]; then
        echo "[FATAL src/TraceStream.cc:1134:TraceReader()] Trace was recorded by incompatible rr version" >&2
        exit 1
    fi
    cat "$data/dump.txt" ;;
rerun)
    if [ "${RR_STANDIN_FAIL:-}" = fields ]; then
        # An rr whose rerun does not know a field trms asks for (before 5.6).
        echo "Unknown register 'fsbase'" >&2
        printf 'rr rerun [OPTION]... [<trace-dir>]\n  -e, --trace-end=<EVENT>  ...\n' >&2
        exit 1
    fi
    if [ "${RR_STANDIN_FAIL:-}" = rerun ]; then
        head -c $((181 * ${RR_STANDIN_RECORDS:-0})) "$data/rerun.raw"
        echo "[FATAL src/PerfCounters.cc:224:start_counter()] Unable to open performance counter" >&2
        kill -ABRT $$
    fi
    if [ -n "${RR_STANDIN_CUT:-}" ]; then
        head -c "$RR_STANDIN_CUT" "$data/rerun.raw"
    else
        cat "$data/rerun.raw"
    fi ;;
*) echo "rr stand-in: unexpected command: $*" >&2; exit 2 ;;
esac
