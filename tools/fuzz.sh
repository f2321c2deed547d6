#!/usr/bin/env bash
# Fuzzes the parsers of outside input with libFuzzer, each for a bounded
# time: the text trace parser, the binary trace reader, rr rerun's record
# stream (with the decoder behind it), the `rr dump` parser, and a whole
# recording directory (meta, maps, routine names, trace, result store, an
# archive of `trms pack`) opened by info, report, analyze and pack.
#
#   bash tools/fuzz.sh [SECONDS] [TARGET...]   (default 30 s each, every target)
#
# Builds them with clang (CC=clang, TRMS_FUZZ=ON) into build-fuzz/, starts
# each from its seed corpus (tests/fuzz/corpus/TARGET, never modified: new
# inputs go to build-fuzz/corpus/TARGET, kept between runs) and fails on the
# first crash, leak, timeout or out-of-memory, naming the input. Such an
# input goes to tests/fuzz/regressions/TARGET/ with the fix: the ordinary
# suite replays every file there (fuzz_corpus_TARGET).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-30}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(text_trace trace_reader rerun_stream rr_dump recording)
bash tools/install-deps.sh
CC=${FUZZ_CC:-clang} cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTRMS_FUZZ=ON \
    >/dev/null
if ! cmake --build build-fuzz -j "$(nproc)" --target "${targets[@]/#/fuzz_}" \
        >build-fuzz/build.log 2>&1; then
    grep -E "error|Error" build-fuzz/build.log >&2
    exit 1
fi
for t in "${targets[@]}"; do
    work=build-fuzz/corpus/$t artifacts=build-fuzz/artifacts/$t
    mkdir -p "$work" "$artifacts"
    echo "fuzz: $t for ${seconds} s" >&2
    if ! build-fuzz/fuzz/fuzz_$t -max_total_time="$seconds" -timeout=10 -rss_limit_mb=1024 \
            -max_len=65536 -close_fd_mask=3 -print_final_stats=1 -artifact_prefix="$artifacts/" \
            "$work" "tests/fuzz/corpus/$t" >"build-fuzz/fuzz_$t.log" 2>&1; then
        tail -40 "build-fuzz/fuzz_$t.log" >&2
        echo "fuzz: $t failed on $(ls -t "$artifacts" | head -1 | sed "s|^|$artifacts/|");" \
             "fix it and add that input to tests/fuzz/regressions/$t/" >&2
        exit 1
    fi
    grep -E "stat::number_of_executed_units|stat::new_units_added" "build-fuzz/fuzz_$t.log" |
        tr '\n' ' ' | sed "s/^/fuzz: $t: /; s/$/\n/" >&2
done
