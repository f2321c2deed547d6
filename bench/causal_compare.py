#!/usr/bin/env python3
"""Side by side: Coz's line-level causal profiles (profile.coz files of
several runs) and `trms causal --format json` of the same program
(bench/causal.sh).

  causal_compare.py --name NAME --trms TRMS.json [--top K] PROFILE.coz...

Coz's method: an experiment selects one line and one virtual speedup s and
reports, per progress point, the visits (delta) in its duration. The
program speedup of the line at s is 1 - period(s) / period(0), period =
duration / delta, against the speedup-0 baseline of the same progress
point. The runs are pooled: per (line, s) the deltas and durations are
summed. The speedup-0 baseline is pooled over every line's s=0
experiments (a line's own s=0 experiments are too few in a short run).
The virtual speedups are also pooled in quarters (5-25%, 30-50%, 55-75%,
80-100%), each compared with the mean of trms's points in the same
quarter for the routine that contains the line.
"""
import argparse
import collections
import json
import re
import sys

QUARTERS = [(5, 25), (30, 50), (55, 75), (80, 100)]


def parse_coz(paths):
    """(line, speedup percent) -> [delta, duration ns, experiments], per point."""
    cells = collections.defaultdict(lambda: collections.defaultdict(lambda: [0, 0, 0]))
    experiments = 0
    for path in paths:
        current = None
        with open(path) as f:
            for raw in f:
                fields = raw.rstrip("\n").split("\t")
                kv = dict(x.split("=", 1) for x in fields[1:] if "=" in x)
                if fields[0] == "experiment":
                    current = (kv["selected"], round(float(kv["speedup"]) * 100),
                               int(kv["duration"]))
                    experiments += 1
                elif fields[0] in ("throughput-point", "progress-point") and current:
                    line, s, duration = current
                    cell = cells[kv["name"]][(line, s)]
                    cell[0] += int(kv["delta"])
                    cell[1] += duration
                    cell[2] += 1
    return cells, experiments


def routine_of(location, cache={}):
    """The function whose body holds FILE:LINE, from the source text: the
    last line before it that opens a function definition at column 0."""
    path, _, line = location.rpartition(":")
    if path not in cache:
        try:
            with open(path) as f:
                cache[path] = f.read().split("\n")
        except OSError:
            cache[path] = None
    lines = cache[path]
    if lines is None:
        return "?"
    for text in reversed(lines[: int(line)]):
        m = re.match(r"^[A-Za-z_].*?\b(\w+)\s*\([^;]*$", text)
        if m and not text.startswith(("#", "typedef", "struct")):
            return m.group(1)
    return "?"


def coz_curves(point_cells):
    baseline = [0, 0]
    for (line, s), (delta, duration, _) in point_cells.items():
        if s == 0:
            baseline[0] += delta
            baseline[1] += duration
    if baseline[0] == 0:
        return None, {}
    base_period = baseline[1] / baseline[0]
    curves = collections.defaultdict(dict)
    counts = collections.Counter()
    for (line, s), (delta, duration, n) in point_cells.items():
        counts[line] += n
        if s == 0 or delta == 0:
            continue
        q = next((i for i, (lo, hi) in enumerate(QUARTERS) if lo <= s <= hi), None)
        acc = curves[line].setdefault(q, [0, 0])
        acc[0] += delta
        acc[1] += duration
    out = {}
    for line, quarters in curves.items():
        out[line] = ({q: 1 - (dur / d) / base_period for q, (d, dur) in quarters.items()},
                     counts[line])
    return base_period, out


def trms_quarters(routine):
    points = {round(p["speedup"] * 100): p["program_speedup"] for p in routine["points"]}
    out = {}
    for q, (lo, hi) in enumerate(QUARTERS):
        vals = [v for s, v in points.items() if lo <= s <= hi]
        out[q] = sum(vals) / len(vals) if vals else None
    return out


def pct(v):
    return "     -" if v is None else f"{v * 100:+6.1f}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--name", required=True)
    ap.add_argument("--trms", required=True)
    ap.add_argument("--top", type=int, default=4)
    ap.add_argument("profiles", nargs="+")
    args = ap.parse_args()
    cells, experiments = parse_coz(args.profiles)
    with open(args.trms) as f:
        trms = {r["name"]: r for r in json.load(f)["routines"]}
    head = " ".join(f"{lo:>3}-{hi}%" for lo, hi in QUARTERS)
    print(f"{args.name}: {len(args.profiles)} Coz runs, {experiments} experiments")
    if not cells:
        print("  Coz: no progress-point data (no usable experiments)")
    for point, point_cells in cells.items():
        base_period, curves = coz_curves(point_cells)
        if base_period is None:
            print(f"  Coz point {point}: no speedup-0 baseline; no curve")
            continue
        # Coz picks lines by where samples fall: the most experimented lines
        # are the ones it has data for (ranking by a noisy maximum would
        # pick the noise).
        ranked = sorted(curves.items(), key=lambda kv: -kv[1][1])
        print(f"  progress point {point} (Coz) vs end-to-end (trms); program speedup,"
              " mean over each quarter of virtual speedups")
        print(f"  {'line':<28} {'routine':<8} {'exps':>4} | Coz {head} | trms {head}")
        for line, (quarters, n) in ranked[: args.top]:
            routine = routine_of(line)
            short = "/".join(line.split("/")[-1:])
            t = trms_quarters(trms[routine]) if routine in trms else {}
            coz_cells = "  ".join(pct(quarters.get(q)) for q in range(4))
            trms_cells = "  ".join(pct(t.get(q)) for q in range(4)) if t else "  not a trms routine (inlined): see the list below"
            print(f"  {short:<28} {routine:<8} {n:>4} | {coz_cells} | {trms_cells}")
    print(f"  trms causal, top routines by max_program_speedup:")
    for r in sorted(trms.values(), key=lambda r: -r["max_program_speedup"])[: args.top]:
        t = trms_quarters(r)
        print(f"    {r['name']:<24} max {r['max_program_speedup'] * 100:+6.1f}%  quarters "
              + "  ".join(pct(t.get(q)) for q in range(4)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
