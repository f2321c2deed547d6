#!/usr/bin/env python3
"""The analysis of bench/growth_gate.sh: series of the corpus's routines of
known growth (tests/e2e/growth_e2e.py's EXPECTED) from the JSON reports in
DIR, drawn and fitted by build/bench/growth-gate, and the outcome of each
candidate gate. usage: growth_gate.py DIR DRAWS"""
import collections
import glob
import json
import os
import re
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
os.environ.setdefault("TRMS", "trms")
os.environ.setdefault("PROGRAMS", ".")
sys.path.insert(0, os.path.join(here, "..", "tests", "e2e"))
from growth_e2e import EXPECTED  # noqa: E402

def default_gate():
    """GROWTH_MIN_SIZES, _CLASSES and _SPAN as report/growth_fit.h has them."""
    text = open(os.path.join(here, "..", "report", "growth_fit.h")).read()
    value = {name: float(re.search(rf"#define GROWTH_MIN_{name} ([0-9.]+)", text).group(1))
             for name in ("SIZES", "CLASSES", "SPAN")}
    return int(value["SIZES"]), int(value["CLASSES"]), value["SPAN"]


DEFAULT = default_gate()
# The gate's criterion (see main): verdicts right this often, in percent.
RIGHT = 70.0


def series_text(reports):
    out = []
    for r_index, report in enumerate(reports):
        for row in report["routines"]:
            want = EXPECTED.get(row["name"])
            metrics = ("rms", "trms")
            if row["name"] == "consume_batch":
                want, metrics = ("n", 0.9, 1.2), ("trms",)  # its RMS stays flat
            if not want:
                continue
            growth, low, high = want
            if isinstance(growth, tuple):
                growth = growth[0]  # the known growth; the others are what a span allows
            for metric in metrics:
                for kind in ("worst", "average"):
                    out.append(f"series {r_index}:{row['name'].split('(')[0]}:{metric}:{kind} "
                               f"{growth.replace(' ', '_')} {low} {high}")
                    for p in row[f"{metric}_points"]:
                        cost = p["max"] if kind == "worst" else p["sum"] / p["calls"]
                        out.append(f"{p['n']} {cost} {p['calls']}")
    return "\n".join(out) + "\n"


def shares(draws):
    c = collections.Counter(o for *_, o in draws)
    total = sum(c.values())
    return total, {k: 100.0 * c[k] / total if total else 0
                   for k in ("right", "both", "flagged", "close", "wrong")}


def main():
    directory, per_cell = sys.argv[1], sys.argv[2]
    reports = [json.load(open(p)) for p in sorted(glob.glob(os.path.join(directory, "*.json")))]
    text = series_text(reports)
    n_series = text.count("series ")
    tool = os.path.join(here, "..", "build", "bench", "growth-gate")
    lines = subprocess.run([tool, per_cell, "1"], input=text, capture_output=True, text=True,
                           check=True).stdout.splitlines()
    draws = []
    for line in lines:
        name, sizes, classes, span, outcome, _verdict = line.split()
        draws.append((name, int(sizes), int(classes), float(span), outcome))
    print(f"{len(draws)} verdicts on subsets of {n_series} series (routines of known growth x "
          f"worst/average x RMS/TRMS, {len(reports)} recordings of the corpus), drawn with "
          f"almost no gate (3 sizes in 3 classes).\n")

    print("**How often the verdict is right, by span and sizes** (% right / both neighbours "
          "named, the right one among them / flagged with '?' / close / wrong, and the number of "
          "verdicts):\n")
    span_edges = [1.5, 2, 3, 4, 6, 8, 16, 64, 1e9]
    size_edges = [(3, 3), (4, 4), (5, 5), (6, 7), (8, 11), (12, 1000)]
    print("| span | " + " | ".join(f"{a}" if a == b else f"{a}-{b}" if b < 1000 else f"{a}+"
                                  for a, b in size_edges) + " sizes |")
    print("|---|" + "---|" * len(size_edges))
    for lo, hi in zip(span_edges, span_edges[1:]):
        cells = []
        for a, b in size_edges:
            cell = [d for d in draws if lo <= d[3] < hi and a <= d[1] <= b]
            total, s = shares(cell)
            cells.append(f"{s['right']:.0f} / {s['both']:.0f} / {s['flagged']:.0f} / "
                         f"{s['close']:.0f} / {s['wrong']:.0f} ({total})" if total >= 30 else "-")
        label = f"{lo:g}x-{hi:g}x" if hi < 1e9 else f"{lo:g}x+"
        print(f"| {label} | " + " | ".join(cells) + " |")

    # The gate, from the bands at its edges: the smallest span from which
    # verdicts are right at least RIGHT of the time in every band of spans
    # (with 5 sizes or more), then the smallest number of sizes in as many
    # classes from which they are, at that span, in every band of sizes.
    print("\n**Bands** (the share of verdicts right, or naming the right growth beside its "
          "neighbour; of the others, flagged with '?', or confident and close or wrong):\n")
    print("| band | verdicts | right % | both % | flagged % | close or wrong % |")
    print("|---|---|---|---|---|---|")

    def band(label, cells):
        total, s = shares(cells)
        print(f"| {label} | {total} | {s['right']:.1f} | {s['both']:.1f} | {s['flagged']:.1f} | "
              f"{s['close'] + s['wrong']:.1f} |")
        return total, s["right"] + s["both"]

    def smallest(bands):
        return next((edge for i, (edge, _, _) in enumerate(bands)
                     if all(right >= RIGHT for _, total, right in bands[i:] if total >= 30)),
                    None)

    span_bands = []
    for lo, hi in zip(span_edges, span_edges[1:]):
        label = f"span {lo:g}x-{hi:g}x" if hi < 1e9 else f"span {lo:g}x+"
        span_bands.append((lo, *band(label + ", 5+ sizes",
                                     [d for d in draws if lo <= d[3] < hi and d[1] >= 5])))
    span = smallest(span_bands)
    if span is None:
        span = DEFAULT[2]
        print(f"\nNo span is right {RIGHT:.0f}% of the time in every band on: the gate's span "
              f"stays {span:g}x.")
    size_bands = []
    for a, b in size_edges:
        label = f"{a}" if a == b else f"{a}-{b}" if b < 1000 else f"{a}+"
        size_bands.append((a, *band(f"{label} sizes and classes, span {span:g}x+",
                                    [d for d in draws if a <= min(d[1], d[2]) <= b and
                                     d[3] >= span])))
    sizes = smallest(size_bands)
    if sizes is None:
        sizes = DEFAULT[0]
        print(f"\nNo number of sizes is right {RIGHT:.0f}% of the time in every band on: the "
              f"gate's stays {sizes}.")
    gate = (sizes, sizes, span)

    def passing(g):
        return shares([d for d in draws if d[1] >= g[0] and d[2] >= g[1] and d[3] >= g[2]])

    total, s = passing(gate)
    print(f"\nChosen on these data: **{gate[0]} sizes in {gate[1]} classes spanning "
          f"{gate[2]:g}x**: the smallest span and number of sizes from which the verdicts are "
          f"right (or both) at least {RIGHT:.0f}% of the time in every band on. Of the {total} "
          f"verdicts it lets through, {s['right']:.1f}% are right, {s['both']:.1f}% name the "
          f"right growth and its neighbour, {s['flagged']:.1f}% are flagged, {s['close']:.1f}% "
          f"close (mostly n for n log n) and {s['wrong']:.1f}% wrong.")
    total, s = passing(DEFAULT)
    print(f"The gate in growth_fit.h, {DEFAULT[0]} sizes in {DEFAULT[1]} classes spanning "
          f"{DEFAULT[2]:g}x: {total} verdicts, {s['right']:.1f}% right, {s['both']:.1f}% both, "
          f"{s['flagged']:.1f}% flagged, {s['close']:.1f}% close, {s['wrong']:.1f}% wrong.")


if __name__ == "__main__":
    main()
