#!/usr/bin/env python3
"""Side by side: Coz's line-level causal profiles (the profile.coz files of
several runs) and `trms causal --format json` of the same program
(bench/causal.sh, bench/README.md).

  causal_compare.py --name NAME --trms TRMS.json --binary BIN
                    [--loads FILE] [--trms-load L] [--top K] PROFILE.coz...

Coz's method: an experiment selects one line and one virtual speedup s
and reports, per progress point, the visits (delta) in its duration (net
of the inserted delays). The program speedup at s is
1 - period(s) / period(0), period = duration / delta. The runs are merged
as Coz's viewer merges profiles: per (line, s) the deltas and durations
are summed. The speedup-0 baseline is pooled over every line's s=0
experiments (no delay is inserted at s=0: they all measure the same
thing, and one line's own are few); a line's own s=0 experiments against
that baseline are its "0%" point, so any value there is noise.
The spread is the range of the same figure of each run alone (against
the same merged baseline, so that the merged value lies within it). Coz picks
s in 5% steps; each point pools the steps around it: 25% is 15-35%, 50%
is 40-60%, 75% is 65-85%, 100% is 90-100%.

Coz's lines are mapped to routines through the binary's DWARF: the
addresses of the line (objdump --dwarf=decodedline), then the function
and its inlining callers at each (addr2line -f -i).
"""
import argparse
import collections
import json
import re
import statistics
import subprocess
import sys

# (label, lowest s, highest s) in percent
POINTS = [(0, 0, 0), (25, 15, 35), (50, 40, 60), (75, 65, 85), (100, 90, 100)]
# Routines that sit above everything in an inclusive profile (and pigz's
# thread launcher, yarn's ignition): listed by trms, left out of its top.
WRAPPERS = {"start_thread", "main", "__libc_start_main", "__libc_start_call_main",
            "_start", "_dl_start", "clone3", "clone", "ignition"}


def parse_coz(path):
    """The experiments of one profile.coz: (line, s percent, duration ns,
    {progress point: delta})."""
    experiments = []
    with open(path) as f:
        for raw in f:
            fields = raw.rstrip("\n").split("\t")
            kv = dict(x.split("=", 1) for x in fields[1:] if "=" in x)
            if fields[0] == "experiment":
                experiments.append((kv["selected"], round(float(kv["speedup"]) * 100),
                                    int(kv["duration"]), {}))
            elif fields[0] in ("throughput-point", "progress-point") and experiments:
                experiments[-1][3][kv["name"]] = int(kv["delta"])
    return experiments


def point_of(s):
    return next((label for label, lo, hi in POINTS if lo <= s <= hi), None)


def baseline(experiments, progress):
    """The period of the progress point without any delay: all the s=0
    experiments of every line, merged."""
    delta = sum(d.get(progress, 0) for _, s, _, d in experiments if s == 0)
    duration = sum(t for _, s, t, _ in experiments if s == 0)
    return duration / delta if delta else None


def curves(experiments, progress, base_period):
    """{line: {point label: (program speedup or None, experiments)}} of
    experiments merged by summing, against the baseline period."""
    cells = collections.defaultdict(lambda: [0, 0, 0])  # (line, label) -> delta, duration, n
    for line, s, duration, deltas in experiments:
        delta = deltas.get(progress, 0)
        label = point_of(s)
        if label is None:
            continue
        cell = cells[(line, label)]
        cell[0] += delta
        cell[1] += duration
        cell[2] += 1
    out = collections.defaultdict(dict)
    for (line, label), (delta, duration, n) in cells.items():
        value = None
        if base_period and delta:
            value = 1 - (duration / delta) / base_period
        out[line][label] = (value, n)
    return out


class Lines:
    """FILE:LINE -> (innermost functions, their inlining callers), from the
    DWARF line table and addr2line."""

    def __init__(self, binary):
        self.binary = binary
        self.addresses = collections.defaultdict(set)  # (basename, line) -> addresses
        try:
            text = subprocess.run(["objdump", "--dwarf=decodedline", binary], check=True,
                                  capture_output=True, text=True).stdout
        except (OSError, subprocess.CalledProcessError):
            text = ""
        for row in text.split("\n"):
            m = re.match(r"^(\S+)\s+(\d+)\s+(0x[0-9a-f]+)", row)
            if m:
                self.addresses[(m.group(1), int(m.group(2)))].add(m.group(3))
        self.cache = {}

    def functions(self, location):
        if location in self.cache:
            return self.cache[location]
        path, _, line = location.rpartition(":")
        addresses = sorted(self.addresses.get((path.split("/")[-1], int(line)), ()))
        inner, outer = [], []
        if addresses:
            out = subprocess.run(["addr2line", "-f", "-i", "-e", self.binary] + addresses,
                                 capture_output=True, text=True).stdout.split("\n")
            # Per address: function, location; inlined frames follow, the
            # outermost last. addr2line -i gives no separator between
            # addresses, so compare each frame's location with the line.
            frames = [(out[i], out[i + 1]) for i in range(0, len(out) - 1, 2)]
            for function, where in frames:
                here = where.split(" ")[0]
                if here.split("/")[-1] == f"{path.split('/')[-1]}:{line}":
                    if function not in inner:
                        inner.append(function)
                elif function not in outer and function not in inner:
                    outer.append(function)
        outer = [f for f in outer if f not in inner]
        self.cache[location] = (inner, outer)
        return inner, outer


def trms_curve(routine):
    points = {round(p["speedup"] * 100): p["program_speedup"] for p in routine["points"]}
    return {label: points.get(label) for label, _, _ in POINTS}


def pct(v):
    return "-" if v is None else f"{v * 100:+.1f}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--name", required=True)
    ap.add_argument("--trms", required=True)
    ap.add_argument("--binary", required=True, help="the binary Coz ran (for its DWARF)")
    ap.add_argument("--loads", help="one line a run: run, load before, load after, wall s")
    ap.add_argument("--trms-load", help="the load average when trms recorded")
    ap.add_argument("--top", type=int, default=4)
    ap.add_argument("profiles", nargs="+")
    args = ap.parse_args()

    runs = [parse_coz(p) for p in args.profiles]
    every = [e for run in runs for e in run]
    totals = collections.Counter()
    for _, _, _, deltas in every:
        totals.update(deltas)
    progress = totals.most_common(1)[0][0] if totals else None
    with open(args.trms) as f:
        trms = json.load(f)
    routines = {r["name"]: r for r in trms["routines"]}

    loads = ""
    if args.loads:
        with open(args.loads) as f:
            rows = [line.split() for line in f if line.strip()]
        before = [float(r[1]) for r in rows]
        walls = [float(r[3]) for r in rows]
        loads = (f"; load average before each run median {statistics.median(before):.1f}"
                 f" ({min(before):.1f}-{max(before):.1f}), wall median {statistics.median(walls):.0f} s")
    print(f"{args.name}: Coz {len(runs)} runs, {len(every)} experiments, progress point"
          f" {progress}{loads}; trms: {trms.get('progress', 'end-to-end')}"
          + (f", recorded at load {args.trms_load}" if args.trms_load else ""))
    if progress is None:
        print("  Coz: no progress-point visits in any experiment: no curve")

    base_period = baseline(every, progress) if progress else None
    merged = curves(every, progress, base_period) if progress else {}
    per_run = [curves(run, progress, base_period) for run in runs] if progress else []
    lines = Lines(args.binary)

    # Coz's top lines: area under the merged curve (the mean of its 25-100%
    # points), among lines with data at 3 of those 4 points and 5
    # experiments at least (like Coz's viewer, which hides lines with too
    # few points: one experiment alone is mostly noise).
    def area(curve):
        cells = [curve[label] for label, _, _ in POINTS[1:]
                 if label in curve and curve[label][0] is not None]
        if len(cells) < 3 or sum(n for _, n in cells) < 5:
            return None
        return sum(v for v, _ in cells) / len(cells)
    ranked = sorted(((area(c), line) for line, c in merged.items() if area(c) is not None),
                    reverse=True)
    coz_top = [line for _, line in ranked[: args.top]]
    trms_top = [r["name"] for r in sorted(trms["routines"], key=lambda r: -r["max_program_speedup"])
                if r["name"].split("@")[0] not in WRAPPERS][: args.top]
    print(f"  top by Coz (lines, by area under the curve): "
          + (", ".join(f"{line.split('/')[-1]} ({'/'.join(lines.functions(line)[0]) or '?'})"
                       for line in coz_top) or "none with data at enough points"))
    left_out = ", ".join(sorted(n for n in routines if n.split("@")[0] in WRAPPERS))
    print(f"  top by trms (routines by largest gain{', ' + left_out + ' left out' if left_out else ''}):"
          f" {', '.join(trms_top)}")

    # One block per routine of either top list; its Coz line is the most
    # experimented line whose function (or inlining caller) it is.
    def coz_line_of(routine):
        best = None
        for line, c in merged.items():
            inner, outer = lines.functions(line)
            if routine in inner or routine in outer:
                n = sum(n for _, n in c.values())
                if best is None or n > best[0]:
                    best = (n, line)
        return best[1] if best else None
    # Blocks: routine -> its Coz lines (Coz's top lines under the routine
    # they are in; for trms's top routines, their most experimented line).
    blocks = {}
    for line in coz_top:
        inner, outer = lines.functions(line)
        name = next((f for f in inner + outer if f in routines), inner[0] if inner else line)
        blocks.setdefault(name, []).append(line)
    for name in trms_top:
        if name not in blocks:
            blocks[name] = [coz_line_of(name)]

    width = 23
    print(f"  {'program speedup %, routine/line speedup:':<46}"
          + "".join(f"{str(label) + '%':>{width}}" for label, _, _ in POINTS))
    print("  (Coz cells: the merged runs' value [lowest,highest of the runs alone] n experiments)")
    for name, block_lines in blocks.items():
        r = routines.get(name)
        t = trms_curve(r) if r else {}
        label = f"trms {name}" + (f" [{r['module']}]" if r else " (not a trms routine)")
        print(f"  {label:<46}" + "".join(f"{pct(t.get(p)):>{width}}" for p, _, _ in POINTS))
        for line in block_lines:
            if line is None:
                print("    Coz: no experiment on a line of it")
                continue
            inner, outer = lines.functions(line)
            where = "/".join(inner) + (f" in {', '.join(outer)}" if outer else "")
            cells = []
            for p, _, _ in POINTS:
                value, n = merged[line].get(p, (None, 0))
                runs_values = [c[line][p][0] for c in per_run
                               if line in c and p in c[line] and c[line][p][0] is not None]
                spread = (f" [{min(runs_values) * 100:+.0f},{max(runs_values) * 100:+.0f}]"
                          if runs_values else "")
                cells.append(f"{pct(value)}{spread} n{n}")
            label = f"  Coz {line.split('/')[-1]} ({where})"
            print(f"  {label:<46}" + "".join(f" {c:>{width - 1}}" for c in cells))
    return 0


if __name__ == "__main__":
    sys.exit(main())
