#!/usr/bin/env bash
# Cross-check against the original aprof (docs/aprof-comparison.md): runs
# both on the same programs and compares every routine's RMS and TRMS
# tuples (aprof plain and --drms=yes) by bench/aprof_compare.py.
#
#   bash bench/aprof_compare.sh [PROGRAM...]
#   bash bench/aprof_compare.sh --speed [PROGRAM...]
#
# PROGRAMs: corpus (tests/programs/growth, full sizes: threads, C++, glibc),
# xz (Debian's, -6 -T1 on 128 KB of text), sort (Debian's, 20,000 lines in
# memory), signals (tests/programs/signals); default all. --speed compares
# nothing: it times aprof --drms=yes against trms record + analyze on the
# programs (default corpus and xz), alternating, 3 runs each, and prints
# the medians and the load average.
#
# Both tools run the program with the same environment (env -i, PATH,
# LD_BIND_NOW=1, and the same VALGRIND_LIB string: a copy of trms in a
# scratch folder finds its Valgrind tool next to aprof's), from the same
# folder, so that the two runs are the same execution as far as the
# program can tell. Environment: APROF_LIB (aprof's lib folder, default
# ../aprof-build/lib beside the repository), BUILD (default build), OUT (a
# folder to keep everything in; default a temporary one, removed).
#
# Exit: 0 when every routine's difference is one of the documented ones,
# 1 when one is not (UNEXPLAINED), 77 when aprof is not built (skipped).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
BUILD=${BUILD:-build}
APROF_LIB=${APROF_LIB:-$(cd .. && pwd)/aprof-build/lib}
speed=0
programs=()
for a in "$@"; do
    case "$a" in
    --speed) speed=1 ;;
    corpus | xz | sort | signals) programs+=("$a") ;;
    *) echo "usage: $0 [--speed] [corpus|xz|sort|signals]..." >&2; exit 2 ;;
    esac
done
if [ ${#programs[@]} -eq 0 ]; then
    if [ "$speed" = 1 ]; then programs=(corpus xz); else programs=(corpus xz sort signals); fi
fi

if [ ! -x "$APROF_LIB/aprof-amd64-linux" ]; then
    echo "aprof_compare: skipped: aprof is not built (no $APROF_LIB/aprof-amd64-linux;" \
         "build it with ../shared/peers/aprof/build.sh and set APROF_LIB)" >&2
    exit 77
fi
for tool in valgrind nm readelf python3; do
    command -v "$tool" >/dev/null || { echo "aprof_compare: skipped: no $tool" >&2; exit 77; }
done
bash tools/build.sh "$BUILD" >/dev/null

if [ -n "${OUT:-}" ]; then
    mkdir -p "$OUT"
    work=$(cd "$OUT" && pwd -P)
else
    work=$(mktemp -d /tmp/trms-aprof.XXXXXX)
    trap 'rm -rf "$work"' EXIT
fi

# trms (bin/trms starts lib/trms/trms) looks for its Valgrind tool in
# lib/trms/valgrind beside itself and sets VALGRIND_LIB to that string:
# aprof gets the same string, and its tool beside trms's there.
twin=$work/tools
mkdir -p "$twin/bin" "$twin/lib/trms/valgrind"
cp "$BUILD/bin/trms" "$twin/bin/trms"
cp "$BUILD/lib/trms/trms" "$twin/lib/trms/trms"
for f in "$BUILD"/lib/trms/valgrind/*; do
    ln -sf "$(readlink -f "$f")" "$twin/lib/trms/valgrind/"
done
ln -sf "$(readlink -f "$APROF_LIB/aprof-amd64-linux")" "$twin/lib/trms/valgrind/"
TRMS=$twin/bin/trms
VGLIB=$twin/lib/trms/valgrind
ENV=(env -i PATH=/usr/bin:/bin HOME=/nonexistent LD_BIND_NOW=1)

# Inputs: generated, the same on every machine.
python3 - "$work" <<'PY'
import random, sys
rng = random.Random(14)
words = ["".join(rng.choice("etaoinshrdlucmfwypvbgkjqxz") for _ in range(rng.randint(1, 9)))
         for _ in range(3000)]
with open(f"{sys.argv[1]}/text.txt", "w") as f:
    size = 0
    while size < 128 * 1024:
        line = " ".join(rng.choice(words) for _ in range(rng.randint(3, 14))) + "\n"
        f.write(line)
        size += len(line)
with open(f"{sys.argv[1]}/lines.txt", "w") as f:
    for _ in range(20000):
        f.write(" ".join(rng.choice(words) for _ in range(rng.randint(1, 5))) + "\n")
PY

command_of() {
    case "$1" in
    corpus) echo "$ROOT/$BUILD/tests/programs/growth_corpus" ;;
    xz) echo "/usr/bin/xz -6 -T1 -c $work/text.txt" ;;
    sort) echo "/usr/bin/sort -S 64M --parallel=1 $work/lines.txt" ;;
    signals) echo "$ROOT/$BUILD/tests/programs/signals" ;;
    esac
}

run_aprof() {  # NAME DIR [aprof options]: aprof's reports of NAME into DIR
    local name=$1 dir=$2
    shift 2
    rm -rf "$dir" && mkdir -p "$dir"
    # shellcheck disable=SC2046
    (cd "$work/run" && "${ENV[@]}" VALGRIND_LIB="$VGLIB" valgrind --tool=aprof "$@" \
        --log-dir="$dir" -- $(command_of "$name") >/dev/null 2>"$dir.log")
}

run_trms() {  # NAME REC
    rm -rf "$2"
    # shellcheck disable=SC2046
    (cd "$work/run" && "${ENV[@]}" "$TRMS" record -o "$2" -- $(command_of "$1") \
        >/dev/null 2>"$2.log")
    "$TRMS" analyze "$2" --cell-size 4 >/dev/null
}

mkdir -p "$work/run"
status=0
for name in "${programs[@]}"; do
    [ "$speed" = 0 ] || break
    d=$work/$name
    mkdir -p "$d"
    echo "aprof_compare: $name: $(command_of "$name")" >&2
    run_trms "$name" "$d/trms.rec"
    run_aprof "$name" "$d/aprof-rms"
    run_aprof "$name" "$d/aprof-drms" --drms=yes
    "$TRMS" export "$d/trms.rec" |
        python3 bench/aprof_model.py pass1 --routines "$d/routines" >"$d/calls"
    python3 bench/aprof_compare.py names "$d/trms.rec" "$d/routines" >"$d/names.json"
    rm -rf "$d"/model-*.rec
    "$TRMS" export "$d/trms.rec" |
        python3 bench/aprof_model.py pass2 "$d/calls" "$d/names.json" --trms "$TRMS" \
            --orig "$d/model-orig.rec" --rms "$d/model-rms.rec" --drms "$d/model-drms.rec" \
            --flags "$d/flags.json"
    for m in orig rms drms; do
        "$TRMS" analyze "$d/model-$m.rec" --cell-size 4 >/dev/null
        "$TRMS" report "$d/model-$m.rec" --format json --top 0 --cell-size 4 --line-size 64 \
            >"$d/model-$m.json"
    done
    python3 bench/aprof_compare.py compare \
        --name "$name: $(command_of "$name" | sed "s|$work/||g; s|$ROOT/||g")" \
        --rec "$d/trms.rec" --names "$d/names.json" --orig "$d/model-orig.json" \
        --model-rms "$d/model-rms.json" --model-drms "$d/model-drms.json" \
        --flags "$d/flags.json" --aprof-rms "$d/aprof-rms" --aprof-drms "$d/aprof-drms" ||
        status=1
    echo
done

if [ "$speed" = 1 ]; then
    echo "## Speed: aprof --drms=yes against trms record + analyze (wall seconds)"
    echo
    echo "Load average before: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores."
    echo
    echo "| program | aprof --drms=yes | trms record | trms analyze | trms record + analyze | ratio |"
    echo "|---|---|---|---|---|---|"
    for name in "${programs[@]}"; do
        a=() r=() z=()
        for _ in 1 2 3; do
            t0=$EPOCHREALTIME
            run_aprof "$name" "$work/speed-aprof" --drms=yes
            t1=$EPOCHREALTIME
            rm -rf "$work/speed.rec"
            # shellcheck disable=SC2046
            (cd "$work/run" && "${ENV[@]}" "$TRMS" record -o "$work/speed.rec" -- \
                $(command_of "$name") >/dev/null 2>&1)
            t2=$EPOCHREALTIME
            "$TRMS" analyze "$work/speed.rec" --cell-size 4 >/dev/null
            t3=$EPOCHREALTIME
            a+=("$t0:$t1") r+=("$t1:$t2") z+=("$t2:$t3")
        done
        python3 - "$name" "${a[@]}" "${r[@]}" "${z[@]}" <<'PY'
import statistics, sys
name = sys.argv[1]
v = [float(b) - float(a) for a, b in (x.split(":") for x in sys.argv[2:])]
a, r, z = v[0:3], v[3:6], v[6:9]
both = [x + y for x, y in zip(r, z)]
med = statistics.median
print(f"| {name} | {med(a):.2f} | {med(r):.2f} | {med(z):.2f} | {med(both):.2f} | "
      f"{med(both) / med(a):.2f} |")
PY
    done
    echo
    echo "Load average after: $(cut -d' ' -f1-3 /proc/loadavg)."
fi
exit $status
