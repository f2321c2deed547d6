#!/usr/bin/env python3
"""bench/causal_compare.py's reading of Coz's profile.coz and its merged
curves, on a hand-written profile whose answer is known: no Coz, no
timing. Usage: test_causal_compare.py SOURCE_DIR"""
import importlib.util
import os
import sys
import tempfile

spec = importlib.util.spec_from_file_location(
    "causal_compare", os.path.join(sys.argv[1], "bench", "causal_compare.py"))
cc = importlib.util.module_from_spec(spec)
spec.loader.exec_module(cc)

failures = 0


def check(what, got, want):
    global failures
    ok = got == want if not isinstance(want, float) else abs(got - want) < 1e-9
    if not ok:
        failures += 1
        print(f"FAIL {what}: got {got!r}, want {want!r}")


# Two runs. The baseline (every line's s=0): 1 s for 100 visits, then
# 1 s for 100: a period of 10 ms. Line a.c:5 at 25% (1 s, 125 visits) and
# 30% (1 s, 125): period 8 ms, a program speedup of 20%, two experiments
# in the 25% point (15-35%). Line a.c:9 at 100%: 1 s, 50 visits: -100%.
# The other progress point and the 10% experiment (no point) are ignored.
RUN1 = """startup\ttime=1
experiment\tselected=/src/a.c:5\tspeedup=0.00\tduration=1000000000\tselected-samples=3
throughput-point\tname=done\tdelta=100
throughput-point\tname=other\tdelta=1
experiment\tselected=/src/a.c:5\tspeedup=0.25\tduration=1000000000\tselected-samples=3
throughput-point\tname=done\tdelta=125
experiment\tselected=/src/a.c:9\tspeedup=0.10\tduration=1000000000\tselected-samples=3
throughput-point\tname=done\tdelta=999
runtime\ttime=5
samples\tlocation=/src/a.c:5\tcount=10
"""
RUN2 = """startup\ttime=1
experiment\tselected=/src/a.c:9\tspeedup=0.00\tduration=1000000000\tselected-samples=3
progress-point\tname=done\ttype=source\tdelta=100
experiment\tselected=/src/a.c:5\tspeedup=0.30\tduration=1000000000\tselected-samples=3
progress-point\tname=done\ttype=source\tdelta=125
experiment\tselected=/src/a.c:9\tspeedup=1.00\tduration=1000000000\tselected-samples=3
progress-point\tname=done\ttype=source\tdelta=50
"""
with tempfile.TemporaryDirectory() as tmp:
    paths = []
    for i, text in enumerate((RUN1, RUN2)):
        paths.append(os.path.join(tmp, f"profile-{i}.coz"))
        with open(paths[-1], "w") as f:
            f.write(text)
    runs = [cc.parse_coz(p) for p in paths]
check("experiments of run 1", len(runs[0]), 3)
check("a delta", runs[0][0][3], {"done": 100, "other": 1})
check("speedup in percent", runs[1][2][1], 100)
every = runs[0] + runs[1]
base = cc.baseline(every, "done")
check("baseline period", base, 1e7)
curves = cc.curves(every, "done", base)
check("a.c:5 at 25%", curves["/src/a.c:5"][25][0], 0.2)
check("a.c:5 at 25%: experiments", curves["/src/a.c:5"][25][1], 2)
check("a.c:5 at 0%", curves["/src/a.c:5"][0][0], 0.0)
check("a.c:9 at 100%", curves["/src/a.c:9"][100][0], -1.0)
check("10% is no point", cc.point_of(10), None)
check("40% is the 50% point", cc.point_of(40), 50)
check("no visits: no value", cc.curves(every, "missing", None)["/src/a.c:5"][25][0], None)
sys.exit(1 if failures else 0)
