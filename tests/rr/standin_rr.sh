#!/usr/bin/env bash
# A stand-in for rr, for tests only (put on PATH by the test that uses it):
# `rr dump ...` prints $RR_STANDIN/dump.txt, `rr rerun ...` writes
# $RR_STANDIN/rerun.raw, and each logs its arguments to $RR_STANDIN/calls.
# RR_STANDIN_FAIL=rerun|dump makes that command fail as rr would, after
# printing RR_STANDIN_RECORDS records (default 0) for rerun;
# RR_STANDIN_FAIL=fields makes rerun refuse the fields, as an rr older
# than 5.6 does.
set -euo pipefail
: "${RR_STANDIN:?}"
echo "$*" >>"$RR_STANDIN/calls"
case "${1:-}" in
--version) echo "rr version 5.6.0" ;;
dump)
    if [ "${RR_STANDIN_FAIL:-}" = dump ]; then
        echo "[FATAL src/TraceStream.cc:1134:TraceReader()] Trace was recorded by incompatible rr version" >&2
        exit 1
    fi
    cat "$RR_STANDIN/dump.txt" ;;
rerun)
    if [ "${RR_STANDIN_FAIL:-}" = fields ]; then
        # An rr whose rerun does not know a field trms asks for (before 5.6).
        echo "Unknown register 'fsbase'" >&2
        printf 'rr rerun [OPTION]... [<trace-dir>]\n  -e, --trace-end=<EVENT>  ...\n' >&2
        exit 1
    fi
    if [ "${RR_STANDIN_FAIL:-}" = rerun ]; then
        head -c $((181 * ${RR_STANDIN_RECORDS:-0})) "$RR_STANDIN/rerun.raw"
        echo "[FATAL src/PerfCounters.cc:224:start_counter()] Unable to open performance counter" >&2
        kill -ABRT $$
    fi
    if [ -n "${RR_STANDIN_CUT:-}" ]; then
        head -c "$RR_STANDIN_CUT" "$RR_STANDIN/rerun.raw"
    else
        cat "$RR_STANDIN/rerun.raw"
    fi ;;
*) echo "rr stand-in: unexpected command: $*" >&2; exit 2 ;;
esac
