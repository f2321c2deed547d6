#!/usr/bin/env python3
"""`trms causal --format coz` and `--format html` on Coz's example
(tests/programs/coz_ab.c, recorded under the Valgrind engine).

coz: every line must follow the grammar of the profile.coz that `coz run`
writes (coz-profiler 0.2.2: a type, then tab-separated key=value fields;
startup, experiment, throughput-point, latency-point, runtime, samples),
with the keys and value types Coz's viewer reads; each experiment is
followed by its point; and the program speedup Coz's viewer computes
from them ((baseline - value) / baseline, value = duration / delta for a
throughput point, difference x duration / arrivals for a latency point)
must be the JSON's program_speedup of the same routine and speedup, for
end-to-end time, a progress point and a latency.

Where node and coz-profiler's viewer are installed, the profile is also
loaded by the viewer's own Profile class (tests/e2e/coz_viewer_check.js),
whose curves must be the JSON's (end-to-end and a progress point: the
viewer negates a latency's gain, its own convention).

html: one page; a plot (svg.plot, 21 points) and a table row per
routine, in the JSON's order, with the JSON's values.

Environment: TRMS (the binary), PROGRAMS (the built test programs)."""
import html.parser
import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_lib import fail, must, record_quietly, run_with_valgrind, trms  # noqa: E402

# Lines of a profile.coz that `coz run` (coz-profiler 0.2.2) wrote: the
# grammar below must take Coz's own output.
VIEWER_JS = "/usr/share/coz-profiler/viewer/js/profile.js"
VIEWER_CHECK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "coz_viewer_check.js")
REAL_COZ = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "coz",
                        "coz_run_profile.coz")

INT = re.compile(r"^[0-9]+$")
SPEEDUP = re.compile(r"^(0|1)\.[0-9]+$")
# type -> {key: kind}; every key required, no other key allowed
GRAMMAR = {
    "startup": {"time": INT},
    "experiment": {"selected": None, "speedup": SPEEDUP, "duration": INT},
    "throughput-point": {"name": None, "delta": INT},
    "latency-point": {"name": None, "arrivals": INT, "departures": INT, "difference": INT},
    "runtime": {"time": INT},
    "samples": {"location": None, "count": INT},
}
# Coz writes selected-samples too; its viewer does not read it.
OPTIONAL = {"experiment": {"selected-samples": INT}}


def parse_coz(text):
    """Lines as (type, {key: value}), checked against GRAMMAR."""
    if not text.endswith("\n"):
        fail("coz: no final newline")
    out = []
    for n, line in enumerate(text.split("\n")[:-1], 1):
        parts = line.split("\t")
        kind = parts[0]
        if kind not in GRAMMAR:
            fail("coz line %d: unknown type %r" % (n, kind))
        fields = {}
        for part in parts[1:]:
            if "=" not in part:
                fail("coz line %d: field %r is not key=value" % (n, part))
            key, value = part.split("=", 1)
            allowed = dict(GRAMMAR[kind], **OPTIONAL.get(kind, {}))
            if key not in allowed or key in fields:
                fail("coz line %d: key %r" % (n, key))
            if allowed[key] is not None and not allowed[key].match(value):
                fail("coz line %d: %s=%r" % (n, key, value))
            if allowed[key] is None and not value:
                fail("coz line %d: empty %s" % (n, key))
            fields[key] = value
        missing = set(GRAMMAR[kind]) - set(fields)
        if missing:
            fail("coz line %d: missing %s" % (n, sorted(missing)))
        out.append((kind, fields))
    return out


def viewer_speedups(lines):
    """{selected: {speedup: program speedup}} as Coz's viewer computes it."""
    if not lines or lines[0][0] != "startup":
        fail("coz: the first line is not startup")
    values = {}
    experiment = None
    for kind, f in lines:
        if kind == "experiment":
            if experiment is not None:
                fail("coz: an experiment without its point")
            experiment = f
        elif kind in ("throughput-point", "latency-point"):
            if experiment is None:
                fail("coz: a point without an experiment")
            d = int(experiment["duration"])
            if kind == "throughput-point":
                value = d / int(f["delta"])
            else:
                value = int(f["difference"]) * d / int(f["arrivals"])
            values.setdefault(experiment["selected"], {})[float(experiment["speedup"])] = value
            experiment = None
    if experiment is not None:
        fail("coz: the last experiment has no point")
    if [k for k, _ in lines].count("runtime") != 1:
        fail("coz: not one runtime line")
    out = {}
    for selected, by_speedup in values.items():
        base = by_speedup[0.0]
        out[selected] = {s: (base - v) / base if base else 0 for s, v in by_speedup.items()}
    return out


def check_coz(rec, query, point_type, point_name):
    profile = json.loads(must("causal", rec, "--format", "json", "--top", "5", *query).stdout)
    lines = parse_coz(must("causal", rec, "--format", "coz", "--top", "5", *query).stdout)
    points = [f for k, f in lines if k.endswith("-point")]
    if not points or any(k != point_type for k, f in lines if k.endswith("-point")):
        fail("coz %s: the points are not all %s" % (query, point_type))
    if any(f["name"] != point_name for f in points):
        fail("coz %s: a point is not named %s" % (query, point_name))
    got = viewer_speedups(lines)
    if len(got) != len(profile["routines"]):
        fail("coz %s: %d routines, JSON %d" % (query, len(got), len(profile["routines"])))
    for r in profile["routines"]:
        curve = got.get(r["name"])
        if curve is None or len(curve) != 21:
            fail("coz %s: %s has not 21 experiments" % (query, r["name"]))
        for p in r["points"]:
            c = curve[round(p["speedup"], 2)]
            if abs(c - p["program_speedup"]) > 1e-4:
                fail("coz %s: %s at %.2f: viewer %.6f, JSON %.6f"
                     % (query, r["name"], p["speedup"], c, p["program_speedup"]))
    if point_type == "throughput-point" and shutil.which("node") and os.path.isfile(VIEWER_JS):
        viewer_check(rec, query, profile)
    print("coz %s: %d lines, %d routines as the JSON says" % (query or "end-to-end", len(lines),
                                                            len(got)))


def viewer_check(rec, query, profile):
    path = os.path.join(os.path.dirname(rec), "profile.coz")
    with open(path, "w") as f:
        f.write(must("causal", rec, "--format", "coz", "--top", "5", *query).stdout)
    r = subprocess.run(["node", VIEWER_CHECK, VIEWER_JS, path], capture_output=True, text=True,
                       timeout=300)
    if r.returncode != 0:
        fail("Coz's viewer: %s" % r.stderr)
    seen = json.loads(r.stdout)
    if seen["warnings"]:
        fail("Coz's viewer warns: %s" % seen["warnings"])
    if sorted(seen["curves"]) != sorted(x["name"] for x in profile["routines"]):
        fail("Coz's viewer plots %s" % sorted(seen["curves"]))
    for x in profile["routines"]:
        got = {round(s, 2): v for s, v in seen["curves"][x["name"]]}
        for p in x["points"]:
            if abs(got[round(p["speedup"], 2)] - p["program_speedup"]) > 1e-4:
                fail("Coz's viewer: %s at %.2f plots %.6f, JSON %.6f"
                     % (x["name"], p["speedup"], got[round(p["speedup"], 2)],
                        p["program_speedup"]))
    print("coz %s: Coz's own viewer plots the JSON's curves" % (query or "end-to-end"))


class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.plots, self.rows, self.cells, self.tags = [], [], None, []
        self.in_title = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append(tag)
        if tag == "svg" and "plot" in a.get("class", "").split():
            self.plots.append(a)
        if tag == "tr":
            self.cells = []
        if tag == "td" and self.cells is not None:
            self.cells.append("")

    def handle_endtag(self, tag):
        if tag == "tr" and self.cells:
            self.rows.append(self.cells)
            self.cells = None

    def handle_data(self, data):
        if self.cells and self.tags and self.tags[-1] == "td":
            self.cells[-1] += data


def check_html(rec):
    profile = json.loads(must("causal", rec, "--format", "json", "--top", "6").stdout)
    page = must("causal", rec, "--format", "html", "--top", "6").stdout
    if not page.startswith("<!DOCTYPE html>") or not page.rstrip().endswith("</html>"):
        fail("html: not a whole page")
    p = Page()
    p.feed(page)
    names = [r["name"] for r in profile["routines"]]
    if len(p.plots) != len(names):
        fail("html: %d plots for %d routines" % (len(p.plots), len(names)))
    for plot in p.plots:
        if plot.get("data-points") != "21":
            fail("html: a plot of %s points" % plot.get("data-points"))
    if [row[1] for row in p.rows] != names:
        fail("html: table rows %s, JSON %s" % ([row[1] for row in p.rows], names))
    for row, r in zip(p.rows, profile["routines"]):
        # The page rounds the exact value to 2 decimals, the JSON keeps 6
        # significant digits: on a ...5 boundary the two round apart.
        shown = float(row[4].rstrip("%")) if row[4].endswith("%") else None
        if shown is None or abs(shown - 100 * r["max_program_speedup"]) > 0.005 + 1e-6:
            fail("html: %s max %s, JSON %r" % (r["name"], row[4], r["max_program_speedup"]))
    if "a" not in names or "trms causal" not in page:
        fail("html: no routine a, or no heading")
    print("html: %d plots and rows as the JSON says" % len(names))


def test(tmp):
    rec = record_quietly(tmp, "coz_ab")
    check_coz(rec, [], "throughput-point", "end-to-end")
    check_coz(rec, ["--progress", "b"], "throughput-point", "b")
    check_coz(rec, ["--latency", "b", "a"], "latency-point", "b..a")
    check_html(rec)
    bad = trms("causal", rec, "--format", "svg")
    if bad.returncode != 2 or "coz or html" not in bad.stderr:
        fail("--format svg: exit %d: %s" % (bad.returncode, bad.stderr))


def main():
    with open(REAL_COZ) as f:
        parse_coz(f.read())
    return run_with_valgrind("trms-causal-formats-", test)


if __name__ == "__main__":
    sys.exit(main())
