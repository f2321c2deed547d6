#!/usr/bin/env bash
# Causal profiles against Coz (issue 26, bench/README.md): Coz run natively
# on coz_ab (Coz's two-thread example) and causal_fork_join, COZ_RUNS times
# each, beside `trms causal --format json` of the same programs as the tests
# build them; bench/causal_compare.py prints the side-by-side table.
#
#   bash bench/causal.sh
#
# Coz's builds: -O2 -gdwarf-4 -gno-variable-location-views -pthread (Coz
# reads no line tables otherwise), force-including bench/causal_coz_hook.h
# (a COZ_PROGRESS after each pthread_join, and main renamed) and linking
# bench/causal_coz_main.c (the program's main run REPEAT times, so that a
# Coz run lasts long enough for its experiments); Coz's source scope is
# tests/programs (the hook's lines are not candidates). The sources are the
# tests'; nothing in them changes. Environment: COZ_RUNS (default 5), BUILD
# (default build), OUT (keep everything there; default a temporary folder,
# removed). Installs nothing: without coz (Debian: coz-profiler) it says so
# and exits 0. Not a test: Coz's curves are noisy and depend on the load.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
BUILD=${BUILD:-build}
COZ_RUNS=${COZ_RUNS:-5}

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

echo "causal bench: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $COZ_RUNS Coz runs per program"
CFLAGS_COZ="-O2 -gdwarf-4 -gno-variable-location-views -pthread"
# program  test binary (as the tests build it)  repeats of main per Coz run
programs=(
    "coz_ab coz_ab 1500"
    "causal_fork_join causal_fork_join_cut0 300"
)
# Coz first (natively, nothing of trms needed), then trms on the tests' builds.
for entry in "${programs[@]}"; do
    read -r name test_binary repeat <<<"$entry"
    dir="$work/$name"
    mkdir -p "$dir"
    gcc $CFLAGS_COZ -I tests/programs -include bench/causal_coz_hook.h \
        -c "tests/programs/$name.c" -o "$dir/program.o"
    gcc $CFLAGS_COZ -DCAUSAL_REPEAT="$repeat" -c bench/causal_coz_main.c -o "$dir/main.o"
    gcc $CFLAGS_COZ "$dir/program.o" "$dir/main.o" -ldl -o "$dir/$name"
    for run in $(seq 1 "$COZ_RUNS"); do
        (cd "$dir" && coz run -s "%/tests/programs/%" -o "profile-$run.coz" --- "./$name" >/dev/null 2>"coz-$run.log")
    done
done

bash tools/build.sh "$BUILD" >/dev/null
TRMS="$ROOT/$BUILD/bin/trms"
for entry in "${programs[@]}"; do
    read -r name test_binary repeat <<<"$entry"
    dir="$work/$name"
    "$TRMS" record -o "$dir/trms.rec" -- "$BUILD/tests/programs/$test_binary" >/dev/null 2>"$dir/record.log"
    "$TRMS" causal "$dir/trms.rec" --format json >"$dir/causal.json"
    python3 bench/causal_compare.py --name "$name" --trms "$dir/causal.json" "$dir"/profile-*.coz
done
