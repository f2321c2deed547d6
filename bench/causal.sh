#!/usr/bin/env bash
# Causal profiles against Coz (issue 26, bench/README.md): Coz 0.2.2 run
# natively COZ_RUNS times on each of the causal test programs (coz_ab,
# causal_fork_join, causal_pipeline, causal_mutex) and on pigz, beside
# `trms record` + `trms causal --format json` of the same programs;
# bench/causal_compare.py prints the side-by-side table (top routines by
# each tool, curves at 0, 25, 50, 75, 100%, Coz's spread over the runs).
#
#   bash bench/causal.sh
#
# Coz's builds: -O2 -gdwarf-4 -gno-variable-location-views -pthread (Coz
# reads no line tables otherwise).
# - The test programs: a copy of the test's source whose work constants
#   (the `#define NAME 123L` lines) are multiplied by SCALE (default 10;
#   coz_ab's, shorter, by 5 x SCALE: Coz samples each thread every
#   millisecond, the tests' threads live a fraction of one), with bench/causal_coz_hook.h force-included (a
#   progress point after each join or unlock) and bench/causal_coz_main.c
#   running the program's main for CAUSAL_COZ_SECONDS (default 15).
#   Line numbers stay the tests'. trms records the tests' own builds.
# - pigz: the source in PIGZ_SRC (pigz 2.8, https://github.com/madler/pigz)
#   with zlib's in ZLIB_SRC (https://github.com/madler/zlib) compiled in;
#   without them pigz is skipped, said in one line. A copy, with
#   bench/causal_pigz_progress.patch applied (a progress point per
#   compressed block); Coz compresses PIGZ_COPIES (default 40) copies of
#   3 MB of text with -p 3, trms records the same binary on one copy.
# Coz's runs alternate between the programs (run 1 of each, then run 2...)
# so that the machine's load falls on all alike; the load average before
# each run is kept and reported.
# Environment: COZ_RUNS (default 8), SCALE, CAUSAL_COZ_SECONDS, PIGZ_SRC,
# ZLIB_SRC, PIGZ_COPIES, BUILD (default build), OUT (keep everything there; default a
# temporary folder, removed). Installs nothing: without coz (Debian:
# coz-profiler) it says so and exits 0. Not a test: Coz's curves are noisy
# and depend on the load.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
BUILD=${BUILD:-build}
COZ_RUNS=${COZ_RUNS:-8}
SCALE=${SCALE:-10}
PIGZ_COPIES=${PIGZ_COPIES:-40}
export CAUSAL_COZ_SECONDS=${CAUSAL_COZ_SECONDS:-15}

if ! command -v coz >/dev/null || [ ! -f /usr/include/coz.h ]; then
    echo "causal bench: skipped: coz is not installed (Debian package coz-profiler)"
    exit 0
fi
if [ -n "${OUT:-}" ]; then
    mkdir -p "$OUT"
    work=$(cd "$OUT" && pwd -P)
else
    work=$(mktemp -d /tmp/trms-causal.XXXXXX)
    trap 'rm -rf "$work"' EXIT
fi
load() { cut -d' ' -f1 /proc/loadavg; }

echo "causal bench: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)," \
    "$COZ_RUNS Coz runs per program, SCALE $SCALE, ${CAUSAL_COZ_SECONDS} s a run"
CFLAGS_COZ="-O2 -gdwarf-4 -gno-variable-location-views -pthread"
# program  progress point  test binary (as the tests build it)  scale
programs=(
    "coz_ab JOIN coz_ab $((SCALE * 5))"
    "causal_fork_join JOIN causal_fork_join_cut0 $SCALE"
    "causal_pipeline UNLOCK causal_pipeline_cut0 $SCALE"
    "causal_mutex UNLOCK causal_mutex_cut0 $SCALE"
)
names=()
for entry in "${programs[@]}"; do
    read -r name point test_binary scale <<<"$entry"
    dir="$work/$name"
    mkdir -p "$dir/src"
    # The work constants times the scale, on the same lines.
    sed -E "s/^(#define [A-Z_]+ )([0-9]+L)\$/\1(\2 * $scale)/" "tests/programs/$name.c" >"$dir/src/$name.c"
    cp tests/programs/causal_work.h "$dir/src/"
    gcc $CFLAGS_COZ -I "$dir/src" -DCAUSAL_COZ_AT_$point -include bench/causal_coz_hook.h \
        -c "$dir/src/$name.c" -o "$dir/program.o"
    gcc $CFLAGS_COZ -c bench/causal_coz_main.c -o "$dir/main.o"
    gcc $CFLAGS_COZ "$dir/program.o" "$dir/main.o" -ldl -o "$dir/$name"
    names+=("$name")
done

if [ -f "${PIGZ_SRC:-}/pigz.c" ] && [ -f "${ZLIB_SRC:-}/deflate.c" ]; then
    dir="$work/pigz"
    mkdir -p "$dir"
    cp -r "$PIGZ_SRC" "$dir/src"
    cp -r "$ZLIB_SRC" "$dir/src/zlib"
    (cd "$dir/src" && patch -s -p1 <"$ROOT/bench/causal_pigz_progress.patch")
    # zlib compiled in: Coz sees lines only in what it has line tables for,
    # and the system's libz has none (nor frame pointers to walk out of it).
    (cd "$dir/src" && gcc $CFLAGS_COZ -I zlib -o "$dir/pigz" pigz.c yarn.c try.c \
        zopfli/src/zopfli/*.c \
        zlib/{adler32,compress,crc32,deflate,infback,inffast,inflate,inftrees,trees,uncompr,zutil}.c \
        -lm -ldl)
    # 3 MB of text from a fixed seed (as bench/causal_speed.sh); Coz's input
    # is PIGZ_COPIES copies of it (pigz's blocks are 128 KB: each block's
    # work is alike, whatever the copy), trms's the 3 MB once.
    python3 bench/words_text.py "$dir/input3"
    for _ in $(seq 1 "$PIGZ_COPIES"); do cat "$dir/input3"; done >"$dir/input"
    names+=(pigz)
else
    echo "causal bench: pigz skipped: PIGZ_SRC and ZLIB_SRC must hold the sources of pigz and zlib" \
        "(https://github.com/madler/pigz, https://github.com/madler/zlib)"
fi

# Coz first (natively, nothing of trms needed), the programs alternating.
for run in $(seq 1 "$COZ_RUNS"); do
    for name in "${names[@]}"; do
        dir="$work/$name"
        before=$(load)
        start=$(date +%s.%N)
        if [ "$name" = pigz ]; then
            (cd "$dir" && coz run -s "$dir/src/%" -o "profile-$run.coz" --- ./pigz -p 3 -c input >/dev/null 2>"coz-$run.log")
        else
            (cd "$dir" && coz run -s "$dir/src/%" -o "profile-$run.coz" --- "./$name" >/dev/null 2>"coz-$run.log")
        fi
        end=$(date +%s.%N)
        echo "$run $before $(load) $(awk "BEGIN { printf \"%.1f\", $end - $start }")" >>"$dir/loads"
    done
done

bash tools/build.sh "$BUILD" >/dev/null
TRMS="$ROOT/$BUILD/bin/trms"
for entry in "${programs[@]}"; do
    read -r name point test_binary scale <<<"$entry"
    dir="$work/$name"
    echo "$(load)" >"$dir/trms-load"
    "$TRMS" record -o "$dir/trms.rec" -- "$BUILD/tests/programs/$test_binary" >/dev/null 2>"$dir/record.log"
    "$TRMS" causal "$dir/trms.rec" --format json >"$dir/causal.json"
done
if [ -d "$work/pigz" ]; then
    dir="$work/pigz"
    echo "$(load)" >"$dir/trms-load"
    "$TRMS" record --engine valgrind --no-analysis -o "$dir/trms.rec" -- "$dir/pigz" -p 3 -c "$dir/input3" >/dev/null 2>"$dir/record.log"
    "$TRMS" causal "$dir/trms.rec" --format json >"$dir/causal.json"
fi
for name in "${names[@]}"; do
    dir="$work/$name"
    binary="$dir/$name"
    [ "$name" = pigz ] && binary="$dir/pigz"
    python3 bench/causal_compare.py --name "$name" --trms "$dir/causal.json" --binary "$binary" \
        --loads "$dir/loads" --trms-load "$(cat "$dir/trms-load")" "$dir"/profile-*.coz
done
